/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * AArch64 rows that go stale (tools/sframe-verify, class stale-rule): an
 * instruction inside a row writes a register the row's rule reads.
 *
 * clang_like: clang 14's CFI, the prologue described after its last
 * instruction and the epilogue not at all; gcc_like: the same function with
 * asynchronous CFI (no finding); lr_clobber: x30 written by inline asm in
 * a leaf whose RA is still in it.
 */
	.text
	.globl	clang_like
	.type	clang_like, %function
clang_like:
	.cfi_startproc
	sub	sp, sp, #32
	stp	x29, x30, [sp, #16]
	add	x29, sp, #16
	.cfi_def_cfa w29, 16
	.cfi_offset w30, -8
	.cfi_offset w29, -16
	bl	gcc_like
	ldp	x29, x30, [sp, #16]
	add	sp, sp, #32
	ret
	.cfi_endproc
	.size	clang_like, . - clang_like

	.globl	gcc_like
	.type	gcc_like, %function
gcc_like:
	.cfi_startproc
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	bl	lr_clobber
	ldp	x29, x30, [sp], #32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	gcc_like, . - gcc_like

	.globl	lr_clobber
	.type	lr_clobber, %function
lr_clobber:
	.cfi_startproc
	mov	x9, x30
	bl	1f
1:	mov	x30, x9
	ret
	.cfi_endproc
	.size	lr_clobber, . - lr_clobber

	.section .note.GNU-stack, "", %progbits
