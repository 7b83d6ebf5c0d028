// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-verify: build-time verification of the SFrame data of a kernel
 * image, module or object.
 *
 *   sframe-verify [--exceptions FILE] [--policy fail|warn]
 *                 [--write-fixups|--count-fixups]
 *                 [--module-fixups FILE] [--quiet] [--verbose] ELF...
 *
 * Checks, per input:
 *  - coverage: every byte of every code symbol has an SFrame row, an
 *    annotation (.sframe_annot) or an entry in the exceptions file;
 *  - x86_64: the SFrame rules agree with ORC at every instruction (over the
 *    union of the row boundaries of both tables); disagreements are
 *    classified (stack-switch, pushf-pop, iret-to-self, unknown);
 *  - arm64: every FDE matches a symbol, and rows follow the AAPCS64 frame
 *    record (RA saved next to FP, CFA at or above SP).
 *
 * --write-fixups (vmlinux) records every range where SFrame is covered but
 * wrong, and no annotation covers it, as an SFRAME_ANNOT_UNRELIABLE entry
 * in the reserved tail of .sframe_annot, then sorts the table by address.
 *
 * --count-fixups prints only the number of entries --write-fixups would
 * write: the build links that many empty slots into vmlinux.
 *
 * --module-fixups FILE (one module or object) writes the same ranges to
 * FILE as struct sframe_annot_fixup entries (include/sframe/annot.h):
 * relative to the FDE whose function contains them, so they need no
 * relocation; the build adds FILE to the .ko as section .sframe_fixup.
 * A module's .sframe holds one SFrame section per object file linked into
 * it: every check covers all of them.
 *
 * Exit status: 0 clean (or --policy warn), 1 unknown findings or too few
 * fixup slots, 2 malformed input or bad usage.
 *
 * Built from this file, tools/elf.c and lib/sframe/sframe.c (-Iinclude); plain
 * C and libc only, so it can also be a kernel hostprog.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sframe/sframe.h>
#include <sframe/annot.h>
#include "sframe-elf.h"

static const char *prog = "sframe-verify";

/* Options. */
static int opt_verbose, opt_quiet, opt_warn, opt_fixups, opt_count;
static const char *opt_modfix;		/* --module-fixups FILE */

/* ORC (arch/x86/include/asm/orc_types.h, Linux 6.1). */
#define ORC_REG_UNDEFINED	0
#define ORC_REG_PREV_SP		1
#define ORC_REG_BP		4
#define ORC_REG_SP		5
#define ORC_REG_SP_INDIRECT	9
#define ORC_TYPE_CALL		0
#define ORC_ENTRY_SIZE		6

/* Finding classes. */
enum cls {
	CLS_NONE,
	CLS_UNKNOWN,
	CLS_STACK_SWITCH,
	CLS_PUSHF_POP,
	CLS_IRET_TO_SELF,
	CLS_ALT_PUSHF,
	CLS_FTRACE_NOP,
	CLS_DRAP,
	CLS_FDE_MISMATCH,
	CLS_ORPHAN_FDE,
	CLS_FRAME_RECORD,
	CLS_MAX
};

static const char * const cls_names[CLS_MAX] = {
	[CLS_NONE] = "none",
	[CLS_UNKNOWN] = "unknown",
	[CLS_STACK_SWITCH] = "stack-switch",
	[CLS_PUSHF_POP] = "pushf-pop",
	[CLS_IRET_TO_SELF] = "iret-to-self",
	[CLS_ALT_PUSHF] = "alt-pushf",
	[CLS_FTRACE_NOP] = "ftrace-nop",
	[CLS_DRAP] = "drap",
	[CLS_FDE_MISMATCH] = "fde-mismatch",
	[CLS_ORPHAN_FDE] = "orphan-fde",
	[CLS_FRAME_RECORD] = "frame-record",
};

/* Exceptions file. */
enum exc_kind { EXC_MISSING, EXC_WRONG };
enum exc_pat { PAT_GLOB, PAT_SECTION, PAT_RANGE, PAT_CLASS };

struct exception {
	unsigned int machine;	/* 0: any */
	enum exc_kind kind;
	enum exc_pat pat;
	char *arg;		/* glob, section, first range symbol */
	char *arg2;		/* second range symbol, or class glob */
	enum cls cls;
	char *reason;
	int line;
	uint64_t lo, hi;	/* PAT_RANGE resolved in the current file */
	int resolved;
	uint64_t hits, bytes;
};

static struct exception *excs;
static int nexcs;
static const char *exc_path;

/* A half-open address interval. */
struct ival {
	uint64_t lo, hi;
};

struct ivals {
	struct ival *v;
	size_t n, cap;
};

/* A code symbol's bytes after overlaps are resolved. */
struct region {
	uint64_t lo, hi;
	uint64_t sym;		/* symbol start (for sym+off) */
	const char *name;
	uint64_t shndx;
	int wrong;		/* has wrong bytes (function count) */
	const struct region *alias;	/* symbols with the same bytes */
	size_t nalias;
};

struct orc {
	uint64_t ip;
	int16_t sp_off, bp_off;
	uint8_t sp_reg, bp_reg, type, end;
};

struct annot {
	uint64_t lo, hi;
	uint8_t type;
};

struct stats {
	uint64_t text, sframe, annot, exc, unknown;
	uint64_t compared, agree, orc_only, wrong, wrong_funcs;
	uint64_t cls_bytes[CLS_MAX], ss_annotated, wrong_unknown;
	uint64_t fdes, fde_bad, fde_orphan, frame_bad, arm_unknown;
	uint64_t nfix, fix_free, fix_total, fix_written;
	uint64_t known[2];	/* known findings: uncovered, wrong */
	int has_orc, has_annot, has_fixarea;
};

/* What the parts of an input's .sframe share: the ABI's registers. */
struct abi_regs {
	u8 sp_reg, fp_reg;
};

/* One SFrame section of the input's .sframe (see sframe_open_part()). */
struct part {
	struct sframe_section sec;
	u32 *index;
	u32 first;		/* index of its first FDE in the sequence */
};

/* Everything known about the current input. */
struct input {
	const char *path;
	struct elf_file f;
	const char *arch;
	struct abi_regs sec;	/* register numbers, the same in every part */
	struct part *parts;	/* .sframe: a module's has one per object */
	size_t nparts;
	int has_sframe;
	struct region *regs;
	size_t nregs;
	struct region *syms;	/* every code symbol, sorted (aliases) */
	struct ival *allsyms;	/* every sized code symbol, sorted */
	size_t nallsyms;
	struct ivals rows;	/* bytes with an SFrame row, merged */
	struct ivals symset;	/* bytes inside code symbols, merged */
	uint64_t *bounds;	/* SFrame row boundaries, sorted */
	size_t nbounds;
	struct orc *orc;
	size_t norc;
	struct ival *alts;	/* .altinstructions: original instructions */
	struct ival *alt_repl;	/* ... and their replacements */
	size_t nalts;
	struct annot *annots;
	size_t nannots;
	struct ivals annot_all, annot_ssi;
	struct ivals fix;	/* wrong and unannotated: fixup candidates */
	int annot_sec;
	struct stats st;
};

/* One line on stderr, exit status 2. */
static void die(const char *path, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", prog, path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(2);
	}
	return p;
}

static void *xrealloc(void *p, size_t n, size_t size)
{
	if (n && size > SIZE_MAX / n) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(2);
	}
	p = realloc(p, n && size ? n * size : 1);
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(2);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xcalloc(n, 1), s, n);
}

/* Interval sets. */

static void iv_add(struct ivals *s, uint64_t lo, uint64_t hi)
{
	if (lo >= hi)
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xrealloc(s->v, s->cap, sizeof(*s->v));
	}
	s->v[s->n].lo = lo;
	s->v[s->n].hi = hi;
	s->n++;
}

static int cmp_ival(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* Sort and merge overlapping or adjacent intervals. */
static void iv_merge(struct ivals *s)
{
	size_t i, n = 0;

	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_ival);
	for (i = 1; i < s->n; i++) {
		if (s->v[i].lo <= s->v[n].hi) {
			if (s->v[i].hi > s->v[n].hi)
				s->v[n].hi = s->v[i].hi;
		} else {
			s->v[++n] = s->v[i];
		}
	}
	s->n = n + 1;
}

/* First interval of a merged set ending above @a. */
static size_t iv_first(const struct ivals *s, uint64_t a)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].hi <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Bytes of [lo, hi) inside a merged set. */
static uint64_t iv_overlap(const struct ivals *s, uint64_t lo, uint64_t hi)
{
	uint64_t n = 0;
	size_t i;

	for (i = iv_first(s, lo); i < s->n && s->v[i].lo < hi; i++) {
		uint64_t a = s->v[i].lo > lo ? s->v[i].lo : lo;
		uint64_t b = s->v[i].hi < hi ? s->v[i].hi : hi;

		n += b - a;
	}
	return n;
}

