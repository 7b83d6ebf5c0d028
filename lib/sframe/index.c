// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFrame core: the lookup index, a block index (sframe_block_fill()) over
 * the text that bounds each FDE search to a few entries, and the sort
 * order of sections whose FDEs are not sorted (heapsort: in place, no
 * allocation).
 */
#include "internal.h"

/*
 * Text range [*@lo, *@hi) of the functions that start below @limit (~0:
 * every function), with their number and that of their FREs.
 */
int sframe_text_range_below(const struct sframe_section *sec, u64 limit,
			    u64 *lo, u64 *hi, u64 *nfdes, u64 *nfres)
{
	struct sframe_fde fde;
	u32 i;
	int err;

	*lo = ~0ULL;
	*hi = 0;
	*nfdes = 0;
	*nfres = 0;
	for (i = 0; i < sec->num_fdes; i++) {
		err = sframe_get_fde(sec, i, &fde);
		if (err)
			return err;
		if (fde.start >= limit && limit != ~0ULL)
			continue;
		if (fde.start + fde.size < fde.start)
			return -SFRAME_E_FUNC_RANGE;
		if (fde.start < *lo)
			*lo = fde.start;
		if (fde.start + fde.size > *hi)
			*hi = fde.start + fde.size;
		++*nfdes;
		*nfres += fde.num_fres;
	}
	return 0;
}

/* Text range covered by the FDEs: [*lo, *hi). */
int sframe_text_range(const struct sframe_section *sec, u64 *lo, u64 *hi)
{
	u64 nfdes, nfres;

	return sframe_text_range_below(sec, ~0ULL, lo, hi, &nfdes, &nfres);
}

/*
 * sframe_index_size() of a section whose text is [@lo, @hi): the block
 * index, and for an unsorted section the sort order before it.  The block
 * index's words hold the sort keys first (sframe_sort_order()): at least
 * one per FDE.
 */
static int sframe_index_words(const struct sframe_section *sec,
			      unsigned int shift, u64 lo, u64 hi, u32 *nwords)
{
	u64 n;

	n = sframe_index_blocks(lo, hi, shift) + 1;
	if (!(sec->flags & SFRAME_F_FDE_SORTED))
		n = (n > sec->num_fdes ? n : sec->num_fdes) + sec->num_fdes;
	if (n > 0xffffffffULL)
		return -SFRAME_E_INDEX;
	*nwords = n;
	return 0;
}

/**
 * sframe_index_size() - memory needed by a lookup index
 * @sec: opened section
 * @shift: log2 of the text block size, at most 32 (e.g. 8 for 256-byte
 *         blocks, as ORC)
 * @nwords: result: number of u32 words sframe_index_build() needs
 *
 * Return: 0, or a negative SFRAME_E_* code.
 */
int sframe_index_size(const struct sframe_section *sec, unsigned int shift,
		      u32 *nwords)
{
	u64 lo, hi;
	int err;

	if (shift > 32)
		return -SFRAME_E_INVAL;
	err = sframe_text_range(sec, &lo, &hi);
	if (err)
		return err;
	return sframe_index_words(sec, shift, lo, hi, nwords);
}
EXPORT_SYMBOL_GPL(sframe_index_size);

/* Does FDE @a start before FDE @b (ties: lower index first)? */
static inline bool sframe_key_less(const u32 *key, u32 a, u32 b)
{
	return key[a] < key[b] || (key[a] == key[b] && a < b);
}

/*
 * Heapsort of @order by @key (ties: lower index first): in place, no
 * allocation, O(n log n) even on hostile input.  @key[i] is FDE i's start
 * minus the lowest start, read once: a comparison is two loads, not two
 * decoded FDEs.
 */
static void sframe_sift_down(const u32 *key, u32 *order, u32 root, u32 n)
{
	for (;;) {
		u32 child = 2 * root + 1, t;

		if (child >= n)
			return;
		if (child + 1 < n && sframe_key_less(key, order[child],
						     order[child + 1]))
			child++;
		if (!sframe_key_less(key, order[root], order[child]))
			return;
		t = order[root];
		order[root] = order[child];
		order[child] = t;
		root = child;
	}
}

/*
 * The FDEs' sorted order into @order, their keys into @key (n words each;
 * @key is scratch afterwards).  The text lies in [@lo, @hi) and spans less
 * than 4 GiB: each key fits 32 bits.
 */
static int sframe_sort_order(const struct sframe_section *sec, u64 lo,
			     u32 *order, u32 *key)
{
	u32 n = sec->num_fdes, i, t;
	u64 start;
	int err;

	for (i = 0; i < n; i++) {
		err = sframe_fde_start(sec, i, &start);
		if (err)
			return err;
		order[i] = i;
		key[i] = start - lo;
	}
	for (i = n / 2; i > 0; i--)
		sframe_sift_down(key, order, i - 1, n);
	for (i = n; i > 1; i--) {
		t = order[0];
		order[0] = order[i - 1];
		order[i - 1] = t;
		sframe_sift_down(key, order, 0, i - 1);
	}
	return 0;
}

/* The start of the FDE at sorted position @pos (a sframe_start_fn). */
static int sframe_fde_start_sorted(const void *ctx, u32 pos, u64 *start)
{
	const struct sframe_section *sec = ctx;

	return sframe_fde_start(sec, sframe_pos(sec, pos), start);
}

/**
 * sframe_index_build() - build a lookup index in caller-provided memory
 * @sec: opened section; on success it uses the index for every lookup
 * @shift: log2 of the text block size
 * @mem: sframe_index_size() words, owned by the caller for the lifetime
 *       of @sec
 * @nwords: size of @mem in u32 words
 *
 * Like ORC's lookup table: a block index of the FDEs in start order
 * (sframe_block_bounds()), so that a lookup binary-searches only the FDEs
 * of one block.  Unsorted sections (relocatable
 * objects, modules) also get the sorted order of their FDEs, which makes
 * their lookups logarithmic instead of linear.
 *
 * Return: 0, or a negative SFRAME_E_* code (the section is left unindexed).
 */
int sframe_index_build(struct sframe_section *sec, unsigned int shift,
		       u32 *mem, u32 nwords)
{
	struct sframe_section tmp = *sec;
	u32 need, nblocks, n = sec->num_fdes;
	u32 *blocks = mem;
	u64 lo, hi;
	int err;

	if (shift > 32)
		return -SFRAME_E_INVAL;
	/* One pass over the FDEs for the range, not one per use of it. */
	err = sframe_text_range(sec, &lo, &hi);
	if (!err)
		err = sframe_index_words(sec, shift, lo, hi, &need);
	if (err)
		return err;
	if (!mem || nwords < need)
		return -SFRAME_E_INDEX;
	nblocks = sframe_index_blocks(lo, hi, shift);

	tmp.order = NULL;
	tmp.blocks = NULL;
	if (!(sec->flags & SFRAME_F_FDE_SORTED)) {
		if (hi - lo > 0xffffffffULL)
			return -SFRAME_E_INDEX;
		blocks = mem + n;
		err = sframe_sort_order(sec, lo, mem, blocks);
		if (err)
			return err;
		tmp.order = mem;
	}
	err = sframe_block_fill(blocks, nblocks, shift, lo, n,
				sframe_fde_start_sorted, &tmp);
	if (err)
		return err;
	tmp.blocks = blocks;
	tmp.idx_base = lo;
	tmp.idx_shift = shift;
	tmp.idx_nblocks = nblocks;
	*sec = tmp;
	return 0;
}
EXPORT_SYMBOL_GPL(sframe_index_build);
