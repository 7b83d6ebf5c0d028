/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * AArch64 patterns for tools/sframe-verify (aarch64-linux-gnu-as --gsframe):
 * a correct function behind the ftrace NOP pair, an FDE that does not
 * match its symbol, frame records that break AAPCS64, and asm without CFI.
 */
	.text
	.globl	good
	.type	good, %function
good:
	nop
	nop
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	ldp	x29, x30, [sp], #16
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	good, . - good

	/* FDE from symbol + 4 to symbol end - 4 */
	.globl	mismatch
	.type	mismatch, %function
mismatch:
	nop
	.cfi_startproc
	add	x0, x0, #1
	.cfi_endproc
	ret
	.size	mismatch, . - mismatch

	/* FP and LR slots swapped: RA is not at the FP slot + 8 */
	.globl	bad_record
	.type	bad_record, %function
bad_record:
	.cfi_startproc
	stp	x30, x29, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -8
	.cfi_offset 30, -16
	ldp	x30, x29, [sp], #16
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	bad_record, . - bad_record

	/* CFA below SP */
	.globl	cfa_below_sp
	.type	cfa_below_sp, %function
cfa_below_sp:
	.cfi_startproc
	sub	sp, sp, #16
	.cfi_def_cfa_offset -16
	add	sp, sp, #16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	cfa_below_sp, . - cfa_below_sp

	.globl	a64_no_cfi
	.type	a64_no_cfi, %function
a64_no_cfi:
	add	x0, x0, x1
	ret
	.size	a64_no_cfi, . - a64_no_cfi

	/* asm without CFI, covered by an annotation (PREL32 relocation) */
#include <sframe/annot.h>
	.globl	a64_annotated
	.type	a64_annotated, %function
a64_annotated:
	add	x0, x0, x1
	ret
a64_annotated_end:
	.size	a64_annotated, . - a64_annotated
	SFRAME_ANNOT SFRAME_ANNOT_REGS, a64_annotated, a64_annotated_end

	.section .note.GNU-stack, "", %progbits
