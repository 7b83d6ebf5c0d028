// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFrame core: lookups.  The FDE covering an address (binary search, in
 * a block of the lookup index when there is one), the row of a function
 * covering it, and the rule a row encodes; sframe_find() does all three.
 * What the user-memory build (kernel/core_uaccess.c) needs, with open.c.
 */
#include "internal.h"

/* sframe_get_fde() for version @ver (a constant where inlined). */
static __always_inline int sframe_get_fde_v(const struct sframe_section *sec,
					    u32 index, unsigned int ver,
					    struct sframe_fde *fde)
{
	u32 stride = sframe_fde_stride(ver), off;

	if (unlikely(index >= sec->num_fdes))
		return -SFRAME_E_INVAL;
	off = sec->fde_base + index * stride;
	if (unlikely(off > sec->fre_base || stride > sec->fre_base - off))
		return -SFRAME_E_LAYOUT;
	return sframe_fde_at(sec, index, off, ver, fde);
}

/**
 * sframe_get_fde() - decode one function descriptor
 * @sec: opened section
 * @index: FDE index, below @sec->num_fdes
 * @fde: result
 *
 * Resolves the start address (section- or PC-relative per the version,
 * flags and open options) and, for v3, reads the attribute in front of the
 * function's FREs.
 *
 * Return: 0, or a negative SFRAME_E_* code.
 */
int sframe_get_fde(const struct sframe_section *sec, u32 index,
		   struct sframe_fde *fde)
{
	switch (sec->version) {
	case SFRAME_VERSION_1:
		return sframe_get_fde_v(sec, index, SFRAME_VERSION_1, fde);
	case SFRAME_VERSION_2:
		return sframe_get_fde_v(sec, index, SFRAME_VERSION_2, fde);
	default:
		return sframe_get_fde_v(sec, index, SFRAME_VERSION_3, fde);
	}
}
EXPORT_SYMBOL_GPL(sframe_get_fde);

/*
 * What sframe_bsearch() compares FDE starts with.  Starts of 4 bytes or
 * less (v1, v2) are compared relative to the section address, with @rel:
 * @pc - address as a signed difference, which saves adding the address on
 * every read.  A start field (PC-relative ones too) lies less than 2^33
 * from the address, so for a @pc that a function covers, the comparison
 * orders every FDE by the start field as @pc orders the resolved starts;
 * sframe_validate() rejects a section whose starts lie on both sides of
 * the wrap of the address space, where the two orders differ.  Section-
 * relative starts are compared as 32-bit values with @rel32, @rel clamped
 * to that range: one compare with the field in memory.  The clamp keeps
 * every order but that of a start of exactly S32_MIN with @rel below it,
 * where @pc lies below every function either way.  8-byte starts (v3) are
 * resolved and compared with @pc itself.
 */
struct sframe_key {
	u64 pc;
	s64 rel;
	s32 rel32;
};

static __always_inline void sframe_key_init(const struct sframe_section *sec,
					    u64 pc, struct sframe_key *key)
{
	s64 rel = (s64)(pc - sec->addr);

	key->pc = pc;
	key->rel = rel;
	rel = rel > 0x7fffffff ? 0x7fffffff : rel;
	rel = rel < -0x80000000LL ? -0x80000000LL : rel;
	key->rel32 = rel;
}

/*
 * Does an FDE start at or below @key?  With @order, the FDE at sorted
 * position @at, else the FDE at section offset @at; either lies in the
 * FDE index (@order[@at] too, unless @order is corrupt).
 */
static __always_inline int sframe_probe(const struct sframe_section *sec,
					u32 at, u32 stride, unsigned int n,
					bool swap, bool pcrel,
					const u32 *order,
					const struct sframe_key *key,
					bool *below)
{
	u32 off = at, i;
	s64 v;
	u8 b[8];
	int err;

	if (order) {
		i = order[at];
		if (unlikely(i >= sec->num_fdes))
			return -SFRAME_E_INDEX;
		off = sec->fde_base + i * stride;
	}
	err = sframe_access_copy(sec, off, b, n);
	if (unlikely(err))
		return err;
	if (n == 4 && !pcrel) {
		/* One 32-bit compare of the field with the clamped key. */
		*below = (s32)sframe_uint(b, 4, swap) <= key->rel32;
		return 0;
	}
	v = sframe_sint(b, n, swap);
	/* PC-relative starts are relative to the start field's offset. */
	if (n == 8)
		*below = (pcrel ? sec->addr + off : sec->addr) + (u64)v <=
			 key->pc;
	else
		*below = v + (pcrel ? (s64)off : 0) <= key->rel;
	return 0;
}

