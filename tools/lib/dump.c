// SPDX-License-Identifier: GPL-2.0-only
/*
 * Text output of the sframe tools.
 *
 * sframe_dump() prints a section exactly as `readelf --sframe` does: as
 * binutils 2.40 for v1 (the last readelf that decodes v1) and as binutils
 * 2.46 for v2 and v3.  It prints only what the core decodes: every number
 * comes from sframe_get_fde(), sframe_read_fre() and sframe_fre_rule().
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "dump.h"

static const char *reg_name(const struct sframe_section *sec, unsigned int reg,
			    char *buf, size_t len)
{
	if (reg == sec->sp_reg)
		return "sp";
	if (reg == sec->fp_reg)
		return "fp";
	snprintf(buf, len, "r%u", reg);
	return buf;
}

/*
 * FLEX notation: "reg+off", "(reg+off)" when loaded, "c+off" for a slot
 * relative to the CFA (binutils prints those without parentheses although
 * they are loaded too).
 */
static void fmt_flex(char *buf, size_t len, const struct sframe_section *sec,
		     const struct sframe_loc *loc)
{
	char tmp[32];
	const char *base = loc->kind == SFRAME_LOC_REG ?
			   reg_name(sec, loc->reg, tmp, sizeof(tmp)) : "c";

	snprintf(buf, len, loc->deref && loc->kind == SFRAME_LOC_REG ?
		 "(%s%+d)" : "%s%+d", base, loc->offset);
}

/* DEFAULT notation: "c-16" for a stack slot, "r16" for a register. */
static void fmt_default(char *buf, size_t len, const struct sframe_loc *loc)
{
	if (loc->kind == SFRAME_LOC_REG)
		snprintf(buf, len, "r%u", loc->reg);
	else if (loc->kind == SFRAME_LOC_CFA)
		snprintf(buf, len, "c%+d", loc->offset);
	else
		snprintf(buf, len, "u");
}

static void dump_row(FILE *out, const struct sframe_section *sec,
		     const struct sframe_fre *fre, const struct sframe_rule *r)
{
	bool v1 = sec->version == SFRAME_VERSION_1;
	char cfa[64], fp[64], ra[72];

	if (r->flags & SFRAME_RULE_OUTERMOST) {
		fprintf(out, "  RA undefined");
		return;
	}
	if (r->flags & SFRAME_RULE_FLEX) {
		fmt_flex(cfa, sizeof(cfa), sec, &r->cfa);
		if (r->fp.kind == SFRAME_LOC_SAME)
			snprintf(fp, sizeof(fp), "u");
		else
			fmt_flex(fp, sizeof(fp), sec, &r->fp);
		if (r->flags & SFRAME_RULE_RA_FIXED)
			snprintf(ra, sizeof(ra), "f");
		else if (r->flags & SFRAME_RULE_RA_PADDING)
			snprintf(ra, sizeof(ra), "U");
		else if (r->ra.kind == SFRAME_LOC_SAME)
			snprintf(ra, sizeof(ra), "u");
		else
			fmt_flex(ra, sizeof(ra), sec, &r->ra);
	} else {
		snprintf(cfa, sizeof(cfa), "%s+%d",
			 r->flags & SFRAME_RULE_CFA_BASE_SP ? "sp" : "fp",
			 r->cfa.offset);
		fmt_default(fp, sizeof(fp), &r->fp);
		if (r->flags & SFRAME_RULE_RA_FIXED)
			snprintf(ra, sizeof(ra), v1 ? "u" : "f");
		else if (r->flags & SFRAME_RULE_RA_PADDING)
			snprintf(ra, sizeof(ra), v1 ? "c+0" : "U");
		else
			fmt_default(ra, sizeof(ra), &r->ra);
	}
	if (SFRAME_FRE_MANGLED_RA_P(fre->info))
		strcat(ra, "[s]");
	else
		strcat(ra, "   ");
	fprintf(out, "  %-10s%-10s%-13s", cfa, fp, ra);
}

