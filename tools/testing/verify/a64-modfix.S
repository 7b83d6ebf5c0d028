/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * AArch64 module fixups for tools/sframe-verify --module-fixups: rows
 * where SFrame is wrong (CFA below SP, a frame-record finding, no ORC
 * needed) in the second FDE, in a function of another section (its FDE
 * index is its position in .sframe, not in address order), across the
 * boundary of two adjacent FDEs, and over more than 65535 bytes of one FDE.
 */
	.text
	/* FDE 0: correct */
	.globl	mf_good
	.type	mf_good, %function
mf_good:
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
	.size	mf_good, . - mf_good

	/* FDE 1: wrong at +4..+8 */
	.globl	mf_second
	.type	mf_second, %function
mf_second:
	.cfi_startproc
	sub	sp, sp, #16
	.cfi_def_cfa_offset -16
	add	sp, sp, #16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	mf_second, . - mf_second

	/* FDE 2, in a section laid out after .text: wrong at +4..+8 */
	.pushsection .text.unlikely, "ax"
	.globl	mf_cold
	.type	mf_cold, %function
mf_cold:
	.cfi_startproc
	sub	sp, sp, #16
	.cfi_def_cfa_offset -16
	add	sp, sp, #16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	mf_cold, . - mf_cold
	.popsection

	/* FDEs 3 and 4: wrong from mf_cross_a+4 to the end of mf_cross_b */
	.globl	mf_cross_a
	.type	mf_cross_a, %function
mf_cross_a:
	.cfi_startproc
	nop
	.cfi_def_cfa_offset -16
	nop
	.cfi_endproc
	.size	mf_cross_a, . - mf_cross_a

	.globl	mf_cross_b
	.type	mf_cross_b, %function
mf_cross_b:
	.cfi_startproc
	.cfi_def_cfa_offset -16
	nop
	nop
	.cfi_endproc
	.size	mf_cross_b, . - mf_cross_b

	/* FDE 5: a correct first row, then 70000 wrong bytes */
	.globl	mf_big
	.type	mf_big, %function
mf_big:
	.cfi_startproc
	nop
	.cfi_def_cfa_offset -16
	.rept	17500
	nop
	.endr
	.cfi_endproc
	.size	mf_big, . - mf_big

	.section .note.GNU-stack, "", %progbits
