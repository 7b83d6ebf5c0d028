// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the SFrame core on real sections.
 *
 *   test-core FIXTURE...    FIXTURE is the path of a fixture ELF file X
 *                           (X.sframe, X.meta, X.rows.txt beside it) or of
 *                           a raw section X (X.meta, X.rows.txt beside it)
 *   test-core --malformed FIXTURE...   only the malformed-input tests
 *
 * For every fixture:
 *  - rows: open + validate, then at every PC of every function the FDE-
 *    directed lookup and (sorted sections) the global lookup return the
 *    rule X.rows.txt records for that PC;
 *  - fields: changing the bytes sframe_fde_field() and sframe_fre_field()
 *    name changes that field of the decoded FDE, FRE or rule, and no other;
 *  - reencode: the section re-encoded by encode.c in other versions, byte
 *    orders, FRE widths, word sizes, FDE orders and auxiliary-header sizes
 *    gives the same rule at every PC;
 *  - malformed: truncation at every byte and every single-bit flip give
 *    errors or valid answers, never a crash (run under ASan/UBSan).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sframe/sframe.h>
#include "harness.h"
#include "encode.h"
#include "../lib/layout.h"
#include "../lib/elf.h"

struct exp_loc {
	int kind, deref, reg;
	long offset;
	int padding, fixed;
};

#define LOC(k, d, r, o) ((struct exp_loc){ .kind = (k), .deref = (d), .reg = (r), .offset = (o) })

struct exp_fre {
	unsigned int start;
	int outermost, mangled, base_sp, have_base;
	struct exp_loc cfa, fp, ra;
};

struct exp_fde {
	uint64_t pc;
	unsigned int size, nfres, fre_type, pc_type, fde_type, key, signal, rep;
	struct exp_fre *fres;
};

struct fixture {
	const char *path;
	uint8_t *data;
	size_t size;
	uint64_t addr;
	struct exp_fde *fdes;
	unsigned int nfdes;
};

static int parse_loc(const char *s, struct exp_loc *l, int fixed_ra, int is_ra,
		     int flex)
{
	char *end;
	int reg;
	long off;

	memset(l, 0, sizeof(*l));
	l->kind = SFRAME_LOC_SAME;
	if (!strcmp(s, "u"))
		return 0;
	if (!strcmp(s, "U(pad)")) {
		/* FLEX padding is "no rule": the fixed slot where there is one. */
		if (is_ra && flex && fixed_ra)
			*l = LOC(SFRAME_LOC_CFA, 1, 0, fixed_ra);
		l->padding = 1;
		return 0;
	}
	if (!strcmp(s, "fixed")) {
		*l = LOC(SFRAME_LOC_CFA, 1, 0, fixed_ra);
		l->fixed = 1;
		return 0;
	}
	if (sscanf(s, "*(cfa%ld)", &off) == 1) {
		*l = LOC(SFRAME_LOC_CFA, 1, 0, off);
		return 0;
	}
	if (sscanf(s, "*(r%d%ld)", &reg, &off) == 2) {
		*l = LOC(SFRAME_LOC_REG, 1, reg, off);
		return 0;
	}
	if (sscanf(s, "r%d%ld", &reg, &off) == 2) {
		*l = LOC(SFRAME_LOC_REG, 0, reg, off);
		return 0;
	}
	if (sscanf(s, "r%d", &reg) == 1) {
		*l = LOC(SFRAME_LOC_REG, 0, reg, 0);
		return 0;
	}
	off = strtol(s, &end, 10);
	if (*s && !*end) {
		/* DEFAULT rows: a stack slot; RA 0 is padding. */
		if (is_ra && off == 0 && !flex) {
			l->padding = 1;
			return 0;
		}
		*l = LOC(SFRAME_LOC_CFA, 1, 0, off);
		if (is_ra && fixed_ra && off == fixed_ra)
			l->fixed = 1;
		return 0;
	}
	return -1;
}

#define FDE_LINE "FDE %*u pc=0x%" SCNx64 " size=%u nfres=%u fre_type=%u " \
		 "pc_type=%u fde_type=%u pauth_key=%u signal=%u rep=%u"

static char *field(char *line, const char *key)
{
	char *p = strstr(line, key);
	static char buf[128];
	size_t n;

	if (!p)
		return NULL;
	p += strlen(key);
	n = strcspn(p, " \t\r\n");
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
	return buf;
}

static int load_rows(struct fixture *fx, const char *rows_path, int fixed_ra)
{
	FILE *f = fopen(rows_path, "r");
	char line[512];
	struct exp_fde *cur = NULL;
	unsigned int cap = 0, nfre = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "FDE ", 4)) {
			if (fx->nfdes == cap) {
				cap = cap ? 2 * cap : 64;
				fx->fdes = realloc(fx->fdes, cap * sizeof(*fx->fdes));
			}
			cur = &fx->fdes[fx->nfdes++];
			memset(cur, 0, sizeof(*cur));
			if (sscanf(line, FDE_LINE, &cur->pc, &cur->size,
				   &cur->nfres, &cur->fre_type, &cur->pc_type,
				   &cur->fde_type, &cur->key, &cur->signal,
				   &cur->rep) != 9)
				goto bad;
			cur->fres = calloc(cur->nfres + 1, sizeof(*cur->fres));
			nfre = 0;
		} else if (!strncmp(line, "  FRE ", 6) && cur && nfre < cur->nfres) {
			struct exp_fre *e = &cur->fres[nfre++];
			char *v;
			int flex = cur->fde_type == 1;

			e->start = strtoul(field(line, "start="), NULL, 16);
			e->outermost = atoi(field(line, "ra_undef="));
			e->mangled = atoi(field(line, "mangled="));
			v = field(line, "base=");
			if (v) {
				e->have_base = 1;
				e->base_sp = !strcmp(v, "sp");
			}
			if (e->outermost)
				continue;
			v = field(line, "cfa=");
			if (!flex) {
				e->cfa.kind = SFRAME_LOC_REG;
				e->cfa.offset = atol(v);
			} else if (parse_loc(v, &e->cfa, 0, 0, 1)) {
				goto bad;
			}
			if (parse_loc(field(line, "fp="), &e->fp, 0, 0, flex) ||
			    parse_loc(field(line, "ra="), &e->ra, fixed_ra, 1, flex))
				goto bad;
		}
	}
	fclose(f);
	return 0;
bad:
	fprintf(stderr, "%s: cannot parse: %s", rows_path, line);
	fclose(f);
	return -1;
}

static int load_fixture(struct fixture *fx, const char *path)
{
	char p[1024], line[256];
	FILE *f;

	memset(fx, 0, sizeof(*fx));
	fx->path = path;
	/* ELF fixtures carry X.sframe; libsframe's raw sections are X. */
	snprintf(p, sizeof(p), "%s.sframe", path);
	if (sframe_read_file(p, &fx->data, &fx->size) &&
	    sframe_read_file(path, &fx->data, &fx->size))
		return -1;
	snprintf(p, sizeof(p), "%s.meta", path);
	f = fopen(p, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "sh_addr=", 8))
			fx->addr = strtoull(line + 8, NULL, 0);
	fclose(f);
	return 0;
}