/* Parts of [lo, hi) outside the merged set @s, appended to @out. */
static void iv_subtract(const struct ivals *s, uint64_t lo, uint64_t hi,
			struct ivals *out)
{
	size_t i;

	for (i = iv_first(s, lo); i < s->n && s->v[i].lo < hi && lo < hi; i++) {
		if (s->v[i].lo > lo)
			iv_add(out, lo, s->v[i].lo);
		lo = s->v[i].hi;
	}
	if (lo < hi)
		iv_add(out, lo, hi);
}

/* Exceptions file. */

static enum cls cls_parse(const char *s)
{
	int i;

	for (i = CLS_UNKNOWN + 1; i < CLS_MAX; i++)
		if (!strcmp(s, cls_names[i]))
			return i;
	return CLS_NONE;
}

/*
 * Line format: ARCH KIND PATTERN REASON...
 *   ARCH     x86_64, arm64 or "*"
 *   KIND     missing (no SFrame row) or wrong (SFrame disagrees)
 *   PATTERN  symbol glob, section:NAME, range:START..END (linker symbols),
 *            class:CLASS or class:CLASS:SYMBOL-GLOB
 */
static void exc_load(const char *path)
{
	uint8_t *buf;
	size_t size;
	char *p, *line, *save = NULL;
	int err, lineno = 0;

	err = sframe_read_file(path, &buf, &size);
	if (err)
		die(path, "%s", strerror(-err));
	exc_path = path;
	buf = xrealloc(buf, size + 1, 1);
	buf[size] = 0;
	if (memchr(buf, 0, size))
		die(path, "NUL byte in the exceptions file");
	for (p = (char *)buf; (line = strtok_r(p, "\n", &save)); p = NULL) {
		char *f[3], *rest = line, *s;
		struct exception *e;
		int i;

		lineno++;
		while (*rest == ' ' || *rest == '\t')
			rest++;
		if (!*rest || *rest == '#')
			continue;
		for (i = 0; i < 3; i++) {
			f[i] = rest;
			rest += strcspn(rest, " \t");
			if (!*rest)
				die(path, "line %d: expected ARCH KIND PATTERN REASON",
				    lineno);
			*rest++ = 0;
			rest += strspn(rest, " \t");
		}
		if (!*rest)
			die(path, "line %d: no reason given", lineno);
		excs = xrealloc(excs, nexcs + 1, sizeof(*excs));
		e = &excs[nexcs++];
		memset(e, 0, sizeof(*e));
		e->line = lineno;
		e->reason = xstrdup(rest);
		if (!strcmp(f[0], "x86_64"))
			e->machine = ELF_EM_X86_64;
		else if (!strcmp(f[0], "arm64"))
			e->machine = ELF_EM_AARCH64;
		else if (strcmp(f[0], "*"))
			die(path, "line %d: unknown arch '%s'", lineno, f[0]);
		if (!strcmp(f[1], "missing"))
			e->kind = EXC_MISSING;
		else if (!strcmp(f[1], "wrong"))
			e->kind = EXC_WRONG;
		else
			die(path, "line %d: unknown kind '%s'", lineno, f[1]);
		if (!strncmp(f[2], "section:", 8)) {
			e->pat = PAT_SECTION;
			e->arg = xstrdup(f[2] + 8);
		} else if (!strncmp(f[2], "range:", 6)) {
			e->pat = PAT_RANGE;
			e->arg = xstrdup(f[2] + 6);
			s = strstr(e->arg, "..");
			if (!s || s == e->arg || !s[2])
				die(path, "line %d: expected range:START..END",
				    lineno);
			*s = 0;
			e->arg2 = s + 2;
		} else if (!strncmp(f[2], "class:", 6)) {
			e->pat = PAT_CLASS;
			e->arg = xstrdup(f[2] + 6);
			s = strchr(e->arg, ':');
			if (s) {
				*s = 0;
				e->arg2 = s + 1;
			}
			e->cls = cls_parse(e->arg);
			if (e->cls == CLS_NONE)
				die(path, "line %d: unknown class '%s'", lineno,
				    e->arg);
		} else {
			e->pat = PAT_GLOB;
			e->arg = xstrdup(f[2]);
		}
	}
	free(buf);
}

/* Resolve range: patterns against the symbols of @in. */
static void exc_resolve(struct input *in)
{
	uint64_t i, n = elf_nsyms(&in->f, in->f.symtab);
	struct elf_sym s;
	int k;

	for (k = 0; k < nexcs; k++)
		excs[k].resolved = 0;
	for (i = 1; i < n; i++) {
		if (elf_sym_get(&in->f, in->f.symtab, i, &s) || !s.shndx || !*s.name)
			continue;
		for (k = 0; k < nexcs; k++) {
			struct exception *e = &excs[k];

			if (e->pat != PAT_RANGE)
				continue;
			if (!strcmp(s.name, e->arg)) {
				e->lo = s.value;
				e->resolved |= 1;
			}
			if (!strcmp(s.name, e->arg2)) {
				e->hi = s.value;
				e->resolved |= 2;
			}
		}
	}
}

/* Does @glob match the name of the symbol of @r or of one of its aliases? */
static int name_match(const char *glob, const struct region *r)
{
	size_t i;

	if (!fnmatch(glob, r->name, 0))
		return 1;
	for (i = 0; i < r->nalias; i++)
		if (!fnmatch(glob, r->alias[i].name, 0))
			return 1;
	return 0;
}

/* The exception that accepts a finding, or NULL. */
static struct exception *exc_match(const struct input *in, enum exc_kind kind,
				   const struct region *r, uint64_t lo,
				   uint64_t hi, enum cls cls)
{
	int k;

	for (k = 0; k < nexcs; k++) {
		struct exception *e = &excs[k];
		int ok = 0;

		if (e->kind != kind || (e->machine && e->machine != in->f.machine))
			continue;
		switch (e->pat) {
		case PAT_GLOB:
			ok = name_match(e->arg, r);
			break;
		case PAT_SECTION:
			ok = !strcmp(e->arg, in->f.secs[r->shndx].name);
			break;
		case PAT_RANGE:
			ok = e->resolved == 3 && lo >= e->lo && hi <= e->hi;
			break;
		case PAT_CLASS:
			ok = e->cls == cls &&
			     (!e->arg2 || name_match(e->arg2, r));
			break;
		}
		if (ok) {
			e->hits++;
			e->bytes += hi - lo;
			return e;
		}
	}
	return NULL;
}

/* Symbols and regions. */