/*
 * The search of sframe_find_fde(): the last sorted position in [@lo, @hi)
 * whose function starts at or below @pc; its FDE index in *@index and the
 * FDE's section offset in *@at; -SFRAME_E_NO_FDE if there is none (every
 * position below @lo is known to start at or below @pc: then @lo - 1).
 * FDEs are @stride bytes apart, start fields @n bytes wide, byte-swapped
 * if @swap, PC-relative if @pcrel, and @order maps positions to FDE
 * indices (NULL: the same); constants where the common cases are inlined.
 * The caller has checked that [@lo, @hi) lies in the FDE index and the
 * FDE index in the section, so the steps read start fields without a
 * bounds check.
 *
 * @cur is the last position known to start at or below @pc, as a sorted
 * position with @order, else as a section offset (positions @unit apart:
 * one, or @stride bytes), so that without @order no step multiplies or
 * divides, and the FDE found is read at @cur directly.  It starts at
 * @lo - 1; after the first step a power of two of candidates follows it.
 * Each step then divides them by four (sframe_bsearch_quarter()), and a
 * last one may halve two.  Without @order, what the last steps and the
 * row scan read is prefetched as soon as it is known: the lines of the
 * last %SFRAME_BSEARCH_NEAR candidates, then the first rows of the last
 * four (their FRE offset fields are at @fre_field in each FDE), so that
 * these reads wait on memory together rather than one after the other.
 * No branch on the data: an unpredictable branch would discard the work
 * the CPU started beyond it.  At most 17 steps; whatever the data, sorted
 * or not, @cur moves only forward within [@lo - 1, @hi).
 */
#define SFRAME_BSEARCH_NEAR	16

/*
 * One step of sframe_bsearch() over the @q * 4 candidates following @cur:
 * three reads that do not depend on each other (their latencies overlap,
 * where a binary search waits for each read in turn), and two selections
 * that compile to conditional moves.
 */
static __always_inline int sframe_bsearch_quarter(const struct sframe_section *sec,
						  const struct sframe_key *key,
						  u32 stride, unsigned int n,
						  bool swap, bool pcrel,
						  const u32 *order, u32 q,
						  u32 *cur)
{
	u32 a1 = *cur + q, a2 = *cur + 2 * q, a3 = *cur + 3 * q, low, high;
	bool b1, b2, b3;
	int err;

	err = sframe_probe(sec, a1, stride, n, swap, pcrel, order, key, &b1);
	if (!err)
		err = sframe_probe(sec, a2, stride, n, swap, pcrel, order, key,
				   &b2);
	if (!err)
		err = sframe_probe(sec, a3, stride, n, swap, pcrel, order, key,
				   &b3);
	if (unlikely(err))
		return err;
	low = b1 ? a1 : *cur;
	high = b3 ? a3 : a2;
	*cur = b2 ? high : low;
	return 0;
}

/*
 * Prefetch the first row of the four functions whose FDEs start at
 * section offset @cur, @stride bytes apart.  The four FRE offset fields
 * lie in the section: the last three FDEs are candidates of the search,
 * inside the FDE index, and @cur is one too or the FDE slot before the
 * index (inside the header, which is longer than an FDE).  The offsets
 * are not checked: they only steer a prefetch, which never faults, and a
 * wrong one costs a useless prefetch, never a wrong answer.
 */
static __always_inline void sframe_prefetch_rows(const struct sframe_section *sec,
						 u32 cur, u32 stride,
						 u32 fre_field, bool swap)
{
	u8 b[4][4];

	if (!SFRAME_ACCESS_PREFETCH)
		return;
	cur += fre_field;
	sframe_access_copy(sec, cur, b[0], 4);
	sframe_access_copy(sec, cur + stride, b[1], 4);
	sframe_access_copy(sec, cur + 2 * stride, b[2], 4);
	sframe_access_copy(sec, cur + 3 * stride, b[3], 4);
	sframe_access_prefetch(sec, sec->fre_base + sframe_uint(b[0], 4, swap));
	sframe_access_prefetch(sec, sec->fre_base + sframe_uint(b[1], 4, swap));
	sframe_access_prefetch(sec, sec->fre_base + sframe_uint(b[2], 4, swap));
	sframe_access_prefetch(sec, sec->fre_base + sframe_uint(b[3], 4, swap));
}