static int loc_eq(const struct sframe_loc *got, const struct exp_loc *e)
{
	if (got->kind != e->kind)
		return 0;
	if (got->kind == SFRAME_LOC_SAME || got->kind == SFRAME_LOC_UNDEFINED)
		return 1;
	return got->deref == e->deref && got->offset == e->offset &&
	       (got->kind != SFRAME_LOC_REG || got->reg == e->reg);
}

static void check_rule(const struct sframe_section *sec,
		       const struct exp_fde *ef, const struct exp_fre *e,
		       const struct sframe_rule *r, uint64_t pc)
{
	T_CHECK(!!(r->flags & SFRAME_RULE_OUTERMOST) == e->outermost,
		"pc 0x%" PRIx64 ": outermost %d", pc, e->outermost);
	if (e->outermost)
		return;
	if (e->have_base)
		T_CHECK(r->cfa.kind == SFRAME_LOC_REG &&
			r->cfa.reg == (e->base_sp ? sec->sp_reg : sec->fp_reg) &&
			r->cfa.offset == e->cfa.offset && !r->cfa.deref,
			"pc 0x%" PRIx64 ": CFA r%u%+d want %s%+ld", pc,
			r->cfa.reg, r->cfa.offset, e->base_sp ? "sp" : "fp",
			e->cfa.offset);
	else
		T_CHECK(loc_eq(&r->cfa, &e->cfa), "pc 0x%" PRIx64 ": CFA", pc);
	T_CHECK(loc_eq(&r->fp, &e->fp), "pc 0x%" PRIx64 ": FP kind %d off %d",
		pc, r->fp.kind, r->fp.offset);
	T_CHECK(loc_eq(&r->ra, &e->ra), "pc 0x%" PRIx64 ": RA kind %d off %d",
		pc, r->ra.kind, r->ra.offset);
	T_CHECK(!!(r->flags & SFRAME_RULE_RA_PADDING) == e->ra.padding,
		"pc 0x%" PRIx64 ": RA padding", pc);
	T_CHECK(!!(r->flags & SFRAME_RULE_RA_MANGLED) == e->mangled,
		"pc 0x%" PRIx64 ": mangled", pc);
	T_CHECK(!!(r->flags & SFRAME_RULE_SIGNAL) == !!ef->signal,
		"pc 0x%" PRIx64 ": signal", pc);
}

/* The rule at every PC against the rows file. */
/* Ranges for sframe_rows_mark(), ascending by start */
struct mark_ranges {
	uint64_t (*r)[2];
	uint32_t n;
};

static void mark_range(void *ctx, uint32_t i, uint64_t *lo, uint64_t *hi)
{
	const struct mark_ranges *m = ctx;

	*lo = m->r[i][0];
	*hi = m->r[i][1];
}

static void add_range(struct mark_ranges *m, uint64_t lo, uint64_t hi)
{
	m->r[m->n][0] = lo;
	m->r[m->n][1] = hi;
	m->n++;
}

static int mark_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * sframe_rows_mark() on @rows (built from @sec), with ranges of a few
 * kinds: one byte inside a function, across the end of one function and
 * the start of the next, across a block boundary, nested in another.  At
 * every PC of every function: the same rule as unmarked, and a PC inside
 * a range with a rule is marked.  @rows is left unmarked.
 */
static void check_rows_marks(const struct sframe_section *sec,
			     struct sframe_rows *rows)
{
	struct mark_ranges m = { calloc(3 * sec->num_fdes + 2, sizeof(*m.r)), 0 };
	uint16_t *ids = malloc(rows->nrows * sizeof(*ids) + 1);
	uint64_t bad = 0, marked_pcs = 0, pcs = 0, o;
	struct sframe_rows plain = *rows;
	struct sframe_fde f, g;
	uint32_t i, j;

	if (!rows->nrows)
		goto out;
	memcpy(ids, rows->id, rows->nrows * sizeof(*ids));
	plain.id = ids;
	for (i = 0; i < sec->num_fdes; i++) {
		if (sframe_get_fde(sec, i, &f) || !f.size)
			continue;
		if (i % 5 == 0)
			add_range(&m, f.start + f.size / 3, f.start + f.size / 3 + 1);
		if (i % 7 == 3 && !sframe_get_fde(sec, i + 1, &g) &&
		    g.start > f.start) {
			add_range(&m, f.start + f.size - 1, g.start + 2);
			add_range(&m, f.start + f.size - 1, f.start + f.size);
		}
	}
	add_range(&m, rows->base + (1ULL << rows->shift) - 1,
		  rows->base + (1ULL << rows->shift) + 1);
	qsort(m.r, m.n, sizeof(*m.r), mark_cmp);
	sframe_rows_mark(rows, m.n, mark_range, &m);
	for (i = 0; i < sec->num_fdes; i++) {
		if (sframe_get_fde(sec, i, &f))
			continue;
		for (o = 0; o < f.size + 2; o++) {
			uint64_t pc = f.start + o - 1;
			const struct sframe_rows_rule *a, *b;
			bool in = false, mk = false;
			int ea, eb;

			for (j = 0; j < m.n && !in; j++)
				in = pc >= m.r[j][0] && pc < m.r[j][1];
			a = sframe_rows_lookup(&plain, pc, &ea, NULL);
			b = sframe_rows_lookup(rows, pc, &eb, &mk);
			pcs++;
			marked_pcs += b && mk;
			if (a != b || ea != eb || (in && b && !mk))
				bad++;
		}
	}
	T_CHECK(!bad, "marks: %" PRIu64 " of %" PRIu64
		" PCs with another rule, or in a range and unmarked", bad, pcs);
	T_CHECK(marked_pcs < pcs, "marks: every PC marked");
	memcpy(rows->id, ids, rows->nrows * sizeof(*ids));
out:
	free(m.r);
	free(ids);
}

