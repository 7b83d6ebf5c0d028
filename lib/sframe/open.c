// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFrame core: opening a section (header, ABI, sub-section bounds) and
 * the names of its errors.
 */
#include "internal.h"

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
