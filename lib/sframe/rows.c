// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFrame core: decoded rows, for sections that are trusted after one
 * validation (the kernel's own and its modules').  Not in the user-memory
 * build: a user section can change at any time, so it is decoded afresh on
 * every use.
 */
#include "internal.h"

/*
 * sframe_rows_size(), with the text range of the rows in [*@lo, *@hi).
 * The FDEs' FRE counts are not trusted: the section may not be validated
 * yet, and each FRE takes two bytes at least (its start and info byte), so
 * more than the FRE sub-section holds is no section's and must not size
 * memory.
 */
static int sframe_rows_dims(const struct sframe_section *sec,
			    unsigned int shift, u64 limit, u64 *lo, u64 *hi,
			    u32 *nrows, u32 *nblocks)
{
	u64 n, nb, nfdes, nfres;
	int err;

	if (shift > SFRAME_ROWS_MAX_SHIFT)
		return -SFRAME_E_INVAL;
	err = sframe_text_range_below(sec, limit, lo, hi, &nfdes, &nfres);
	if (err)
		return err;
	if (nfres > (sec->fre_end - sec->fre_base) / 2)
		return -SFRAME_E_NUM_FRES;
	/* A row per FRE, one per function start and one after each end. */
	n = nfres + 2 * nfdes + 1;
	nb = sframe_index_blocks(*lo, *hi, shift);
	if (n > 0xffffffffULL || nb >= 0xffffffffULL ||
	    *hi - *lo > 0xffffffffULL)
		return -SFRAME_E_INDEX;
	*nrows = n;
	*nblocks = nb;
	return 0;
}

/**
 * sframe_rows_size() - memory a rows table needs
 * @sec: opened, validated section
 * @shift: log2 of the block size (8: 256-byte blocks, as ORC's lookup),
 *         at most %SFRAME_ROWS_MAX_SHIFT (a row's start is kept in 16 bits)
 * @limit: rows for the functions that start below this address only
 *         (%SFRAME_ROWS_ALL: every function)
 * @nrows: result: at most this many rows (entries of start[] and id[])
 * @nblocks: result: blocks (block[] needs @nblocks + 1 entries)
 *
 * The rules array and the hash scratch a build needs while it runs are
 * given by sframe_rows_scratch(); sframe_rows_build() says how many rules
 * it used.
 *
 * Return: 0, or a negative SFRAME_E_* code (-SFRAME_E_NUM_FRES: the FDEs
 * count more FREs than the section holds).
 */
int sframe_rows_size(const struct sframe_section *sec, unsigned int shift,
		     u64 limit, u32 *nrows, u32 *nblocks)
{
	u64 lo, hi;

	return sframe_rows_dims(sec, shift, limit, &lo, &hi, nrows, nblocks);
}
EXPORT_SYMBOL_GPL(sframe_rows_size);

/**
 * sframe_rows_scratch() - the rules and hash memory a rows build needs
 * @sec: opened section
 * @nrules: result: entries of the rules array while the rows are built
 * @nslots: result: entries of the hash scratch (a power of two)
 *
 * One distinct rule at most per FRE, and at most %SFRAME_ROWS_MAX_RULES
 * (%SFRAME_ROWS_HASH_SLOTS slots): a small section, as a module's objects
 * are, needs little.  A build uses as much as this returns for @sec;
 * more memory is not used.
 */
void sframe_rows_scratch(const struct sframe_section *sec, u32 *nrules,
			 u32 *nslots)
{
	u32 n = sec->num_fres < SFRAME_ROWS_MAX_RULES ? sec->num_fres :
						       SFRAME_ROWS_MAX_RULES;
	u32 slots = 16;

	/* The hash at most half full: short probes. */
	while (slots < 2 * n)
		slots <<= 1;
	*nrules = n ? n : 1;
	*nslots = slots;
}
EXPORT_SYMBOL_GPL(sframe_rows_scratch);

/* Rows rules compare and hash as words: struct sframe_loc is 8 bytes. */
static __always_inline u64 sframe_rows_word(const void *p)
{
	u64 w;

	sframe_memcpy(&w, p, sizeof(w));
	return w;
}