static void test_rows(struct fixture *fx)
{
	struct sframe_section sec;
	unsigned int i, k;
	uint64_t o;
	int err;

	t_begin("rows: %s", fx->path);
	err = sframe_open(&sec, fx->data, fx->size, fx->addr, 0);
	T_CHECK(!err, "open: %s", sframe_errname(err));
	if (err)
		goto out;
	err = sframe_validate(&sec, NULL, NULL);
	T_CHECK(!err, "validate: %s", sframe_errname(err));
	T_CHECK(sec.num_fdes == fx->nfdes, "num_fdes %u rows %u", sec.num_fdes,
		fx->nfdes);

	for (i = 0; i < fx->nfdes && i < sec.num_fdes; i++) {
		const struct exp_fde *ef = &fx->fdes[i];
		struct sframe_fde fde;

		err = sframe_get_fde(&sec, i, &fde);
		T_CHECK(!err && fde.start == ef->pc && fde.size == ef->size &&
			fde.num_fres == ef->nfres &&
			SFRAME_FUNC_FRE_TYPE(fde.info) == ef->fre_type &&
			SFRAME_FUNC_PC_TYPE(fde.info) == ef->pc_type &&
			sframe_fde_flex(&fde) == ef->fde_type &&
			SFRAME_FUNC_PAUTH_KEY(fde.info) == ef->key &&
			sframe_fde_signal(&sec, &fde) == ef->signal &&
			fde.rep_size == ef->rep,
			"fde %u header", i);
		if (err)
			continue;
		for (o = 0; o < ef->size; o++) {
			uint64_t pc = ef->pc + o, off = o;
			const struct exp_fre *e = NULL;
			uint32_t next;
			struct sframe_rule r;
			struct sframe_fre fre;

			if (ef->pc_type && ef->rep)
				off = o % ef->rep;
			for (k = 0; k < ef->nfres; k++)
				if (ef->fres[k].start <= off)
					e = &ef->fres[k];
			if (!ef->nfres) {
				err = sframe_find(&sec, pc, &r);
				if (ef->signal)
					T_CHECK(err == -SFRAME_E_SIGNAL,
						"pc 0x%" PRIx64 ": %s", pc,
						sframe_errname(err));
				else
					T_CHECK(!err && (r.flags & SFRAME_RULE_OUTERMOST),
						"pc 0x%" PRIx64 ": %s", pc,
						sframe_errname(err));
				continue;
			}
			err = sframe_find_fre(&sec, &fde, pc, &fre);
			if (!e) {
				T_CHECK(err == -SFRAME_E_NO_FRE, "pc 0x%" PRIx64
					": want NO_FRE, got %s", pc,
					sframe_errname(err));
				continue;
			}
			T_CHECK(!err && fre.start == e->start,
				"pc 0x%" PRIx64 ": fre %s", pc, sframe_errname(err));
			if (err)
				continue;
			/* The row's range ends where the next row starts. */
			next = e + 1 < ef->fres + ef->nfres ? e[1].start : 0;
			if (ef->pc_type)
				next = 0;
			T_CHECK(fre.end == next, "pc 0x%" PRIx64 ": fre end %u, want %u",
				pc, fre.end, next);
			err = sframe_fre_rule(&sec, &fde, &fre, &r);
			T_CHECK(!err, "pc 0x%" PRIx64 ": rule %s", pc,
				sframe_errname(err));
			if (!err)
				check_rule(&sec, ef, e, &r, pc);
			if (sec.flags & SFRAME_F_FDE_SORTED) {
				struct sframe_rule g;

				err = sframe_find(&sec, pc, &g);
				T_CHECK(!err && g.fde_index == i &&
					g.fre_start == fre.start,
					"pc 0x%" PRIx64 ": global lookup %s fde %u",
					pc, sframe_errname(err), g.fde_index);
				T_CHECK(err || g.fre_end ==
					(ef->pc_type ? 0 : next ? next : ef->size),
					"pc 0x%" PRIx64 ": rule's row ends at %u", pc,
					g.fre_end);
			}
		}
	}
	/* Around the functions: before the first, after the last. */
	if (sec.flags & SFRAME_F_FDE_SORTED && fx->nfdes) {
		struct sframe_rule r;

		T_CHECK(sframe_find(&sec, fx->fdes[0].pc - 1, &r) ==
			-SFRAME_E_NO_FDE, "before first function");
		T_CHECK(sframe_find(&sec, fx->fdes[fx->nfdes - 1].pc +
				    fx->fdes[fx->nfdes - 1].size, &r) ==
			-SFRAME_E_NO_FDE, "after last function");
	}
out:
	t_end();
}

static int rule_eq(const struct sframe_rule *a, const struct sframe_rule *b);

/*
 * The lookup index gives the answers of the plain lookup: at every PC for
 * sorted sections; for unsorted ones (overlapping .o ranges) the answer
 * must cover the PC, and equal the plain one where only one FDE does.
 */
static void test_index(struct fixture *fx, unsigned int shift)
{
	struct sframe_section plain, sec;
	uint32_t nwords = 0, i, *mem = NULL;
	int err;

	t_begin("index (%u-byte blocks): %s", 1U << shift, fx->path);
	if (sframe_open(&plain, fx->data, fx->size, fx->addr, 0)) {
		T_CHECK(0, "open");
		goto out;
	}
	sec = plain;
	err = sframe_index_size(&sec, shift, &nwords);
	T_CHECK(!err, "index size: %s", sframe_errname(err));
	mem = calloc(nwords + 1, sizeof(*mem));
	T_CHECK(sframe_index_build(&sec, shift, mem, nwords - 1) ==
		-SFRAME_E_INDEX || !nwords, "short memory accepted");
	err = sframe_index_build(&sec, shift, mem, nwords);
	T_CHECK(!err, "index build: %s", sframe_errname(err));
	if (err)
		goto out;
	for (i = 0; i < plain.num_fdes; i++) {
		struct sframe_fde f;
		uint64_t o;

		if (sframe_get_fde(&plain, i, &f))
			continue;
		for (o = 0; o < f.size; o++) {
			uint64_t pc = f.start + o;
			struct sframe_rule a, b;
			int ea = sframe_find(&plain, pc, &a);
			int eb = sframe_find(&sec, pc, &b);

			if (plain.flags & SFRAME_F_FDE_SORTED) {
				T_CHECK(ea == eb && (ea || rule_eq(&a, &b)),
					"pc 0x%" PRIx64 ": %s vs %s", pc,
					sframe_errname(ea), sframe_errname(eb));
				continue;
			}
			/*
			 * The index answers with the last FDE starting at or
			 * below pc: inside nested or overlapping ranges
			 * (unrelocated .o files) that may miss an outer one.
			 */
			if (eb == -SFRAME_E_NO_FDE) {
				uint32_t k;
				int nested = 0;

				for (k = 0; k < plain.num_fdes; k++) {
					struct sframe_fde g;

					if (!sframe_get_fde(&plain, k, &g) && k != i &&
					    g.start >= f.start && g.start <= pc)
						nested = 1;
				}
				T_CHECK(nested, "pc 0x%" PRIx64 ": not found", pc);
				continue;
			}
			T_CHECK(!eb && pc >= b.func_start &&
				pc - b.func_start < b.func_size,
				"pc 0x%" PRIx64 ": indexed answer does not cover it (%s)",
				pc, sframe_errname(eb));
			if (!ea && !eb && a.func_start == b.func_start &&
			    a.func_size == b.func_size)
				T_CHECK(rule_eq(&a, &b), "pc 0x%" PRIx64, pc);
		}
	}
out:
	free(mem);
	t_end();
}

/* The recovery fields of two rules agree (rows keep only those). */
static int recovery_eq(const struct sframe_rule *a, const struct sframe_rule *b)
{
	return !memcmp(&a->cfa, &b->cfa, sizeof(a->cfa)) &&
	       !memcmp(&a->ra, &b->ra, sizeof(a->ra)) &&
	       !memcmp(&a->fp, &b->fp, sizeof(a->fp)) &&
	       a->sp_from_cfa == b->sp_from_cfa && a->flags == b->flags;
}

/*
 * Room for the rows sframe_rows_size() sized; returns the hash scratch
 * sframe_rows_build() needs.
 */
