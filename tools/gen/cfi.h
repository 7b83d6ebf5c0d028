/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * DWARF call frame information (.eh_frame, .debug_frame) as SFrame rows:
 * the CFI reader of sframe-gen (issue 16).  Each FDE's CFA program is run
 * and every row is turned into the rule SFrame can express (CFA = SP or
 * FP + offset; RA and FP saved at CFA + offset, or unchanged), or marked
 * inexpressible with the reason.  Rows are never approximated.
 *
 * Every read is bounds-checked against its section; a malformed entry
 * gets an error naming it, never a crash, and every loop is bounded.
 */
#ifndef _SFRAME_TOOLS_CFI_H
#define _SFRAME_TOOLS_CFI_H

#include <stddef.h>
#include <stdint.h>
#include <sframe/sframe.h>

/* Why a row (and with it the function) cannot be SFrame, or DEFAULT. */
enum cfi_why {
	CFI_OK,
	CFI_CFA_REG,		/* CFA based on a register other than SP/FP */
	CFI_CFA_EXPR,		/* CFA given by a DWARF expression */
	CFI_RA_RULE,		/* RA neither at CFA + offset nor unchanged */
	CFI_FP_RULE,		/* FP neither at CFA + offset nor unchanged */
	CFI_OFFSET,		/* offset too large for SFrame's data words */
	CFI_RA_UNDEF,		/* RA undefined: the outermost frame */
	CFI_WHY_MAX
};

/* struct cfi_loc.kind */
enum cfi_loc_kind {
	CFI_LOC_SAME,		/* unchanged (x86_64 RA: the fixed CFA - 8) */
	CFI_LOC_CFA,		/* CFA + @off, loaded if @deref */
	CFI_LOC_REG,		/* register @reg + @off, loaded if @deref */
	CFI_LOC_UNDEF,		/* RA: undefined, the outermost frame */
};

/**
 * struct cfi_loc - where a value is, as SFrame (v3 FLEX) describes it
 * @kind: enum cfi_loc_kind
 * @deref: the value is loaded from the address
 * @reg: DWARF register number (%CFI_LOC_REG)
 * @off: offset
 */
struct cfi_loc {
	uint8_t kind;
	uint8_t deref;
	uint16_t reg;
	int32_t off;
};

/**
 * struct cfi_row - one row of a function, as SFrame would hold it
 * @start: offset from the function start
 * @why: CFI_OK, or why no SFrame version can express the row
 * @flex: CFI_OK, or why only a v3 FLEX FDE can (a DEFAULT FDE cannot):
 *        CFA based on another register or loaded (AMD64's realigned
 *        frames), RA or FP based on a register, x86_64 RA off its slot
 * @mangled: AArch64: RA signed (DW_CFA_AARCH64_negate_ra_state)
 * @cfa: %CFI_LOC_REG, the base register, offset and whether it is loaded
 * @ra: the return address: %CFI_LOC_SAME (in LR; x86_64: at CFA - 8),
 *      %CFI_LOC_CFA (saved at CFA + off), %CFI_LOC_REG, %CFI_LOC_UNDEF
 * @fp: the caller's frame pointer: %CFI_LOC_SAME, _CFA or _REG
 */
struct cfi_row {
	uint32_t start;
	uint8_t why;
	uint8_t flex;
	uint8_t mangled;
	struct cfi_loc cfa, ra, fp;
};

/**
 * struct cfi_fde - one function's rows
 * @start: address of the function
 * @size: its size
 * @rows: its rows (@nrows), in address order
 * @pauth_b: AArch64: signed with key B (CIE augmentation "B")
 * @signal: signal frame (CIE augmentation "S")
 */
struct cfi_fde {
	uint64_t start, size;
	struct cfi_row *rows;
	uint32_t nrows;
	int pauth_b, signal;
};

/* The ABI a CFI section is read for (register numbers, RA conventions). */
struct cfi_abi {
	unsigned int machine;	/* ELF e_machine */
	unsigned int sp, fp, ra;	/* DWARF register numbers */
	int addr_size;		/* 8 */
	int be;			/* big-endian */
};

/**
 * cfi_read() - run every FDE's program of a CFI section
 * @abi: the target
 * @data: the section's bytes (relocated)
 * @size: its size
 * @addr: its address (for pc-relative pointers)
 * @eh: 1 for .eh_frame, 0 for .debug_frame
 * @fdes: result: malloc()ed array (free with cfi_free())
 * @nfdes: result: its length
 * @err: on failure, a one-line description
 *
 * Return: 0, or -1 with @err set.
 */
int cfi_read(const struct cfi_abi *abi, const uint8_t *data, size_t size,
	     uint64_t addr, int eh, struct cfi_fde **fdes, size_t *nfdes,
	     char *err, size_t errlen);
void cfi_free(struct cfi_fde *fdes, size_t nfdes);
const char *cfi_why_str(int why);

#endif
