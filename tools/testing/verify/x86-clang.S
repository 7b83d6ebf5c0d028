/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86_64 patterns of clang's CFI (LLVM=1 kernels) for tools/sframe-verify:
 * the prologue's saves described after the whole prologue (BP "unchanged"
 * where ORC has it saved: equivalent while nothing writes BP), the same
 * with BP written before its save is described (wrong), the CFA
 * adjustment of an argument push one instruction late (class late-push)
 * and an epilogue's add to %rsp described after the test and branch
 * behind it (class late-add).
 */
	.text
	.globl	late_save
	.type	late_save, @function
late_save:
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -24
	.cfi_offset %rbp, -16
	movq	%rdi, %rbx
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size	late_save, . - late_save

	.globl	late_save_bad
	.type	late_save_bad, @function
late_save_bad:
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	xorl	%ebp, %ebp
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -24
	.cfi_offset %rbp, -16
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size	late_save_bad, . - late_save_bad

	.globl	late_push
	.type	late_push, @function
late_push:
	.cfi_startproc
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -16
	pushq	%rdi
	movq	%rsi, %rbx
	.cfi_adjust_cfa_offset 8
	call	late_save
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	ret
	.cfi_endproc
	.size	late_push, . - late_push

	.globl	late_add
	.type	late_add, @function
late_add:
	.cfi_startproc
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -16
	subq	$16, %rsp
	.cfi_adjust_cfa_offset 16
	movq	%rdi, %rbx
	addq	$16, %rsp
	testq	%rbx, %rbx
	je	1f
	.cfi_adjust_cfa_offset -16
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	ret
1:
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	ret
	.cfi_endproc
	.size	late_add, . - late_add

	.section .note.GNU-stack, "", %progbits