static uint16_t *rows_alloc(struct sframe_rows *rows, uint32_t nrows,
			    uint32_t nblocks)
{
	rows->start = calloc(nrows, sizeof(*rows->start));
	rows->id = calloc(nrows, sizeof(*rows->id));
	rows->block = calloc(nblocks + 1, sizeof(*rows->block));
	rows->rules = calloc(SFRAME_ROWS_MAX_RULES, sizeof(*rows->rules));
	return calloc(SFRAME_ROWS_HASH_SLOTS, sizeof(uint16_t));
}

static void rows_free(struct sframe_rows *rows, uint16_t *hash)
{
	free(rows->start);
	free(rows->id);
	free(rows->block);
	free(rows->rules);
	free(hash);
}

/*
 * Decoded rows (sframe_rows_build()) give sframe_find()'s answer at every
 * PC of every function and around them (gaps, before the first, after
 * the last), on sorted sections, and on unsorted ones once indexed.  With
 * a @limit (else %SFRAME_ROWS_ALL), the functions from the one starting
 * there on have no rows: their lookups are the core's, the same answers.
 */
static void test_decoded_rows(struct fixture *fx, unsigned int shift,
			      int limited)
{
	uint64_t limit = SFRAME_ROWS_ALL;
	struct sframe_rows rows = { 0 };
	uint32_t nrows = 0, nblocks = 0, nwords = 0, i, blk, *idx = NULL;
	struct sframe_section sec;
	uint16_t *hash = NULL;
	uint64_t prev = 0;
	unsigned int core = 0;
	uint64_t n = 0;
	int err;

	t_begin("rows (%u-byte blocks%s): %s", 1U << shift,
		limited ? ", the upper half left to the core" : "", fx->path);
	if (sframe_open(&sec, fx->data, fx->size, fx->addr, 0) ||
	    sframe_validate(&sec, NULL, NULL)) {
		T_CHECK(0, "open");
		goto out;
	}
	if (limited) {
		struct sframe_fde mid;

		if (sframe_get_fde(&sec, sec.num_fdes / 2, &mid))
			goto out;
		limit = mid.start;
	}
	if (!(sec.flags & SFRAME_F_FDE_SORTED)) {
		T_CHECK(sframe_rows_build(&sec, shift, limit, &rows, hash) ==
			-SFRAME_E_INDEX, "unsorted, unindexed section accepted");
		if (sframe_index_size(&sec, 8, &nwords))
			goto out;
		idx = calloc(nwords, sizeof(*idx));
		if (sframe_index_build(&sec, 8, idx, nwords))
			goto out;
	}
	/* A row keeps its start in a block in 16 bits: no larger blocks. */
	T_CHECK(sframe_rows_size(&sec, SFRAME_ROWS_MAX_SHIFT + 1, limit,
				 &nrows, &nblocks) == -SFRAME_E_INVAL,
		"%u-byte blocks accepted", 2U << SFRAME_ROWS_MAX_SHIFT);
	err = sframe_rows_size(&sec, shift, limit, &nrows, &nblocks);
	T_CHECK(!err, "rows size: %s", sframe_errname(err));
	if (err)
		goto out;
	hash = rows_alloc(&rows, nrows, nblocks);
	rows.func = calloc(sec.num_fdes + 1, sizeof(*rows.func));
	err = sframe_rows_build(&sec, shift, limit, &rows, hash);
	/* Overlapping functions (unlinked objects) cannot have rows. */
	if (err == -SFRAME_E_INDEX && !(sec.flags & SFRAME_F_FDE_SORTED))
		goto out;
	T_CHECK(!err, "rows build: %s", sframe_errname(err));
	if (err)
		goto out;
	T_CHECK(rows.nrows <= nrows && rows.nrules <= SFRAME_ROWS_MAX_RULES,
		"%u rows, %u rules", rows.nrows, rows.nrules);
	/*
	 * Validating and building in one pass gives the same table: sorted
	 * sections in their order, indexed ones in the index's.
	 */
	if ((sec.flags & SFRAME_F_FDE_SORTED) || sec.order) {
		struct sframe_rows two = rows;

		two.start = calloc(nrows, sizeof(*two.start));
		two.id = calloc(nrows, sizeof(*two.id));
		two.block = calloc(nblocks + 1, sizeof(*two.block));
		two.rules = calloc(SFRAME_ROWS_MAX_RULES, sizeof(*two.rules));
		two.func = calloc(sec.num_fdes + 1, sizeof(*two.func));
		err = sframe_validate_rows(&sec, shift, limit, &two, hash);
		T_CHECK(!err && two.nrows == rows.nrows &&
			two.nrules == rows.nrules &&
			two.nfuncs == rows.nfuncs &&
			!memcmp(two.func, rows.func,
				rows.nfuncs * sizeof(*rows.func)) &&
			!memcmp(two.start, rows.start,
				rows.nrows * sizeof(*rows.start)) &&
			!memcmp(two.id, rows.id, rows.nrows * sizeof(*rows.id)) &&
			!memcmp(two.block, rows.block, (nblocks + 1) * 4) &&
			!memcmp(two.rules, rows.rules,
				rows.nrules * sizeof(*rows.rules)),
			"validate+rows in one pass differs (%s)",
			sframe_errname(err));
		free(two.start);
		free(two.id);
		free(two.block);
		free(two.rules);
		free(two.func);
	}
	/*
	 * Each row's start, from its block and its key: strictly ascending,
	 * within the block the index gives it.
	 */
	T_CHECK(rows.block[rows.nblocks] == rows.nrows, "block index ends at %u of %u rows",
		rows.block[rows.nblocks], rows.nrows);
	for (i = 0, blk = 0; i < rows.nrows; i++) {
		uint64_t start = 0;

		core += rows.id[i] == SFRAME_ROWS_CORE;
		while (blk < rows.nblocks && rows.block[blk + 1] <= i)
			blk++;
		if (i >= rows.block[0])
			start = ((uint64_t)blk << shift) + rows.start[i] + 1;
		if (i)
			T_CHECK(start > prev, "row %u unsorted", i);
		T_CHECK(i < rows.block[0] || start <= ((uint64_t)(blk + 1) << shift),
			"row %u outside its block %u", i, blk);
		prev = start;
	}
	/* Nothing at or above the limit (the functions there are the core's). */
	T_CHECK(!rows.nrows || rows.end <= limit,
		"rows up to 0x%" PRIx64 ", above the limit 0x%" PRIx64,
		rows.end, limit);
	for (i = 0; i < sec.num_fdes; i++) {
		struct sframe_fde f;
		uint64_t o;

		if (sframe_get_fde(&sec, i, &f))
			continue;
		for (o = 0; o < f.size + 2; o++) {
			uint64_t pc = f.start + o - 1;
			struct sframe_rule a, b;
			int ea = sframe_find(&sec, pc, &a);
			int eb = sframe_rows_find(&rows, pc, &b);

			n++;
			T_CHECK(ea == eb && (ea || recovery_eq(&a, &b)),
				"pc 0x%" PRIx64 ": %s vs rows %s", pc,
				sframe_errname(ea), sframe_errname(eb));
			/* Function starts kept: the rows give them too. */
			T_CHECK(ea || eb || a.func_start == b.func_start,
				"pc 0x%" PRIx64 ": function at 0x%" PRIx64
				", rows say 0x%" PRIx64, pc, a.func_start,
				b.func_start);
		}
	}
	check_rows_marks(&sec, &rows);
	fprintf(stderr, "  %s: %u rows (%u to the core), %u rules, %u functions, %" PRIu64 " PCs\n",
		fx->path, rows.nrows, core, rows.nrules, rows.nfuncs, n);
out:
	free(rows.func);
	rows_free(&rows, hash);
	free(idx);
	t_end();
}