static __always_inline int sframe_bsearch(const struct sframe_section *sec,
					  u64 pc, u32 lo, u32 hi, u32 stride,
					  unsigned int n, u32 fre_field,
					  bool swap, bool pcrel,
					  const u32 *order, u32 *index,
					  u32 *at)
{
	u32 len = hi - lo, unit = order ? 1 : stride, step, q, a1;
	u32 base = order ? lo - 1 : sec->fde_base + (lo - 1) * stride;
	u32 cur = base;
	struct sframe_key key;
	bool b1;
	int err;

	sframe_key_init(sec, pc, &key);
	if (len) {
		step = sframe_pow2_floor(len);
		/* The answer is in [lo - 1, hi - step - 1] or above. */
		a1 = base + (len - step + 1) * unit;
		err = sframe_probe(sec, a1, stride, n, swap, pcrel, order,
				   &key, &b1);
		if (unlikely(err))
			return err;
		cur = b1 ? a1 : cur;
		/* From here on the answer is in [cur, cur + step - 1]. */
		for (q = step * unit; q > SFRAME_BSEARCH_NEAR * unit;) {
			q /= 4;
			err = sframe_bsearch_quarter(sec, &key, stride, n, swap,
						     pcrel, order, q, &cur);
			if (unlikely(err))
				return err;
		}
		/*
		 * [cur, cur + q): at most 16 FDEs of up to 20 bytes, so six
		 * lines cover them whatever the alignment.  A search that
		 * started this narrow (in a block of the lookup index) reads
		 * them in a step or two anyway.
		 */
		if (!order && step > SFRAME_BSEARCH_NEAR) {
			sframe_access_prefetch(sec, cur);
			sframe_access_prefetch(sec, cur + 64);
			sframe_access_prefetch(sec, cur + 128);
			sframe_access_prefetch(sec, cur + 192);
			sframe_access_prefetch(sec, cur + 256);
			sframe_access_prefetch(sec, cur + q - 1);
		}
		if (q >= 8 * unit) {
			q /= 4;
			err = sframe_bsearch_quarter(sec, &key, stride, n, swap,
						     pcrel, order, q, &cur);
			if (unlikely(err))
				return err;
		}
		if (q == 4 * unit) {
			if (!order)
				sframe_prefetch_rows(sec, cur, stride,
						     fre_field, swap);
			q = unit;
			err = sframe_bsearch_quarter(sec, &key, stride, n, swap,
						     pcrel, order, q, &cur);
			if (unlikely(err))
				return err;
		}
		if (q > unit) {
			err = sframe_probe(sec, cur + unit, stride, n, swap,
					   pcrel, order, &key, &b1);
			if (unlikely(err))
				return err;
			cur = b1 ? cur + unit : cur;
		}
	}
	if (!lo && cur == base)
		return -SFRAME_E_NO_FDE;
	if (order) {
		*index = order[cur];
		if (unlikely(*index >= sec->num_fdes))
			return -SFRAME_E_INDEX;
		*at = sec->fde_base + *index * stride;
	} else {
		*index = (cur - sec->fde_base) / stride;
		*at = cur;
	}
	return 0;
}

/*
 * sframe_find_fde() over sorted positions [@lo, @hi) (every position
 * below @lo is known to start at or below @pc), for version @ver: a
 * constant, so that the FDE layout is known at compile time.  Sections in
 * the host's byte order without a sort order (sorted ones: the common
 * case) get searches of their own, with section- or PC-relative starts.
 */
static __always_inline int sframe_search_v(const struct sframe_section *sec,
					   u64 pc, u32 lo, u32 hi,
					   unsigned int ver,
					   struct sframe_fde *fde)
{
	u32 stride = sframe_fde_stride(ver), i, at;
	u32 fre_field = ver >= SFRAME_VERSION_3 ? SFRAME_V3_FDE_FRE_OFF :
						  SFRAME_V1_FDE_FRE_OFF;
	unsigned int n = sframe_fde_start_len(ver);
	int err;

