/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An alternative whose replacement pushes the flags, as the SMAP one of
 * user_access_save() ("pushf; pop %rax; clac" over 5 NOPs, here without
 * the clac): objtool's ORC (--uaccess, as the kernel runs it) follows the
 * replacement, the CFI the NOPs (class alt-pushf).  The entry
 * of .altinstructions is struct alt_instr of the kernel whose objtool
 * runs: 12 bytes in 6.1, 14 (a 32-bit feature word) since 6.3; build with
 * -DALT_FT_FLAGS for the latter.
 */
	.text
	.globl	alt_pushf
	.type	alt_pushf, @function
alt_pushf:
	.cfi_startproc
661:	.skip	5, 0x90
662:
	.pushsection .altinstructions, "a"
	.long	661b - .
	.long	6631f - .
#ifdef ALT_FT_FLAGS
	.long	9 * 32 + 20		/* X86_FEATURE_SMAP */
#else
	.word	9 * 32 + 20
#endif
	.byte	662b - 661b
	.byte	6632f - 6631f
	.popsection
	.pushsection .altinstr_replacement, "ax"
6631:	pushf
	pop	%rax
6632:
	.popsection
	ret
	.cfi_endproc
	.size	alt_pushf, . - alt_pushf
