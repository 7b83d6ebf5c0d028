/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the files of the SFrame core share: reading section bytes (the one
 * bounds check every read passes through), decoding FDEs, FREs and the
 * rule of a row (inlined where a lookup or the validation walk uses
 * them), and the few functions one part of the core calls in another.  Not an
 * API: only the files of lib/sframe/ include it.
 *
 * The core is freestanding (no libc, no allocation, no global mutable
 * state) and compiled unchanged into the kernel and into the userspace
 * tools.  Safety model: sframe_open() checks the header and that the FDE
 * index and the FRE sub-section lie inside the section.  Every later read
 * is checked against those bounds before the accessor is called (where one
 * check covers several reads, the code says so: the FDE search checks once
 * that the FDE index lies in the section, the FRE scan that the longest
 * row fits), and every loop is bounded by the number of bytes it walks, so
 * a lookup on a forged section returns an error instead of reading outside
 * it.  sframe_validate() adds the checks that need a walk of the whole
 * section.
 */
#ifndef _SFRAME_INTERNAL_H
#define _SFRAME_INTERNAL_H

#include <sframe/sframe.h>
#include <sframe/access.h>

#ifdef __KERNEL__
#include <linux/export.h>
#else
#define EXPORT_SYMBOL_GPL(sym)
#endif

#define SFRAME_HOST_BIG_ENDIAN	(__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

/*
 * Unsigned integer of @n bytes (1, 2, 4 or 8), byte-swapped if @swap (a
 * constant or a value loaded once, where a loop reads many).
 */
static __always_inline u64 sframe_uint(const u8 *p, unsigned int n, bool swap)
{
	u16 v16;
	u32 v32;
	u64 v64;

	switch (n) {
	case 1:
		return *p;
	case 2:
		sframe_memcpy(&v16, p, 2);
		return swap ? __builtin_bswap16(v16) : v16;
	case 4:
		sframe_memcpy(&v32, p, 4);
		return swap ? __builtin_bswap32(v32) : v32;
	default:
		sframe_memcpy(&v64, p, 8);
		return swap ? __builtin_bswap64(v64) : v64;
	}
}

/* Signed integer of @n bytes (1 <= n <= 8), sign-extended. */
static __always_inline s64 sframe_sint(const u8 *p, unsigned int n, bool swap)
{
	unsigned int shift = 64 - 8 * n;

	return (s64)(sframe_uint(p, n, swap) << shift) >> shift;
}

/* Multi-byte fields of @sec need swapping on this host. */
static __always_inline bool sframe_swap(const struct sframe_section *sec)
{
	return sec->big_endian != SFRAME_HOST_BIG_ENDIAN;
}

/* Unsigned integer of @n bytes in the section's byte order. */
static __always_inline u64 sframe_get_uint(const struct sframe_section *sec,
					   const u8 *p, unsigned int n)
{
	return sframe_uint(p, n, sframe_swap(sec));
}

/* Signed integer of @n bytes in the section's byte order, sign-extended. */
static __always_inline s64 sframe_get_sint(const struct sframe_section *sec,
					   const u8 *p, unsigned int n)
{
	return sframe_sint(p, n, sframe_swap(sec));
}

/*
 * Copy @len bytes at section offset @off, which must end at or before
 * @end.  The one bounds check every read passes through.
 */
static __always_inline int sframe_read(const struct sframe_section *sec,
				       u32 off, u32 len, u32 end, void *dst,
				       int bounds_err)
{
	if (unlikely(off > end || len > end - off))
		return -bounds_err;
	/* Constant sizes let the compiler inline the copy. */
	switch (len) {
	case 1:
		return sframe_access_copy(sec, off, dst, 1);
	case 2:
		return sframe_access_copy(sec, off, dst, 2);
	case 3:
		return sframe_access_copy(sec, off, dst, 3);
	case 4:
		return sframe_access_copy(sec, off, dst, 4);
	case 5:
		return sframe_access_copy(sec, off, dst, 5);
	case 8:
		return sframe_access_copy(sec, off, dst, 8);
	default:
		return sframe_access_copy(sec, off, dst, len);
	}
}

