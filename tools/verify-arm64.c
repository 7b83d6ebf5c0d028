// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-verify, arm64: FDEs against symbols, rows against the AAPCS64
 * frame record, and the ftrace NOPs in front of a function.
 */
#include <stdio.h>
#include <string.h>
#include "search.h"
#include "verify.h"

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
		if (elf_get(&in->f, b + 4 * i, 4) != 0xd503201f)
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