static int rule_eq(const struct sframe_rule *a, const struct sframe_rule *b)
{
	return !memcmp(&a->cfa, &b->cfa, sizeof(a->cfa)) &&
	       !memcmp(&a->ra, &b->ra, sizeof(a->ra)) &&
	       !memcmp(&a->fp, &b->fp, sizeof(a->fp)) &&
	       a->sp_from_cfa == b->sp_from_cfa && a->flags == b->flags &&
	       a->func_start == b->func_start && a->func_size == b->func_size &&
	       a->fre_start == b->fre_start;
}

/*
 * Rows are sized before a section is validated (a module's, vmlinux's
 * checked by the build): an FDE that counts more FREs than the FRE
 * sub-section can hold must not size memory, it is refused.
 */
static void test_rows_fre_count(struct fixture *fx)
{
	struct sframe_section sec, bad;
	struct sframe_field loc;
	struct sframe_fde f;
	uint32_t nrows = 0, nblocks;
	uint8_t *buf = NULL;
	int err;

	t_begin("rows: an FDE's FRE count beyond the section: %s", fx->path);
	if (sframe_open(&sec, fx->data, fx->size, fx->addr, 0) ||
	    !sec.num_fdes || sframe_get_fde(&sec, 0, &f) ||
	    sframe_fde_field(&sec, &f, SFRAME_FIELD_FDE_NUM_FRES, &loc) ||
	    !loc.len)
		goto out;
	T_CHECK(!sframe_rows_size(&sec, 8, SFRAME_ROWS_ALL, &nrows, &nblocks),
		"rows size of the section itself");
	buf = malloc(fx->size);
	memcpy(buf, fx->data, fx->size);
	memset(buf + loc.off, 0xff, loc.len);
	if (sframe_open(&bad, buf, fx->size, fx->addr, 0))
		goto out;
	err = sframe_rows_size(&bad, 8, SFRAME_ROWS_ALL, &nrows, &nblocks);
	T_CHECK(err == -SFRAME_E_NUM_FRES, "%u rows sized (%s)", nrows,
		sframe_errname(err));
out:
	free(buf);
	t_end();
}

/* FDE-directed lookup: the rule for @pc within function @f. */
static int lookup_in(const struct sframe_section *sec,
		     const struct sframe_fde *f, uint64_t pc,
		     struct sframe_rule *r)
{
	struct sframe_fre fre;
	int err;

	if (!f->num_fres)
		return sframe_find(sec, pc, r);
	err = sframe_find_fre(sec, f, pc, &fre);
	if (!err)
		err = sframe_fre_rule(sec, f, &fre, r);
	return err;
}

/* Same answers from the section re-encoded another way. */
static void test_reencode(struct fixture *fx, const struct encode_opts *eo)
{
	struct sframe_section a, b;
	struct encoded enc;
	unsigned int i, kept = 0;
	int err;

	struct sframe_fde f0;

	if (sframe_open(&a, fx->data, fx->size, fx->addr, 0) ||
	    sframe_encode(&a, eo, &enc))
		return;
	/* Skip variants that cannot express any of the functions. */
	for (i = 0; i < a.num_fdes && !enc.kept[i]; i++)
		;
	if (a.num_fdes && i == a.num_fdes && !sframe_get_fde(&a, 0, &f0)) {
		free(enc.buf);
		free(enc.kept);
		return;
	}
	t_begin("reencode v%d %s%s%s%s%s: %s", eo->version,
		eo->swap ? "swapped-order" : "same-order",
		eo->shuffle ? " shuffled" : "", eo->wide_words ? " 4B-words" : "",
		eo->wide_starts ? " addr4" : "", eo->auxhdr_len ? " auxhdr" : "",
		fx->path);
	err = sframe_open(&b, enc.buf, enc.len, eo->addr, 0);
	T_CHECK(!err, "open encoded: %s", sframe_errname(err));
	if (!err)
		err = sframe_validate(&b, NULL, NULL);
	T_CHECK(!err, "validate encoded: %s", sframe_errname(err));
	if (err)
		goto free;
	for (i = 0; i < a.num_fdes; i++) {
		struct sframe_fde fa, fb;
		uint64_t o;

		if (sframe_get_fde(&a, i, &fa) || !enc.kept[i])
			continue;
		kept++;
		err = sframe_get_fde(&b, enc.kept[i] - 1, &fb);
		T_CHECK(!err && fb.start == fa.start && fb.size == fa.size,
			"fde %u moved", i);
		if (err)
			continue;
		for (o = 0; o < fa.size; o++) {
			struct sframe_rule ra, rb;
			int ea, eb;

			ea = lookup_in(&a, &fa, fa.start + o, &ra);
			eb = lookup_in(&b, &fb, fa.start + o, &rb);
			T_CHECK(ea == eb, "pc 0x%" PRIx64 ": %s vs %s",
				fa.start + o, sframe_errname(ea), sframe_errname(eb));
			if (!ea && !eb)
				T_CHECK(rule_eq(&ra, &rb), "pc 0x%" PRIx64
					": rules differ", fa.start + o);
			/* Linked sections: the global lookup agrees too. */
			if (a.flags & SFRAME_F_FDE_SORTED) {
				eb = sframe_find(&b, fa.start + o, &rb);
				T_CHECK(ea == eb && (ea || rule_eq(&ra, &rb)),
					"pc 0x%" PRIx64 ": global lookup",
					fa.start + o);
			}
		}
	}
	T_CHECK(kept > 0 || !a.num_fdes, "no FDE encodable");
free:
	free(enc.buf);
	free(enc.kept);
	t_end();
}

/* Adds @delta to the field @f of @buf, in the section's byte order. */
static void field_add(uint8_t *buf, const struct sframe_section *sec,
		      const struct sframe_field *f, uint64_t delta)
{
	uint64_t v = 0;
	uint32_t k, shift;

	for (k = 0; k < f->len; k++) {
		shift = 8 * (sec->big_endian ? f->len - 1 - k : k);
		v |= (uint64_t)buf[f->off + k] << shift;
	}
	v += delta;
	for (k = 0; k < f->len; k++) {
		shift = 8 * (sec->big_endian ? f->len - 1 - k : k);
		buf[f->off + k] = v >> shift;
	}
}

/* @buf (a copy of @sec's bytes) opened as @sec was, FDE @i decoded. */
static int reopen(const struct sframe_section *sec, const uint8_t *buf,
		  uint32_t i, struct sframe_section *s2, struct sframe_fde *f2)
{
	int err = sframe_open(s2, buf, sec->size, sec->addr, 0);

	return err ? err : sframe_get_fde(s2, i, f2);
}

