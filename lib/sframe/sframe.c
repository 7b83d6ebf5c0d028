// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFrame core: section validation, FDE/FRE lookup and rule decoding.
 *
 * This file is the single place where the SFrame format is interpreted.
 * It is freestanding (no libc, no allocation, no global mutable state) and
 * is compiled unchanged into the kernel and into the userspace tools.
 *
 * Safety model: sframe_open() checks the header and that the FDE index and
 * the FRE sub-section lie inside the section.  Every later read is checked
 * against those bounds before the accessor is called (where one check
 * covers several reads, the code says so: the FDE search checks once that
 * the FDE index lies in the section, the FRE scan that the longest row
 * fits), and every loop is bounded by the number of bytes it walks, so a
 * lookup on a forged section returns an error instead of reading outside
 * it.  sframe_validate() adds the checks that need a walk of the whole
 * section.
 */
#include <sframe/sframe.h>
#include <sframe/access.h>

#ifdef __KERNEL__
#include <linux/export.h>
#else
#define EXPORT_SYMBOL_GPL(sym)
#endif

#define SFRAME_HOST_BIG_ENDIAN	(__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

static const char * const sframe_err_names[SFRAME_E_MAX] = {
	[0]			= "OK",
	[SFRAME_E_INVAL]	= "SFRAME_E_INVAL",
	[SFRAME_E_TRUNCATED]	= "SFRAME_E_TRUNCATED",
	[SFRAME_E_MAGIC]	= "SFRAME_E_MAGIC",
	[SFRAME_E_VERSION]	= "SFRAME_E_VERSION",
	[SFRAME_E_FLAGS]	= "SFRAME_E_FLAGS",
	[SFRAME_E_ABI]		= "SFRAME_E_ABI",
	[SFRAME_E_LAYOUT]	= "SFRAME_E_LAYOUT",
	[SFRAME_E_FUNC_RANGE]	= "SFRAME_E_FUNC_RANGE",
	[SFRAME_E_FRE_BOUNDS]	= "SFRAME_E_FRE_BOUNDS",
	[SFRAME_E_FRE_TYPE]	= "SFRAME_E_FRE_TYPE",
	[SFRAME_E_FDE_TYPE]	= "SFRAME_E_FDE_TYPE",
	[SFRAME_E_REP_SIZE]	= "SFRAME_E_REP_SIZE",
	[SFRAME_E_FRE_ORDER]	= "SFRAME_E_FRE_ORDER",
	[SFRAME_E_FRE_START]	= "SFRAME_E_FRE_START",
	[SFRAME_E_WORD_SIZE]	= "SFRAME_E_WORD_SIZE",
	[SFRAME_E_WORD_COUNT]	= "SFRAME_E_WORD_COUNT",
	[SFRAME_E_FLEX_CTRL]	= "SFRAME_E_FLEX_CTRL",
	[SFRAME_E_REGNUM]	= "SFRAME_E_REGNUM",
	[SFRAME_E_OFFSET]	= "SFRAME_E_OFFSET",
	[SFRAME_E_NUM_FRES]	= "SFRAME_E_NUM_FRES",
	[SFRAME_E_FRE_LEN]	= "SFRAME_E_FRE_LEN",
	[SFRAME_E_UNSORTED]	= "SFRAME_E_UNSORTED",
	[SFRAME_E_NO_FDE]	= "SFRAME_E_NO_FDE",
	[SFRAME_E_NO_FRE]	= "SFRAME_E_NO_FRE",
	[SFRAME_E_SIGNAL]	= "SFRAME_E_SIGNAL",
	[SFRAME_E_FAULT]	= "SFRAME_E_FAULT",
	[SFRAME_E_INDEX]	= "SFRAME_E_INDEX",
	[SFRAME_E_PADDING]	= "SFRAME_E_PADDING",
	[SFRAME_E_COST]		= "SFRAME_E_COST",
};

static const char * const sframe_err_text[SFRAME_E_MAX] = {
	[0]			= "success",
	[SFRAME_E_INVAL]	= "invalid argument",
	[SFRAME_E_TRUNCATED]	= "section shorter than its header announces",
	[SFRAME_E_MAGIC]	= "bad magic: not an SFrame section",
	[SFRAME_E_VERSION]	= "unsupported SFrame version",
	[SFRAME_E_FLAGS]	= "flag bits invalid for this version",
	[SFRAME_E_ABI]		= "unknown ABI or ABI byte order disagrees with magic",
	[SFRAME_E_LAYOUT]	= "FDE or FRE sub-section out of bounds or overlapping",
	[SFRAME_E_FUNC_RANGE]	= "function address range wraps around",
	[SFRAME_E_FRE_BOUNDS]	= "FRE data outside the FRE sub-section",
	[SFRAME_E_FRE_TYPE]	= "invalid FRE start-address type",
	[SFRAME_E_FDE_TYPE]	= "unsupported FDE type",
	[SFRAME_E_REP_SIZE]	= "PCMASK FDE with zero repetition size",
	[SFRAME_E_FRE_ORDER]	= "FRE start offsets not strictly increasing",
	[SFRAME_E_FRE_START]	= "FRE starts at or beyond the function end",
	[SFRAME_E_WORD_SIZE]	= "invalid FRE data-word size",
	[SFRAME_E_WORD_COUNT]	= "FRE data-word count invalid for ABI and FDE type",
	[SFRAME_E_FLEX_CTRL]	= "malformed FLEX control word",
	[SFRAME_E_REGNUM]	= "register number out of range",
	[SFRAME_E_OFFSET]	= "decoded offset out of range",
	[SFRAME_E_NUM_FRES]	= "FRE count disagrees with the header",
	[SFRAME_E_FRE_LEN]	= "FRE bytes disagree with the header's FRE length",
	[SFRAME_E_UNSORTED]	= "FDEs flagged sorted are not sorted",
	[SFRAME_E_NO_FDE]	= "no function descriptor covers the address",
	[SFRAME_E_NO_FRE]	= "no frame row covers the address",
	[SFRAME_E_SIGNAL]	= "signal trampoline without frame rows",
	[SFRAME_E_FAULT]	= "section memory could not be read",
	[SFRAME_E_INDEX]	= "lookup index too small or stale",
	[SFRAME_E_PADDING]	= "bytes after a section are neither padding nor a section",
	[SFRAME_E_COST]		= "a lookup would read more than its caller allows",
};

