/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sfm_many_rules(): 2,100 stack adjustments, each with its own CFA offset
 * (CFI, so the assembler's SFrame has one row and one rule per
 * instruction), then one to undo them.  Never called: its SFrame is what
 * sframe_rules_mod.c is for.
 */
#include <linux/linkage.h>

#define SFM_STEPS	2100

	.text
#ifdef CONFIG_X86_64
#include <asm/ibt.h>
/*
 * (not SYM_FUNC_START: with IBT its ENDBR would lie before the FDE;
 * here the FDE covers it)
 */
	.balign	16
	.globl	sfm_many_rules
	.type	sfm_many_rules, @function
sfm_many_rules:
	.cfi_startproc
	ENDBR
	.rept SFM_STEPS
	sub	$8, %rsp
	.cfi_adjust_cfa_offset 8
	.endr
	add	$(SFM_STEPS * 8), %rsp
	.cfi_adjust_cfa_offset -(SFM_STEPS * 8)
	RET
	.cfi_endproc
SYM_FUNC_END(sfm_many_rules)
#else
/* (not SYM_FUNC_START: its BTI landing pad would lie before the FDE) */
SYM_CODE_START(sfm_many_rules)
	.cfi_startproc
	.rept SFM_STEPS
	sub	sp, sp, #16
	.cfi_adjust_cfa_offset 16
	.endr
	mov	x16, #(SFM_STEPS * 16)
	add	sp, sp, x16
	.cfi_adjust_cfa_offset -(SFM_STEPS * 16)
	ret
	.cfi_endproc
SYM_CODE_END(sfm_many_rules)
#endif