static int cmp_region(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1;	/* longest first */
	/* aliases: memcpy before __memcpy and __pi_memcpy */
	if (strspn(x->name, "_") != strspn(y->name, "_"))
		return strspn(x->name, "_") < strspn(y->name, "_") ? -1 : 1;
	if (strlen(x->name) != strlen(y->name))
		return strlen(x->name) < strlen(y->name) ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Code symbols: STT_FUNC, and sized STT_NOTYPE (assembly SYM_CODE), in
 * SHF_EXECINSTR sections, clipped to their section.  Overlapping bytes
 * (aliases, nested labels) belong to the earliest, longest symbol.
 */
static void load_symbols(struct input *in)
{
	uint64_t i, n = elf_nsyms(&in->f, in->f.symtab), covered = 0;
	struct region *all;
	size_t na = 0, k;
	struct elf_sym s;

	all = xcalloc(n, sizeof(*all));
	for (i = 1; i < n; i++) {
		const struct elf_sec *sec;
		uint64_t end;

		if (elf_sym_get(&in->f, in->f.symtab, i, &s) || !s.shndx || !s.size ||
		    !*s.name)
			continue;
		if (s.type != ELF_STT_FUNC && s.type != ELF_STT_NOTYPE)
			continue;
		sec = &in->f.secs[s.shndx];
		if (!(sec->flags & ELF_SHF_EXECINSTR) ||
		    sec->type == ELF_SHT_NOBITS)
			continue;
		if (s.value < sec->vaddr || s.value - sec->vaddr >= sec->size)
			continue;
		end = sec->vaddr + sec->size;
		if (s.size < end - s.value)
			end = s.value + s.size;
		all[na].lo = s.value;
		all[na].hi = end;
		all[na].sym = s.value;
		all[na].name = s.name;
		all[na].shndx = s.shndx;
		na++;
	}
	qsort(all, na, sizeof(*all), cmp_region);
	in->allsyms = xcalloc(na, sizeof(*in->allsyms));
	in->regs = xcalloc(na, sizeof(*in->regs));
	for (k = 0; k < na; k++) {
		struct region r = all[k];
		size_t j = k;

		while (j + 1 < na && all[j + 1].lo == r.lo && all[j + 1].hi == r.hi)
			j++;
		r.alias = all + k;
		r.nalias = j - k + 1;

		in->allsyms[k].lo = r.lo;
		in->allsyms[k].hi = r.hi;
		iv_add(&in->symset, r.lo, r.hi);
		if (r.hi <= covered)
			continue;
		if (r.lo < covered)
			r.lo = covered;
		covered = r.hi;
		in->regs[in->nregs++] = r;
	}
	in->nallsyms = na;
	iv_merge(&in->symset);
	in->syms = all;
}

/* Region containing @a, or NULL. */
static struct region *region_at(const struct input *in, uint64_t a)
{
	size_t lo = 0, hi = in->nregs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (in->regs[mid].hi <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < in->nregs && in->regs[lo].lo <= a)
		return &in->regs[lo];
	return NULL;
}

/* Bytes of the file at address @a (in an allocated section), or NULL. */
static const uint8_t *text_bytes(const struct input *in, uint64_t a,
				 uint64_t len)
{
	uint64_t i;

	for (i = 1; i < in->f.shnum; i++) {
		const struct elf_sec *s = &in->f.secs[i];

		if (!(s->flags & ELF_SHF_ALLOC) || s->type == ELF_SHT_NOBITS ||
		    a < s->vaddr || a - s->vaddr > s->size ||
		    len > s->size - (a - s->vaddr))
			continue;
		return elf_sec_data(&in->f, i) + (a - s->vaddr);
	}
	return NULL;
}

/* SFrame. */

/* @off: offset of the bad section in .sframe (a sequence of sections). */
static void sframe_fail(const struct input *in, const char *what,
			uint64_t off, int err)
{
	if (off)
		die(in->path, "malformed .sframe: section at offset 0x%" PRIx64
		    ": %s: %s (%s)", off, what, sframe_strerror(err),
		    sframe_errname(err));
	die(in->path, "malformed .sframe: %s: %s (%s)", what,
	    sframe_strerror(err), sframe_errname(err));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Offset of part @p in .sframe. */
static uint64_t part_off(const struct input *in, const struct part *p)
{
	return p->sec.data - in->parts[0].sec.data;
}

/* Validate and index part @p, and note its rows and row boundaries. */
static void load_part(struct input *in, struct part *p, size_t *cap)
{
	uint64_t off = part_off(in, p);
	u32 i, nwords;
	int err;

	err = sframe_validate(&p->sec, NULL, NULL);
	if (err)
		sframe_fail(in, "validation", off, err);
	err = sframe_index_size(&p->sec, 12, &nwords);
	if (!err) {
		p->index = xcalloc(nwords, sizeof(u32));
		err = sframe_index_build(&p->sec, 12, p->index, nwords);
	}
	if (err)
		sframe_fail(in, "index", off, err);

	for (i = 0; i < p->sec.num_fdes; i++) {
		struct sframe_fde fde;
		struct sframe_fre fre;
		u32 k, q;

		err = sframe_get_fde(&p->sec, i, &fde);
		if (err)
			sframe_fail(in, "FDE", off, err);
		in->st.fdes++;
		if (in->nbounds + fde.num_fres + 2 > *cap) {
			*cap = 2 * *cap + fde.num_fres + 64;
			in->bounds = xrealloc(in->bounds, *cap, sizeof(uint64_t));
		}
		if (sframe_fde_pcmask(&fde)) {
			iv_add(&in->rows, fde.start, fde.start + fde.size);
			continue;
		}
		for (k = 0, q = fde.fres; k < fde.num_fres; k++, q = fre.next) {
			err = sframe_read_fre(&p->sec, &fde, q, &fre);
			if (err)
				sframe_fail(in, "FRE", off, err);
			if (!k)
				iv_add(&in->rows, fde.start + fre.start,
				       fde.start + fde.size);
			in->bounds[in->nbounds++] = fde.start + fre.start;
		}
		in->bounds[in->nbounds++] = fde.start + fde.size;
	}
}

/*
 * A linked ELF's .sframe is one section; a relocatable object's (a
 * module's) is a sequence of sections, one per object file linked into it
 * (see sframe_open_part()), read here as the module loader reads them.
 */
static void load_sframe(struct input *in)
{
	int idx = elf_sec_find(&in->f, ".sframe"), nrel = 0, err;
	struct sframe_section *secs;
	const char *why;
	const struct elf_sec *s;
	const uint8_t *data;
	uint64_t off = 0;
	size_t cap = 0, k;
	u32 first = 0;

	if (idx < 0)
		return;
	s = &in->f.secs[idx];
	if (!elf_sec_data(&in->f, idx))
		die(in->path, "malformed .sframe: no contents");
	if (in->f.type == ELF_ET_REL &&
	    elf_apply_rela(&in->f, idx, &nrel, &why))
		die(in->path, ".rela.sframe: %s", why);
	data = elf_sec_data(&in->f, idx);
	if (in->f.type == ELF_ET_REL) {
		/*
		 * Relocated as the module loader does: start fields hold
		 * function - field (v1 says nothing).
		 */
		err = sframe_open_parts(data, s->size, s->vaddr,
					SFRAME_OPEN_PCREL, &secs, &in->nparts,
					&off);
	} else {
		secs = xcalloc(1, sizeof(*secs));
		in->nparts = 1;
		err = sframe_open(secs, data, s->size, s->vaddr, 0);
	}
	if (err)
		sframe_fail(in, "header", off, err);

	in->parts = xcalloc(in->nparts, sizeof(*in->parts));
	for (k = 0; k < in->nparts; k++) {
		struct part *p = &in->parts[k];

		p->sec = secs[k];
		p->first = first;
		first += p->sec.num_fdes;
		if (p->sec.abi != secs[0].abi)
			die(in->path, "malformed .sframe: section at offset 0x%"
			    PRIx64 " is for another ABI", part_off(in, p));
		/* "sorted" describes one text section, not our layout */
		if (in->f.type == ELF_ET_REL)
			p->sec.flags &= ~SFRAME_F_FDE_SORTED;
		load_part(in, p, &cap);
	}
	in->sec.sp_reg = secs[0].sp_reg;
	in->sec.fp_reg = secs[0].fp_reg;
	in->has_sframe = 1;
	free(secs);
	iv_merge(&in->rows);
	qsort(in->bounds, in->nbounds, sizeof(uint64_t), cmp_u64);
}

static void free_sframe(struct input *in)
{
	size_t k;

	for (k = 0; k < in->nparts; k++)
		free(in->parts[k].index);
	free(in->parts);
}

/* The first part with an FDE covering @pc (in @fde), or NULL. */
static const struct part *part_at(const struct input *in, uint64_t pc,
				  struct sframe_fde *fde)
{
	size_t k;

	for (k = 0; k < in->nparts; k++)
		if (!sframe_find_fde(&in->parts[k].sec, pc, fde))
			return &in->parts[k];
	return NULL;
}

/* SFrame rule at @pc, from the first part covering it; 0 if covered. */
static int sframe_rule_at(const struct input *in, uint64_t pc,
			  struct sframe_rule *r)
{
	int err = -SFRAME_E_NO_FDE;
	size_t k;

	for (k = 0; k < in->nparts && err == -SFRAME_E_NO_FDE; k++)
		err = sframe_find(&in->parts[k].sec, pc, r);
	return err;
}

static const char *reg_name(const struct input *in, unsigned int reg)
{
	if (reg == in->sec.sp_reg)
		return "sp";
	if (reg == in->sec.fp_reg)
		return "fp";
	return "r?";
}

static void fmt_sframe(const struct input *in, int err,
		       const struct sframe_rule *r, char *buf, size_t n)
{
	int k;

	if (err) {
		snprintf(buf, n, "none (%s)", sframe_errname(err));
		return;
	}
	if (r->flags & SFRAME_RULE_OUTERMOST) {
		snprintf(buf, n, "outermost");
		return;
	}
	k = snprintf(buf, n, "CFA=%s%+d", reg_name(in, r->cfa.reg),
		     r->cfa.offset);
	if (r->ra.kind == SFRAME_LOC_CFA)
		k += snprintf(buf + k, n - k, " RA=*(CFA%+d)", r->ra.offset);
	else
		k += snprintf(buf + k, n - k, " RA=lr");
	if (r->fp.kind == SFRAME_LOC_CFA)
		snprintf(buf + k, n - k, " FP=*(CFA%+d)", r->fp.offset);
	else
		snprintf(buf + k, n - k, " FP=same");
}

/* Annotations (.sframe_annot). */

static void load_annots(struct input *in)
{
	int idx = elf_sec_find(&in->f, ".sframe_annot"), nrel = 0;
	const struct elf_sec *s;
	const uint8_t *d;
	const char *why;
	uint64_t i, n;

	in->annot_sec = idx;
	if (idx < 0)
		return;
	s = &in->f.secs[idx];
	if (!elf_sec_data(&in->f, idx) || s->size % SFRAME_ANNOT_SIZE)
		die(in->path, "malformed .sframe_annot: size %" PRIu64
		    " is not a multiple of %d", s->size, SFRAME_ANNOT_SIZE);
	if (in->f.type == ELF_ET_REL &&
	    elf_apply_rela(&in->f, idx, &nrel, &why))
		die(in->path, ".rela.sframe_annot: %s", why);
	d = elf_sec_data(&in->f, idx);
	in->st.has_annot = 1;
	n = s->size / SFRAME_ANNOT_SIZE;
	in->annots = xcalloc(n, sizeof(*in->annots));
	for (i = 0; i < n; i++) {
		const uint8_t *e = d + i * SFRAME_ANNOT_SIZE;
		uint64_t addr = s->vaddr + i * SFRAME_ANNOT_SIZE;
		int32_t pc = (int32_t)elf_get(&in->f, e, 4);
		uint16_t len = elf_get(&in->f, e + 4, 2);
		uint8_t type = e[6];
		struct annot *a;

		if (type == SFRAME_ANNOT_NONE)
			continue;
		if (type > SFRAME_ANNOT_TYPE_MAX)
			die(in->path, "malformed .sframe_annot: entry %" PRIu64
			    " has type %u", i, type);
		a = &in->annots[in->nannots++];
		a->lo = addr + (int64_t)pc;
		a->hi = a->lo + len;
		a->type = type;
		iv_add(&in->annot_all, a->lo, a->hi);
		if (type == SFRAME_ANNOT_SP_INDIRECT)
			iv_add(&in->annot_ssi, a->lo, a->hi);
	}
	iv_merge(&in->annot_all);
	iv_merge(&in->annot_ssi);
}

/* Output of findings. */

static void sym_range(const struct region *r, uint64_t lo, uint64_t hi,
		      char *buf, size_t n)
{
	snprintf(buf, n, "%s+0x%" PRIx64 "..0x%" PRIx64, r->name, lo - r->sym,
		 hi - r->sym);
}

/* Print a finding per the verbosity; returns 1 if unknown. */
static int finding(struct input *in, const char *what,
		   const struct region *r, uint64_t lo, uint64_t hi,
		   const struct exception *e, const char *known,
		   const char *detail)
{
	char where[512];

	if (e || known)
		in->st.known[what[0] == 'u' ? 0 : 1]++;
	if (!e && !known) {
		if (opt_count)
			return 1;
		sym_range(r, lo, hi, where, sizeof(where));
		printf("%s: %s: %s (%" PRIu64 " bytes)%s%s: unknown\n", in->path,
		       what, where, hi - lo, detail ? ": " : "",
		       detail ? detail : "");
		return 1;
	}
	if (!opt_verbose)
		return 0;
	sym_range(r, lo, hi, where, sizeof(where));
	if (e)
		printf("%s: %s: %s (%" PRIu64 " bytes)%s%s: known (exception: %s)\n",
		       in->path, what, where, hi - lo, detail ? ": " : "",
		       detail ? detail : "", e->reason);
	else
		printf("%s: %s: %s (%" PRIu64 " bytes)%s%s: known (%s)\n",
		       in->path, what, where, hi - lo, detail ? ": " : "",
		       detail ? detail : "", known);
	return 0;
}

/* Coverage. */

/* arm64: [lo, hi) is the ftrace NOP pair in front of an FDE. */
static int is_ftrace_nops(const struct input *in, const struct region *r,
			  uint64_t lo, uint64_t hi)
{
	const uint8_t *b = text_bytes(in, lo, 8);
	struct sframe_fde fde;
	int i;

	if (in->f.machine != ELF_EM_AARCH64 || lo != r->sym || hi != lo + 8 ||
	    !b || !in->has_sframe)
		return 0;
	for (i = 0; i < 2; i++)
		if (elf_get(&in->f, b + 4 * i, 4) != 0xd503201f)
			return 0;
	return part_at(in, hi, &fde) && fde.start == hi;
}

/*
 * x86_64: stack realignment through a DRAP register, whose FDE gas 2.40
 * drops: "and $-N,%rsp" (48 83 e4 ib or 48 81 e4 id) within the first 32
 * bytes, followed within 28 bytes (KASAN puts a movabs in between) by
 * "push -8(%reg)" (ff 7x f8, REX optional) that re-pushes the return
 * address.  Only whole functions.
 */
static int is_drap(const struct input *in, const struct region *r,
		   uint64_t lo, uint64_t hi)
{
	uint64_t n = r->hi - r->lo, i, j;
	const uint8_t *b;

	if (in->f.machine != ELF_EM_X86_64 || lo != r->sym || hi != r->hi)
		return 0;
	if (n > 64)
		n = 64;
	b = text_bytes(in, r->lo, n);
	if (!b)
		return 0;
	for (i = 0; i + 4 <= n && i < 32; i++) {
		if (b[i] != 0x48 || (b[i + 1] != 0x83 && b[i + 1] != 0x81) ||
		    b[i + 2] != 0xe4)
			continue;
		for (j = i + 4; j + 3 <= n && j < i + 32; j++)
			if (b[j] == 0xff && (b[j + 1] & 0xf8) == 0x70 &&
			    b[j + 2] == 0xf8)
				return 1;
	}
	return 0;
}

/*
 * The .cold partition of a DRAP function: gcc moves its unlikely paths to
 * "NAME.cold", which has its own FDE in the CFI; gas drops it with the
 * main part's (load_module.cold).  Only a whole, uncovered .cold symbol
 * whose parent NAME is a whole, uncovered DRAP function.
 */
static int is_drap_cold(const struct input *in, const struct region *r,
			uint64_t lo, uint64_t hi)
{
	size_t len = strlen(r->name), k;

	if (lo != r->sym || hi != r->hi || len <= 5 ||
	    strcmp(r->name + len - 5, ".cold"))
		return 0;
	for (k = 0; k < in->nregs; k++) {
		const struct region *p = &in->regs[k];

		if (strlen(p->name) == len - 5 &&
		    !strncmp(p->name, r->name, len - 5) &&
		    !iv_overlap(&in->rows, p->lo, p->hi))
			return is_drap(in, p, p->sym, p->hi);
	}
	return 0;
}

static void check_coverage(struct input *in)
{
	struct ivals gaps = { 0 };
	size_t k, i;

	for (k = 0; k < in->nregs; k++) {
		struct region *r = &in->regs[k];
		uint64_t len = r->hi - r->lo, rows;

		in->st.text += len;
		rows = iv_overlap(&in->rows, r->lo, r->hi);
		in->st.sframe += rows;
		gaps.n = 0;
		if (rows == len)
			continue;
		{
			struct ivals nrow = { 0 };

			iv_subtract(&in->rows, r->lo, r->hi, &nrow);
			for (i = 0; i < nrow.n; i++) {
				in->st.annot += iv_overlap(&in->annot_all,
							   nrow.v[i].lo,
							   nrow.v[i].hi);
				iv_subtract(&in->annot_all, nrow.v[i].lo,
					    nrow.v[i].hi, &gaps);
			}
			free(nrow.v);
		}
		for (i = 0; i < gaps.n; i++) {
			uint64_t lo = gaps.v[i].lo, hi = gaps.v[i].hi;
			enum cls c = CLS_UNKNOWN;
			struct exception *e;
			char detail[64];

			if (is_ftrace_nops(in, r, lo, hi))
				c = CLS_FTRACE_NOP;
			else if (is_drap(in, r, lo, hi) ||
				 is_drap_cold(in, r, lo, hi))
				c = CLS_DRAP;
			e = exc_match(in, EXC_MISSING, r, lo, hi, c);
			snprintf(detail, sizeof(detail), "[%s%s%s]",
				 in->f.secs[r->shndx].name,
				 c != CLS_UNKNOWN ? " " : "",
				 c != CLS_UNKNOWN ? cls_names[c] : "");
			if (e)
				in->st.exc += hi - lo;
			else
				in->st.unknown += hi - lo;
			finding(in, "uncovered", r, lo, hi, e, NULL, detail);
		}
	}
	free(gaps.v);
}

/* x86_64: SFrame against ORC. */

static int cmp_orc(const void *a, const void *b)
{
	const struct orc *x = a, *y = b;
	int ux, uy;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	/* As orc_sort_cmp(): a terminator loses against a real entry. */
	ux = x->sp_reg == ORC_REG_UNDEFINED && !x->end;
	uy = y->sp_reg == ORC_REG_UNDEFINED && !y->end;
	return uy - ux;
}

static void load_orc(struct input *in)
{
	int ip = elf_sec_find(&in->f, ".orc_unwind_ip");
	int un = elf_sec_find(&in->f, ".orc_unwind");
	const uint8_t *ipd, *und;
	const char *why;
	uint64_t i, n;
	int nrel = 0;

	if (ip < 0 || un < 0)
		return;
	n = in->f.secs[ip].size / 4;
	if (!elf_sec_data(&in->f, ip) || !elf_sec_data(&in->f, un) ||
	    in->f.secs[ip].size % 4 ||
	    in->f.secs[un].size != n * ORC_ENTRY_SIZE)
		die(in->path, "malformed ORC: .orc_unwind_ip and .orc_unwind sizes disagree");
	if (in->f.type == ELF_ET_REL &&
	    elf_apply_rela(&in->f, ip, &nrel, &why))
		die(in->path, ".rela.orc_unwind_ip: %s", why);
	ipd = elf_sec_data(&in->f, ip);
	und = elf_sec_data(&in->f, un);
	in->orc = xcalloc(n, sizeof(*in->orc));
	for (i = 0; i < n; i++) {
		const uint8_t *u = und + i * ORC_ENTRY_SIZE;
		struct orc *o = &in->orc[i];
		uint16_t bits = elf_get(&in->f, u + 4, 2);

		o->ip = in->f.secs[ip].vaddr + 4 * i +
			(int64_t)(int32_t)elf_get(&in->f, ipd + 4 * i, 4);
		o->sp_off = (int16_t)elf_get(&in->f, u, 2);
		o->bp_off = (int16_t)elf_get(&in->f, u + 2, 2);
		o->sp_reg = bits & 0xf;
		o->bp_reg = (bits >> 4) & 0xf;
		o->type = (bits >> 8) & 3;
		o->end = (bits >> 10) & 1;
	}
	qsort(in->orc, n, sizeof(*in->orc), cmp_orc);
	in->norc = n;
	in->st.has_orc = 1;
}

/* Index of the first ORC entry above @pc. */
static size_t orc_upper(const struct input *in, uint64_t pc)
{
	size_t lo = 0, hi = in->norc;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (in->orc[mid].ip <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int orc_defined(const struct orc *o)
{
	return o && !(o->sp_reg == ORC_REG_UNDEFINED && !o->end);
}

static void fmt_orc(const struct orc *o, char *buf, size_t n)
{
	static const char * const types[] = { "call", "regs", "regs-partial", "?" };
	static const char * const regs[16] = {
		"undef", "prev_sp", "dx", "di", "bp", "sp", "r10", "r13",
		"*bp", "*sp", "10", "11", "12", "13", "14", "15"
	};
	int k;

	if (o->sp_reg == ORC_REG_UNDEFINED) {
		snprintf(buf, n, "%s", o->end ? "end-of-stack" : "undefined");
		return;
	}
	if (o->sp_reg == ORC_REG_SP_INDIRECT)
		k = snprintf(buf, n, "CFA=*(sp)%+d", o->sp_off);
	else
		k = snprintf(buf, n, "CFA=%s%+d", regs[o->sp_reg], o->sp_off);
	if (o->bp_reg == ORC_REG_UNDEFINED)
		k += snprintf(buf + k, n - k, " FP=same");
	else if (o->bp_reg == ORC_REG_PREV_SP)
		k += snprintf(buf + k, n - k, " FP=*(CFA%+d)", o->bp_off);
	else
		k += snprintf(buf + k, n - k, " FP=*(%s%+d)", regs[o->bp_reg],
			      o->bp_off);
	if (o->type != ORC_TYPE_CALL)
		snprintf(buf + k, n - k, " %s", types[o->type]);
}

/* Do ORC entry @o and SFrame rule @r describe the same frame? */
static int rules_agree(const struct input *in, const struct orc *o,
		       const struct sframe_rule *r)
{
	if (o->type != ORC_TYPE_CALL || (r->flags & SFRAME_RULE_OUTERMOST))
		return 0;
	if (o->sp_reg == ORC_REG_SP) {
		if (r->cfa.reg != in->sec.sp_reg)
			return 0;
	} else if (o->sp_reg == ORC_REG_BP) {
		if (r->cfa.reg != in->sec.fp_reg)
			return 0;
	} else {
		return 0;
	}
	if (r->cfa.offset != o->sp_off)
		return 0;
	if (r->ra.kind != SFRAME_LOC_CFA || !r->ra.deref || r->ra.offset != -8)
		return 0;
	if (o->bp_reg == ORC_REG_UNDEFINED)
		return r->fp.kind == SFRAME_LOC_SAME;
	if (o->bp_reg == ORC_REG_PREV_SP)
		return r->fp.kind == SFRAME_LOC_CFA && r->fp.deref &&
		       r->fp.offset == o->bp_off;
	return 0;
}

/* Length of the `pop` at @b (at most @n bytes), or 0 if it is no pop. */
static unsigned int x86_pop_len(const uint8_t *b, uint64_t n)
{
	unsigned int k = 0, len, mod, rm;

	if (n && b[0] >= 0x40 && b[0] <= 0x4f)		/* REX */
		k = 1;
	if (k >= n)
		return 0;
	if (b[k] >= 0x58 && b[k] <= 0x5f)		/* pop reg */
		return k + 1;
	if (b[k] != 0x8f || k + 1 >= n || (b[k + 1] & 0x38))
		return 0;
	/* pop r/m64: 8f /0 */
	mod = b[k + 1] >> 6;
	rm = b[k + 1] & 7;
	len = k + 2;
	if (mod != 3 && rm == 4) {			/* SIB */
		if (len >= n)
			return 0;
		if (mod == 0 && (b[len] & 7) == 5)
			len += 4;
		len++;
	}
	if (mod == 1)
		len += 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		len += 4;
	return len;
}

/*
 * `pushf; pop reg` or `pushf; pop mem` (native_save_fl(), local_irq_save()):
 * the pop runs with the flags on the stack, which GCC's CFI cannot see, so
 * SFrame's CFA is 8 bytes short on exactly that instruction.
 */
static int is_pushf_pop(const struct input *in, uint64_t lo, uint64_t hi,
			const struct orc *o, const struct sframe_rule *r)
{
	const uint8_t *b;

	if (hi - lo > 15 || o->type != ORC_TYPE_CALL ||
	    r->cfa.offset != o->sp_off - 8)
		return 0;
	b = text_bytes(in, lo - 1, hi - lo + 1);
	return b && b[0] == 0x9c && x86_pop_len(b + 1, hi - lo) == hi - lo;
}

/*
 * iret-to-self (sync_core(), arch/x86/include/asm/sync_core.h): the inline
 * asm builds an IRET frame with "push %rsp; addq $8,(%rsp); pushf; ...;
 * iretq" that GCC's CFI cannot see.  Recognised by its bytes: the range
 * lies within the 32 bytes before the end of an iretq (48 cf) and those
 * bytes contain "push %rsp; addq $8,(%rsp)" (54 48 83 04 24 08).  Bytes
 * rather than a list of function names, so that a new caller of
 * sync_core() is recognised and an unrelated disagreement in a listed
 * function is not.
 */
static int is_iret_to_self(const struct input *in, const struct region *r,
			   uint64_t lo, uint64_t hi)
{
	static const uint8_t sig[] = { 0x54, 0x48, 0x83, 0x04, 0x24, 0x08 };
	const uint8_t *b = text_bytes(in, r->lo, r->hi - r->lo);
	uint64_t q, i, w;

	if (!b || hi - lo > 32)
		return 0;
	/* iretq at [q, q + 2), the range inside [q + 2 - 32, q + 2) */
	q = hi >= r->lo + 2 ? hi - 2 : r->lo;
	for (; q + 2 <= r->hi && q + 2 <= lo + 32; q++) {
		if (b[q - r->lo] != 0x48 || b[q + 1 - r->lo] != 0xcf)
			continue;
		w = q + 2 - 32 > r->lo && q + 2 >= 32 ? q + 2 - 32 : r->lo;
		if (lo < w)
			continue;
		for (i = w; i + sizeof(sig) <= q; i++)
			if (!memcmp(b + (i - r->lo), sig, sizeof(sig)))
				return 1;
	}
	return 0;
}

/* x86_64 .altinstructions (struct alt_instr, 6.1: 12 bytes). */
static void load_alts(struct input *in)
{
	int idx = elf_sec_find(&in->f, ".altinstructions"), nrel = 0;
	const struct elf_sec *s;
	const uint8_t *d;
	const char *why;
	uint64_t i, n;

	if (idx < 0)
		return;
	s = &in->f.secs[idx];
	if (!elf_sec_data(&in->f, idx))
		return;
	if (in->f.type == ELF_ET_REL &&
	    elf_apply_rela(&in->f, idx, &nrel, &why))
		die(in->path, ".rela.altinstructions: %s", why);
	d = elf_sec_data(&in->f, idx);
	n = s->size / 12;
	in->alts = xcalloc(n, sizeof(*in->alts));
	in->alt_repl = xcalloc(n, sizeof(*in->alt_repl));
	for (i = 0; i < n; i++) {
		const uint8_t *e = d + 12 * i;
		uint64_t a = s->vaddr + 12 * i;

		in->alts[i].lo = a + (int64_t)(int32_t)elf_get(&in->f, e, 4);
		in->alts[i].hi = in->alts[i].lo + e[10];
		in->alt_repl[i].lo = a + 4 +
				     (int64_t)(int32_t)elf_get(&in->f, e + 4, 4);
		in->alt_repl[i].hi = in->alt_repl[i].lo + e[11];
	}
	in->nalts = n;
}

/*
 * An alternative whose replacement pushes the flags (smap_save(): "pushf;
 * pop %0; clac", smap_restore(): "push %0; popf"): objtool describes the
 * replacement's stack in ORC over the NOPs of the original, GCC's CFI
 * cannot.  The range lies inside the original instruction, the replacement
 * has a pushf (9c) or popf (9d), and SFrame's CFA is 8 short.
 */
static int is_alt_pushf(const struct input *in, uint64_t lo, uint64_t hi,
			const struct orc *o, const struct sframe_rule *r)
{
	size_t i;

	if (o->type != ORC_TYPE_CALL || r->cfa.offset != o->sp_off - 8)
		return 0;
	for (i = 0; i < in->nalts; i++) {
		uint64_t n = in->alt_repl[i].hi - in->alt_repl[i].lo;
		const uint8_t *b;

		if (lo < in->alts[i].lo || hi > in->alts[i].hi)
			continue;
		b = text_bytes(in, in->alt_repl[i].lo, n);
		if (b && (memchr(b, 0x9c, n) || memchr(b, 0x9d, n)))
			return 1;
	}
	return 0;
}

/* Next boundary above @pc in a sorted array, or UINT64_MAX. */
static uint64_t next_bound(const uint64_t *v, size_t n, uint64_t pc)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n ? v[lo] : UINT64_MAX;
}

static void check_orc(struct input *in)
{
	size_t k;

	for (k = 0; k < in->nregs; k++) {
		struct region *r = &in->regs[k];
		uint64_t pc = r->lo;

		while (pc < r->hi) {
			uint64_t next = r->hi, b;
			size_t oi = orc_upper(in, pc);
			const struct orc *o = oi ? &in->orc[oi - 1] : NULL;
			struct sframe_rule rule;
			int err, known_ann = 0;
			struct exception *e;
			enum cls c;
			char os[96], ss[96], detail[256];

			if (oi < in->norc && in->orc[oi].ip < next)
				next = in->orc[oi].ip;
			b = next_bound(in->bounds, in->nbounds, pc);
			if (b < next)
				next = b;
			err = sframe_rule_at(in, pc, &rule);
			/* judge the rule the kernel unwinder applies */
			if (!err)
				sframe_rule_no_red_zone(&rule, in->sec.sp_reg);
			if (!orc_defined(o) || err) {
				if (orc_defined(o) && err)
					in->st.orc_only += next - pc;
				pc = next;
				continue;
			}
			in->st.compared += next - pc;
			if (rules_agree(in, o, &rule)) {
				in->st.agree += next - pc;
				pc = next;
				continue;
			}
			if (o->sp_reg == ORC_REG_SP_INDIRECT)
				c = CLS_STACK_SWITCH;
			else if (is_pushf_pop(in, pc, next, o, &rule))
				c = CLS_PUSHF_POP;
			else if (is_iret_to_self(in, r, pc, next))
				c = CLS_IRET_TO_SELF;
			else if (is_alt_pushf(in, pc, next, o, &rule))
				c = CLS_ALT_PUSHF;
			else
				c = CLS_UNKNOWN;
			in->st.wrong += next - pc;
			in->st.cls_bytes[c] += next - pc;
			if (!r->wrong) {
				r->wrong = 1;
				in->st.wrong_funcs++;
			}
			if (c == CLS_STACK_SWITCH &&
			    iv_overlap(&in->annot_ssi, pc, next) == next - pc) {
				in->st.ss_annotated += next - pc;
				known_ann = 1;
			}
			iv_subtract(&in->annot_all, pc, next, &in->fix);
			fmt_orc(o, os, sizeof(os));
			fmt_sframe(in, 0, &rule, ss, sizeof(ss));
			snprintf(detail, sizeof(detail), "%s: ORC %s, SFrame %s",
				 cls_names[c], os, ss);
			e = known_ann ? NULL :
			    exc_match(in, EXC_WRONG, r, pc, next, c);
			if (!e && !known_ann)
				in->st.wrong_unknown += next - pc;
			finding(in, "wrong", r, pc, next, e,
				known_ann ? "annotated" : NULL, detail);
			pc = next;
		}
	}
}

/* arm64: FDEs against symbols, rows against the AAPCS64 frame record. */

static int fde_matches_symbol(const struct input *in, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = in->nallsyms;

	/* first symbol starting at or above lo - 8 */
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (in->allsyms[mid].lo + 8 < lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < in->nallsyms && in->allsyms[a].lo <= lo; a++)
		if ((in->allsyms[a].lo == lo || in->allsyms[a].lo + 8 == lo) &&
		    in->allsyms[a].hi == hi)
			return 1;
	return 0;
}

static const struct region *region_or_fake(const struct input *in,
					   uint64_t a, struct region *fake)
{
	const struct region *r = region_at(in, a);

	if (r)
		return r;
	memset(fake, 0, sizeof(*fake));
	fake->name = "(no symbol)";
	return fake;
}

/*
 * An annotation describes code of one function: one that runs past its
 * symbol (e.g. an unparenthesised "end - start" of 0xffff bytes) would
 * override SFrame in code it was never meant for.
 */
static void check_annot_spans(struct input *in)
{
	size_t i;

	for (i = 0; i < in->nannots; i++) {
		const struct annot *a = &in->annots[i];
		const struct region *r = region_at(in, a->lo);
		const struct region *e = region_at(in, a->hi - 1);
		struct region fake;
		char detail[160];

		if (r && r == e)
			continue;
		snprintf(detail, sizeof(detail),
			 "annotation of type %u ends in %s", a->type,
			 e ? e->name : "(no symbol)");
		in->st.unknown += a->hi - a->lo;
		finding(in, "annotation spans symbols",
			region_or_fake(in, a->lo, &fake), a->lo, a->hi, NULL,
			NULL, detail);
	}
}

static void check_arm64_part(struct input *in,
			     const struct sframe_section *sec)
{
	u32 i;

	for (i = 0; i < sec->num_fdes; i++) {
		struct sframe_fde fde;
		struct sframe_fre fre;
		struct region fake;
		const struct region *r;
		struct exception *e;
		u32 k, p;

		if (sframe_get_fde(sec, i, &fde))
			continue;
		r = region_or_fake(in, fde.start, &fake);
		if (!fde_matches_symbol(in, fde.start, fde.start + fde.size)) {
			/* no symbol at all: an overridden __weak definition */
			enum cls c = iv_overlap(&in->symset, fde.start,
						fde.start + fde.size) ?
				     CLS_FDE_MISMATCH : CLS_ORPHAN_FDE;

			if (c == CLS_ORPHAN_FDE)
				in->st.fde_orphan++;
			else
				in->st.fde_bad++;
			e = exc_match(in, EXC_WRONG, r, fde.start,
				      fde.start + fde.size, c);
			if (!e)
				in->st.arm_unknown++;
			finding(in, "wrong", r, fde.start, fde.start + fde.size,
				e, NULL, c == CLS_ORPHAN_FDE ?
				"orphan-fde: FDE outside every symbol" :
				"fde-mismatch: FDE is not symbol (+8) .. symbol end");
		}
		if (sframe_fde_pcmask(&fde))
			continue;
		for (k = 0, p = fde.fres; k < fde.num_fres; k++, p = fre.next) {
			struct sframe_fre nf;
			struct sframe_rule rule;
			uint64_t lo, hi;
			const char *bad = NULL;
			char ss[96], detail[192];

			if (sframe_read_fre(sec, &fde, p, &fre) ||
			    sframe_fre_rule(sec, &fde, &fre, &rule))
				break;
			/* judge the rule the kernel unwinder applies */
			sframe_rule_no_red_zone(&rule, in->sec.sp_reg);
			lo = fde.start + fre.start;
			hi = fde.start + fde.size;
			if (k + 1 < fde.num_fres &&
			    !sframe_read_fre(sec, &fde, fre.next, &nf))
				hi = fde.start + nf.start;
			if (rule.flags & SFRAME_RULE_OUTERMOST)
				continue;
			if (rule.fp.kind == SFRAME_LOC_CFA &&
			    (rule.ra.kind != SFRAME_LOC_CFA ||
			     rule.ra.offset != rule.fp.offset + 8))
				bad = "FP saved, RA not at the FP slot + 8";
			else if (rule.cfa.reg == in->sec.sp_reg &&
				 rule.cfa.offset < 0)
				bad = "CFA below SP";
			if (!bad)
				continue;
			in->st.frame_bad++;
			iv_subtract(&in->annot_all, lo, hi, &in->fix);
			r = region_or_fake(in, lo, &fake);
			e = exc_match(in, EXC_WRONG, r, lo, hi, CLS_FRAME_RECORD);
			if (!e)
				in->st.arm_unknown++;
			fmt_sframe(in, 0, &rule, ss, sizeof(ss));
			snprintf(detail, sizeof(detail), "frame-record: %s: %s",
				 bad, ss);
			finding(in, "wrong", r, lo, hi, e, NULL, detail);
		}
	}
}

static void check_arm64(struct input *in)
{
	size_t k;

	for (k = 0; k < in->nparts; k++)
		check_arm64_part(in, &in->parts[k].sec);
}

/* Fixups. */

static int find_sym(const struct input *in, const char *name, uint64_t *v)
{
	uint64_t i, n = elf_nsyms(&in->f, in->f.symtab);
	struct elf_sym s;

	for (i = 1; i < n; i++)
		if (!elf_sym_get(&in->f, in->f.symtab, i, &s) && s.shndx &&
		    !strcmp(s.name, name)) {
			*v = s.value;
			return 0;
		}
	return -1;
}

struct slot {
	uint64_t target;
	uint8_t e[SFRAME_ANNOT_SIZE];
};

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	int ex = !x->e[6], ey = !y->e[6];	/* empty slots last */

	if (ex != ey)
		return ex - ey;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return memcmp(x->e + 4, y->e + 4, SFRAME_ANNOT_SIZE - 4);
}

/* The fixup area: [fixups, stop) of .sframe_annot; 0 if present. */
static int fixup_area(struct input *in, uint64_t *start, uint64_t *fix,
		      uint64_t *stop)
{
	const struct elf_sec *s;

	if (in->annot_sec < 0 || find_sym(in, "__sframe_annot_fixups", fix) ||
	    find_sym(in, "__stop_sframe_annot", stop))
		return -1;
	s = &in->f.secs[in->annot_sec];
	if (find_sym(in, "__start_sframe_annot", start))
		*start = s->vaddr;
	if (*start < s->vaddr || *fix < *start || *stop < *fix ||
	    *stop - s->vaddr > s->size || (*fix - *start) % SFRAME_ANNOT_SIZE ||
	    (*stop - *fix) % SFRAME_ANNOT_SIZE || (*start - s->vaddr) % 4)
		die(in->path, "malformed .sframe_annot: %s",
		    "bad __start/__sframe_annot_fixups/__stop symbols");
	return 0;
}

static int slot_free(const uint8_t *e)
{
	int i;

	for (i = 0; i < SFRAME_ANNOT_SIZE; i++)
		if (e[i])
			return 0;
	return 1;
}

/* Count needed entries; with --write-fixups write and sort them. */
static int do_fixups(struct input *in)
{
	uint64_t start, fix, stop, a, i, n, k = 0;
	const struct elf_sec *s;
	struct slot *slots;
	uint8_t *d;
	FILE *fp;

	iv_merge(&in->fix);
	for (i = 0; i < in->fix.n; i++)
		in->st.nfix += (in->fix.v[i].hi - in->fix.v[i].lo + 0xfffe) /
			       0xffff;
	if (fixup_area(in, &start, &fix, &stop)) {
		if (opt_fixups)
			die(in->path, "--write-fixups: no fixup area (%s)",
			    ".sframe_annot, __sframe_annot_fixups, __stop_sframe_annot");
		return 0;
	}
	in->st.has_fixarea = 1;
	s = &in->f.secs[in->annot_sec];
	in->st.fix_total = (stop - fix) / SFRAME_ANNOT_SIZE;
	for (a = fix; a < stop; a += SFRAME_ANNOT_SIZE)
		in->st.fix_free += slot_free(elf_sec_data(&in->f, in->annot_sec) +
					     (a - s->vaddr));
	if (!opt_fixups)
		return 0;
	if (in->f.type != ELF_ET_EXEC && in->f.type != ELF_ET_DYN)
		die(in->path, "--write-fixups works on a linked vmlinux only");
	if (in->st.nfix > in->st.fix_free) {
		fprintf(stderr, "%s: %s: --write-fixups: %" PRIu64
			" UNRELIABLE entries needed, %" PRIu64
			" free slots of %" PRIu64
			" (the build sizes the area with --count-fixups: did the text change between links?)\n",
			prog, in->path, in->st.nfix, in->st.fix_free,
			in->st.fix_total);
		return 1;
	}
	d = elf_sec_writable(&in->f, in->annot_sec);
	if (!d)
		die(in->path, "out of memory");
	/* Fill free slots in [fix, stop) in address order. */
	a = fix;
	for (i = 0; i < in->fix.n; i++) {
		uint64_t lo = in->fix.v[i].lo, hi = in->fix.v[i].hi;

		while (lo < hi) {
			uint64_t len = hi - lo > 0xffff ? 0xffff : hi - lo;
			uint8_t *e;

			while (!slot_free(d + (a - s->vaddr)))
				a += SFRAME_ANNOT_SIZE;
			e = d + (a - s->vaddr);
			elf_put(&in->f, e, 4, (uint32_t)(lo - a));
			elf_put(&in->f, e + 4, 2, len);
			e[6] = SFRAME_ANNOT_UNRELIABLE;
			in->st.fix_written++;
			in->st.fix_free--;
			lo += len;
		}
	}
	/* Sort the whole table by address; empty slots go last. */
	n = (stop - start) / SFRAME_ANNOT_SIZE;
	slots = xcalloc(n, sizeof(*slots));
	for (i = 0; i < n; i++) {
		uint8_t *e = d + (start - s->vaddr) + i * SFRAME_ANNOT_SIZE;

		memcpy(slots[i].e, e, SFRAME_ANNOT_SIZE);
		slots[i].target = start + i * SFRAME_ANNOT_SIZE +
				  (int64_t)(int32_t)elf_get(&in->f, e, 4);
	}
	qsort(slots, n, sizeof(*slots), cmp_slot);
	for (i = 0; i < n; i++) {
		uint8_t *e = d + (start - s->vaddr) + i * SFRAME_ANNOT_SIZE;

		memcpy(e, slots[i].e, SFRAME_ANNOT_SIZE);
		if (e[6])
			elf_put(&in->f, e, 4, (uint32_t)(slots[i].target -
				(start + i * SFRAME_ANNOT_SIZE)));
		else
			k++;
	}
	free(slots);
	fp = fopen(in->path, "r+b");
	if (!fp || fseek(fp, (long)(s->offset + (start - s->vaddr)), SEEK_SET) ||
	    fwrite(d + (start - s->vaddr), 1, stop - start, fp) != stop - start ||
	    fclose(fp)) {
		fprintf(stderr, "%s: %s: --write-fixups: %s\n", prog, in->path,
			strerror(errno));
		exit(2);
	}
	(void)k;
	return 0;
}

_Static_assert(sizeof(struct sframe_annot_fixup) == SFRAME_ANNOT_SIZE,
	       "struct sframe_annot_fixup is one annotation slot");

/* One --module-fixups entry before encoding. */
struct modfix {
	u32 fde, off, len;
};

static int cmp_modfix(const void *a, const void *b)
{
	const struct modfix *x = a, *y = b;

	if (x->fde != y->fde)
		return x->fde < y->fde ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * --module-fixups: the fixup ranges (merged by do_fixups()) as struct
 * sframe_annot_fixup entries in @path, relative to the FDE whose function
 * contains them (the FDE the core finds for their first byte, in the first
 * part that has one), split at FDE ends and every 65535 bytes, sorted by
 * (FDE index, offset).  FDE indexes count across the parts of .sframe:
 * part 0's FDEs first, then part 1's, as the module loader counts them.
 * @path is always written, empty without fixups.
 */
static void do_module_fixups(struct input *in, const char *path)
{
	uint8_t e[SFRAME_ANNOT_SIZE];
	struct sframe_fde fde;
	struct modfix *v = NULL;
	size_t n = 0, cap = 0, i;
	FILE *fp;

	for (i = 0; i < in->fix.n; i++) {
		uint64_t lo = in->fix.v[i].lo, hi = in->fix.v[i].hi;

		while (lo < hi) {
			const struct part *p = part_at(in, lo, &fde);
			uint64_t end;

			if (!p || lo < fde.start || lo - fde.start >= fde.size) {
				struct region fake;
				char where[512];

				sym_range(region_or_fake(in, lo, &fake), lo,
					  hi, where, sizeof(where));
				die(in->path, "--module-fixups: %s is in no FDE",
				    where);
			}
			end = fde.start + fde.size;
			if (end > hi)
				end = hi;
			if (end - lo > 0xffff)
				end = lo + 0xffff;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				v = xrealloc(v, cap, sizeof(*v));
			}
			v[n].fde = p->first + fde.index;
			v[n].off = lo - fde.start;
			v[n].len = end - lo;
			n++;
			lo = end;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_modfix);
	fp = fopen(path, "wb");
	for (i = 0; fp && i < n; i++) {
		memset(e, 0, sizeof(e));
		elf_put(&in->f, e + offsetof(struct sframe_annot_fixup, fde), 4,
			v[i].fde);
		elf_put(&in->f, e + offsetof(struct sframe_annot_fixup, off), 4,
			v[i].off);
		elf_put(&in->f, e + offsetof(struct sframe_annot_fixup, len), 2,
			v[i].len);
		e[offsetof(struct sframe_annot_fixup, type)] =
			SFRAME_ANNOT_UNRELIABLE;
		if (fwrite(e, 1, sizeof(e), fp) != sizeof(e))
			break;
	}
	if (!fp || i < n || fclose(fp)) {
		fprintf(stderr, "%s: %s: --module-fixups: %s\n", prog, path,
			strerror(errno));
		exit(2);
	}
	free(v);
	in->st.nfix = n;
	in->st.fix_written = n;
}

/* Summary. */

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 100.0;
}

static void summary(const struct input *in)
{
	const struct stats *t = &in->st;

	printf("%s: %s (%s): text %" PRIu64 " B in %zu symbols: sframe %.2f%%, annotations %" PRIu64
	       " B, exceptions %" PRIu64 " B, unknown %" PRIu64 " B",
	       prog, in->path, in->arch, t->text, in->nregs,
	       pct(t->sframe, t->text), t->annot, t->exc, t->unknown);
	if (t->has_orc)
		printf("; ORC: %" PRIu64 " B compared, agree %.3f%%, wrong %" PRIu64
		       " B in %" PRIu64 " functions (stack-switch %" PRIu64
		       " B [annotated %" PRIu64 "], pushf-pop %" PRIu64
		       ", iret-to-self %" PRIu64 ", alt-pushf %" PRIu64
		       ", unknown %" PRIu64
		       "), ORC only %" PRIu64 " B",
		       t->compared, pct(t->agree, t->compared), t->wrong,
		       t->wrong_funcs, t->cls_bytes[CLS_STACK_SWITCH],
		       t->ss_annotated, t->cls_bytes[CLS_PUSHF_POP],
		       t->cls_bytes[CLS_IRET_TO_SELF],
		       t->cls_bytes[CLS_ALT_PUSHF], t->cls_bytes[CLS_UNKNOWN], t->orc_only);
	else if (in->f.machine == ELF_EM_X86_64)
		printf("; no ORC");
	if (in->f.machine == ELF_EM_AARCH64)
		printf("; FDEs %" PRIu64 ": fde-mismatch %" PRIu64
		       ", orphan %" PRIu64 ", frame-record %" PRIu64
		       " rows, unknown %" PRIu64, t->fdes, t->fde_bad,
		       t->fde_orphan, t->frame_bad, t->arm_unknown);
	if (!t->has_annot)
		printf("; no .sframe_annot");
	if (t->has_fixarea)
		printf("; fixups %" PRIu64 " needed, %" PRIu64
		       " written, %" PRIu64 "/%" PRIu64 " slots free",
		       t->nfix, t->fix_written, t->fix_free, t->fix_total);
	else if (opt_modfix)
		printf("; fixups %" PRIu64 " needed, %" PRIu64
		       " written to %s", t->nfix, t->fix_written, opt_modfix);
	else
		printf("; fixups %" PRIu64 " needed", t->nfix);
	printf("\n");
	if (!opt_quiet && !opt_verbose && (t->known[0] || t->known[1]))
		printf("%s: %s: known findings (not listed, see --verbose): %" PRIu64
		       " uncovered, %" PRIu64 " wrong\n", prog, in->path,
		       t->known[0], t->known[1]);
}

static int verify(const char *path)
{
	struct input in = { .path = path };
	const char *why;
	int ret = 0, k;

	if (elf_file_open(&in.f, path, &why))
		die(path, "%s", why);
	if (in.f.sec_why)
		die(path, "%s", in.f.sec_why);
	if (opt_modfix && in.f.type != ELF_ET_REL)
		die(path, "--module-fixups needs a module or object (ET_REL), not a linked ELF");
	elf_layout_rel(&in.f);
	switch (in.f.machine) {
	case ELF_EM_X86_64:
		in.arch = "x86_64";
		break;
	case ELF_EM_AARCH64:
		in.arch = "arm64";
		break;
	default:
		in.arch = "other";
	}
	for (k = 0; k < nexcs; k++) {
		excs[k].hits = 0;
		excs[k].bytes = 0;
	}
	exc_resolve(&in);
	load_sframe(&in);
	load_annots(&in);
	load_symbols(&in);
	if (in.f.machine == ELF_EM_X86_64) {
		load_orc(&in);
		load_alts(&in);
	}
	check_coverage(&in);
	check_annot_spans(&in);
	if (in.st.has_orc)
		check_orc(&in);
	if (in.f.machine == ELF_EM_AARCH64 && in.has_sframe)
		check_arm64(&in);
	if (do_fixups(&in))
		ret = 1;
	if (opt_modfix)
		do_module_fixups(&in, opt_modfix);
	if (opt_count) {
		/* --count-fixups: the number alone, for the build to size by */
		printf("%" PRIu64 "\n", in.st.nfix);
		ret = 0;
		goto out;
	}
	if (opt_verbose)
		for (k = 0; k < nexcs; k++)
			if (excs[k].hits)
				printf("%s: %s: exception %s:%d: %" PRIu64
				       " findings, %" PRIu64 " B: %s\n",
				       prog, path, exc_path, excs[k].line,
				       excs[k].hits, excs[k].bytes,
				       excs[k].reason);
	summary(&in);
	if ((in.st.unknown || in.st.wrong_unknown || in.st.arm_unknown) &&
	    !opt_warn)
		ret = 1;
out:
	free_sframe(&in);
	free(in.regs);
	free(in.syms);
	free(in.allsyms);
	free(in.rows.v);
	free(in.symset.v);
	free(in.bounds);
	free(in.orc);
	free(in.alts);
	free(in.alt_repl);
	free(in.annots);
	free(in.annot_all.v);
	free(in.annot_ssi.v);
	free(in.fix.v);
	elf_file_close(&in.f);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [--exceptions FILE] [--policy fail|warn] [--write-fixups|--count-fixups]\n"
		"       [--module-fixups FILE] [--quiet] [--verbose] ELF...\n"
		"  --exceptions FILE  known gaps (see scripts/sframe-verify-exceptions)\n"
		"  --policy fail      unknown findings exit 1 (default); warn: exit 0\n"
		"  --write-fixups     vmlinux: UNRELIABLE entries into .sframe_annot\n"
		"  --count-fixups     print only the number of UNRELIABLE entries needed\n"
		"                     (the build sizes vmlinux's fixup slots by it)\n"
		"  --module-fixups FILE\n"
		"                     one module/object: FDE-relative UNRELIABLE entries\n"
		"                     (struct sframe_annot_fixup) into FILE, for .sframe_fixup\n"
		"  --quiet            only unknown findings and the summary\n"
		"  --verbose          every finding, known ones included\n",
		prog);
}

int main(int argc, char **argv)
{
	int i, nfiles = 0, ret = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || !a[1]) {
			argv[nfiles++] = argv[i];
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--verbose")) {
			opt_verbose = 1;
		} else if (!strcmp(a, "--quiet")) {
			opt_quiet = 1;
		} else if (!strcmp(a, "--write-fixups")) {
			opt_fixups = 1;
		} else if (!strcmp(a, "--count-fixups")) {
			opt_count = 1;
		} else if (!strcmp(a, "--module-fixups") && i + 1 < argc) {
			opt_modfix = argv[++i];
		} else if (!strcmp(a, "--policy") && i + 1 < argc &&
			   (!strcmp(argv[i + 1], "fail") ||
			    !strcmp(argv[i + 1], "warn"))) {
			opt_warn = argv[++i][0] == 'w';
		} else if (!strcmp(a, "--exceptions") && i + 1 < argc) {
			exc_load(argv[++i]);
		} else {
			fprintf(stderr, "%s: bad option %s\n", prog, a);
			usage(stderr);
			return 2;
		}
	}
	if (!nfiles) {
		usage(stderr);
		return 2;
	}
	if (opt_modfix) {
		struct stat a, b;

		if (nfiles != 1) {
			fprintf(stderr, "%s: --module-fixups: one input ELF expected, got %d\n",
				prog, nfiles);
			return 2;
		}
		if (!stat(opt_modfix, &a) && !stat(argv[0], &b) &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			fprintf(stderr, "%s: --module-fixups: %s is the input ELF\n",
				prog, opt_modfix);
			return 2;
		}
		/* no stale fixups if this run fails */
		if (remove(opt_modfix) && errno != ENOENT) {
			fprintf(stderr, "%s: %s: %s\n", prog, opt_modfix,
				strerror(errno));
			return 2;
		}
	}
	if (opt_verbose)
		opt_quiet = 0;
	for (i = 0; i < nfiles; i++)
		ret |= verify(argv[i]);
	return ret;
}