static unsigned int sframe_err_index(int err)
{
	unsigned int e = err < 0 ? -err : err;

	return e < SFRAME_E_MAX ? e : SFRAME_E_INVAL;
}

/**
 * sframe_errname() - symbolic name of an SFrame error code
 * @err: 0 or a negative SFRAME_E_* code
 *
 * Return: a constant string such as "SFRAME_E_TRUNCATED".
 */
const char *sframe_errname(int err)
{
	return sframe_err_names[sframe_err_index(err)];
}
EXPORT_SYMBOL_GPL(sframe_errname);

/**
 * sframe_strerror() - human-readable description of an SFrame error code
 * @err: 0 or a negative SFRAME_E_* code
 *
 * Return: a constant, one-line description.
 */
const char *sframe_strerror(int err)
{
	return sframe_err_text[sframe_err_index(err)];
}
EXPORT_SYMBOL_GPL(sframe_strerror);

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

static bool sframe_abi_big_endian(u8 abi)
{
	return abi == SFRAME_ABI_AARCH64_ENDIAN_BIG ||
	       abi == SFRAME_ABI_S390X_ENDIAN_BIG;
}

static int sframe_set_abi_regs(struct sframe_section *sec)
{
	switch (sec->abi) {
	case SFRAME_ABI_AARCH64_ENDIAN_BIG:
	case SFRAME_ABI_AARCH64_ENDIAN_LITTLE:
		sec->sp_reg = SFRAME_DWARF_AARCH64_SP;
		sec->fp_reg = SFRAME_DWARF_AARCH64_FP;
		sec->ra_reg = SFRAME_DWARF_AARCH64_LR;
		return 0;
	case SFRAME_ABI_AMD64_ENDIAN_LITTLE:
		sec->sp_reg = SFRAME_DWARF_AMD64_SP;
		sec->fp_reg = SFRAME_DWARF_AMD64_FP;
		sec->ra_reg = 0;	/* return address lives on the stack */
		return 0;
	case SFRAME_ABI_S390X_ENDIAN_BIG:
		/* s390x appeared with v2 errata 1. */
		if (sec->version < SFRAME_VERSION_2)
			return -SFRAME_E_ABI;
		sec->sp_reg = SFRAME_DWARF_S390X_SP;
		sec->fp_reg = SFRAME_DWARF_S390X_FP;
		sec->ra_reg = SFRAME_DWARF_S390X_RA;
		return 0;
	default:
		return -SFRAME_E_ABI;
	}
}

/* SFrame magic in either byte order?  @big: it is big-endian. */
static bool sframe_magic(const u8 *h, bool *big)
{
	*big = h[0] == 0xde && h[1] == 0xe2;
	return *big || (h[0] == 0xe2 && h[1] == 0xde);
}

/**
 * sframe_open() - check an SFrame header and prepare a section for lookups
 * @sec: section descriptor to fill
 * @data: first byte of the section, readable through the accessor
 * @size: bytes available at @data (a segment may carry zero padding)
 * @addr: run-time address of the first byte
 * @opts: %SFRAME_OPEN_* options
 *
 * Checks the magic, version, flags and ABI, and that the FDE index and the
 * FRE sub-section lie inside @size without overlapping.  This is enough for
 * every later lookup to stay in bounds; use sframe_validate() to check the
 * rest of an untrusted section.
 *
 * Return: 0, or a negative SFRAME_E_* code.
 */
int sframe_open(struct sframe_section *sec, const void *data, u64 size,
		u64 addr, unsigned int opts)
{
	u8 h[SFRAME_HDR_SIZE];
	u64 hdr_end, fde_base, fde_end, fre_base, fre_end;
	u32 fdeoff, freoff, fre_len;
	u8 valid_flags;
	int err;

	if (!sec || !data ||
	    (opts & ~(SFRAME_OPEN_PCREL | SFRAME_OPEN_RELOCATED)))
		return -SFRAME_E_INVAL;
	if (size < SFRAME_HDR_SIZE)
		return -SFRAME_E_TRUNCATED;

	*sec = (struct sframe_section){ .data = data, .addr = addr };
	err = sframe_access_copy(sec, 0, h, SFRAME_HDR_SIZE);
	if (err)
		return err;

	if (!sframe_magic(h, &sec->big_endian))
		return -SFRAME_E_MAGIC;

	sec->version = h[SFRAME_HDR_VERSION];
	switch (sec->version) {
	case SFRAME_VERSION_1:
		valid_flags = SFRAME_V1_F_ALL;
		sec->fde_size = SFRAME_V1_FDE_SIZE;
		break;
	case SFRAME_VERSION_2:
		valid_flags = SFRAME_V2_F_ALL;
		sec->fde_size = SFRAME_V2_FDE_SIZE;
		break;
	case SFRAME_VERSION_3:
		valid_flags = SFRAME_V3_F_ALL;
		sec->fde_size = SFRAME_V3_FDE_SIZE;
		break;
	default:
		return -SFRAME_E_VERSION;
	}

	sec->flags = h[SFRAME_HDR_FLAGS];
	if (sec->flags & ~valid_flags)
		return -SFRAME_E_FLAGS;
	sec->abi = h[SFRAME_HDR_ABI];
	err = sframe_set_abi_regs(sec);
	if (err)
		return err;
	if (sframe_abi_big_endian(sec->abi) != sec->big_endian)
		return -SFRAME_E_ABI;

	sec->fixed_fp = (s8)h[SFRAME_HDR_FIXED_FP];
	sec->fixed_ra = (s8)h[SFRAME_HDR_FIXED_RA];
	sec->num_fdes = sframe_get_uint(sec, h + SFRAME_HDR_NUM_FDES, 4);
	sec->num_fres = sframe_get_uint(sec, h + SFRAME_HDR_NUM_FRES, 4);
	fre_len = sframe_get_uint(sec, h + SFRAME_HDR_FRE_LEN, 4);
	fdeoff = sframe_get_uint(sec, h + SFRAME_HDR_FDEOFF, 4);
	freoff = sframe_get_uint(sec, h + SFRAME_HDR_FREOFF, 4);

	/* 64-bit arithmetic: none of these sums can wrap. */
	hdr_end = SFRAME_HDR_SIZE + (u64)h[SFRAME_HDR_AUXHDR_LEN];
	fde_base = hdr_end + fdeoff;
	fde_end = fde_base + (u64)sec->num_fdes * sec->fde_size;
	fre_base = hdr_end + freoff;
	fre_end = fre_base + fre_len;

	if (hdr_end > size)
		return -SFRAME_E_TRUNCATED;
	if (fde_end > fre_base || fre_end > 0xffffffffULL)
		return -SFRAME_E_LAYOUT;
	if (fre_end > size)
		return -SFRAME_E_TRUNCATED;

	sec->fde_base = fde_base;
	sec->fre_base = fre_base;
	sec->fre_end = fre_end;
	sec->size = fre_end;
	sec->pcrel = (opts & (SFRAME_OPEN_PCREL | SFRAME_OPEN_RELOCATED)) ||
		     (sec->version >= SFRAME_VERSION_2 &&
		      (sec->flags & SFRAME_F_FDE_FUNC_START_PCREL));
	if (opts & SFRAME_OPEN_RELOCATED)
		sec->flags &= ~SFRAME_F_FDE_SORTED;
	return 0;
}
EXPORT_SYMBOL_GPL(sframe_open);