/* Stride of the FDE index of version @ver (a constant when inlined). */
static __always_inline u32 sframe_fde_stride(unsigned int ver)
{
	if (ver >= SFRAME_VERSION_3)
		return SFRAME_V3_FDE_SIZE;
	return ver == SFRAME_VERSION_2 ? SFRAME_V2_FDE_SIZE : SFRAME_V1_FDE_SIZE;
}

/* Width of the start field of an FDE of version @ver. */
static __always_inline unsigned int sframe_fde_start_len(unsigned int ver)
{
	return ver >= SFRAME_VERSION_3 ? 8 : 4;
}

/* Resolved start address from the start field @b of the FDE at @off. */
static __always_inline u64 sframe_fde_resolve(const struct sframe_section *sec,
					      u32 off, const u8 *b,
					      unsigned int n)
{
	return (sec->pcrel ? sec->addr + off : sec->addr) +
	       (u64)sframe_get_sint(sec, b, n);
}

/* Resolved start address of FDE @i; @i < num_fdes (index in bounds). */
static __always_inline int sframe_fde_start(const struct sframe_section *sec,
					    u32 i, u64 *start)
{
	u32 off = sec->fde_base + i * sec->fde_size;
	unsigned int n = sframe_fde_start_len(sec->version);
	u8 b[16];
	int err;

	err = sframe_read(sec, off, n, sec->fre_base, b, SFRAME_E_LAYOUT);
	if (unlikely(err))
		return err;
	*start = sframe_fde_resolve(sec, off, b, n);
	return 0;
}

/*
 * Decode FDE @index, which lies at section offset @off inside the FDE
 * index (the caller checked), for version @ver: a constant where inlined,
 * so that the FDE layout (stride, field widths) is known at compile time.
 */
static __always_inline int sframe_fde_at(const struct sframe_section *sec,
					 u32 index, u32 off, unsigned int ver,
					 struct sframe_fde *fde)
{
	u32 stride = sframe_fde_stride(ver), fre_off;
	u8 b[SFRAME_V2_FDE_SIZE];
	int err;

	err = sframe_access_copy(sec, off, b, stride);
	if (unlikely(err))
		return err;

	fde->index = index;
	if (ver >= SFRAME_VERSION_3) {
		u8 a[SFRAME_V3_FDE_ATTR_SIZE];

		fde->start = (u64)sframe_get_sint(sec, b + SFRAME_V3_FDE_START,
						  8);
		fde->size = sframe_get_uint(sec, b + SFRAME_V3_FDE_FUNC_SIZE,
					    4);
		fre_off = sframe_get_uint(sec, b + SFRAME_V3_FDE_FRE_OFF, 4);
		if (unlikely(fre_off > sec->fre_end - sec->fre_base))
			return -SFRAME_E_FRE_BOUNDS;
		err = sframe_read(sec, sec->fre_base + fre_off, sizeof(a),
				  sec->fre_end, a, SFRAME_E_FRE_BOUNDS);
		if (unlikely(err))
			return err;
		fde->num_fres = sframe_get_uint(sec,
						a + SFRAME_V3_ATTR_NUM_FRES, 2);
		fde->info = a[SFRAME_V3_ATTR_INFO];
		fde->info2 = a[SFRAME_V3_ATTR_INFO2];
		fde->rep_size = a[SFRAME_V3_ATTR_REP_SIZE];
		fde->fres = sec->fre_base + fre_off + SFRAME_V3_FDE_ATTR_SIZE;
	} else {
		fde->start = (u64)sframe_get_sint(sec, b + SFRAME_V1_FDE_START,
						  4);
		fde->size = sframe_get_uint(sec, b + SFRAME_V1_FDE_FUNC_SIZE,
					    4);
		fre_off = sframe_get_uint(sec, b + SFRAME_V1_FDE_FRE_OFF, 4);
		if (unlikely(fre_off > sec->fre_end - sec->fre_base))
			return -SFRAME_E_FRE_BOUNDS;
		fde->num_fres = sframe_get_uint(sec, b + SFRAME_V1_FDE_NUM_FRES,
						4);
		fde->info = b[SFRAME_V1_FDE_INFO];
		fde->info2 = 0;
		fde->rep_size = ver == SFRAME_VERSION_2 ?
				b[SFRAME_V2_FDE_REP_SIZE] : 0;
		fde->fres = sec->fre_base + fre_off;
	}
	fde->start += sec->pcrel ? sec->addr + off : sec->addr;
	return 0;
}

