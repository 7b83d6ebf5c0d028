// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-verify, arm64: FDEs against symbols, rows against the AAPCS64
 * frame record, and the ftrace NOPs in front of a function.
 */
#include <stdio.h>
#include <string.h>
#include "../lib/search.h"
#include "verify.h"

/* The instruction at @p: A64 instructions are little-endian in any ELF. */
static uint32_t a64_insn(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/**
 * is_ftrace_nops() - arm64: is a gap the ftrace NOP pair in front of an FDE?
 * @in: the input
 * @r: the region of the gap
 * @lo: first byte
 * @hi: end
 *
 * Return: 1 if [@lo, @hi) is the two NOPs at the symbol, followed by an FDE.
 */
int is_ftrace_nops(const struct input *in, const struct region *r,
		   uint64_t lo, uint64_t hi)
{
	const uint8_t *b = text_bytes(in, lo, 8);
	struct sframe_fde fde;
	int i;

	if (in->f.machine != ELF_EM_AARCH64 || lo != r->sym || hi != lo + 8 ||
	    !b || !in->has_sframe)
		return 0;
	for (i = 0; i < 2; i++)
		if (a64_insn(b + 4 * i) != 0xd503201f)
			return 0;
	return part_at(in, hi, &fde) && fde.start == hi;
}

/* Does a symbol start at *key - 8 or later? */
static int starts_from_key_minus_8(const void *elem, const void *key)
{
	return ((const struct ival *)elem)->lo + 8 >= *(const uint64_t *)key;
}

/* Is [@lo, @hi) a symbol, or a symbol after its ftrace NOPs (+8)? */
static int fde_matches_symbol(const struct input *in, uint64_t lo, uint64_t hi)
{
	/* first symbol starting at or above lo - 8 */
	size_t a = search_first(in->allsyms, in->nallsyms,
				sizeof(*in->allsyms), &lo, starts_from_key_minus_8);

	for (; a < in->nallsyms && in->allsyms[a].lo <= lo; a++)
		if ((in->allsyms[a].lo == lo || in->allsyms[a].lo + 8 == lo) &&
		    in->allsyms[a].hi == hi)
			return 1;
	return 0;
}

/* a64_writes() bits: the registers a row's rule may depend on */
#define A64_W_SP	1u
#define A64_W_FP	2u	/* x29 */
#define A64_W_LR	4u	/* x30 */

static unsigned int a64_reg(unsigned int r, int sp)
{
	if (r == 31)
		return sp ? A64_W_SP : 0;	/* SP, or XZR */
	return r == 29 ? A64_W_FP : r == 30 ? A64_W_LR : 0;
}

/* BLR, BLRAA, BLRAB, BLRAAZ, BLRABZ */
static int a64_is_blr(uint32_t i)
{
	return (i & 0xfefff000) == 0xd63f0000;
}

/*
 * Which of SP, x29 and x30 the A64 instruction @i writes: data processing
 * writes Rd (SP for register 31 in ADD/SUB immediate or extended register
 * and in logical immediate, unless flag-setting); loads write Rt (and Rt2
 * of a pair), pre- and post-index forms their base; BL and BLR write x30.
 * Loads and stores it does not know are taken to write Rt.
 */
static unsigned int a64_writes(uint32_t i)
{
	unsigned int rd = i & 31, rn = (i >> 5) & 31, v = (i >> 26) & 1, w = 0;

	if ((i & 0x1c000000) == 0x10000000 ||		/* DP immediate */
	    (i & 0x0e000000) == 0x0a000000) {		/* DP register */
		int sp = 0;

		if ((i & 0x1f000000) == 0x11000000 ||	/* ADD/SUB imm */
		    (i & 0x1f200000) == 0x0b200000)	/* ADD/SUB ext */
			sp = !(i & 0x20000000);
		else if ((i & 0x1f800000) == 0x12000000)	/* logical imm */
			sp = (i & 0x60000000) != 0x60000000;
		return a64_reg(rd, sp);
	}
	if ((i & 0x0a000000) == 0x08000000) {		/* loads, stores */
		unsigned int idx, load = 1;

		if ((i & 0x3a000000) == 0x28000000) {	/* pair */
			idx = (i >> 23) & 3;
			if (idx == 1 || idx == 3)
				w |= a64_reg(rn, 1);
			if (!(i & (1u << 22)) || v)
				return w;
			return w | a64_reg(rd, 0) | a64_reg((i >> 10) & 31, 0);
		}
		if ((i & 0x3b200000) == 0x38000000) {	/* imm, pre/post */
			idx = (i >> 10) & 3;
			if (idx == 1 || idx == 3)
				w |= a64_reg(rn, 1);
			load = ((i >> 22) & 3) != 0;
		} else if ((i & 0x3b000000) == 0x39000000 ||	/* unsigned off */
			   (i & 0x3b200c00) == 0x38200800) {	/* register off */
			load = ((i >> 22) & 3) != 0;
		}
		return load && !v ? w | a64_reg(rd, 0) : w;
	}
	if ((i & 0xfc000000) == 0x94000000 || a64_is_blr(i))	/* BL, BLR* */
		return A64_W_LR;
	if ((i & 0xfff00000) == 0xd5300000)		/* MRS */
		return a64_reg(rd, 0);
	return 0;
}

/* Does @i end straight-line code (B, BR, RET, ERET and their variants)? */
static int a64_ends_block(uint32_t i)
{
	return (i & 0xfc000000) == 0x14000000 ||
	       ((i & 0xfe000000) == 0xd6000000 && !a64_is_blr(i));
}

/*
 * A rule goes stale when an instruction inside its row writes a register
 * the rule reads (the CFA's base; x29 while FP is unchanged; x30 while the
 * RA is still in it) and no new row starts right after it: the CFI is not
 * asynchronous there.  clang 14 describes an AArch64 prologue only after
 * its last instruction and an epilogue not at all ("ldp x29, x30, [sp,
 * #16]" under CFA = x29 + 16); inline asm can write x30 behind the
 * compiler's back.  The rule is wrong from the instruction after the write
 * to the end of that straight-line code: reported, and recorded as a fixup
 * (unreliable).
 */
static void check_arm64_stale(struct input *in, const struct sframe_rule *rule,
			      uint64_t lo, uint64_t hi)
{
	unsigned int mask = 0, hit;
	char ss[96], detail[192];
	const struct region *r;
	struct exception *e;
	struct region fake;
	const uint8_t *b;
	uint64_t a, end;

	if (rule->cfa.kind == SFRAME_LOC_REG)
		mask |= a64_reg(rule->cfa.reg, 1);
	if (rule->fp.kind == SFRAME_LOC_SAME)
		mask |= A64_W_FP;
	if (rule->ra.kind == SFRAME_LOC_SAME)
		mask |= A64_W_LR;
	if (!mask || hi - lo < 8 || (lo & 3))
		return;
	b = text_bytes(in, lo, hi - lo);
	if (!b)
		return;
	for (a = lo; a + 4 < hi; a += 4) {
		hit = a64_writes(a64_insn(b + (a - lo)));
		if (hit & mask)
			break;
	}
	if (a + 4 >= hi)
		return;
	for (end = a + 4; end + 4 <= hi; end += 4) {
		if (a64_ends_block(a64_insn(b + (end - lo)))) {
			end += 4;
			break;
		}
	}
	if (end > hi)
		end = hi;
	in->st.stale_bad++;
	iv_subtract(&in->annot_all, a + 4, end, &in->fix);
	r = region_or_fake(in, a + 4, &fake);
	e = exc_match(in, EXC_WRONG, r, a + 4, end, CLS_STALE_RULE);
	if (!e)
		in->st.arm_unknown++;
	fmt_sframe(in, 0, rule, ss, sizeof(ss));
	snprintf(detail, sizeof(detail),
		 "stale-rule: %s written at +0x%llx with no new row: %s",
		 hit & mask & A64_W_SP ? "SP" : hit & mask & A64_W_FP ? "x29" : "x30",
		 (unsigned long long)(a - r->sym), ss);
	finding(in, "wrong", r, a + 4, end, e, NULL, detail);
}

static void check_arm64_part(struct input *in,
			     const struct sframe_section *sec)
{
	u32 i;

	for (i = 0; i < sec->num_fdes; i++) {
		struct sframe_fde fde;
		struct sframe_fre fre;
		struct region fake;
		const struct region *r;
		struct exception *e;
		u32 k, p;

		if (sframe_get_fde(sec, i, &fde))
			continue;
		r = region_or_fake(in, fde.start, &fake);
		if (!fde_matches_symbol(in, fde.start, fde.start + fde.size)) {
			/* no symbol at all: an overridden __weak definition */
			enum cls c = iv_overlap(&in->symset, fde.start,
						fde.start + fde.size) ?
				     CLS_FDE_MISMATCH : CLS_ORPHAN_FDE;

			if (c == CLS_ORPHAN_FDE)
				in->st.fde_orphan++;
			else
				in->st.fde_bad++;
			e = exc_match(in, EXC_WRONG, r, fde.start,
				      fde.start + fde.size, c);
			if (!e)
				in->st.arm_unknown++;
			finding(in, "wrong", r, fde.start, fde.start + fde.size,
				e, NULL, c == CLS_ORPHAN_FDE ?
				"orphan-fde: FDE outside every symbol" :
				"fde-mismatch: FDE is not symbol (+8) .. symbol end");
			/* dead code: no row of it runs, none gets a fixup */
			if (c == CLS_ORPHAN_FDE)
				continue;
		}
		if (sframe_fde_pcmask(&fde))
			continue;
		for (k = 0, p = fde.fres; k < fde.num_fres; k++, p = fre.next) {
			struct sframe_fre nf;
			struct sframe_rule rule;
			uint64_t lo, hi;
			const char *bad = NULL;
			char ss[96], detail[192];

			if (sframe_read_fre(sec, &fde, p, &fre) ||
			    sframe_fre_rule(sec, &fde, &fre, &rule))
				break;
			/* judge the rule the kernel unwinder applies */
			sframe_rule_no_red_zone(&rule, in->sec.sp_reg);
			lo = fde.start + fre.start;
			hi = fde.start + fde.size;
			if (k + 1 < fde.num_fres &&
			    !sframe_read_fre(sec, &fde, fre.next, &nf))
				hi = fde.start + nf.start;
			if (rule.flags & SFRAME_RULE_OUTERMOST)
				continue;
			check_arm64_stale(in, &rule, lo, hi);
			if (rule.fp.kind == SFRAME_LOC_CFA &&
			    (rule.ra.kind != SFRAME_LOC_CFA ||
			     rule.ra.offset != rule.fp.offset + 8))
				bad = "FP saved, RA not at the FP slot + 8";
			else if (rule.cfa.reg == in->sec.sp_reg &&
				 rule.cfa.offset < 0)
				bad = "CFA below SP";
			if (!bad)
				continue;
			in->st.frame_bad++;
			iv_subtract(&in->annot_all, lo, hi, &in->fix);
			r = region_or_fake(in, lo, &fake);
			e = exc_match(in, EXC_WRONG, r, lo, hi, CLS_FRAME_RECORD);
			if (!e)
				in->st.arm_unknown++;
			fmt_sframe(in, 0, &rule, ss, sizeof(ss));
			snprintf(detail, sizeof(detail), "frame-record: %s: %s",
				 bad, ss);
			finding(in, "wrong", r, lo, hi, e, NULL, detail);
		}
	}
}

/**
 * check_arm64() - arm64: check every FDE and row of every part of .sframe
 * @in: the input
 */
void check_arm64(struct input *in)
{
	size_t k;

	for (k = 0; k < in->nparts; k++)
		check_arm64_part(in, &in->parts[k].sec);
}
