/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Call padding (CONFIG_CALL_PADDING): objtool --prefix names the 16 nops
 * the compiler puts before each function __pfx_<function>.  They have no
 * CFI and no SFrame: class call-padding.  A __pfx_ symbol holding anything
 * but nops is not padding and stays unknown.
 */
	.text
	.globl	__pfx_padded
	.type	__pfx_padded, @function
__pfx_padded:
	.skip	16, 0x90
	.size	__pfx_padded, .-__pfx_padded

	.globl	padded
	.type	padded, @function
padded:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	padded, .-padded

	.balign	16, 0x90
	.globl	__pfx_not_padding
	.type	__pfx_not_padding, @function
__pfx_not_padding:
	.skip	8, 0x90
	push	%rbp
	.skip	7, 0x90
	.size	__pfx_not_padding, .-__pfx_not_padding

	.globl	not_padding
	.type	not_padding, @function
not_padding:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	not_padding, .-not_padding