	/* sframe_open() checked the FDE index lies in the section. */
	if (unlikely((u64)sec->fde_base + (u64)sec->num_fdes * stride >
		     sec->fre_base))
		return -SFRAME_E_LAYOUT;
	if (sframe_swap(sec) || sec->order)
		err = sframe_bsearch(sec, pc, lo, hi, stride, n, fre_field,
				     sframe_swap(sec), sec->pcrel, sec->order,
				     &i, &at);
	else if (sec->pcrel)
		err = sframe_bsearch(sec, pc, lo, hi, stride, n, fre_field,
				     false, true, NULL, &i, &at);
	else
		err = sframe_bsearch(sec, pc, lo, hi, stride, n, fre_field,
				     false, false, NULL, &i, &at);
	if (err)
		return err;
	/* i < num_fdes: sframe_bsearch() checked @order's entries. */
	err = sframe_fde_at(sec, i, at, ver, fde);
	if (err)
		return err;
	if (!sframe_fde_covers(fde->start, fde->size, pc))
		return -SFRAME_E_NO_FDE;
	return 0;
}

/* sframe_find_fde() without its kernel-doc, for sframe_find() too. */
static __always_inline int sframe_search(const struct sframe_section *sec,
					 u64 pc, struct sframe_fde *fde)
{
	u32 lo = 0, hi = sec->num_fdes, i;
	int err;

	if (sec->blocks) {
		if (pc < sec->idx_base ||
		    !sframe_block_bounds(sec->blocks, sec->idx_nblocks,
					 sec->idx_shift, pc - sec->idx_base,
					 &lo, &hi))
			return -SFRAME_E_NO_FDE;
		if (unlikely(lo > hi || hi > sec->num_fdes))
			return -SFRAME_E_INDEX;
	} else if (!sec->order && !(sec->flags & SFRAME_F_FDE_SORTED)) {
		for (i = 0; i < sec->num_fdes; i++) {
			err = sframe_get_fde(sec, i, fde);
			if (err)
				return err;
			if (sframe_fde_covers(fde->start, fde->size, pc))
				return 0;
		}
		return -SFRAME_E_NO_FDE;
	}

	/* The last FDE starting at or below pc is the candidate. */
	switch (sec->version) {
	case SFRAME_VERSION_1:
		return sframe_search_v(sec, pc, lo, hi, SFRAME_VERSION_1, fde);
	case SFRAME_VERSION_2:
		return sframe_search_v(sec, pc, lo, hi, SFRAME_VERSION_2, fde);
	default:
		return sframe_search_v(sec, pc, lo, hi, SFRAME_VERSION_3, fde);
	}
}

/**
 * sframe_find_fde() - find the function descriptor covering an address
 * @sec: opened section
 * @pc: run-time address
 * @fde: result
 *
 * With a lookup index (sframe_index_build()) the block of @pc bounds a
 * short binary search over the sorted FDEs.  Without one: binary search
 * when the section claims to be sorted, else a linear scan returning the
 * first FDE covering @pc.  On a section falsely claiming to be sorted the
 * answer may be wrong, but every read stays in bounds (sframe_validate()
 * detects it).
 *
 * Return: 0, -SFRAME_E_NO_FDE, or another negative SFRAME_E_* code.
 */
int sframe_find_fde(const struct sframe_section *sec, u64 pc,
		    struct sframe_fde *fde)
{
	return sframe_search(sec, pc, fde);
}
EXPORT_SYMBOL_GPL(sframe_find_fde);

/**
 * sframe_read_fre() - locate and size the frame row entry at an offset
 * @sec: opened section
 * @fde: the function the FRE belongs to
 * @off: section offset of the FRE
 * @fre: result
 *
 * Return: 0, or a negative SFRAME_E_* code.
 */
int sframe_read_fre(const struct sframe_section *sec,
		    const struct sframe_fde *fde, u32 off,
		    struct sframe_fre *fre)
{
	return sframe_fre_read(sec, fde, off, fre);
}
EXPORT_SYMBOL_GPL(sframe_read_fre);

/*
 * The scan of sframe_find_fre() over ascending rows (all but v1 PCMASK),
 * for a constant start width @asz: the last row starting at or below
 * function (or block) offset @off.  Rows are read up to the first one
 * above @off, with the checks of sframe_read_fre() in the same order;
 * those far enough from the end of the FRE sub-section that even the
 * longest row would fit need no bounds check (each row ends inside the
 * sub-section, so the next starts inside it).  Each row is at least 2
 * bytes long, and there are at most num_fres.  @decoded (a constant):
 * sframe_fde_at() decoded @fde in this lookup, which put its first row
 * inside the FRE sub-section.  The row found keeps the info byte the scan
 * read: each row's length depends on the row before, and the rule waits
 * for the scan.
 */