static void dump_flags(FILE *out, const struct sframe_section *sec)
{
	static const struct { u8 bit; const char *name; } names[] = {
		{ SFRAME_F_FDE_SORTED, "SFRAME_F_FDE_SORTED" },
		{ SFRAME_F_FRAME_POINTER, "SFRAME_F_FRAME_POINTER" },
		{ SFRAME_F_FDE_FUNC_START_PCREL, "SFRAME_F_FDE_FUNC_START_PCREL" },
	};
	const char *prefix = "Flags: ";
	unsigned int flags = sec->flags, i;

	if (sec->version == SFRAME_VERSION_1) {
		/* binutils 2.40 prints the last known flag only. */
		const char *s = "";

		if (flags & SFRAME_F_FDE_SORTED)
			s = names[0].name;
		if (flags & SFRAME_F_FRAME_POINTER)
			s = names[1].name;
		fprintf(out, "    Flags: %s\n", flags ? s : "NONE");
		return;
	}
	if (!flags) {
		fprintf(out, "%11sNONE\n", prefix);
		return;
	}
	for (i = 0; i < 3; i++) {
		if (!(flags & names[i].bit))
			continue;
		if (names[i].bit == SFRAME_F_FRAME_POINTER &&
		    sec->version != SFRAME_VERSION_2)
			continue;
		flags &= ~names[i].bit;
		fprintf(out, "%11s%s%s\n", prefix, names[i].name,
			flags ? "," : "");
		prefix = " ";
	}
	if (flags)
		fprintf(out, "%11s%u\n", prefix, flags);
}

static int dump_function(FILE *out, const struct sframe_section *sec, u32 i)
{
	bool v1 = sec->version == SFRAME_VERSION_1;
	struct sframe_rule rule;
	struct sframe_fde fde;
	struct sframe_fre fre;
	u32 p, k;
	int err;

	err = sframe_get_fde(sec, i, &fde);
	if (err)
		return err;
	fprintf(out, "\n    func idx [%u]: pc = 0x%" PRIx64 ", size = %d bytes",
		i, fde.start, (int)fde.size);
	if (!v1) {
		bool sig = sframe_fde_signal(sec, &fde);
		bool flex = sframe_fde_flex(&fde);

		if (sig || flex)
			fprintf(out, ", attr = \"%s%s\"", sig ? "S" : "",
				flex ? "F" : "");
	}
	/* Every readelf since 2.40 names the B key (v1 included). */
	if (sframe_abi_aarch64(sec) && SFRAME_FUNC_PAUTH_KEY(fde.info))
		fprintf(out, ", pauth = B key");
	fprintf(out, "\n    %-7s%-8s %-10s%-10s%-13s", "STARTPC",
		sframe_fde_pcmask(&fde) ? "[m]" : "   ", "CFA", "FP", "RA");

	for (k = 0, p = fde.fres; k < fde.num_fres; k++, p = fre.next) {
		err = sframe_read_fre(sec, &fde, p, &fre);
		if (!err)
			err = sframe_fre_rule(sec, &fde, &fre, &rule);
		if (err)
			return err;
		fprintf(out, "\n    %016" PRIx64,
			sframe_fde_pcmask(&fde) ? (u64)fre.start :
						  fde.start + fre.start);
		dump_row(out, sec, &fre, &rule);
	}
	fprintf(out, "\n");
	return 0;
}

/**
 * sframe_dump() - print a section as readelf --sframe does
 * @out: output stream
 * @sec: opened (and validated) section
 * @name: section name for the title line
 *
 * Return: 0, or the first decoding error.
 */
