/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libremap-a.so / libremap-b.so of sframe-remap (remap.c): r_mid() with a
 * frame of FRAME bytes, assembled twice with two frame sizes.  The code
 * has the same length and layout in both (the immediates have the same
 * encoding), so the return address r_mid_ret lies at the same offset and,
 * loaded at the same address, at the same PC, whose SFrame rule differs:
 * CFA = SP + FRAME (+ 8 on x86_64).  The frame is zeroed before the call:
 * a walk that used the other library's rule would read 0 or a slot of the
 * frame, not the caller's return address.
 *
 * void r_mid(void (*leaf)(void)): calls leaf.
 */
#ifndef FRAME
#error "FRAME: the frame size, 0x100 or 0x200"
#endif

	.text
	.globl	r_mid
	.type	r_mid, @function
	.globl	r_mid_ret
	.type	r_mid_ret, @function
#if defined(__x86_64__)
r_mid:
	.cfi_startproc
	subq	$FRAME, %rsp
	.cfi_def_cfa_offset FRAME + 8
	xorl	%eax, %eax
	movl	$FRAME / 8, %ecx
	movq	%rsp, %rdx
1:	movq	%rax, (%rdx)
	addq	$8, %rdx
	decl	%ecx
	jnz	1b
	call	*%rdi
r_mid_ret:
	addq	$FRAME, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
#elif defined(__aarch64__)
r_mid:
	.cfi_startproc
	sub	sp, sp, #FRAME
	.cfi_def_cfa_offset FRAME
	stp	x29, x30, [sp, #FRAME - 16]
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	add	x29, sp, #FRAME - 16
	mov	x1, sp
	mov	x2, #(FRAME - 16) / 8
1:	str	xzr, [x1], #8
	subs	x2, x2, #1
	b.ne	1b
	blr	x0
r_mid_ret:
	ldp	x29, x30, [sp, #FRAME - 16]
	.cfi_restore 29
	.cfi_restore 30
	add	sp, sp, #FRAME
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
#else
#error "x86_64 or aarch64 only"
#endif
	.size	r_mid, . - r_mid
	.section .note.GNU-stack, "", @progbits
