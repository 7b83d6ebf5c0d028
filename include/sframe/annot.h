/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SFrame annotations: unwinding rules for code that the assembler's SFrame
 * does not describe, or describes wrongly.
 *
 * One table format, two producers:
 *
 *  - Source annotations.  Entry code and inline-asm stack switches use the
 *    SFRAME_ANNOT assembler macro (or SFRAME_ANNOT_INLINE in inline asm) to
 *    emit entries into the .sframe_annot section: "between these two labels
 *    a struct pt_regs sits at SP + off", "here the frame's SP was saved at
 *    SP + off (stack switch)", or an explicit CFA/RA/FP rule.
 *
 *  - The build-time verifier (tools/sframe-verify).  After vmlinux is
 *    linked it writes an SFRAME_ANNOT_UNRELIABLE entry for every range where
 *    the SFrame rows are known to be wrong (and not annotated) into the
 *    reserved tail of the same table, then sorts the whole table by address
 *    (like scripts/sorttable does for ORC and the exception table).  The
 *    kernel sorts a table that is not sorted yet (modules, or a vmlinux
 *    built without the verifier) when it registers it.  Modules have no
 *    reserved tail: their fixups come FDE-relative in .sframe_fixup
 *    (struct sframe_annot_fixup) and become UNRELIABLE entries at load.
 *
 * The unwinder consults the table before the SFrame rows: an annotation
 * wins over SFrame, and an UNRELIABLE range makes the walk unreliable.
 * Addresses are PC-relative (32-bit offset from the field itself), so the
 * table needs no run-time relocation under KASLR.
 */
#ifndef _SFRAME_ANNOT_H
#define _SFRAME_ANNOT_H

/* Entry types. */
#define SFRAME_ANNOT_NONE		0	/* unused (reserved) slot */
#define SFRAME_ANNOT_RULE		1	/* explicit CFA/RA/FP rule */
#define SFRAME_ANNOT_REGS		2	/* struct pt_regs at SP + off */
#define SFRAME_ANNOT_SP_INDIRECT	3	/* frame's SP saved at SP + off */
#define SFRAME_ANNOT_UNRELIABLE		4	/* SFrame known wrong: unreliable */
#define SFRAME_ANNOT_END		5	/* bottom of an idle task's stack */
#define SFRAME_ANNOT_TYPE_MAX		5

/* CFA base of an SFRAME_ANNOT_RULE entry. */
#define SFRAME_ANNOT_BASE_SP		0
#define SFRAME_ANNOT_BASE_FP		1

/* Flags of an SFRAME_ANNOT_RULE entry. */
#define SFRAME_ANNOT_F_RA_SAVED		0x1	/* RA at CFA + ra_off, else in LR */
#define SFRAME_ANNOT_F_FP_SAVED		0x2	/* FP at CFA + fp_off, else kept */

/* Flags of an SFRAME_ANNOT_REGS entry. */
/* The saved PC is 1 byte past a trap (x86 int3): the instruction is at PC - 1. */
#define SFRAME_ANNOT_F_TRAP		0x4

/* Size of one entry in bytes. */
#define SFRAME_ANNOT_SIZE		16

#ifdef __ASSEMBLY__

/*
 * SFRAME_ANNOT type, start, end, off=0, base=0, ra=0, fp=0, flags=0
 *
 * Describe the bytes [start, end) of the current text section.  For
 * SFRAME_ANNOT_REGS and SFRAME_ANNOT_SP_INDIRECT @off is the offset from
 * SP; for SFRAME_ANNOT_RULE the CFA is @base + @off, the return address is
 * at CFA + @ra and the caller's FP at CFA + @fp (as selected by @flags).
 */
.macro SFRAME_ANNOT type:req, start:req, end:req, off=0, base=0, ra=0, fp=0, flags=0
	.pushsection .sframe_annot, "a"
	.balign 4
	.long	(\start) - .
	.short	(\end) - (\start)
	.byte	\type, \base
	.short	(\off), (\ra), (\fp), (\flags)
	.popsection
.endm

#else /* !__ASSEMBLY__ */

/*
 * The same entry from inline asm: @start and @end are local labels of the
 * asm statement (e.g. "771b", "772b"), @type and @off integer constants.
 */
#define SFRAME_ANNOT__STR(x)	#x
#define SFRAME_ANNOT_STR(x)	SFRAME_ANNOT__STR(x)
#define SFRAME_ANNOT_INLINE(type, start, end, off)			\
	".pushsection .sframe_annot, \"a\"\n\t"				\
	".balign 4\n\t"							\
	".long (" start ") - .\n\t"					\
	".short (" end ") - (" start ")\n\t"			\
	".byte " SFRAME_ANNOT_STR(type) ", 0\n\t"			\
	".short " SFRAME_ANNOT_STR(off) ", 0, 0, 0\n\t"			\
	".popsection\n\t"

#include "types.h"

/**
 * struct sframe_annot - one annotation entry (16 bytes, 4-byte aligned)
 * @pc: first annotated byte, as an offset from the address of this field
 * @len: number of annotated bytes
 * @type: SFRAME_ANNOT_*
 * @base: CFA base register of an SFRAME_ANNOT_RULE entry (SFRAME_ANNOT_BASE_*)
 * @off: SP offset (REGS, SP_INDIRECT) or CFA offset (RULE)
 * @ra_off: RULE: return address at CFA + @ra_off (SFRAME_ANNOT_F_RA_SAVED)
 * @fp_off: RULE: caller's frame pointer at CFA + @fp_off (..._F_FP_SAVED)
 * @flags: SFRAME_ANNOT_F_* (RULE: RA/FP saved; REGS: trap)
 *
 * All fields are in the byte order of the target.
 */
struct sframe_annot {
	s32 pc;
	u16 len;
	u8 type;
	u8 base;
	s16 off;
	s16 ra_off;
	s16 fp_off;
	u16 flags;
};

/* Section of a module's verifier fixups (struct sframe_annot_fixup). */
#define SFRAME_FIXUP_SECTION	".sframe_fixup"

/**
 * struct sframe_annot_fixup - a module's verifier fixup (16 bytes)
 * @fde: index of the FDE in the module's .sframe, in section order.  The
 *       .sframe of a module is a sequence of SFrame sections, one per
 *       object file linked into it (sframe_open_part()): FDEs are counted
 *       across the sequence, the first section's FDEs first (as
 *       sframe_get_fde() counts them in each), then the second's, and so on
 * @off: first byte, as an offset from the start of the FDE's function
 * @len: number of bytes, all inside the FDE's function
 * @type: SFRAME_ANNOT_UNRELIABLE
 * @reserved: zero
 *
 * A module's verifier fixups (section .sframe_fixup, written into the .ko
 * by the build from "sframe-verify --module-fixups"): FDE-relative, so they
 * need no relocation.  Entries are sorted by (@fde, @off).  At load time
 * the kernel turns each entry, in place, into a struct sframe_annot of
 * type SFRAME_ANNOT_UNRELIABLE (SFRAME_ANNOT_SIZE bytes too); an entry
 * whose FDE does not exist or whose bytes leave the FDE's function makes
 * it reject the module's SFrame.
 *
 * All fields are in the byte order of the target.
 */
struct sframe_annot_fixup {
	u32 fde;
	u32 off;
	u16 len;
	u8 type;
	u8 reserved[5];
};

#endif /* __ASSEMBLY__ */

#endif /* _SFRAME_ANNOT_H */
