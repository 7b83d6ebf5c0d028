/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SFrame on-disk format: versions 1, 2 (with errata 1 and 2) and 3.
 *
 * Only constants and layout offsets live here; the decoder in
 * lib/sframe/ is the one place that interprets them.  All multi-byte
 * fields are stored in the byte order of the target named by the ABI id
 * and are read byte by byte: nothing in a section is assumed aligned.
 */
#ifndef _SFRAME_FORMAT_H
#define _SFRAME_FORMAT_H

#define SFRAME_MAGIC			0xdee2

/* ELF program header type of the segment holding .sframe (binutils). */
#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME			0x6474e554
#endif

#define SFRAME_VERSION_1		1
#define SFRAME_VERSION_2		2
#define SFRAME_VERSION_3		3

/* Preamble flags (sfp_flags). */
#define SFRAME_F_FDE_SORTED		0x1
#define SFRAME_F_FRAME_POINTER		0x2	/* v1 and v2 only */
#define SFRAME_F_FDE_FUNC_START_PCREL	0x4	/* v2 errata 1 and v3 */
#define SFRAME_V1_F_ALL			0x3
#define SFRAME_V2_F_ALL			0x7
#define SFRAME_V3_F_ALL			0x5

/* ABI/arch identifiers (sfh_abi_arch). */
#define SFRAME_ABI_AARCH64_ENDIAN_BIG		1
#define SFRAME_ABI_AARCH64_ENDIAN_LITTLE	2
#define SFRAME_ABI_AMD64_ENDIAN_LITTLE		3
#define SFRAME_ABI_S390X_ENDIAN_BIG		4

/* Header: 28 bytes, identical in every version. */
#define SFRAME_HDR_SIZE			28
#define SFRAME_HDR_MAGIC		0	/* u16 */
#define SFRAME_HDR_VERSION		2	/* u8 */
#define SFRAME_HDR_FLAGS		3	/* u8 */
#define SFRAME_HDR_ABI			4	/* u8 */
#define SFRAME_HDR_FIXED_FP		5	/* s8 */
#define SFRAME_HDR_FIXED_RA		6	/* s8 */
#define SFRAME_HDR_AUXHDR_LEN		7	/* u8 */
#define SFRAME_HDR_NUM_FDES		8	/* u32 */
#define SFRAME_HDR_NUM_FRES		12	/* u32 */
#define SFRAME_HDR_FRE_LEN		16	/* u32 */
#define SFRAME_HDR_FDEOFF		20	/* u32 */
#define SFRAME_HDR_FREOFF		24	/* u32 */

/*
 * Function descriptor entries.
 * v1: s32 start, u32 size, u32 start_fre_off, u32 num_fres, u8 info (17 B)
 * v2: the v1 fields, u8 rep_size, u16 padding (20 B)
 * v3: s64 start, u32 size, u32 start_fre_off (16 B index entry) and a
 *     5-byte attribute in front of the function's FREs:
 *     u16 num_fres, u8 info, u8 info2, u8 rep_size.
 */
#define SFRAME_V1_FDE_SIZE		17
#define SFRAME_V2_FDE_SIZE		20
#define SFRAME_V3_FDE_SIZE		16
#define SFRAME_V3_FDE_ATTR_SIZE		5

/* Field offsets: v1 FDE (v2 adds rep_size), v3 FDE and v3 attribute. */
#define SFRAME_V1_FDE_START		0	/* s32 */
#define SFRAME_V1_FDE_FUNC_SIZE		4	/* u32 */
#define SFRAME_V1_FDE_FRE_OFF		8	/* u32 */
#define SFRAME_V1_FDE_NUM_FRES		12	/* u32 */
#define SFRAME_V1_FDE_INFO		16	/* u8 */
#define SFRAME_V2_FDE_REP_SIZE		17	/* u8 */
#define SFRAME_V3_FDE_START		0	/* s64 */
#define SFRAME_V3_FDE_FUNC_SIZE		8	/* u32 */
#define SFRAME_V3_FDE_FRE_OFF		12	/* u32 */
#define SFRAME_V3_ATTR_NUM_FRES		0	/* u16 */
#define SFRAME_V3_ATTR_INFO		2	/* u8 */
#define SFRAME_V3_ATTR_INFO2		3	/* u8 */
#define SFRAME_V3_ATTR_REP_SIZE		4	/* u8 */

