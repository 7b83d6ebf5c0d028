/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Annotation extents: one that runs into the next function is reported;
 * "end-1, end" operands give a 1-byte entry (the macro parenthesises
 * them: unparenthesised, "end - end-1" is 0xffff bytes).
 */
#include <sframe/annot.h>

	.text
	.globl	span_a
	.type	span_a, @function
span_a:
	nop
	nop
	ret
	.size	span_a, .-span_a

	.globl	span_b
	.type	span_b, @function
span_b:
	ret
	.size	span_b, .-span_b

	SFRAME_ANNOT SFRAME_ANNOT_REGS, span_a, span_b+1
	SFRAME_ANNOT SFRAME_ANNOT_END, span_b-1, span_b