static __always_inline bool sframe_rows_rule_eq(const struct sframe_rows_rule *a,
						const struct sframe_rows_rule *b)
{
	return sframe_rows_word(&a->cfa) == sframe_rows_word(&b->cfa) &&
	       sframe_rows_word(&a->ra) == sframe_rows_word(&b->ra) &&
	       sframe_rows_word(&a->fp) == sframe_rows_word(&b->fp) &&
	       a->sp_from_cfa == b->sp_from_cfa && a->flags == b->flags;
}

static __always_inline u32 sframe_rows_hash(const struct sframe_rows_rule *r)
{
	u64 h = sframe_rows_word(&r->cfa) * 0x9e3779b97f4a7c15ULL;

	h ^= sframe_rows_word(&r->ra) * 0xc2b2ae3d27d4eb4fULL;
	h ^= sframe_rows_word(&r->fp) * 0x165667b19e3779f9ULL;
	h ^= (u64)(r->flags | (u32)(u16)r->sp_from_cfa << 16) *
	     0x85ebca77c2b2ae63ULL;
	return h >> 32 ^ h;
}

/*
 * A rows table being built, function by function in address order: by
 * sframe_rows_build(), or by sframe_validate_rows() while it validates.
 * The first error sticks in @err.
 */
struct sframe_rows_builder {
	struct sframe_rows *rows;
	u16 *hash;
	u32 nslots;	/* of @hash (sframe_rows_scratch()) */
	u32 max_rules;	/* of @rows->rules (sframe_rows_scratch()) */
	u32 cap;
	u32 nextb;	/* the first block whose index entry is not set yet */
	u64 last;	/* start of the last row, from the rows' base */
	u64 end;	/* end of the previous function, 0 before the first */
	bool skip;	/* the function lies at or above the rows' limit */
	int err;
};

/* The number of rule @rule (added if new), or SFRAME_ROWS_CORE. */
static u16 sframe_rows_intern(struct sframe_rows_builder *bld,
			      const struct sframe_rule *rule)
{
	struct sframe_rows *rows = bld->rows;
	struct sframe_rows_rule r;
	u32 h, i;

	sframe_rule_recovery(&r, rule);
	h = sframe_rows_hash(&r);
	for (i = 0; i < bld->nslots; i++) {
		u16 *slot = &bld->hash[(h + i) & (bld->nslots - 1)];

		if (*slot == SFRAME_ROWS_GAP) {
			if (rows->nrules >= bld->max_rules)
				return SFRAME_ROWS_CORE;
			rows->rules[rows->nrules] = r;
			*slot = rows->nrules;
			return rows->nrules++;
		}
		if (sframe_rows_rule_eq(&rows->rules[*slot], &r))
			return *slot;
	}
	return SFRAME_ROWS_CORE;
}

/*
 * Set the block index entries of the blocks that begin below @off, the
 * start of the row about to be added: every row so far starts at or below
 * their beginning (a row above it would have set them already).
 */
static void sframe_rows_fill(struct sframe_rows_builder *bld, u64 off)
{
	struct sframe_rows *rows = bld->rows;

	while (bld->nextb <= rows->nblocks &&
	       ((u64)bld->nextb << rows->shift) < off)
		rows->block[bld->nextb++] = rows->nrows;
}

/*
 * Append a row; a row at the address of the last one replaces it.  Rows
 * come in address order, so the block index is set as they come, and a
 * row keeps only its start within its block (see struct sframe_rows).
 */
static void sframe_rows_add(struct sframe_rows_builder *bld, u64 addr, u16 id)
{
	struct sframe_rows *rows = bld->rows;
	u64 off = addr - rows->base;
	bool again = false;

	if (bld->err)
		return;
	if (rows->nrows && bld->last >= off) {
		if (bld->last > off) {
			bld->err = -SFRAME_E_INDEX;	/* overlapping functions */
			return;
		}
		rows->nrows--;
		again = true;
	}
	/*
	 * The same rule again: the row before covers this one (not after a
	 * replaced row: @bld->last is the replaced row's start).
	 */
	if (!again && rows->nrows && rows->id[rows->nrows - 1] == id &&
	    id != SFRAME_ROWS_CORE)
		return;
	if (rows->nrows >= bld->cap) {
		bld->err = -SFRAME_E_INDEX;
		return;
	}
	sframe_rows_fill(bld, off);
	rows->start[rows->nrows] = (off - 1) & ((1ULL << rows->shift) - 1);
	rows->id[rows->nrows++] = id;
	bld->last = off;
}