static __always_inline bool sframe_fde_covers(u64 start, u32 size, u64 pc)
{
	return pc >= start && pc - start < size;
}

/* FDE index at sorted position @pos. */
static __always_inline u32 sframe_pos(const struct sframe_section *sec, u32 pos)
{
	return sec->order ? sec->order[pos] : pos;
}

static inline u64 sframe_index_blocks(u64 lo, u64 hi, unsigned int shift)
{
	return hi > lo ? ((hi - lo - 1) >> shift) + 1 : 0;
}

/* The longest data of an FRE: 15 words of 4 bytes. */
#define SFRAME_FRE_MAX_DATA	(SFRAME_FRE_WORD_COUNT(0xff) << SFRAME_FRE_WORD_4B)

/*
 * Locate the FRE at section offset @off whose start field is @asz bytes
 * wide.  Inlined with a constant @asz, so the scan loop below compiles to
 * fixed-size loads.  @roomy (a constant too): the caller has checked that
 * @off is in the FRE sub-section with room for the longest FRE after it
 * (asz + 1 + %SFRAME_FRE_MAX_DATA bytes), so whatever the info byte says
 * the FRE lies inside: no further bounds check.
 */
static __always_inline int sframe_fre_at(const struct sframe_section *sec,
					 u32 off, unsigned int asz, bool roomy,
					 struct sframe_fre *fre)
{
	u32 end = sec->fre_end, len;
	u8 b[8], info;
	int err;

	if (!roomy &&
	    unlikely(off < sec->fre_base || off > end || asz + 1 > end - off))
		return -SFRAME_E_FRE_BOUNDS;
	err = sframe_access_copy(sec, off, b, asz + 1);
	if (unlikely(err))
		return err;

	info = b[asz];
	fre->info = info;
	/* Computed, not looked up: a scan waits for each row's length. */
	if (unlikely(SFRAME_FRE_WORD_SIZE(info) > SFRAME_FRE_WORD_4B))
		return -SFRAME_E_WORD_SIZE;
	len = asz + 1 +
	      (SFRAME_FRE_WORD_COUNT(info) << SFRAME_FRE_WORD_SIZE(info));
	if (!roomy && unlikely(len > end - off))
		return -SFRAME_E_FRE_BOUNDS;

	fre->start = sframe_get_uint(sec, b, asz);
	fre->off = off;
	fre->next = off + len;
	fre->end = 0;
	return 0;
}

/* sframe_read_fre(), inlined into sframe_validate_fres(). */
static __always_inline int sframe_fre_read(const struct sframe_section *sec,
					   const struct sframe_fde *fde,
					   u32 off, struct sframe_fre *fre)
{
	switch (SFRAME_FUNC_FRE_TYPE(fde->info)) {
	case SFRAME_FRE_TYPE_ADDR1:
		return sframe_fre_at(sec, off, 1, false, fre);
	case SFRAME_FRE_TYPE_ADDR2:
		return sframe_fre_at(sec, off, 2, false, fre);
	case SFRAME_FRE_TYPE_ADDR4:
		return sframe_fre_at(sec, off, 4, false, fre);
	default:
		return -SFRAME_E_FRE_TYPE;
	}
}