/**
 * sframe_open_part() - open one SFrame section of a sequence
 * @sec: section descriptor to fill
 * @data: first byte of the sequence, readable through the accessor
 * @size: bytes of the sequence
 * @addr: run-time address of @data
 * @off: offset of the section in the sequence: 0 for the first, then what
 *       the previous call stored in @next
 * @opts: %SFRAME_OPEN_* options
 * @next: result: offset of the next section, or @size after the last one
 *
 * `ld -r` that does not merge .sframe (the kernel's module build, see
 * scripts/sframe-concat.lds) concatenates the .sframe sections of its input
 * objects, each at the next multiple of %SFRAME_PART_ALIGN from the start
 * of the output section, with zero bytes in between.  Opens the section at
 * @off as sframe_open() does (at @data + @off, run-time address @addr +
 * @off; @sec->size is its exact size) and checks the bytes after it up to
 * the next multiple of %SFRAME_PART_ALIGN, or to @size, are zero.  A
 * single section is a sequence of one.
 *
 * @next is always above @off (by at least %SFRAME_HDR_SIZE): a loop over
 * the parts of @size bytes ends after at most @size / %SFRAME_HDR_SIZE
 * calls.
 *
 * Return: 0, or a negative SFRAME_E_* code: -SFRAME_E_PADDING for non-zero
 * padding after the section, or for bytes without SFrame magic at an @off
 * other than 0 (where a section must start); -SFRAME_E_INVAL for an @off
 * that is not a multiple of %SFRAME_PART_ALIGN or lies beyond @size.
 */
int sframe_open_part(struct sframe_section *sec, const void *data, u64 size,
		     u64 addr, u64 off, unsigned int opts, u64 *next)
{
	u8 pad[SFRAME_PART_ALIGN], magic[2] = { 0 };
	u64 end, pad_end;
	bool big;
	u32 i, n;
	int err;

	if (!sec || !data || !next || off > size || off % SFRAME_PART_ALIGN)
		return -SFRAME_E_INVAL;
	/* Where a later section should start, bytes without magic are junk. */
	if (off) {
		*sec = (struct sframe_section){
			.data = (const u8 *)data + off, .addr = addr + off
		};
		if (size - off >= 2) {
			err = sframe_access_copy(sec, 0, magic, 2);
			if (err)
				return err;
		}
		if (!sframe_magic(magic, &big))
			return -SFRAME_E_PADDING;
	}
	err = sframe_open(sec, (const u8 *)data + off, size - off, addr + off,
			  opts);
	if (err)
		return err;

	end = off + sec->size;
	pad_end = (end + SFRAME_PART_ALIGN - 1) & ~(u64)(SFRAME_PART_ALIGN - 1);
	if (pad_end > size)
		pad_end = size;
	n = pad_end - end;
	if (n) {
		err = sframe_access_copy(sec, sec->size, pad, n);
		if (err)
			return err;
		for (i = 0; i < n; i++)
			if (pad[i])
				return -SFRAME_E_PADDING;
	}
	*next = pad_end;
	return 0;
}
EXPORT_SYMBOL_GPL(sframe_open_part);

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

static __always_inline bool sframe_fde_covers(u64 start, u32 size, u64 pc)
{
	return pc >= start && pc - start < size;
}

/* FDE index at sorted position @pos. */
static __always_inline u32 sframe_pos(const struct sframe_section *sec, u32 pos)
{
	return sec->order ? sec->order[pos] : pos;
}

/*
 * What sframe_bsearch() compares FDE starts with.  Starts of 4 bytes or
 * less (v1, v2) are compared relative to the section address, with @rel:
 * @pc - address as a signed difference, which saves adding the address on
 * every read.  A start field (PC-relative ones too) lies less than 2^33
 * from the address, so for a @pc that a function covers, the comparison
 * orders every FDE by the start field as @pc orders the resolved starts;
 * sframe_validate() rejects a section whose starts lie on both sides of
 * the wrap of the address space, where the two orders differ.  8-byte
 * starts (v3) are resolved and compared with @pc itself.
 */
struct sframe_key {
	u64 pc;
	s64 rel;
};