/* A function begins: a gap row before it, or the core for all of it. */
void sframe_rows_begin(struct sframe_rows_builder *bld,
		       const struct sframe_fde *fde)
{
	struct sframe_rows *rows = bld->rows;

	/* At or above the limit: the core's (sframe_rows_rule_of()). */
	bld->skip = fde->start >= rows->limit;
	if (bld->skip)
		return;
	/*
	 * Overlapping functions, an empty one inside another included, have
	 * no single answer (sframe_find() may give either): no rows.
	 */
	if (fde->start < bld->end && !bld->err)
		bld->err = -SFRAME_E_INDEX;
	if (!fde->size)
		return;
	if (rows->func && rows->nfuncs < rows->sec->num_fdes)
		rows->func[rows->nfuncs++] = fde->start - rows->base;
	if (bld->end && fde->start > bld->end)
		sframe_rows_add(bld, bld->end, SFRAME_ROWS_GAP);
	if (sframe_fde_pcmask(fde) || !fde->num_fres)
		sframe_rows_add(bld, fde->start, SFRAME_ROWS_CORE);
	bld->end = fde->start + fde->size;
}

/* FRE @j of a function, with its rule (NULL: it does not decode). */
void sframe_rows_fre(struct sframe_rows_builder *bld,
		     const struct sframe_fde *fde, u32 j,
		     const struct sframe_fre *fre,
		     const struct sframe_rule *rule)
{
	if (bld->skip || !fde->size || sframe_fde_pcmask(fde) ||
	    fre->start >= fde->size)
		return;
	/* Before the first row: the core's answer (no row). */
	if (j == 0 && fre->start)
		sframe_rows_add(bld, fde->start, SFRAME_ROWS_CORE);
	sframe_rows_add(bld, fde->start + fre->start,
			rule ? sframe_rows_intern(bld, rule) :
			       SFRAME_ROWS_CORE);
}

static int sframe_rows_start(struct sframe_rows_builder *bld,
			     const struct sframe_section *sec,
			     unsigned int shift, u64 limit,
			     struct sframe_rows *rows, u16 *hash)
{
	u32 nblocks, i;
	u64 lo, hi;
	int err;

	/* One walk of the FDEs for the room and the range. */
	err = sframe_rows_dims(sec, shift, limit, &lo, &hi, &bld->cap,
			       &nblocks);
	if (err)
		return err;
	sframe_rows_scratch(sec, &bld->max_rules, &bld->nslots);
	bld->rows = rows;
	bld->hash = hash;
	bld->nextb = 0;
	bld->last = 0;
	bld->end = 0;
	bld->skip = false;
	bld->err = 0;
	rows->sec = sec;
	rows->base = lo;
	/* A function across the limit: its part above is the core's too. */
	rows->end = hi < limit ? hi : limit;
	rows->limit = limit;
	rows->shift = shift;
	rows->nrows = 0;
	rows->nrules = 0;
	rows->nfuncs = 0;
	rows->nblocks = nblocks;
	for (i = 0; i < bld->nslots; i++)
		hash[i] = SFRAME_ROWS_GAP;
	return 0;
}

/* After the last function: its end, and the rest of the block index. */
static int sframe_rows_finish(struct sframe_rows_builder *bld)
{
	if (bld->end)
		sframe_rows_add(bld, bld->end, SFRAME_ROWS_GAP);
	if (bld->err)
		return bld->err;
	sframe_rows_fill(bld, ~0ULL);
	return 0;
}

