/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86_64 assembly patterns for tools/sframe-verify: code without CFI, a
 * static_call-like trampoline, entry code covered by an annotation, and a
 * function whose CFI is simply wrong (an "unknown" disagreement with ORC).
 */
#include <sframe/annot.h>

	.text
	.globl	no_cfi
	.type	no_cfi, @function
no_cfi:
	movq	%rdi, %rax
	addq	%rsi, %rax
	ret
	.size	no_cfi, . - no_cfi

	/* SFRAME_ANNOT_REGS: a pt_regs frame, as entry code would say */
	.globl	annotated_entry
	.type	annotated_entry, @function
annotated_entry:
	pushq	%rdi
	popq	%rdi
	ret
annotated_entry_end:
	.size	annotated_entry, . - annotated_entry
	SFRAME_ANNOT SFRAME_ANNOT_REGS, annotated_entry, annotated_entry_end

	/* the CFA moved by 16 for an 8-byte push */
	.globl	wrong_cfi
	.type	wrong_cfi, @function
wrong_cfi:
	.cfi_startproc
	pushq	%rbx
	.cfi_adjust_cfa_offset 16
	movq	%rdi, %rbx
	popq	%rbx
	.cfi_adjust_cfa_offset -16
	ret
	.cfi_endproc
	.size	wrong_cfi, . - wrong_cfi

	/* ARCH_DEFINE_STATIC_CALL_TRAMP: a lone jmp */
	.pushsection .static_call.text, "ax"
	.globl	__SCT__test_tramp
	.type	__SCT__test_tramp, @function
__SCT__test_tramp:
	jmp	no_cfi
	int3
	int3
	int3
	.size	__SCT__test_tramp, . - __SCT__test_tramp
	.popsection

	.section .note.GNU-stack, "", %progbits