/* Field by field: the structs' padding bytes are undefined. */
static int fde_same(const struct sframe_fde *a, const struct sframe_fde *b)
{
	return a->start == b->start && a->size == b->size &&
	       a->index == b->index && a->num_fres == b->num_fres &&
	       a->fres == b->fres && a->info == b->info &&
	       a->info2 == b->info2 && a->rep_size == b->rep_size;
}

static int loc_same(const struct sframe_loc *a, const struct sframe_loc *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/*
 * sframe_fde_field(): changing the bytes it names changes that field of
 * the decoded FDE, and only that one.
 */
static void check_fde_fields(const struct sframe_section *sec,
			     const struct sframe_fde *f, uint8_t *buf)
{
	static const uint8_t xor[] = {
		[SFRAME_FIELD_FDE_INFO] = 0x20, [SFRAME_FIELD_FDE_INFO2] = 1,
		[SFRAME_FIELD_FDE_REP_SIZE] = 1,
	};
	struct sframe_section s2;
	struct sframe_fde e, g;
	struct sframe_field loc;
	unsigned int id;
	int err;

	for (id = SFRAME_FIELD_FDE_START; id <= SFRAME_FIELD_FDE_REP_SIZE; id++) {
		err = sframe_fde_field(sec, f, id, &loc);
		T_CHECK(!err, "fde %u field %u: %s", f->index, id,
			sframe_errname(err));
		if (err)
			continue;
		if (!loc.len) {
			T_CHECK((id == SFRAME_FIELD_FDE_INFO2 && sec->version < 3) ||
				(id == SFRAME_FIELD_FDE_REP_SIZE && sec->version == 1),
				"fde %u: no field %u in v%u", f->index, id,
				sec->version);
			continue;
		}
		memcpy(buf, sec->data, sec->size);
		e = *f;
		switch (id) {
		case SFRAME_FIELD_FDE_START:
			e.start++;
			break;
		case SFRAME_FIELD_FDE_SIZE:
			e.size++;
			break;
		case SFRAME_FIELD_FDE_FRE_OFF:
			e.fres++;
			break;
		case SFRAME_FIELD_FDE_NUM_FRES:
			e.num_fres++;
			break;
		case SFRAME_FIELD_FDE_INFO:
			e.info ^= xor[id];
			break;
		case SFRAME_FIELD_FDE_INFO2:
			e.info2 ^= xor[id];
			break;
		default:
			e.rep_size ^= xor[id];
			break;
		}
		if (xor[id])
			buf[loc.off] ^= xor[id];
		else
			field_add(buf, sec, &loc, 1);
		err = reopen(sec, buf, f->index, &s2, &g);
		/* v3: the FREs' offset moves the attribute read after it. */
		if (id == SFRAME_FIELD_FDE_FRE_OFF && sec->version >= 3) {
			T_CHECK(err ? err == -SFRAME_E_FRE_BOUNDS :
				g.fres == e.fres, "fde %u: FRE offset field",
				f->index);
			continue;
		}
		T_CHECK(!err && fde_same(&e, &g),
			"fde %u: field %u at %u+%u: %s", f->index, id, loc.off,
			loc.len, sframe_errname(err));
	}
}

/*
 * sframe_fre_field(): the start and info fields are where the FRE's values
 * are; changing a data-word field changes that part of the rule and no
 * other, and a row without the word has none to change.
 */
static void check_fre_fields(const struct sframe_section *sec,
			     const struct sframe_fde *f,
			     const struct sframe_fre *fre, uint8_t *buf)
{
	struct sframe_section s2;
	struct sframe_rule r, r2;
	struct sframe_fde g;
	struct sframe_fre fr2;
	struct sframe_field loc;
	unsigned int id;
	int err;

	err = sframe_fre_field(sec, f, fre, SFRAME_FIELD_FRE_INFO, &loc);
	T_CHECK(!err && loc.len == 1 && sec->data[loc.off] == fre->info,
		"fde %u fre at %u: info field", f->index, fre->off);
	err = sframe_fre_field(sec, f, fre, SFRAME_FIELD_FRE_START, &loc);
	memcpy(buf, sec->data, sec->size);
	if (!err)
		field_add(buf, sec, &loc, 1);
	if (!err)
		err = reopen(sec, buf, f->index, &s2, &g);
	if (!err)
		err = sframe_read_fre(&s2, &g, fre->off, &fr2);
	T_CHECK(!err && loc.off == fre->off &&
		fr2.start == (uint32_t)((fre->start + 1) &
					((2ULL << (8 * loc.len - 1)) - 1)),
		"fde %u fre at %u: start field: %s", f->index, fre->off,
		sframe_errname(err));

	if (sframe_fre_rule(sec, f, fre, &r))
		return;
	for (id = SFRAME_FIELD_FRE_CFA; id <= SFRAME_FIELD_FRE_FP; id++) {
		const struct sframe_loc *a = id == SFRAME_FIELD_FRE_CFA ? &r.cfa :
					     id == SFRAME_FIELD_FRE_RA ? &r.ra : &r.fp;
		const struct sframe_loc *b = id == SFRAME_FIELD_FRE_CFA ? &r2.cfa :
					     id == SFRAME_FIELD_FRE_RA ? &r2.ra : &r2.fp;

		err = sframe_fre_field(sec, f, fre, id, &loc);
		T_CHECK(!err, "fde %u fre at %u: field %u: %s", f->index,
			fre->off, id, sframe_errname(err));
		if (err)
			continue;
		if (!loc.len) {
			T_CHECK((r.flags & (SFRAME_RULE_OUTERMOST |
					    SFRAME_RULE_RA_FIXED |
					    SFRAME_RULE_RA_PADDING |
					    SFRAME_RULE_FP_FIXED)) ||
				(id != SFRAME_FIELD_FRE_CFA &&
				 a->kind == SFRAME_LOC_SAME),
				"fde %u fre at %u: no word %u, yet a rule",
				f->index, fre->off, id);
			continue;
		}
		memcpy(buf, sec->data, sec->size);
		field_add(buf, sec, &loc, 2);
		err = reopen(sec, buf, f->index, &s2, &g);
		if (!err)
			err = sframe_read_fre(&s2, &g, fre->off, &fr2);
		if (!err)
			err = sframe_fre_rule(&s2, &g, &fr2, &r2);
		T_CHECK(!err && !loc_same(a, b) &&
			loc_same(&r.cfa, &r2.cfa) + loc_same(&r.ra, &r2.ra) +
			loc_same(&r.fp, &r2.fp) == 2,
			"fde %u fre at %u: word %u at %u+%u: %s", f->index,
			fre->off, id, loc.off, loc.len, sframe_errname(err));
	}
}

/* Every field the location API names, in every FDE and FRE. */
static void test_fields(struct fixture *fx)
{
	struct sframe_section sec;
	uint8_t *buf = NULL;
	uint32_t i, k, p;
	int err;

	t_begin("field locations: %s", fx->path);
	err = sframe_open(&sec, fx->data, fx->size, fx->addr, 0);
	T_CHECK(!err, "open: %s", sframe_errname(err));
	if (err)
		goto out;
	buf = malloc(sec.size);
	for (i = 0; i < sec.num_fdes; i++) {
		struct sframe_fde f;
		struct sframe_fre fre;

		if (sframe_get_fde(&sec, i, &f))
			continue;
		check_fde_fields(&sec, &f, buf);
		for (k = 0, p = f.fres; k < f.num_fres; k++, p = fre.next) {
			if (sframe_read_fre(&sec, &f, p, &fre))
				break;
			check_fre_fields(&sec, &f, &fre, buf);
		}
	}
out:
	free(buf);
	t_end();
}

static void probe_section(const uint8_t *buf, size_t len, uint64_t addr,
			  const struct fixture *fx, int *opened)
{
	struct sframe_section sec;
	struct sframe_rule r;
	unsigned int i;

	*opened = 0;
	if (sframe_open(&sec, buf, len, addr, 0))
		return;
	*opened = 1;
	sframe_validate(&sec, NULL, NULL);
	for (i = 0; i < fx->nfdes; i++) {
		sframe_find(&sec, fx->fdes[i].pc, &r);
		sframe_find(&sec, fx->fdes[i].pc + fx->fdes[i].size / 2, &r);
	}
	for (i = 0; i < sec.num_fdes && i < 64; i++) {
		struct sframe_fde f;

		if (!sframe_get_fde(&sec, i, &f))
			sframe_find(&sec, f.start + 1, &r);
	}
}

/* Truncation at every byte, and every single-bit flip. */
static void test_malformed(struct fixture *fx)
{
	uint8_t *buf = malloc(fx->size);
	struct sframe_section sec;
	size_t len, bit, real_end = 0;
	int opened, err;

	if (!sframe_open(&sec, fx->data, fx->size, fx->addr, 0))
		real_end = sec.fre_end;

	t_begin("truncate at every byte: %s", fx->path);
	for (len = 0; len < fx->size; len++) {
		uint8_t *t = malloc(len ? len : 1);

		memcpy(t, fx->data, len);
		err = sframe_open(&sec, t, len, fx->addr, 0);
		if (!err)
			err = sframe_validate(&sec, NULL, NULL);
		/* Only the zero padding after the FRE data may be cut. */
		if (len < real_end)
			T_CHECK(err, "length %zu accepted", len);
		probe_section(t, len, fx->addr, fx, &opened);
		free(t);
	}
	t_end();

	t_begin("flip every bit: %s", fx->path);
	for (bit = 0; bit < fx->size * 8; bit++) {
		memcpy(buf, fx->data, fx->size);
		buf[bit / 8] ^= 1U << (bit % 8);
		probe_section(buf, fx->size, fx->addr, fx, &opened);
		/* A single flip in the magic never passes. */
		if (bit < 16)
			T_CHECK(!opened, "flip of header bit %zu accepted", bit);
	}
	t_end();
	free(buf);
}

/*
 * SFRAME_OPEN_RELOCATED (a module's section, relocated by the loader):
 * starts become PC-relative, each one its field's offset further than the
 * section-relative reading, and the "sorted" flag is dropped.
 */
static void test_relocated(struct fixture *fx)
{
	struct sframe_section sec, rel;
	struct sframe_fde a, b;
	unsigned int i;
	int err;

	t_begin("relocated: %s", fx->path);
	err = sframe_open(&sec, fx->data, fx->size, fx->addr, 0) ||
	      sframe_open(&rel, fx->data, fx->size, fx->addr,
			  SFRAME_OPEN_RELOCATED);
	T_CHECK(!err, "open");
	if (err)
		goto out;
	T_CHECK(rel.pcrel && !(rel.flags & SFRAME_F_FDE_SORTED) &&
		(rel.flags | SFRAME_F_FDE_SORTED) ==
		(sec.flags | SFRAME_F_FDE_SORTED),
		"flags 0x%x pcrel %d", rel.flags, rel.pcrel);
	for (i = 0; i < sec.num_fdes; i++) {
		uint64_t want = sec.pcrel ? 0 : sec.fde_base +
				(uint64_t)i * sec.fde_size;

		if (sframe_get_fde(&sec, i, &a) || sframe_get_fde(&rel, i, &b)) {
			T_CHECK(0, "fde %u", i);
			break;
		}
		T_CHECK(b.start - a.start == want, "fde %u: start 0x%" PRIx64
			" relocated 0x%" PRIx64, i, a.start, b.start);
	}
out:
	t_end();
}

struct block_table {
	const uint64_t *start;
	uint32_t fail_at;	/* entry whose start cannot be read, or ~0 */
};

static int block_start_of(const void *ctx, u32 i, u64 *start)
{
	const struct block_table *t = ctx;

	if (i == t->fail_at)
		return -SFRAME_E_LAYOUT;
	*start = t->start[i];
	return 0;
}

/*
 * The one block index (sframe_block_fill(), sframe_block_bounds()): at
 * every probed address, the entries starting at or below it number
 * between the bounds; boundaries past the end of the address space count
 * every entry; a start that cannot be read fails the build.
 */
static void test_block_index(void)
{
	static const struct {
		const char *name;
		uint64_t base;
		unsigned int shift;
		uint64_t nblocks;
	} cases[] = {
		{ "low, 16-byte blocks", 0x1000, 4, 40 },
		{ "low, one block", 0x1000, 12, 1 },
		{ "4 GiB blocks", 0, 32, 3 },
		{ "the last block past the top", ~0ULL - 0x27f, 8, 3 },
		{ "the last 4 GiB block past the top", ~0ULL - 0x17fffffffULL, 32, 2 },
	};
	uint64_t start[64];
	uint32_t first[64], lo, hi, n, i, below;
	unsigned int c, k;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		uint64_t base = cases[c].base, nb = cases[c].nblocks;
		unsigned int shift = cases[c].shift;
		uint64_t span = nb << shift, off, step, top;
		struct block_table t = { start, ~0U };

		t_begin("block index: %s", cases[c].name);
		/* the last address of the range, where the table may reach */
		top = base + span - 1 < base ? ~0ULL : base + span - 1;
		/* entries spread over it, some sharing a start */
		n = 0;
		for (i = 0; i < 48; i++) {
			start[n] = base + (top - base) / 47 * i + (i % 3 == 1);
			if (start[n] < base || start[n] > top)
				start[n] = top;
			n++;
		}
		T_CHECK(!sframe_block_fill(first, nb, shift, base, n,
					   block_start_of, &t), "fill failed");
		for (i = 0; i < nb; i++)
			T_CHECK(first[i] <= first[i + 1],
				"first[%u] %u > first[%u] %u", i, first[i],
				i + 1, first[i + 1]);
		T_CHECK(first[nb] == n, "the last boundary counts %u of %u",
			first[nb], n);
		step = span / 200 ? span / 200 : 1;
		for (off = 0; off < span + 2 * step; off += step) {
			bool in = sframe_block_bounds(first, nb, shift, off,
						      &lo, &hi);

			T_CHECK(in == (off < span), "off %#" PRIx64 ": %s",
				off, in ? "inside" : "outside");
			/* (no address past the top to look up) */
			if (!in || base + off < base)
				continue;
			for (below = 0, k = 0; k < n; k++)
				below += start[k] <= base + off;
			T_CHECK(lo <= below && below <= hi,
				"off %#" PRIx64 ": %u entries at or below, bounds %u..%u",
				off, below, lo, hi);
		}
		t.fail_at = n / 2;
		T_CHECK(sframe_block_fill(first, nb, shift, base, n,
					  block_start_of, &t) == -SFRAME_E_LAYOUT,
			"an unreadable start does not fail the build");
		t_end();
	}
}

