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

/* Why a row (and with it the function) cannot be SFrame. */
enum cfi_why {
	CFI_OK,
	CFI_CFA_REG,		/* CFA based on a register other than SP/FP */
	CFI_CFA_EXPR,		/* CFA given by a DWARF expression */
	CFI_RA_RULE,		/* RA neither at CFA + offset nor unchanged */
	CFI_FP_RULE,		/* FP neither at CFA + offset nor unchanged */
	CFI_OFFSET,		/* offset too large for SFrame's data words */
	CFI_WHY_MAX
};

/**
 * struct cfi_row - one row of a function, as SFrame would hold it
 * @start: offset from the function start
 * @why: CFI_OK, or why the row cannot be expressed
 * @cfa_fp: CFA is FP + @cfa_off (else SP + @cfa_off)
 * @cfa_off: CFA offset
 * @ra_saved: RA at CFA + @ra_off (else unchanged: in LR, or x86's fixed slot)
 * @ra_off: see @ra_saved
 * @fp_saved: FP at CFA + @fp_off (else unchanged)
 * @fp_off: see @fp_saved
 * @mangled: AArch64: RA signed (DW_CFA_AARCH64_negate_ra_state)
 */
struct cfi_row {
	uint32_t start;
	uint8_t why;
	uint8_t cfa_fp, ra_saved, fp_saved, mangled;
	int32_t cfa_off, ra_off, fp_off;
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
