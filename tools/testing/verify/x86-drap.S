/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An x86_64 DRAP prologue as gcc emits it in the kernel: the ftrace call
 * and the set-up of a call's arguments come first, so the stack
 * realignment ("and $-16,%rsp") starts 34 bytes into the function.  Its
 * CFA is in %r13, which SFrame cannot express: gas writes no FDE for it,
 * and sframe-verify must still see a DRAP function (class drap), not
 * unknown code.
 */
	.text
	.globl	drap_late
	.type	drap_late, @function
drap_late:
	.cfi_startproc
	call	__fentry__
	pushq	%r13
	.cfi_def_cfa_offset 16
	.cfi_offset 13, -16
	movl	$0xdc0, %ecx
	movl	$0x68, %edx
	movl	$1, %esi
	movq	$0, %rax
	leaq	16(%rsp), %r13
	.cfi_def_cfa 13, 0
	andq	$-16, %rsp
	addq	$4, %rax
	pushq	-8(%r13)
	pushq	%rbp
	.cfi_escape 0x10,0x6,0x2,0x76,0
	movq	%rsp, %rbp
	leaq	-8(%r13), %rsp
	popq	%r13
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
	.size	drap_late, . - drap_late