/*
 * Decoded rows where a function without size begins the text: its start
 * is the rows' base, but no row starts there, so the block index gives
 * blocks before the first row no row at or before their beginning.  At
 * every address, rows and sframe_find() agree: no function below the
 * first sized one's start, its rules from it on.
 */
static void test_rows_sizeless_first(void)
{
	static const int64_t sp8[] = { 8 }, sp16[] = { 16 }, sp24[] = { 24 };
	const struct sframe_layout_hdr h = {
		.flags = SFRAME_F_FDE_SORTED,
		.abi = SFRAME_ABI_AMD64_ENDIAN_LITTLE,
		.fixed_ra = -8,
		.addr = 0x800,
	};
	const uint8_t fre = SFRAME_FRE_INFO(1, 1, SFRAME_FRE_WORD_1B, 0);
	const uint64_t empty = 0x1000, func = 0x1108, size = 0x40;
	struct sframe_layout l = { .version = SFRAME_VERSION_2 };
	struct sframe_rows rows = { 0 };
	struct sframe_section sec;
	uint32_t nrows, nblocks;
	uint64_t pc, gaps = 0;
	uint16_t *hash;
	size_t len;
	uint8_t *buf;
	int err;

	t_begin("rows: a function without size begins the text");
	sframe_layout_fde(&l, empty, 0, 1, SFRAME_FRE_TYPE_ADDR1, 0, 0);
	sframe_layout_fre(&l, 0, 1, fre, sp8, 1, 1);
	sframe_layout_fde(&l, func, size, 3, SFRAME_FRE_TYPE_ADDR1, 0, 0);
	sframe_layout_fre(&l, 0, 1, fre, sp8, 1, 1);
	sframe_layout_fre(&l, 4, 1, fre, sp16, 1, 1);
	sframe_layout_fre(&l, 0x10, 1, fre, sp24, 1, 1);
	err = sframe_layout_finish(&l, &h, &buf, &len);
	T_CHECK(!err, "layout: %d", err);
	if (err) {
		t_end();
		return;
	}
	err = sframe_open(&sec, buf, len, h.addr, 0);
	if (!err)
		err = sframe_validate(&sec, NULL, NULL);
	/*
	 * 16-byte blocks: the first row lies in the middle of block 16, and
	 * the block has another row after it.
	 */
	if (!err)
		err = sframe_rows_size(&sec, 4, SFRAME_ROWS_ALL, &nrows,
				       &nblocks);
	T_CHECK(!err, "section: %s", sframe_errname(err));
	if (err)
		goto out;
	hash = rows_alloc(&rows, nrows, nblocks);
	err = sframe_rows_build(&sec, 4, SFRAME_ROWS_ALL, &rows, hash);
	T_CHECK(!err && rows.base == empty, "rows: %s, base %#" PRIx64,
		sframe_errname(err), rows.base);
	for (pc = empty - 1; !err && pc <= func + size; pc++) {
		struct sframe_rule a, b;
		int ea = sframe_find(&sec, pc, &a);
		int eb = sframe_rows_find(&rows, pc, &b);

		gaps += eb == -SFRAME_E_NO_FDE;
		T_CHECK(ea == eb && (ea || recovery_eq(&a, &b)),
			"pc %#" PRIx64 ": %s vs rows %s", pc,
			sframe_errname(ea), sframe_errname(eb));
	}
	T_CHECK(gaps == func - empty + 2, "%" PRIu64 " addresses without a function",
		gaps);
	rows_free(&rows, hash);
out:
	free(buf);
	t_end();
}