/**
 * sframe_rows_build() - decode a validated section into rows
 * @sec: opened section that passed sframe_validate(), indexed or with
 *       %SFRAME_F_FDE_SORTED, and that will not change
 * @shift: block size, as given to sframe_rows_size()
 * @limit: as given to sframe_rows_size()
 * @rows: @rows->start, id and block sized by sframe_rows_size(), rules
 *        as sframe_rows_scratch() gives, func optional (one entry per
 *        FDE) or NULL; the rest is filled in
 * @hash: scratch, as sframe_rows_scratch() gives (free it afterwards)
 *
 * Every rule is decoded by sframe_fre_rule(), the decoder sframe_find()
 * uses: rows are a cache of its answers, not a second decoder.  Rows the
 * table cannot hold (PCMASK functions, functions without FREs, the bytes
 * before a function's first FRE, more than %SFRAME_ROWS_MAX_RULES
 * distinct rules) are %SFRAME_ROWS_CORE: sframe_rows_find() asks
 * sframe_find() there.  sframe_validate_rows() does the same while it
 * validates, in one pass.
 *
 * Return: 0, or a negative SFRAME_E_* code (-SFRAME_E_INDEX: functions
 * overlap, or the memory is too small).
 */
int sframe_rows_build(const struct sframe_section *sec, unsigned int shift,
		      u64 limit, struct sframe_rows *rows, u16 *hash)
{
	struct sframe_rows_builder bld;
	struct sframe_rule rule;
	struct sframe_fde fde;
	struct sframe_fre fre;
	u32 i, j, off;
	int err;

	if (!(sec->flags & SFRAME_F_FDE_SORTED) && !sec->order)
		return -SFRAME_E_INDEX;
	err = sframe_rows_start(&bld, sec, shift, limit, rows, hash);
	if (err)
		return err;
	for (i = 0; i < sec->num_fdes && !bld.err; i++) {
		err = sframe_get_fde(sec, sframe_pos(sec, i), &fde);
		if (err)
			return err;
		sframe_rows_begin(&bld, &fde);
		for (j = 0, off = fde.fres; j < fde.num_fres; j++) {
			err = sframe_read_fre(sec, &fde, off, &fre);
			if (err)
				return err;
			off = fre.next;
			sframe_rows_fre(&bld, &fde, j, &fre,
					sframe_fre_rule(sec, &fde, &fre, &rule) ?
					NULL : &rule);
		}
	}
	return sframe_rows_finish(&bld);
}
EXPORT_SYMBOL_GPL(sframe_rows_build);

/**
 * sframe_rows_rule_of() - where the rows table keeps the rule for @pc
 * @rows: built by sframe_rows_build()
 * @pc: address
 * @err: result when NULL is returned: -SFRAME_E_NO_FDE, or 1 for a
 *       %SFRAME_ROWS_CORE row (ask sframe_find())
 *
 * Return: the recovery part of @pc's rule, in @rows (nothing copied), or
 * NULL.
 */
const struct sframe_rows_rule *sframe_rows_rule_of(const struct sframe_rows *rows,
						   u64 pc, int *err)
{
	return sframe_rows_lookup(rows, pc, err, NULL);
}
EXPORT_SYMBOL_GPL(sframe_rows_rule_of);

/* The address where row @j starts; @b: a block at or before the row's. */
static u64 sframe_rows_row_start(const struct sframe_rows *rows, u32 j, u32 *b)
{
	/* Row 0 starts at the base: before block 0's first row. */
	if (j < rows->block[0])
		return rows->base;
	while (*b < rows->nblocks && rows->block[*b + 1] <= j)
		++*b;
	return rows->base + ((u64)*b << rows->shift) + rows->start[j] + 1;
}

/**
 * sframe_rows_mark() - mark the rule rows that meet any of some ranges
 * @rows: built by sframe_rows_build(), not yet read by lookups
 * @n: the number of ranges
 * @range: gives range @i, [*@lo, *@hi); ranges come in ascending order of
 *         @lo (they may overlap)
 * @ctx: for @range
 *
 * A row whose addresses meet a range, and that has a rule, gets
 * %SFRAME_ROWS_MARK in its id: sframe_rows_lookup() says so, and gives the
 * same rule.  A user that must look further at some addresses (the kernel:
 * its annotations) need not look where a rule's row is unmarked.  One
 * pass over the rows and the ranges.
 */
