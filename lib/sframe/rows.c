// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFrame core: decoded rows, for sections that are trusted after one
 * validation (the kernel's own and its modules').  Not in the user-memory
 * build: a user section can change at any time, so it is decoded afresh on
 * every use.
 */
#include "internal.h"

/**
 * sframe_rows_size() - memory a rows table needs
 * @sec: opened, validated section
 * @shift: log2 of the block size (8: 256-byte blocks, as ORC's lookup)
 * @nrows: result: at most this many rows (entries of start[] and id[])
 * @nblocks: result: blocks (block[] needs @nblocks + 1 entries)
 *
 * The rules array needs %SFRAME_ROWS_MAX_RULES entries while it is built;
 * sframe_rows_build() says how many it used.
 *
 * Return: 0, or a negative SFRAME_E_* code.
 */
int sframe_rows_size(const struct sframe_section *sec, unsigned int shift,
		     u32 *nrows, u32 *nblocks)
{
	u64 lo, hi, n, nb;
	int err;

	if (shift > 24)
		return -SFRAME_E_INVAL;
	err = sframe_text_range(sec, &lo, &hi);
	if (err)
		return err;
	/* A row per FRE, one per function start and one after each end. */
	n = (u64)sec->num_fres + 2ULL * sec->num_fdes + 1;
	nb = sframe_index_blocks(lo, hi, shift);
	if (n > 0xffffffffULL || nb >= 0xffffffffULL || hi - lo > 0xffffffffULL)
		return -SFRAME_E_INDEX;
	*nrows = n;
	*nblocks = nb;
	return 0;
}
EXPORT_SYMBOL_GPL(sframe_rows_size);

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