int sframe_dump(FILE *out, const struct sframe_section *sec, const char *name)
{
	static const char * const versions[] = {
		"NULL", "SFRAME_VERSION_1", "SFRAME_VERSION_2", "SFRAME_VERSION_3"
	};
	u32 i;
	int err;

	fprintf(out, "Contents of the SFrame section %s:", name);
	fprintf(out, "\n  Header :\n\n    Version: %s\n", versions[sec->version]);
	dump_flags(out, sec);
	if (sec->version != SFRAME_VERSION_1) {
		if (sec->fixed_fp)
			fprintf(out, "    CFA fixed FP offset: %d\n", sec->fixed_fp);
		if (sec->fixed_ra)
			fprintf(out, "    CFA fixed RA offset: %d\n", sec->fixed_ra);
	}
	fprintf(out, "    Num FDEs: %d\n    Num FREs: %d\n",
		(int)sec->num_fdes, (int)sec->num_fres);
	fprintf(out, "\n  Function Index :\n");
	for (i = 0; i < sec->num_fdes; i++) {
		err = dump_function(out, sec, i);
		if (err)
			return err;
	}
	return 0;
}

static void fmt_loc(char *buf, size_t len, const struct sframe_section *sec,
		    const struct sframe_loc *loc)
{
	char tmp[32];

	switch (loc->kind) {
	case SFRAME_LOC_SAME:
		snprintf(buf, len, "unchanged");
		break;
	case SFRAME_LOC_UNDEFINED:
		snprintf(buf, len, "undefined");
		break;
	case SFRAME_LOC_CFA:
		snprintf(buf, len, loc->deref ? "*(CFA%+d)" : "CFA%+d",
			 loc->offset);
		break;
	default:
		snprintf(buf, len, loc->deref ? "*(%s%+d)" : "%s%+d",
			 reg_name(sec, loc->reg, tmp, sizeof(tmp)), loc->offset);
	}
}

/**
 * sframe_format_rule() - one-line text of a decoded rule
 * @buf: output buffer
 * @len: its size
 * @sec: the section the rule comes from (register names)
 * @rule: the rule
 */
void sframe_format_rule(char *buf, size_t len, const struct sframe_section *sec,
			const struct sframe_rule *rule)
{
	char cfa[48], ra[48], fp[48];

	if (rule->flags & SFRAME_RULE_OUTERMOST) {
		snprintf(buf, len, "outermost frame (RA undefined)");
		return;
	}
	fmt_loc(cfa, sizeof(cfa), sec, &rule->cfa);
	fmt_loc(ra, sizeof(ra), sec, &rule->ra);
	fmt_loc(fp, sizeof(fp), sec, &rule->fp);
	snprintf(buf, len, "CFA = %s; RA = %s%s%s; FP = %s; SP = CFA%+d%s", cfa,
		 ra, rule->flags & SFRAME_RULE_RA_MANGLED ? " (signed, key " : "",
		 rule->flags & SFRAME_RULE_RA_MANGLED ?
		 (rule->flags & SFRAME_RULE_PAUTH_B ? "B)" : "A)") : "",
		 fp, rule->sp_from_cfa,
		 rule->flags & SFRAME_RULE_SIGNAL ? "; signal frame" : "");
}

/**
 * sframe_dump_lookup() - print the FDE, FRE and rule chosen for an address
 * @out: output stream
 * @sec: opened section
 * @pc: run-time address
 *
 * Return: 0, or the lookup error (also printed).
 */
int sframe_dump_lookup(FILE *out, const struct sframe_section *sec, u64 pc)
{
	struct sframe_rule rule;
	struct sframe_fde fde;
	struct sframe_fre fre;
	char text[256];
	int err;

	fprintf(out, "pc 0x%" PRIx64 ":", pc);
	err = sframe_find_fde(sec, pc, &fde);
	if (err)
		goto fail;
	fprintf(out, " fde [%u] 0x%" PRIx64 "+%u (0x%" PRIx64 "-0x%" PRIx64 ")",
		fde.index, pc - fde.start, fde.size, fde.start,
		fde.start + fde.size);
	err = sframe_find(sec, pc, &rule);
	if (err)
		goto fail;
	if (fde.num_fres && !sframe_find_fre(sec, &fde, pc, &fre))
		fprintf(out, " fre [start 0x%x]", fre.start);
	sframe_format_rule(text, sizeof(text), sec, &rule);
	fprintf(out, ": %s\n", text);
	return 0;
fail:
	fprintf(out, " %s (%s)\n", sframe_errname(err), sframe_strerror(err));
	return err;
}