/*
 * Data words of an FRE, decoded signed and unsigned.  No valid row has
 * more than 6 words (FLEX: three control/offset pairs), so longer rows are
 * rejected before anything is read.
 */
#define SFRAME_MAX_RULE_WORDS	6

struct sframe_words {
	unsigned int n;
	s32 s[SFRAME_MAX_RULE_WORDS];
	u32 u[SFRAME_MAX_RULE_WORDS];
};

/* Read @w->n words of @wsz bytes at @off (constant @wsz when inlined). */
static __always_inline int sframe_words_at(const struct sframe_section *sec,
					   u32 off, unsigned int wsz,
					   struct sframe_words *w)
{
	unsigned int i;
	u8 b[16];
	int err;

	if (unlikely(off > sec->fre_end || w->n * wsz > sec->fre_end - off))
		return -SFRAME_E_FRE_BOUNDS;
	for (i = 0; i < w->n; i++, off += wsz) {
		err = sframe_access_copy(sec, off, b, wsz);
		if (unlikely(err))
			return err;
		w->u[i] = sframe_get_uint(sec, b, wsz);
		w->s[i] = sframe_get_sint(sec, b, wsz);
	}
	return 0;
}

/*
 * The data words of @fre.  @located (a constant): sframe_locate_fre()
 * found @fre in this lookup, so its FDE's FRE type is valid and the row
 * lies in the FRE sub-section (the words are still checked: in user memory
 * the info byte may have changed since).
 */
static __always_inline int sframe_read_words(const struct sframe_section *sec,
					     const struct sframe_fde *fde,
					     const struct sframe_fre *fre,
					     bool located,
					     struct sframe_words *w)
{
	unsigned int asz = 1U << SFRAME_FUNC_FRE_TYPE(fde->info);
	u32 off;

	w->n = SFRAME_FRE_WORD_COUNT(fre->info);
	if (!located &&
	    unlikely(SFRAME_FUNC_FRE_TYPE(fde->info) > SFRAME_FRE_TYPE_ADDR4))
		return -SFRAME_E_FRE_TYPE;
	if (unlikely(w->n > SFRAME_MAX_RULE_WORDS))
		return -SFRAME_E_WORD_COUNT;
	if (!located && unlikely(fre->off < sec->fre_base ||
				 fre->off > sec->fre_end - asz - 1))
		return -SFRAME_E_FRE_BOUNDS;
	off = fre->off + asz + 1;
	switch (SFRAME_FRE_WORD_SIZE(fre->info)) {
	case SFRAME_FRE_WORD_1B:
		return sframe_words_at(sec, off, 1, w);
	case SFRAME_FRE_WORD_2B:
		return sframe_words_at(sec, off, 2, w);
	case SFRAME_FRE_WORD_4B:
		return sframe_words_at(sec, off, 4, w);
	default:
		return -SFRAME_E_WORD_SIZE;
	}
}

/* No data word (struct sframe_word_map). */
#define SFRAME_NO_WORD		0xff

/*
 * struct sframe_word_map - which data words of a row hold what
 * @cfa: index of the word holding the CFA offset
 * @ra: index of the word holding the RA offset (or register), or
 *      %SFRAME_NO_WORD
 * @fp: index of the word holding the FP offset (or register), or
 *      %SFRAME_NO_WORD
 * @ra_padding: the RA is marked unsaved (DEFAULT: @ra holds 0; FLEX: a
 *              zero control word without offset word)
 *
 * In FLEX rows the control word of each offset is the word before it.
 */
struct sframe_word_map {
	u8 cfa;
	u8 ra;
	u8 fp;
	bool ra_padding;
};

/*
 * DEFAULT rows: the CFA offset, the RA offset unless the header fixes the
 * RA slot (AMD64), then the FP offset; trailing words may be left out.
 */
static __always_inline int sframe_map_default(const struct sframe_section *sec,
					      const struct sframe_words *w,
					      struct sframe_word_map *m)
{
	unsigned int ra_idx = sec->fixed_ra ? SFRAME_NO_WORD : 1;
	unsigned int fp_idx = sec->fixed_ra ? 1 : 2;