static __always_inline int sframe_scan_fres(const struct sframe_section *sec,
					    const struct sframe_fde *fde,
					    u32 off, unsigned int asz,
					    bool decoded,
					    struct sframe_fre *fre)
{
	u32 p = fde->fres, end = sec->fre_end, roomy = 0, last = 0, k;
	struct sframe_fre row;
	s64 prev = -1;
	u8 info = 0;
	int err;

	if (!decoded && unlikely(p < sec->fre_base || p > end))
		return fde->num_fres ? -SFRAME_E_FRE_BOUNDS : -SFRAME_E_NO_FRE;
	/* Rows starting at or below @roomy fit, whatever their size. */
	if (end >= asz + 1 + SFRAME_FRE_MAX_DATA)
		roomy = end - (asz + 1 + SFRAME_FRE_MAX_DATA);
	for (k = fde->num_fres; k; k--) {
		if (likely(p <= roomy))
			err = sframe_fre_at(sec, p, asz, true, &row);
		else
			err = sframe_fre_at(sec, p, asz, false, &row);
		if (unlikely(err))
			return err;
		if (unlikely((s64)row.start <= prev))
			return -SFRAME_E_FRE_ORDER;
		if (row.start > off)
			break;
		prev = row.start;
		info = row.info;
		last = p;
		p = row.next;
	}
	/* An FRE offset is never 0: the header comes first. */
	if (!last)
		return -SFRAME_E_NO_FRE;
	fre->info = info;
	fre->start = prev;
	fre->off = last;
	fre->next = p;
	/* The row above @off, if the scan stopped at one. */
	fre->end = k ? row.start : 0;
	return 0;
}

/*
 * v1 PCMASK rows: each start is a mask, applying where (off & mask) ==
 * mask, in no order; the last row that applies wins.
 */
static int sframe_scan_masks(const struct sframe_section *sec,
			     const struct sframe_fde *fde, u32 off,
			     struct sframe_fre *fre)
{
	u32 p = fde->fres, k;
	struct sframe_fre cur;
	bool found = false;
	int err;

	/* Each row is at least 2 bytes and bounds-checked: the loop ends. */
	for (k = 0; k < fde->num_fres; k++) {
		err = sframe_read_fre(sec, fde, p, &cur);
		if (unlikely(err))
			return err;
		if ((off & cur.start) == cur.start) {
			*fre = cur;
			found = true;
		}
		p = cur.next;
	}
	return found ? 0 : -SFRAME_E_NO_FRE;
}

/* sframe_scan_fres() for the start width of @fde's rows. */
static __always_inline int sframe_scan_type(const struct sframe_section *sec,
					    const struct sframe_fde *fde,
					    u32 off, bool decoded,
					    struct sframe_fre *fre)
{
	switch (SFRAME_FUNC_FRE_TYPE(fde->info)) {
	case SFRAME_FRE_TYPE_ADDR1:
		return sframe_scan_fres(sec, fde, off, 1, decoded, fre);
	case SFRAME_FRE_TYPE_ADDR2:
		return sframe_scan_fres(sec, fde, off, 2, decoded, fre);
	case SFRAME_FRE_TYPE_ADDR4:
		return sframe_scan_fres(sec, fde, off, 4, decoded, fre);
	default:
		return -SFRAME_E_FRE_TYPE;
	}
}

/*
 * sframe_find_fre(), inlined into sframe_find().  @covers (a constant):
 * the caller found @fde by @pc (sframe_search()), so it covers @pc and
 * was decoded in this lookup.
 */
static __always_inline int sframe_locate_fre(const struct sframe_section *sec,
					     const struct sframe_fde *fde,
					     u64 pc, bool covers,
					     struct sframe_fre *fre)
{
	u32 off;
	int err;

	if (!covers && !sframe_fde_covers(fde->start, fde->size, pc))
		return -SFRAME_E_NO_FDE;
	off = pc - fde->start;
	if (sframe_fde_pcmask(fde)) {
		if (sec->version == SFRAME_VERSION_1) {
			if (SFRAME_FUNC_FRE_TYPE(fde->info) >
			    SFRAME_FRE_TYPE_ADDR4)
				return -SFRAME_E_FRE_TYPE;
			return sframe_scan_masks(sec, fde, off, fre);
		}
		if (unlikely(!fde->rep_size))
			return -SFRAME_E_REP_SIZE;
		err = sframe_scan_type(sec, fde, off % fde->rep_size, covers,
				       fre);
		/* A row's range repeats in every block: no one end. */
		fre->end = 0;
		return err;
	}
	return sframe_scan_type(sec, fde, off, covers, fre);
}