int main(int argc, char **argv)
{
	static const struct encode_opts variants[] = {
		{ .version = 3 },
		{ .version = 3, .shuffle = 1, .wide_words = 1 },
		{ .version = 3, .wide_starts = 1, .auxhdr_len = 8, .addr = 0x10000 },
		{ .version = 3, .swap = 1 },
		{ .version = 2 },
		{ .version = 2, .swap = 1, .shuffle = 1, .wide_starts = 1 },
		{ .version = 2, .wide_words = 1, .auxhdr_len = 3 },
		{ .version = 1 },
		{ .version = 1, .shuffle = 1, .wide_words = 1, .wide_starts = 1 },
	};
	int i, malformed = 0;
	unsigned int v;

	if (argc < 2 || strcmp(argv[1], "--malformed")) {
		test_block_index();
		test_rows_sizeless_first();
	}
	for (i = 1; i < argc; i++) {
		struct fixture fx;
		struct sframe_section sec;
		char rows[1024];

		if (!strcmp(argv[i], "--malformed")) {
			malformed = 1;
			continue;
		}
		if (load_fixture(&fx, argv[i])) {
			t_begin("load: %s", argv[i]);
			T_CHECK(0, "cannot load fixture");
			t_end();
			continue;
		}
		if (malformed) {
			test_malformed(&fx);
			free(fx.data);
			continue;
		}
		snprintf(rows, sizeof(rows), "%s.rows.txt", argv[i]);
		if (sframe_open(&sec, fx.data, fx.size, fx.addr, 0) == 0 &&
		    !load_rows(&fx, rows, sec.fixed_ra))
			test_rows(&fx);
		test_relocated(&fx);
		test_index(&fx, 4);
		test_index(&fx, 12);
		test_decoded_rows(&fx, 0, 0);
		test_decoded_rows(&fx, 4, 0);
		test_decoded_rows(&fx, 8, 0);
		test_decoded_rows(&fx, SFRAME_ROWS_MAX_SHIFT, 0);
		test_decoded_rows(&fx, 8, 1);
		test_rows_fre_count(&fx);
		test_fields(&fx);
		for (v = 0; v < ARRAY_SIZE(variants); v++) {
			struct encode_opts eo = variants[v];

			if (eo.swap && sec.abi != SFRAME_ABI_AARCH64_ENDIAN_LITTLE &&
			    sec.abi != SFRAME_ABI_AARCH64_ENDIAN_BIG)
				continue;
			if (eo.version == 1 && sec.abi == SFRAME_ABI_S390X_ENDIAN_BIG)
				continue;
			if (!eo.addr)
				eo.addr = fx.addr;
			test_reencode(&fx, &eo);
		}
		free(fx.data);
		while (fx.nfdes)
			free(fx.fdes[--fx.nfdes].fres);
		free(fx.fdes);
	}
	printf("%d passed, %d failed\n", t_pass, t_fail);
	return t_fail ? 1 : 0;
}