	if (unlikely(w->n > fp_idx + 1))
		return -SFRAME_E_WORD_COUNT;
	m->cfa = w->n ? 0 : SFRAME_NO_WORD;
	m->ra = w->n > ra_idx ? ra_idx : SFRAME_NO_WORD;
	m->fp = w->n > fp_idx ? fp_idx : SFRAME_NO_WORD;
	m->ra_padding = m->ra != SFRAME_NO_WORD && w->s[m->ra] == 0;
	return 0;
}

/*
 * FLEX rows: (control, offset) pairs for CFA, RA and FP in that order.  A
 * zero RA control word is padding with no offset word after it.
 * Valid word counts: 2 (CFA), 4 (CFA, RA), 5 (CFA, pad, FP), 6 (all).
 */
static inline int sframe_map_flex(const struct sframe_words *w,
				  struct sframe_word_map *m)
{
	unsigned int idx = 2;

	if (unlikely(w->n < 2 || w->n == 3 || w->n > 6))
		return -SFRAME_E_WORD_COUNT;
	if (unlikely(!SFRAME_FLEX_CTRL_REG_P(w->u[0])))
		return -SFRAME_E_FLEX_CTRL;
	*m = (struct sframe_word_map){
		.cfa = 1, .ra = SFRAME_NO_WORD, .fp = SFRAME_NO_WORD
	};
	if (w->n > 2) {
		if (w->u[2] == 0) {
			m->ra_padding = true;
			idx = 3;
		} else {
			m->ra = 3;
			idx = 4;
		}
	}
	if (w->n == idx + 2) {
		if (unlikely(w->u[idx] == 0))
			return -SFRAME_E_FLEX_CTRL;
		m->fp = idx + 1;
	} else if (unlikely(w->n != idx)) {
		return -SFRAME_E_WORD_COUNT;
	}
	return 0;
}

/* FDE type: DEFAULT before v3; a negative error for an unknown one. */
static __always_inline int sframe_fde_type(const struct sframe_section *sec,
					   const struct sframe_fde *fde)
{
	unsigned int type = sec->version >= SFRAME_VERSION_3 ?
			    SFRAME_V3_FUNC_FDE_TYPE(fde->info2) :
			    SFRAME_FDE_TYPE_DEFAULT;

	if (unlikely(type > SFRAME_FDE_TYPE_FLEX))
		return -SFRAME_E_FDE_TYPE;
	return type;
}

/* s390x stores CFA offsets as (offset - 160) / 8. */
static __always_inline int sframe_cfa_offset(unsigned int abi, s32 word,
					     s32 *offset)
{
	s64 v = word;

	if (abi == SFRAME_ABI_S390X_ENDIAN_BIG)
		v = v * SFRAME_S390X_CFA_ALIGN - SFRAME_S390X_SP_VAL_OFFSET;
	if (unlikely(v != (s32)v))
		return -SFRAME_E_OFFSET;
	*offset = v;
	return 0;
}

/* A stack slot relative to the CFA, as DEFAULT FDEs and the header give. */
static __always_inline void sframe_loc_slot(struct sframe_loc *loc, s32 offset)
{
	*loc = (struct sframe_loc){
		.kind = SFRAME_LOC_CFA, .deref = 1, .offset = offset
	};
}

/* DEFAULT FDE RA or FP word; s390x v2 encodes registers as odd values. */
static __always_inline void sframe_loc_word(const struct sframe_section *sec,
					    unsigned int abi,
					    struct sframe_loc *loc, s32 word)
{
	if (abi == SFRAME_ABI_S390X_ENDIAN_BIG &&
	    sec->version == SFRAME_VERSION_2 &&
	    SFRAME_V2_S390X_OFFSET_IS_REG(word)) {
		*loc = (struct sframe_loc){
			.kind = SFRAME_LOC_REG,
			.reg = SFRAME_V2_S390X_OFFSET_REG(word) & 0xffff,
		};
		return;
	}
	sframe_loc_slot(loc, word);
}