/* The number of rule @rule (added if new), or SFRAME_ROWS_CORE. */
static u16 sframe_rows_intern(struct sframe_rows *rows, u16 *hash,
			      const struct sframe_rule *rule)
{
	struct sframe_rows_rule r;
	u32 h, i;

	sframe_rule_recovery(&r, rule);
	h = sframe_rows_hash(&r);
	for (i = 0; i < SFRAME_ROWS_HASH_SLOTS; i++) {
		u16 *slot = &hash[(h + i) & (SFRAME_ROWS_HASH_SLOTS - 1)];

		if (*slot == SFRAME_ROWS_GAP) {
			if (rows->nrules >= SFRAME_ROWS_MAX_RULES)
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
 * A rows table being built, function by function in address order: by
 * sframe_rows_build(), or by sframe_validate_rows() while it validates.
 * The first error sticks in @err.
 */
struct sframe_rows_builder {
	struct sframe_rows *rows;
	u16 *hash;
	u32 cap;
	u64 end;	/* end of the previous function, 0 before the first */
	int err;
};

/* Append a row; a row at the address of the last one replaces it. */
static void sframe_rows_add(struct sframe_rows_builder *bld, u64 addr, u16 id)
{
	struct sframe_rows *rows = bld->rows;
	u32 off = addr - rows->base;

	if (bld->err)
		return;
	if (rows->nrows && rows->start[rows->nrows - 1] >= off) {
		if (rows->start[rows->nrows - 1] > off) {
			bld->err = -SFRAME_E_INDEX;	/* overlapping functions */
			return;
		}
		rows->nrows--;
	}
	/* The same rule again: the row before covers this one. */
	if (rows->nrows && rows->id[rows->nrows - 1] == id &&
	    id != SFRAME_ROWS_CORE)
		return;
	if (rows->nrows >= bld->cap) {
		bld->err = -SFRAME_E_INDEX;
		return;
	}
	rows->start[rows->nrows] = off;
	rows->id[rows->nrows++] = id;
}

/* A function begins: a gap row before it, or the core for all of it. */
void sframe_rows_begin(struct sframe_rows_builder *bld,
		       const struct sframe_fde *fde)
{
	/*
	 * Overlapping functions, an empty one inside another included, have
	 * no single answer (sframe_find() may give either): no rows.
	 */
	if (fde->start < bld->end && !bld->err)
		bld->err = -SFRAME_E_INDEX;
	if (!fde->size)
		return;
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
	if (!fde->size || sframe_fde_pcmask(fde) || fre->start >= fde->size)
		return;
	/* Before the first row: the core's answer (no row). */
	if (j == 0 && fre->start)
		sframe_rows_add(bld, fde->start, SFRAME_ROWS_CORE);
	sframe_rows_add(bld, fde->start + fre->start,
			rule ? sframe_rows_intern(bld->rows, bld->hash, rule) :
			       SFRAME_ROWS_CORE);
}

static int sframe_rows_start(struct sframe_rows_builder *bld,
			     const struct sframe_section *sec,
			     unsigned int shift, struct sframe_rows *rows,
			     u16 *hash)
{
	u32 nblocks, i;
	u64 lo, hi;
	int err;

	err = sframe_rows_size(sec, shift, &bld->cap, &nblocks);
	if (!err)
		err = sframe_text_range(sec, &lo, &hi);
	if (err)
		return err;
	bld->rows = rows;
	bld->hash = hash;
	bld->end = 0;
	bld->err = 0;
	rows->sec = sec;
	rows->base = lo;
	rows->end = hi;
	rows->shift = shift;
	rows->nrows = 0;
	rows->nrules = 0;
	rows->nblocks = nblocks;
	for (i = 0; i < SFRAME_ROWS_HASH_SLOTS; i++)
		hash[i] = SFRAME_ROWS_GAP;
	return 0;
}

/* The start of row @i, from the rows' base (a sframe_start_fn). */
static int sframe_rows_start_of(const void *ctx, u32 i, u64 *start)
{
	const struct sframe_rows *rows = ctx;

	*start = rows->start[i];
	return 0;
}

/* After the last function: its end, and the block index. */
static int sframe_rows_finish(struct sframe_rows_builder *bld)
{
	struct sframe_rows *rows = bld->rows;

	if (bld->end)
		sframe_rows_add(bld, bld->end, SFRAME_ROWS_GAP);
	if (bld->err)
		return bld->err;
	return sframe_block_fill(rows->block, rows->nblocks, rows->shift, 0,
				 rows->nrows, sframe_rows_start_of, rows);
}

/**
 * sframe_rows_build() - decode a validated section into rows
 * @sec: opened section that passed sframe_validate(), indexed or with
 *       %SFRAME_F_FDE_SORTED, and that will not change
 * @shift: block size, as given to sframe_rows_size()
 * @rows: @rows->start, id and block sized by sframe_rows_size(), rules
 *        with %SFRAME_ROWS_MAX_RULES entries; the rest is filled in
 * @hash: scratch, %SFRAME_ROWS_HASH_SLOTS entries (free it afterwards)
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
		      struct sframe_rows *rows, u16 *hash)
{
	struct sframe_rows_builder bld;
	struct sframe_rule rule;
	struct sframe_fde fde;
	struct sframe_fre fre;
	u32 i, j, off;
	int err;

	if (!(sec->flags & SFRAME_F_FDE_SORTED) && !sec->order)
		return -SFRAME_E_INDEX;
	err = sframe_rows_start(&bld, sec, shift, rows, hash);
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
	u32 off, lo, hi, n, half;
	u16 id;

	*err = -SFRAME_E_NO_FDE;
	if (pc < rows->base || pc >= rows->end || !rows->nrows)
		return NULL;
	off = pc - rows->base;
	if (!sframe_block_bounds(rows->block, rows->nblocks, rows->shift, off,
				 &lo, &hi) || !hi)
		return NULL;
	/* Rows @lo - 1 to @hi - 1 (row 0 if none starts before the block). */
	lo = lo ? lo - 1 : 0;
	n = hi - lo;
	/*
	 * The last row at or before @off: one of the @n rows from @lo.  Each
	 * step keeps the rows from the middle one on if it starts at or
	 * before @off, else at least those before it; no branch on the data.
	 */
	while (n > 1) {
		half = n / 2;
		lo = rows->start[lo + half] <= off ? lo + half : lo;
		n -= half;
	}
	/* Below the first row: a function without size began the range. */
	if (rows->start[lo] > off)
		return NULL;
	id = rows->id[lo];
	if (id == SFRAME_ROWS_GAP)
		return NULL;
	if (id == SFRAME_ROWS_CORE) {
		*err = 1;
		return NULL;
	}
	*err = 0;
	return &rows->rules[id];
}
EXPORT_SYMBOL_GPL(sframe_rows_rule_of);

/**
 * sframe_rows_find() - the rule for @pc from a rows table
 * @rows: built by sframe_rows_build()
 * @pc: address
 * @rule: result: the recovery fields (function fields zero), or at
 *        %SFRAME_ROWS_CORE rows everything sframe_find() gives
 *
 * Return: what sframe_find() returns for @pc.
 */
int sframe_rows_find(const struct sframe_rows *rows, u64 pc,
		     struct sframe_rule *rule)
{
	const struct sframe_rows_rule *r;
	int err;

	r = sframe_rows_rule_of(rows, pc, &err);
	if (!r)
		return err > 0 ? sframe_find(rows->sec, pc, rule) : err;
	sframe_rule_set_recovery(rule, r);
	rule->func_start = 0;
	rule->func_size = 0;
	rule->fde_index = 0;
	rule->fre_start = 0;
	return 0;
}
EXPORT_SYMBOL_GPL(sframe_rows_find);

/**
 * sframe_validate_rows() - validate a section and decode it into rows
 * @sec: opened section
 * @shift: block size of the rows (see sframe_rows_size())
 * @rows: as for sframe_rows_build()
 * @hash: as for sframe_rows_build()
 *
 * sframe_validate() and sframe_rows_build() in one pass over the section
 * when its FDEs are sorted (each FRE is read and decoded once); else one
 * after the other (the rows then need the section indexed).
 *
 * Return: 0 if the section is valid and its rows built; the first
 * validation problem's code; or sframe_rows_build()'s error (the section
 * is valid then, only without rows).
 */
int sframe_validate_rows(const struct sframe_section *sec, unsigned int shift,
			 struct sframe_rows *rows, u16 *hash)
{
	struct sframe_rows_builder bld;
	int err;

	if (!(sec->flags & SFRAME_F_FDE_SORTED)) {
		err = sframe_validate(sec, NULL, NULL);
		return err ? err : sframe_rows_build(sec, shift, rows, hash);
	}
	err = sframe_rows_start(&bld, sec, shift, rows, hash);
	if (err)
		return sframe_validate(sec, NULL, NULL) ?: err;
	err = sframe_validate_build(sec, &bld);
	return err ? err : sframe_rows_finish(&bld);
}
EXPORT_SYMBOL_GPL(sframe_validate_rows);