static __always_inline void sframe_key_init(const struct sframe_section *sec,
					    u64 pc, struct sframe_key *key)
{
	key->pc = pc;
	key->rel = (s64)(pc - sec->addr);
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
 * While that range is wide (at least %SFRAME_BSEARCH_WIDE candidates,
 * spread over several cache lines) each step divides it by four: three
 * reads that do not depend on each other (their latencies overlap, where
 * a binary search waits for each read in turn), and two selections that
 * compile to conditional moves.  Narrower ranges (at most 8 candidates,
 * in lines the last steps read) are halved, one read per step, which
 * costs fewer instructions per candidate left out.  No branch on the
 * data: an unpredictable branch would discard the work the CPU started
 * beyond it.  At most 19 steps; whatever the data, sorted or not, @cur
 * moves only forward within [@lo - 1, @hi).
 */
#define SFRAME_BSEARCH_WIDE	16

static __always_inline int sframe_bsearch(const struct sframe_section *sec,
					  u64 pc, u32 lo, u32 hi, u32 stride,
					  unsigned int n, bool swap, bool pcrel,
					  const u32 *order, u32 *index,
					  u32 *at)
{
	u32 len = hi - lo, unit = order ? 1 : stride, step, q, a1, a2, a3;
	u32 base = order ? lo - 1 : sec->fde_base + (lo - 1) * stride;
	u32 cur = base, low, high;
	struct sframe_key key;
	bool b1, b2, b3;
	int err;

	sframe_key_init(sec, pc, &key);
	if (len) {
		/* The largest power of two not above len. */
		step = 1U << (31 - __builtin_clz(len));
		/* The answer is in [lo - 1, hi - step - 1] or above. */
		a1 = base + (len - step + 1) * unit;
		err = sframe_probe(sec, a1, stride, n, swap, pcrel, order,
				   &key, &b1);
		if (unlikely(err))
			return err;
		cur = b1 ? a1 : cur;
		/* From here on the answer is in [cur, cur + step - 1]. */
		for (q = step * unit; q >= SFRAME_BSEARCH_WIDE * unit;) {
			q /= 4;
			a1 = cur + q;
			a2 = cur + 2 * q;
			a3 = cur + 3 * q;
			err = sframe_probe(sec, a1, stride, n, swap, pcrel,
					   order, &key, &b1);
			if (!err)
				err = sframe_probe(sec, a2, stride, n, swap,
						   pcrel, order, &key, &b2);
			if (!err)
				err = sframe_probe(sec, a3, stride, n, swap,
						   pcrel, order, &key, &b3);
			if (unlikely(err))
				return err;
			low = b1 ? a1 : cur;
			high = b3 ? a3 : a2;
			cur = b2 ? high : low;
		}
		while (q > unit) {
			q /= 2;
			err = sframe_probe(sec, cur + q, stride, n, swap,
					   pcrel, order, &key, &b1);
			if (unlikely(err))
				return err;
			cur = b1 ? cur + q : cur;
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
	unsigned int n = sframe_fde_start_len(ver);
	int err;

	/* sframe_open() checked the FDE index lies in the section. */
	if (unlikely((u64)sec->fde_base + (u64)sec->num_fdes * stride >
		     sec->fre_base))
		return -SFRAME_E_LAYOUT;
	if (sframe_swap(sec) || sec->order)
		err = sframe_bsearch(sec, pc, lo, hi, stride, n,
				     sframe_swap(sec), sec->pcrel, sec->order,
				     &i, &at);
	else if (sec->pcrel)
		err = sframe_bsearch(sec, pc, lo, hi, stride, n, false, true,
				     NULL, &i, &at);
	else
		err = sframe_bsearch(sec, pc, lo, hi, stride, n, false, false,
				     NULL, &i, &at);
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
		u64 b;

		if (pc < sec->idx_base)
			return -SFRAME_E_NO_FDE;
		b = (pc - sec->idx_base) >> sec->idx_shift;
		if (b >= sec->idx_nblocks)
			return -SFRAME_E_NO_FDE;
		lo = sec->blocks[b];
		hi = sec->blocks[b + 1];
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

/* Text range covered by the FDEs: [*lo, *hi). */
static int sframe_text_range(const struct sframe_section *sec, u64 *lo, u64 *hi)
{
	struct sframe_fde fde;
	u32 i;
	int err;

	*lo = ~0ULL;
	*hi = 0;
	for (i = 0; i < sec->num_fdes; i++) {
		err = sframe_get_fde(sec, i, &fde);
		if (err)
			return err;
		if (fde.start + fde.size < fde.start)
			return -SFRAME_E_FUNC_RANGE;
		if (fde.start < *lo)
			*lo = fde.start;
		if (fde.start + fde.size > *hi)
			*hi = fde.start + fde.size;
	}
	return 0;
}

static u64 sframe_index_blocks(u64 lo, u64 hi, unsigned int shift)
{
	return hi > lo ? ((hi - lo - 1) >> shift) + 1 : 0;
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
	u64 lo, hi, n;
	int err;

	if (shift > 32)
		return -SFRAME_E_INVAL;
	err = sframe_text_range(sec, &lo, &hi);
	if (err)
		return err;
	n = sframe_index_blocks(lo, hi, shift) + 1;
	if (!(sec->flags & SFRAME_F_FDE_SORTED))
		n += sec->num_fdes;
	if (n > 0xffffffffULL)
		return -SFRAME_E_INDEX;
	*nwords = n;
	return 0;
}
EXPORT_SYMBOL_GPL(sframe_index_size);

/* Does FDE @a start before FDE @b (ties: lower index first)? */
static int sframe_start_less(const struct sframe_section *sec, u32 a, u32 b,
			     bool *less)
{
	u64 sa, sb;
	int err;

	err = sframe_fde_start(sec, a, &sa);
	if (!err)
		err = sframe_fde_start(sec, b, &sb);
	*less = !err && (sa < sb || (sa == sb && a < b));
	return err;
}

static int sframe_sift_down(const struct sframe_section *sec, u32 *order,
			    u32 root, u32 n)
{
	bool less;
	int err;

	for (;;) {
		u32 child = 2 * root + 1, t;

		if (child >= n)
			return 0;
		if (child + 1 < n) {
			err = sframe_start_less(sec, order[child],
						order[child + 1], &less);
			if (err)
				return err;
			if (less)
				child++;
		}
		err = sframe_start_less(sec, order[root], order[child], &less);
		if (err)
			return err;
		if (!less)
			return 0;
		t = order[root];
		order[root] = order[child];
		order[child] = t;
		root = child;
	}
}

/* Heapsort: in place, no allocation, O(n log n) even on hostile input. */
static int sframe_sort_order(const struct sframe_section *sec, u32 *order)
{
	u32 n = sec->num_fdes, i, t;
	int err;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n / 2; i > 0; i--) {
		err = sframe_sift_down(sec, order, i - 1, n);
		if (err)
			return err;
	}
	for (i = n; i > 1; i--) {
		t = order[0];
		order[0] = order[i - 1];
		order[i - 1] = t;
		err = sframe_sift_down(sec, order, 0, i - 1);
		if (err)
			return err;
	}
	return 0;
}

/**
 * sframe_index_build() - build a lookup index in caller-provided memory
 * @sec: opened section; on success it uses the index for every lookup
 * @shift: log2 of the text block size
 * @mem: sframe_index_size() words, owned by the caller for the lifetime
 *       of @sec
 * @nwords: size of @mem in u32 words
 *
 * Like ORC's lookup table: for each block of text, the number of FDEs (in
 * start order) starting at or before the block, so that a lookup binary-
 * searches only the FDEs of one block.  Unsorted sections (relocatable
 * objects, modules) also get the sorted order of their FDEs, which makes
 * their lookups logarithmic instead of linear.
 *
 * Return: 0, or a negative SFRAME_E_* code (the section is left unindexed).
 */
int sframe_index_build(struct sframe_section *sec, unsigned int shift,
		       u32 *mem, u32 nwords)
{
	struct sframe_section tmp = *sec;
	u32 need, nblocks, b, c = 0, n = sec->num_fdes;
	u32 *blocks = mem;
	u64 lo, hi, start;
	int err;

	err = sframe_index_size(sec, shift, &need);
	if (err)
		return err;
	if (!mem || nwords < need)
		return -SFRAME_E_INDEX;
	err = sframe_text_range(sec, &lo, &hi);
	if (err)
		return err;
	nblocks = sframe_index_blocks(lo, hi, shift);

	tmp.order = NULL;
	tmp.blocks = NULL;
	if (!(sec->flags & SFRAME_F_FDE_SORTED)) {
		err = sframe_sort_order(sec, mem);
		if (err)
			return err;
		tmp.order = mem;
		blocks = mem + n;
	}
	for (b = 0; b <= nblocks; b++) {
		u64 bstart = lo + ((u64)b << shift);

		/* The end of the last block may wrap past the address space. */
		if (bstart < lo)
			bstart = ~0ULL;

		while (c < n) {
			err = sframe_fde_start(sec, sframe_pos(&tmp, c), &start);
			if (err)
				return err;
			if (start > bstart)
				break;
			c++;
		}
		blocks[b] = c;
	}
	tmp.blocks = blocks;
	tmp.idx_base = lo;
	tmp.idx_shift = shift;
	tmp.idx_nblocks = nblocks;
	*sec = tmp;
	return 0;
}
EXPORT_SYMBOL_GPL(sframe_index_build);

/* The longest data of an FRE: 15 words of 4 bytes. */
#define SFRAME_FRE_MAX_DATA	(SFRAME_FRE_WORD_COUNT(0xff) << SFRAME_FRE_WORD_4B)

/*
 * Bytes of data words after an FRE, per info byte: the word count shifted
 * by the word size (SFRAME_FRE_WORD_COUNT(i) << SFRAME_FRE_WORD_SIZE(i)),
 * 0xff for the word size that does not exist.  A table, as each row of a
 * scan needs it to find the next.
 */
static const u8 sframe_fre_dlen[256] = {
	0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7,
	8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15,
	0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12, 12, 14, 14,
	16, 16, 18, 18, 20, 20, 22, 22, 24, 24, 26, 26, 28, 28, 30, 30,
	0, 0, 4, 4, 8, 8, 12, 12, 16, 16, 20, 20, 24, 24, 28, 28,
	32, 32, 36, 36, 40, 40, 44, 44, 48, 48, 52, 52, 56, 56, 60, 60,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7,
	8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15,
	0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12, 12, 14, 14,
	16, 16, 18, 18, 20, 20, 22, 22, 24, 24, 26, 26, 28, 28, 30, 30,
	0, 0, 4, 4, 8, 8, 12, 12, 16, 16, 20, 20, 24, 24, 28, 28,
	32, 32, 36, 36, 40, 40, 44, 44, 48, 48, 52, 52, 56, 56, 60, 60,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

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
	len = sframe_fre_dlen[info];
	if (unlikely(len > SFRAME_FRE_MAX_DATA))
		return -SFRAME_E_WORD_SIZE;
	len += asz + 1;
	if (!roomy && unlikely(len > end - off))
		return -SFRAME_E_FRE_BOUNDS;

	fre->start = sframe_get_uint(sec, b, asz);
	fre->off = off;
	fre->next = off + len;
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
 * bytes long, and there are at most num_fres.
 */
static __always_inline int sframe_scan_fres(const struct sframe_section *sec,
					    const struct sframe_fde *fde,
					    u32 off, unsigned int asz,
					    struct sframe_fre *fre)
{
	u32 p = fde->fres, end = sec->fre_end, roomy = 0, last = 0, k;
	struct sframe_fre row;
	s64 prev = -1;
	int err;

	if (unlikely(p < sec->fre_base || p > end))
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
		last = p;
		p = row.next;
	}
	/* An FRE offset is never 0: the header comes first. */
	if (!last)
		return -SFRAME_E_NO_FRE;
	/* The row found: its info byte again, inside the checked row. */
	err = sframe_access_copy(sec, last + asz, &fre->info, 1);
	if (unlikely(err))
		return err;
	fre->start = prev;
	fre->off = last;
	fre->next = p;
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

/*
 * sframe_find_fre(), inlined into sframe_find().  @covers (a constant):
 * the caller found @fde by @pc, so it covers @pc (sframe_search()).
 */
static __always_inline int sframe_locate_fre(const struct sframe_section *sec,
					     const struct sframe_fde *fde,
					     u64 pc, bool covers,
					     struct sframe_fre *fre)
{
	u32 off;

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
		off %= fde->rep_size;
	}

	switch (SFRAME_FUNC_FRE_TYPE(fde->info)) {
	case SFRAME_FRE_TYPE_ADDR1:
		return sframe_scan_fres(sec, fde, off, 1, fre);
	case SFRAME_FRE_TYPE_ADDR2:
		return sframe_scan_fres(sec, fde, off, 2, fre);
	case SFRAME_FRE_TYPE_ADDR4:
		return sframe_scan_fres(sec, fde, off, 4, fre);
	default:
		return -SFRAME_E_FRE_TYPE;
	}
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

/* s390x stores CFA offsets as (offset - 160) / 8. */
static __always_inline int sframe_cfa_offset(const struct sframe_section *sec,
					     s32 word, s32 *offset)
{
	s64 v = word;

	if (sec->abi == SFRAME_ABI_S390X_ENDIAN_BIG)
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
					    struct sframe_loc *loc, s32 word)
{
	if (sec->abi == SFRAME_ABI_S390X_ENDIAN_BIG &&
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
static int sframe_map_flex(const struct sframe_words *w,
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

static __always_inline int sframe_rule_default(const struct sframe_section *sec,
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
	err = sframe_cfa_offset(sec, w->s[m.cfa], &rule->cfa.offset);
	if (err)
		return err;

	if (sec->fixed_ra) {
		sframe_loc_slot(&rule->ra, sec->fixed_ra);
		rule->flags |= SFRAME_RULE_RA_FIXED;
	} else if (m.ra_padding) {
		/* Padding: the RA is not saved (still in LR / r14). */
		rule->flags |= SFRAME_RULE_RA_PADDING;
	} else if (m.ra != SFRAME_NO_WORD) {
		sframe_loc_word(sec, &rule->ra, w->s[m.ra]);
	}

	if (m.fp != SFRAME_NO_WORD)
		sframe_loc_word(sec, &rule->fp, w->s[m.fp]);
	return 0;
}

/* FLEX control word + offset word -> location. */
static int sframe_loc_flex(struct sframe_loc *loc, u32 ctrl, s32 offset)
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

static int sframe_rule_flex(const struct sframe_section *sec,
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
	err = sframe_cfa_offset(sec, w->s[m.cfa], &rule->cfa.offset);
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
					     struct sframe_rule *rule)
{
	*rule = (struct sframe_rule){
		.ra.kind = SFRAME_LOC_SAME,
		.fp.kind = SFRAME_LOC_SAME,
		.func_start = fde->start,
		.func_size = fde->size,
		.fde_index = fde->index,
	};
	if (sec->abi == SFRAME_ABI_S390X_ENDIAN_BIG)
		rule->sp_from_cfa = SFRAME_S390X_SP_VAL_OFFSET;
	if (sframe_fde_pcmask(fde))
		rule->flags |= SFRAME_RULE_PCMASK;
	if (sframe_fde_signal(sec, fde))
		rule->flags |= SFRAME_RULE_SIGNAL;
	if (sframe_abi_aarch64(sec) && SFRAME_FUNC_PAUTH_KEY(fde->info))
		rule->flags |= SFRAME_RULE_PAUTH_B;
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

/* sframe_fre_rule(), inlined into sframe_find(). */
static __always_inline int sframe_rule(const struct sframe_section *sec,
				       const struct sframe_fde *fde,
				       const struct sframe_fre *fre,
				       bool located, struct sframe_rule *rule)
{
	struct sframe_words w;
	int type, err;

	sframe_rule_init(sec, fde, rule);
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

	if (sframe_abi_aarch64(sec) && SFRAME_FRE_MANGLED_RA_P(fre->info))
		rule->flags |= SFRAME_RULE_RA_MANGLED;

	if (type == SFRAME_FDE_TYPE_FLEX)
		err = sframe_rule_flex(sec, &w, rule);
	else
		err = sframe_rule_default(sec, fre, &w, rule);
	if (err)
		return err;

	if (sec->fixed_fp && rule->fp.kind == SFRAME_LOC_SAME) {
		sframe_loc_slot(&rule->fp, sec->fixed_fp);
		rule->flags |= SFRAME_RULE_FP_FIXED;
	}
	return 0;
}

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
	return sframe_rule(sec, fde, fre, false, rule);
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
		sframe_rule_init(sec, &fde, rule);
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
	return sframe_rule(sec, &fde, &fre, true, rule);
}
EXPORT_SYMBOL_GPL(sframe_find);

#ifndef SFRAME_ACCESS_HEADER
/*
 * Decoded rows, for sections that are trusted after one validation (the
 * kernel's own and its modules').  Not in the user-memory build: a user
 * section can change at any time, so it is decoded afresh on every use.
 */

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
static void sframe_rows_begin(struct sframe_rows_builder *bld,
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
static void sframe_rows_fre(struct sframe_rows_builder *bld,
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

/* After the last function: its end, and the block table. */
static int sframe_rows_finish(struct sframe_rows_builder *bld)
{
	struct sframe_rows *rows = bld->rows;
	u32 b, r = 0;

	if (bld->end)
		sframe_rows_add(bld, bld->end, SFRAME_ROWS_GAP);
	if (bld->err)
		return bld->err;
	/* block[b]: the last row starting at or before the block's start. */
	for (b = 0; b <= rows->nblocks; b++) {
		u64 bstart = ((u64)b << rows->shift);

		while (r + 1 < rows->nrows && rows->start[r + 1] <= bstart)
			r++;
		rows->block[b] = r;
	}
	return 0;
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
	u32 off, lo, n, half, b;
	u16 id;

	*err = -SFRAME_E_NO_FDE;
	if (pc < rows->base || pc >= rows->end || !rows->nrows)
		return NULL;
	off = pc - rows->base;
	b = off >> rows->shift;
	lo = rows->block[b];
	n = rows->block[b + 1] - lo + 1;
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
#endif /* !SFRAME_ACCESS_HEADER */

#ifndef __KERNEL__
/*
 * Where the fields of a section lie, for programs that patch sections in
 * place (qemu/user/hostile.c forges its own to attack the kernel's user
 * unwinder).  The kernel has no use for them.
 */

/* An FDE field: in the index entry or (attr) the v3 attribute. */
struct sframe_fde_layout {
	u8 attr;
	u8 off;
	u8 len;
};

#define SFRAME_FLD(o, l)	{ .off = (o), .len = (l) }
#define SFRAME_ATTR_FLD(o, l)	{ .attr = 1, .off = (o), .len = (l) }

/* v2 adds rep_size to the v1 fields. */
#define SFRAME_V1_FDE_FIELDS						\
	[SFRAME_FIELD_FDE_START] = SFRAME_FLD(SFRAME_V1_FDE_START, 4),	\
	[SFRAME_FIELD_FDE_SIZE] = SFRAME_FLD(SFRAME_V1_FDE_FUNC_SIZE, 4), \
	[SFRAME_FIELD_FDE_FRE_OFF] = SFRAME_FLD(SFRAME_V1_FDE_FRE_OFF, 4), \
	[SFRAME_FIELD_FDE_NUM_FRES] = SFRAME_FLD(SFRAME_V1_FDE_NUM_FRES, 4), \
	[SFRAME_FIELD_FDE_INFO] = SFRAME_FLD(SFRAME_V1_FDE_INFO, 1)

static const struct sframe_fde_layout
sframe_fde_layouts[SFRAME_VERSION_3][SFRAME_FIELD_FDE_REP_SIZE + 1] = {
	[SFRAME_VERSION_1 - 1] = { SFRAME_V1_FDE_FIELDS },
	[SFRAME_VERSION_2 - 1] = {
		SFRAME_V1_FDE_FIELDS,
		[SFRAME_FIELD_FDE_REP_SIZE] =
			SFRAME_FLD(SFRAME_V2_FDE_REP_SIZE, 1),
	},
	[SFRAME_VERSION_3 - 1] = {
		[SFRAME_FIELD_FDE_START] = SFRAME_FLD(SFRAME_V3_FDE_START, 8),
		[SFRAME_FIELD_FDE_SIZE] =
			SFRAME_FLD(SFRAME_V3_FDE_FUNC_SIZE, 4),
		[SFRAME_FIELD_FDE_FRE_OFF] =
			SFRAME_FLD(SFRAME_V3_FDE_FRE_OFF, 4),
		[SFRAME_FIELD_FDE_NUM_FRES] =
			SFRAME_ATTR_FLD(SFRAME_V3_ATTR_NUM_FRES, 2),
		[SFRAME_FIELD_FDE_INFO] =
			SFRAME_ATTR_FLD(SFRAME_V3_ATTR_INFO, 1),
		[SFRAME_FIELD_FDE_INFO2] =
			SFRAME_ATTR_FLD(SFRAME_V3_ATTR_INFO2, 1),
		[SFRAME_FIELD_FDE_REP_SIZE] =
			SFRAME_ATTR_FLD(SFRAME_V3_ATTR_REP_SIZE, 1),
	},
};

/**
 * sframe_fde_field() - where one field of a function descriptor lies
 * @sec: opened section
 * @fde: the descriptor (from sframe_get_fde())
 * @field: an FDE field, %SFRAME_FIELD_FDE_START to %SFRAME_FIELD_FDE_REP_SIZE
 * @loc: result: section offset and size in bytes; size 0 if the version
 *       has no such field (info2 before v3, rep_size in v1)
 *
 * Return: 0, or -SFRAME_E_INVAL for a field that is no FDE field.
 */
int sframe_fde_field(const struct sframe_section *sec,
		     const struct sframe_fde *fde, enum sframe_field_id field,
		     struct sframe_field *loc)
{
	const struct sframe_fde_layout *l;

	if (field > SFRAME_FIELD_FDE_REP_SIZE ||
	    sec->version < SFRAME_VERSION_1 || sec->version > SFRAME_VERSION_3)
		return -SFRAME_E_INVAL;
	l = &sframe_fde_layouts[sec->version - 1][field];
	loc->off = l->off + (l->attr ? fde->fres - SFRAME_V3_FDE_ATTR_SIZE :
			     sec->fde_base + fde->index * sec->fde_size);
	loc->len = l->len;
	return 0;
}

/**
 * sframe_fre_field() - where one field of a frame row entry lies
 * @sec: opened section
 * @fde: the function the row belongs to
 * @fre: the row (from sframe_read_fre())
 * @field: an FRE field, %SFRAME_FIELD_FRE_START to %SFRAME_FIELD_FRE_FP
 * @loc: result: section offset and size in bytes
 *
 * The data-word fields are the words sframe_fre_rule() reads the CFA
 * offset, the RA and the FP from (the offset word of a FLEX pair).  Their
 * size is 0 when the row has no such word: the header fixes the RA slot
 * (AMD64), the row leaves it out, or a FLEX row marks the RA as padding.
 * A DEFAULT row's RA padding word (0) is the RA field.
 *
 * Return: 0, or a negative SFRAME_E_* code for a data-word field of a row
 * that sframe_fre_rule() rejects.
 */
int sframe_fre_field(const struct sframe_section *sec,
		     const struct sframe_fde *fde, const struct sframe_fre *fre,
		     enum sframe_field_id field, struct sframe_field *loc)
{
	unsigned int asz = 1U << SFRAME_FUNC_FRE_TYPE(fde->info), idx;
	struct sframe_word_map m;
	struct sframe_words w;
	int type, err;

	if (SFRAME_FUNC_FRE_TYPE(fde->info) > SFRAME_FRE_TYPE_ADDR4)
		return -SFRAME_E_FRE_TYPE;
	*loc = (struct sframe_field){ .off = fre->off };
	switch (field) {
	case SFRAME_FIELD_FRE_START:
		loc->len = asz;
		return 0;
	case SFRAME_FIELD_FRE_INFO:
		loc->off += asz;
		loc->len = 1;
		return 0;
	case SFRAME_FIELD_FRE_CFA:
	case SFRAME_FIELD_FRE_RA:
	case SFRAME_FIELD_FRE_FP:
		break;
	default:
		return -SFRAME_E_INVAL;
	}

	type = sframe_fde_type(sec, fde);
	if (type < 0)
		return type;
	err = sframe_read_words(sec, fde, fre, false, &w);
	if (err || !w.n)
		return err;
	if (type == SFRAME_FDE_TYPE_FLEX)
		err = sframe_map_flex(&w, &m);
	else
		err = sframe_map_default(sec, &w, &m);
	if (err)
		return err;

	idx = field == SFRAME_FIELD_FRE_CFA ? m.cfa :
	      field == SFRAME_FIELD_FRE_RA ? m.ra : m.fp;
	if (idx != SFRAME_NO_WORD) {
		loc->len = 1U << SFRAME_FRE_WORD_SIZE(fre->info);
		loc->off += asz + 1 + idx * loc->len;
	}
	return 0;
}
#endif /* !__KERNEL__ */

struct sframe_validation {
	sframe_report_fn report;
	void *arg;
	int first;
#ifndef SFRAME_ACCESS_HEADER
	struct sframe_rows_builder *rows;	/* rows built meanwhile, or NULL */
#endif
};

static void sframe_problem(struct sframe_validation *v, int err, u32 fde,
			   u32 fre)
{
	if (!v->first)
		v->first = err;
	if (v->report)
		v->report(v->arg, err, fde, fre);
}

/* Walk and check the rows of one function; returns bytes walked. */
static u32 sframe_validate_fres(const struct sframe_section *sec,
				const struct sframe_fde *fde,
				struct sframe_validation *v)
{
	bool v1_mask = sec->version == SFRAME_VERSION_1 &&
		       sframe_fde_pcmask(fde);
	struct sframe_fre fre = { 0 };
	struct sframe_rule rule;
	u32 p = fde->fres, k;
	int err;

	for (k = 0; k < fde->num_fres; k++) {
		u32 prev = fre.start;

		err = sframe_fre_read(sec, fde, p, &fre);
		if (err) {
			sframe_problem(v, err, fde->index, k);
			return p - fde->fres;
		}
		p = fre.next;
		if (k && fre.start <= prev && !v1_mask)
			sframe_problem(v, -SFRAME_E_FRE_ORDER, fde->index, k);
		if (fre.start >= fde->size && !(fre.start == 0 && !fde->size))
			sframe_problem(v, -SFRAME_E_FRE_START, fde->index, k);
		/* Located: sframe_fre_read() checked its type and bounds. */
		err = sframe_rule(sec, fde, &fre, true, &rule);
		if (err)
			sframe_problem(v, err, fde->index, k);
#ifndef SFRAME_ACCESS_HEADER
		if (v->rows)
			sframe_rows_fre(v->rows, fde, k, &fre, err ? NULL : &rule);
#endif
	}
	return p - fde->fres;
}

/*
 * Did resolving the start of @fde wrap around the address space (the
 * section address plus a start field of at most 4 bytes: v1, v2)?  The
 * search orders such starts by their fields (struct sframe_key), the rest
 * of the core by the resolved addresses: the orders agree when all starts
 * wrap or none does.
 */
static bool sframe_start_wraps(const struct sframe_section *sec,
			       const struct sframe_fde *fde)
{
	s64 rel = fde->start - sec->addr;

	if (sec->version >= SFRAME_VERSION_3)
		return false;
	return rel >= 0 ? fde->start < sec->addr : fde->start >= sec->addr;
}

/* sframe_validate(), building rows meanwhile if @v.rows is set. */
static int sframe_validate_all(const struct sframe_section *sec,
			       struct sframe_validation v)
{
	u64 fres = 0, bytes = 0, prev_start = 0;
	bool unsorted = false, wraps = false;
	struct sframe_fde fde;
	u32 i;
	int err;

	for (i = 0; i < sec->num_fdes; i++) {
		err = sframe_get_fde(sec, i, &fde);
		if (err) {
			sframe_problem(&v, err, i, SFRAME_NO_INDEX);
			continue;
		}
		if (!i)
			wraps = sframe_start_wraps(sec, &fde);
		if ((fde.size && fde.start + fde.size - 1 < fde.start) ||
		    sframe_start_wraps(sec, &fde) != wraps)
			sframe_problem(&v, -SFRAME_E_FUNC_RANGE, i,
				       SFRAME_NO_INDEX);
		if ((sec->flags & SFRAME_F_FDE_SORTED) && i &&
		    fde.start < prev_start && !unsorted) {
			sframe_problem(&v, -SFRAME_E_UNSORTED, i,
				       SFRAME_NO_INDEX);
			unsorted = true;
		}
		prev_start = fde.start;
		if (sframe_fde_pcmask(&fde) && sec->version >= SFRAME_VERSION_2 &&
		    !fde.rep_size)
			sframe_problem(&v, -SFRAME_E_REP_SIZE, i,
				       SFRAME_NO_INDEX);
		fres += fde.num_fres;
#ifndef SFRAME_ACCESS_HEADER
		if (v.rows)
			sframe_rows_begin(v.rows, &fde);
#endif
		bytes += sframe_validate_fres(sec, &fde, &v);
		if (sec->version >= SFRAME_VERSION_3)
			bytes += SFRAME_V3_FDE_ATTR_SIZE;
	}
	if (fres != sec->num_fres)
		sframe_problem(&v, -SFRAME_E_NUM_FRES, SFRAME_NO_INDEX,
			       SFRAME_NO_INDEX);
	if (bytes != sec->fre_end - sec->fre_base)
		sframe_problem(&v, -SFRAME_E_FRE_LEN, SFRAME_NO_INDEX,
			       SFRAME_NO_INDEX);
	return v.first;
}

/**
 * sframe_validate() - check a whole section before trusting it
 * @sec: opened section
 * @report: called once per problem found (may be NULL)
 * @arg: passed to @report
 *
 * Linear in the section size.  Checks every FDE and FRE lies inside the
 * FRE sub-section, FRE types, PCMASK block sizes and FDE types, that FRE
 * starts strictly increase and stay below the function size, that every
 * row decodes (data-word sizes and counts valid for the ABI and FDE type,
 * FLEX control words, register numbers), that function ranges do not wrap,
 * that the FRE count and byte length match the header, and that FDEs are
 * sorted by start address when the header says so.
 *
 * Return: 0 if the section is valid, else the first problem's code.
 */
int sframe_validate(const struct sframe_section *sec,
		    sframe_report_fn report, void *arg)
{
	struct sframe_validation v = { .report = report, .arg = arg };

	return sframe_validate_all(sec, v);
}
EXPORT_SYMBOL_GPL(sframe_validate);

#ifndef SFRAME_ACCESS_HEADER
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
	struct sframe_validation v = { 0 };
	struct sframe_rows_builder bld;
	int err;

	if (!(sec->flags & SFRAME_F_FDE_SORTED)) {
		err = sframe_validate(sec, NULL, NULL);
		return err ? err : sframe_rows_build(sec, shift, rows, hash);
	}
	err = sframe_rows_start(&bld, sec, shift, rows, hash);
	if (err)
		return sframe_validate(sec, NULL, NULL) ?: err;
	v.rows = &bld;
	err = sframe_validate_all(sec, v);
	return err ? err : sframe_rows_finish(&bld);
}
EXPORT_SYMBOL_GPL(sframe_validate_rows);
#endif