/**
 * sframe_find_fre() - find the frame row entry for an address
 * @sec: opened section
 * @fde: the function covering @pc (from sframe_find_fde())
 * @pc: run-time address
 * @fre: result
 *
 * Rows ascend; the last row starting at or below @pc's offset applies.
 * For PCMASK functions the offset is taken modulo the repetition block.
 *
 * Return: 0, -SFRAME_E_NO_FRE, or another negative SFRAME_E_* code.
 */
int sframe_find_fre(const struct sframe_section *sec,
		    const struct sframe_fde *fde, u64 pc,
		    struct sframe_fre *fre)
{
	return sframe_locate_fre(sec, fde, pc, false, fre);
}
EXPORT_SYMBOL_GPL(sframe_find_fre);

/**
 * sframe_fre_rule() - decode the recovery rule of one frame row entry
 * @sec: opened section
 * @fde: the function the row belongs to
 * @fre: the row (from sframe_find_fre() or sframe_read_fre())
 * @rule: result
 *
 * Interprets the data words per version, ABI and FDE type: CFA base and
 * offset (s390x scaling), RA and FP as fixed header slots, stack slots,
 * registers (s390x v2, v3 FLEX) or unchanged, padding, the outermost-frame
 * marker (no data words) and the AArch64 signed-RA bit.
 *
 * Return: 0, or a negative SFRAME_E_* code for a malformed row.
 */
int sframe_fre_rule(const struct sframe_section *sec,
		    const struct sframe_fde *fde, const struct sframe_fre *fre,
		    struct sframe_rule *rule)
{
	return sframe_rule(sec, fde, fre, false, sec->abi, rule);
}
EXPORT_SYMBOL_GPL(sframe_fre_rule);

/**
 * sframe_find() - find the recovery rule for an address
 * @sec: opened section
 * @pc: run-time address
 * @rule: result
 *
 * A function without rows is an outermost frame when it is a v3 DEFAULT
 * FDE, a signal trampoline to be unwound through the OS signal frame
 * (-SFRAME_E_SIGNAL, with @rule's function fields and %SFRAME_RULE_SIGNAL
 * set), and has no information otherwise.
 *
 * Return: 0, or a negative SFRAME_E_* code.
 */
int sframe_find(const struct sframe_section *sec, u64 pc,
		struct sframe_rule *rule)
{
	struct sframe_fde fde;
	struct sframe_fre fre;
	int err;

	err = sframe_search(sec, pc, &fde);
	if (err)
		return err;
	if (fde.num_fres == 0) {
		sframe_rule_init(sec, &fde, sec->abi, rule);
		if (rule->flags & SFRAME_RULE_SIGNAL)
			return -SFRAME_E_SIGNAL;
		if (sec->version >= SFRAME_VERSION_3 && !sframe_fde_flex(&fde)) {
			rule->ra.kind = SFRAME_LOC_UNDEFINED;
			rule->flags |= SFRAME_RULE_OUTERMOST;
			return 0;
		}
		return -SFRAME_E_NO_FRE;
	}
	err = sframe_locate_fre(sec, &fde, pc, true, &fre);
	if (err)
		return err;
	/* The rule decoded for the ABIs of the unwinders' arches. */
	switch (sec->abi) {
	case SFRAME_ABI_AMD64_ENDIAN_LITTLE:
		err = sframe_rule(sec, &fde, &fre, true,
				  SFRAME_ABI_AMD64_ENDIAN_LITTLE, rule);
		break;
	case SFRAME_ABI_AARCH64_ENDIAN_LITTLE:
		err = sframe_rule(sec, &fde, &fre, true,
				  SFRAME_ABI_AARCH64_ENDIAN_LITTLE, rule);
		break;
	default:
		err = sframe_rule(sec, &fde, &fre, true, sec->abi, rule);
		break;
	}
	if (!err && !(rule->flags & SFRAME_RULE_PCMASK))
		rule->fre_end = fre.end ? fre.end : fde.size;
	return err;
}
EXPORT_SYMBOL_GPL(sframe_find);