/* FDE info byte (sfde_func_info / sfda_func_info). */
#define SFRAME_FUNC_FRE_TYPE(i)		((i) & 0xf)
#define SFRAME_FUNC_PC_TYPE(i)		(((i) >> 4) & 0x1)
#define SFRAME_FUNC_PAUTH_KEY(i)	(((i) >> 5) & 0x1)
#define SFRAME_V3_FUNC_SIGNAL_P(i)	(((i) >> 7) & 0x1)
#define SFRAME_V3_FUNC_FDE_TYPE(i2)	((i2) & 0x1f)
#define SFRAME_FUNC_INFO(fre_type, pauth_b, signal)			\
	((fre_type) | (pauth_b) << 5 | (signal) << 7)

#define SFRAME_FRE_TYPE_ADDR1		0
#define SFRAME_FRE_TYPE_ADDR2		1
#define SFRAME_FRE_TYPE_ADDR4		2

#define SFRAME_PC_TYPE_INC		0
#define SFRAME_PC_TYPE_MASK		1

#define SFRAME_FDE_TYPE_DEFAULT		0
#define SFRAME_FDE_TYPE_FLEX		1

/* FRE info byte. */
#define SFRAME_FRE_CFA_BASE_SP(i)	((i) & 0x1)
#define SFRAME_FRE_WORD_COUNT(i)	(((i) >> 1) & 0xf)
#define SFRAME_FRE_WORD_SIZE(i)		(((i) >> 5) & 0x3)
#define SFRAME_FRE_MANGLED_RA_P(i)	(((i) >> 7) & 0x1)
#define SFRAME_FRE_INFO(base_sp, count, size, mangled)			\
	((base_sp) | (count) << 1 | (size) << 5 | (mangled) << 7)

#define SFRAME_FRE_WORD_1B		0
#define SFRAME_FRE_WORD_2B		1
#define SFRAME_FRE_WORD_4B		2

/* v3 FLEX control words: (regnum << 3) | (deref << 1) | reg_p. */
#define SFRAME_FLEX_CTRL_REG_P(c)	((c) & 0x1)
#define SFRAME_FLEX_CTRL_DEREF_P(c)	(((c) >> 1) & 0x1)
#define SFRAME_FLEX_CTRL_REGNUM(c)	((c) >> 3)
#define SFRAME_FLEX_CTRL(reg, deref, reg_p)				\
	((reg) << 3 | (deref) << 1 | (reg_p))

/* s390x: CFA offsets are stored as (offset - 160) / 8. */
#define SFRAME_S390X_SP_VAL_OFFSET	(-160)
#define SFRAME_S390X_CFA_ALIGN		8
/* s390x v2: an odd RA/FP offset encodes a DWARF register number. */
#define SFRAME_V2_S390X_OFFSET_IS_REG(o)	((o) & 0x1)
#define SFRAME_V2_S390X_OFFSET_REG(o)		((o) >> 1)

/*
 * DWARF register numbers of each ABI, as SFrame rules and struct
 * sframe_section name them (the only definition).
 */
#define SFRAME_DWARF_AMD64_FP		6	/* %rbp */
#define SFRAME_DWARF_AMD64_SP		7	/* %rsp */
#define SFRAME_DWARF_AARCH64_FP		29	/* x29 */
#define SFRAME_DWARF_AARCH64_LR		30	/* x30 */
#define SFRAME_DWARF_AARCH64_SP		31	/* sp */
#define SFRAME_DWARF_S390X_FP		11	/* %r11 */
#define SFRAME_DWARF_S390X_RA		14	/* %r14 */
#define SFRAME_DWARF_S390X_SP		15	/* %r15 */

#endif /* _SFRAME_FORMAT_H */
