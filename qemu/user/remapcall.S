/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sframe-remap (remap.c): r_call(mid, leaf) calls mid(leaf) and returns
 * to r_call_ret; r_leaf() spins without a frame (RA on the stack on
 * x86_64, in x30 on arm64) between r_leaf and r_leaf_end.  Exact labels:
 * the test knows every return address a walk from r_leaf must give.
 */
	.text
	.globl	r_call, r_call_ret, r_leaf, r_leaf_end
	.type	r_call, @function
	.type	r_leaf, @function
#if defined(__x86_64__)
r_call:
	.cfi_startproc
	subq	$8, %rsp
	.cfi_def_cfa_offset 16
	movq	%rdi, %rax
	movq	%rsi, %rdi
	call	*%rax
r_call_ret:
	addq	$8, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	r_call, . - r_call

/* r_leaf(): about 20000 iterations */
r_leaf:
	.cfi_startproc
	movl	$20000, %ecx
1:	decl	%ecx
	jnz	1b
	ret
	.cfi_endproc
r_leaf_end:
	.size	r_leaf, . - r_leaf
#elif defined(__aarch64__)
r_call:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	mov	x2, x0
	mov	x0, x1
	blr	x2
r_call_ret:
	ldp	x29, x30, [sp], #16
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	r_call, . - r_call

r_leaf:
	.cfi_startproc
	mov	x1, #20000
1:	subs	x1, x1, #1
	b.ne	1b
	ret
	.cfi_endproc
r_leaf_end:
	.size	r_leaf, . - r_leaf
#else
#error "x86_64 or aarch64 only"
#endif
	.section .note.GNU-stack, "", @progbits