static __always_inline int sframe_rule_default(const struct sframe_section *sec,
					       unsigned int abi,
					       const struct sframe_fre *fre,
					       const struct sframe_words *w,
					       struct sframe_rule *rule)
{
	struct sframe_word_map m;
	int err;

	err = sframe_map_default(sec, w, &m);
	if (err)
		return err;

	rule->cfa.kind = SFRAME_LOC_REG;
	if (SFRAME_FRE_CFA_BASE_SP(fre->info)) {
		rule->cfa.reg = sec->sp_reg;
		rule->flags |= SFRAME_RULE_CFA_BASE_SP;
	} else {
		rule->cfa.reg = sec->fp_reg;
	}
	err = sframe_cfa_offset(abi, w->s[m.cfa], &rule->cfa.offset);
	if (err)
		return err;

	if (sec->fixed_ra) {
		sframe_loc_slot(&rule->ra, sec->fixed_ra);
		rule->flags |= SFRAME_RULE_RA_FIXED;
	} else if (m.ra_padding) {
		/* Padding: the RA is not saved (still in LR / r14). */
		rule->flags |= SFRAME_RULE_RA_PADDING;
	} else if (m.ra != SFRAME_NO_WORD) {
		sframe_loc_word(sec, abi, &rule->ra, w->s[m.ra]);
	}

	if (m.fp != SFRAME_NO_WORD)
		sframe_loc_word(sec, abi, &rule->fp, w->s[m.fp]);
	return 0;
}

/* FLEX control word + offset word -> location. */
static inline int sframe_loc_flex(struct sframe_loc *loc, u32 ctrl, s32 offset)
{
	*loc = (struct sframe_loc){
		.kind = SFRAME_FLEX_CTRL_REG_P(ctrl) ? SFRAME_LOC_REG :
						       SFRAME_LOC_CFA,
		.deref = SFRAME_FLEX_CTRL_DEREF_P(ctrl),
		.offset = offset,
	};
	if (loc->kind == SFRAME_LOC_REG) {
		if (unlikely(SFRAME_FLEX_CTRL_REGNUM(ctrl) > SFRAME_MAX_REGNUM))
			return -SFRAME_E_REGNUM;
		loc->reg = SFRAME_FLEX_CTRL_REGNUM(ctrl);
	}
	return 0;
}

static inline int sframe_rule_flex(const struct sframe_section *sec,
				   unsigned int abi,
				   const struct sframe_words *w,
				   struct sframe_rule *rule)
{
	struct sframe_word_map m;
	int err;

	err = sframe_map_flex(w, &m);
	if (err)
		return err;
	err = sframe_loc_flex(&rule->cfa, w->u[m.cfa - 1], 0);
	if (err)
		return err;
	err = sframe_cfa_offset(abi, w->s[m.cfa], &rule->cfa.offset);
	if (err)
		return err;

	/*
	 * Padding is "no rule" as much as a missing pair: the header's fixed
	 * slot applies where the ABI has one (AMD64's CFA - 8, the call's).
	 */
	if (m.ra_padding) {
		rule->flags |= SFRAME_RULE_RA_PADDING;
		if (sec->fixed_ra)
			sframe_loc_slot(&rule->ra, sec->fixed_ra);
	} else if (m.ra != SFRAME_NO_WORD) {
		err = sframe_loc_flex(&rule->ra, w->u[m.ra - 1], w->s[m.ra]);
		if (err)
			return err;
	} else if (sec->fixed_ra) {
		sframe_loc_slot(&rule->ra, sec->fixed_ra);
		rule->flags |= SFRAME_RULE_RA_FIXED;
	}
	if (m.fp != SFRAME_NO_WORD)
		return sframe_loc_flex(&rule->fp, w->u[m.fp - 1], w->s[m.fp]);
	return 0;
}