void sframe_rows_mark(struct sframe_rows *rows, u32 n,
		      void (*range)(void *ctx, u32 i, u64 *lo, u64 *hi),
		      void *ctx)
{
	u64 s, e, lo, hi, reach = 0;
	u32 j, k = 0, b = 0;

	if (!rows->nrows)
		return;
	s = sframe_rows_row_start(rows, 0, &b);
	for (j = 0; j < rows->nrows; j++, s = e) {
		e = j + 1 < rows->nrows ? sframe_rows_row_start(rows, j + 1, &b) :
					  rows->end;
		/* @reach: the furthest end of the ranges that begin below @e */
		for (; k < n; k++) {
			range(ctx, k, &lo, &hi);
			if (lo >= e)
				break;
			if (hi > reach)
				reach = hi;
		}
		if (reach > s && rows->id[j] < SFRAME_ROWS_MAX_RULES)
			rows->id[j] |= SFRAME_ROWS_MARK;
	}
}
EXPORT_SYMBOL_GPL(sframe_rows_mark);

/* The start of the function of a rule row's @pc: 0 without @rows->func. */
static u64 sframe_rows_func_start(const struct sframe_rows *rows, u64 pc)
{
	u32 off = pc - rows->base, lo = 0, hi = rows->nfuncs, mid;

	if (!rows->func)
		return 0;
	/* The number of functions starting at or below @pc */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rows->func[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? rows->base + rows->func[lo - 1] : 0;
}

/**
 * sframe_rows_find() - the rule for @pc from a rows table
 * @rows: built by sframe_rows_build()
 * @pc: address
 * @rule: result: the recovery fields and, where @rows keeps function
 *        starts, the function start (the other function fields zero); or
 *        at %SFRAME_ROWS_CORE rows everything sframe_find() gives
 *
 * Return: what sframe_find() returns for @pc.
 */
int sframe_rows_find(const struct sframe_rows *rows, u64 pc,
		     struct sframe_rule *rule)
{
	const struct sframe_rows_rule *r;
	int err;

	r = sframe_rows_lookup(rows, pc, &err, NULL);
	if (!r)
		return err > 0 ? sframe_find(rows->sec, pc, rule) : err;
	sframe_rule_set_recovery(rule, r);
	rule->func_start = sframe_rows_func_start(rows, pc);
	rule->func_size = 0;
	rule->fde_index = 0;
	rule->fre_start = 0;
	rule->fre_end = 0;
	return 0;
}
EXPORT_SYMBOL_GPL(sframe_rows_find);

/**
 * sframe_validate_rows() - validate a section and decode it into rows
 * @sec: opened section
 * @shift: block size of the rows (see sframe_rows_size())
 * @limit: as for sframe_rows_build()
 * @rows: as for sframe_rows_build()
 * @hash: as for sframe_rows_build()
 *
 * sframe_validate() and sframe_rows_build() in one pass over the section
 * when its FDEs are sorted or it is indexed (each FRE is read and decoded
 * once, in address order); else sframe_validate() alone, and the rows
 * need the section indexed.
 *
 * Return: 0 if the section is valid and its rows built; the first
 * validation problem's code; or sframe_rows_build()'s error (the section
 * is valid then, only without rows).
 */
int sframe_validate_rows(const struct sframe_section *sec, unsigned int shift,
			 u64 limit, struct sframe_rows *rows, u16 *hash)
{
	struct sframe_rows_builder bld;
	int err;

	if (!(sec->flags & SFRAME_F_FDE_SORTED) && !sec->order) {
		err = sframe_validate(sec, NULL, NULL);
		return err ? err : sframe_rows_build(sec, shift, limit, rows,
						     hash);
	}
	err = sframe_rows_start(&bld, sec, shift, limit, rows, hash);
	if (err)
		return sframe_validate(sec, NULL, NULL) ?: err;
	err = sframe_validate_build(sec, &bld);
	return err ? err : sframe_rows_finish(&bld);
}
EXPORT_SYMBOL_GPL(sframe_validate_rows);