static __always_inline void sframe_rule_init(const struct sframe_section *sec,
					     const struct sframe_fde *fde,
					     unsigned int abi,
					     struct sframe_rule *rule)
{
	*rule = (struct sframe_rule){
		.ra.kind = SFRAME_LOC_SAME,
		.fp.kind = SFRAME_LOC_SAME,
		.func_start = fde->start,
		.func_size = fde->size,
		.fde_index = fde->index,
	};
	if (abi == SFRAME_ABI_S390X_ENDIAN_BIG)
		rule->sp_from_cfa = SFRAME_S390X_SP_VAL_OFFSET;
	if (sframe_fde_pcmask(fde))
		rule->flags |= SFRAME_RULE_PCMASK;
	if (sframe_fde_signal(sec, fde))
		rule->flags |= SFRAME_RULE_SIGNAL;
	if (sframe_abi_is_aarch64(abi) && SFRAME_FUNC_PAUTH_KEY(fde->info))
		rule->flags |= SFRAME_RULE_PAUTH_B;
}

/*
 * sframe_fre_rule(), inlined into sframe_find().  @abi is @sec->abi: a
 * constant where sframe_find() inlines it for a common ABI, so that what
 * only other ABIs do is left out.
 */
static __always_inline int sframe_rule(const struct sframe_section *sec,
				       const struct sframe_fde *fde,
				       const struct sframe_fre *fre,
				       bool located, unsigned int abi,
				       struct sframe_rule *rule)
{
	struct sframe_words w;
	int type, err;

	sframe_rule_init(sec, fde, abi, rule);
	rule->fre_start = fre->start;

	type = sframe_fde_type(sec, fde);
	if (unlikely(type < 0))
		return type;
	if (type == SFRAME_FDE_TYPE_FLEX)
		rule->flags |= SFRAME_RULE_FLEX;

	err = sframe_read_words(sec, fde, fre, located, &w);
	if (err)
		return err;

	if (w.n == 0) {
		/* RA undefined (v2 errata 2, v3): outermost frame. */
		if (sec->version == SFRAME_VERSION_1)
			return -SFRAME_E_WORD_COUNT;
		rule->ra.kind = SFRAME_LOC_UNDEFINED;
		rule->flags |= SFRAME_RULE_OUTERMOST;
		return 0;
	}

	if (sframe_abi_is_aarch64(abi) && SFRAME_FRE_MANGLED_RA_P(fre->info))
		rule->flags |= SFRAME_RULE_RA_MANGLED;

	if (type == SFRAME_FDE_TYPE_FLEX)
		err = sframe_rule_flex(sec, abi, &w, rule);
	else
		err = sframe_rule_default(sec, abi, fre, &w, rule);
	if (err)
		return err;

	if (sec->fixed_fp && rule->fp.kind == SFRAME_LOC_SAME) {
		sframe_loc_slot(&rule->fp, sec->fixed_fp);
		rule->flags |= SFRAME_RULE_FP_FIXED;
	}
	return 0;
}

/* index.c: the text range the FDEs cover, [*lo, *hi). */
int sframe_text_range(const struct sframe_section *sec, u64 *lo, u64 *hi);
int sframe_text_range_below(const struct sframe_section *sec, u64 limit,
			    u64 *lo, u64 *hi, u64 *nfdes, u64 *nfres);

#ifndef SFRAME_ACCESS_HEADER
/* rows.c and validate.c: rows built while a section is validated. */
struct sframe_rows_builder;
void sframe_rows_begin(struct sframe_rows_builder *bld,
		       const struct sframe_fde *fde);
void sframe_rows_fre(struct sframe_rows_builder *bld,
		     const struct sframe_fde *fde, u32 j,
		     const struct sframe_fre *fre,
		     const struct sframe_rule *rule);
int sframe_validate_build(const struct sframe_section *sec,
			  struct sframe_rows_builder *bld);
#endif

#endif /* _SFRAME_INTERNAL_H */
