// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-verify: the report.  Findings as lines (one per unknown finding,
 * every one with --verbose), rules as text, and the summary line of an
 * input.  The checks count; this file prints.
 */
#include <inttypes.h>
#include <stdio.h>
#include "verify.h"

const char * const cls_names[CLS_MAX] = {
	[CLS_NONE] = "none",
	[CLS_UNKNOWN] = "unknown",
	[CLS_STACK_SWITCH] = "stack-switch",
	[CLS_PUSHF_POP] = "pushf-pop",
	[CLS_IRET_TO_SELF] = "iret-to-self",
	[CLS_ALT_PUSHF] = "alt-pushf",
	[CLS_LATE_PUSH] = "late-push",
	[CLS_LATE_ADD] = "late-add",
	[CLS_FTRACE_NOP] = "ftrace-nop",
	[CLS_DRAP] = "drap",
	[CLS_CALL_PADDING] = "call-padding",
	[CLS_FDE_MISMATCH] = "fde-mismatch",
	[CLS_ORPHAN_FDE] = "orphan-fde",
	[CLS_FRAME_RECORD] = "frame-record",
	[CLS_STALE_RULE] = "stale-rule",
};

static const char *reg_name(const struct input *in, unsigned int reg)
{
	if (reg == in->sec.sp_reg)
		return "sp";
	if (reg == in->sec.fp_reg)
		return "fp";
	return "r?";
}

/**
 * fmt_sframe() - an SFrame rule as text, for findings
 * @in: the input (register names)
 * @err: 0, or the error looking the rule up
 * @r: the rule
 * @buf: result
 * @n: size of @buf
 */
void fmt_sframe(const struct input *in, int err, const struct sframe_rule *r,
		char *buf, size_t n)
{
	int k;

	if (err) {
		snprintf(buf, n, "none (%s)", sframe_errname(err));
		return;
	}
	if (r->flags & SFRAME_RULE_OUTERMOST) {
		snprintf(buf, n, "outermost");
		return;
	}
	k = snprintf(buf, n, "CFA=%s%+d", reg_name(in, r->cfa.reg),
		     r->cfa.offset);
	if (r->ra.kind == SFRAME_LOC_CFA)
		k += snprintf(buf + k, n - k, " RA=*(CFA%+d)", r->ra.offset);
	else
		k += snprintf(buf + k, n - k, " RA=lr");
	if (r->fp.kind == SFRAME_LOC_CFA)
		snprintf(buf + k, n - k, " FP=*(CFA%+d)", r->fp.offset);
	else
		snprintf(buf + k, n - k, " FP=same");
}

/* Findings. */

/**
 * sym_range() - a range as "symbol+0xlo..0xhi"
 * @r: the region of the range
 * @lo: first byte
 * @hi: end
 * @buf: result
 * @n: size of @buf
 */
void sym_range(const struct region *r, uint64_t lo, uint64_t hi, char *buf,
	       size_t n)
{
	snprintf(buf, n, "%s+0x%" PRIx64 "..0x%" PRIx64, r->name, lo - r->sym,
		 hi - r->sym);
}

/**
 * finding() - count a finding and print it as the verbosity asks
 * @in: the input
 * @what: "uncovered", "wrong", ...
 * @r: the region of the finding
 * @lo: first byte
 * @hi: end
 * @e: the exception accepting it, or NULL
 * @known: why it is known without an exception (e.g. "annotated"), or NULL
 * @detail: more text for the line, or NULL
 *
 * Return: 1 if the finding is unknown, else 0.
 */
int finding(struct input *in, const char *what, const struct region *r,
	    uint64_t lo, uint64_t hi, const struct exception *e,
	    const char *known, const char *detail)
{
	char where[512];

	if (e || known)
		in->st.known[what[0] == 'u' ? 0 : 1]++;
	if (!e && !known) {
		if (in->opt->count)
			return 1;
		sym_range(r, lo, hi, where, sizeof(where));
		printf("%s: %s: %s (%" PRIu64 " bytes)%s%s: unknown\n", in->path,
		       what, where, hi - lo, detail ? ": " : "",
		       detail ? detail : "");
		return 1;
	}
	if (!in->opt->verbose)
		return 0;
	sym_range(r, lo, hi, where, sizeof(where));
	if (e)
		printf("%s: %s: %s (%" PRIu64 " bytes)%s%s: known (exception: %s)\n",
		       in->path, what, where, hi - lo, detail ? ": " : "",
		       detail ? detail : "", e->reason);
	else
		printf("%s: %s: %s (%" PRIu64 " bytes)%s%s: known (%s)\n",
		       in->path, what, where, hi - lo, detail ? ": " : "",
		       detail ? detail : "", known);
	return 0;
}

/* Summary. */

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 100.0;
}

void print_summary(const struct input *in)
{
	const struct stats *t = &in->st;

	printf("%s: %s (%s): text %" PRIu64 " B in %zu symbols: sframe %.2f%%, annotations %" PRIu64
	       " B, exceptions %" PRIu64 " B, unknown %" PRIu64 " B",
	       prog, in->path, in->arch, t->text, in->nregs,
	       pct(t->sframe, t->text), t->annot, t->exc, t->unknown);
	if (t->has_orc) {
		printf("; ORC: %" PRIu64 " B compared, agree %.3f%%",
		       t->compared, pct(t->agree, t->compared));
		/* clang's late .cfi_offset (x86.c is_bp_unchanged()) */
		if (t->bp_unchanged)
			printf(" (BP saved, unchanged, not in the CFI yet: %" PRIu64 " B)",
			       t->bp_unchanged);
		printf(", wrong %" PRIu64 " B in %" PRIu64
		       " functions (stack-switch %" PRIu64
		       " B [annotated %" PRIu64 "], pushf-pop %" PRIu64
		       ", iret-to-self %" PRIu64 ", alt-pushf %" PRIu64
		       ", late-push %" PRIu64 ", late-add %" PRIu64
		       ", drap %" PRIu64
		       ", unknown %" PRIu64 "), ORC only %" PRIu64 " B",
		       t->wrong, t->wrong_funcs, t->cls_bytes[CLS_STACK_SWITCH],
		       t->ss_annotated, t->cls_bytes[CLS_PUSHF_POP],
		       t->cls_bytes[CLS_IRET_TO_SELF],
		       t->cls_bytes[CLS_ALT_PUSHF], t->cls_bytes[CLS_LATE_PUSH],
		       t->cls_bytes[CLS_LATE_ADD], t->cls_bytes[CLS_DRAP],
		       t->cls_bytes[CLS_UNKNOWN], t->orc_only);
	}
	if (!t->has_orc && in->f.machine == ELF_EM_X86_64)
		printf("; no ORC");
	if (in->f.machine == ELF_EM_AARCH64)
		printf("; FDEs %" PRIu64 ": fde-mismatch %" PRIu64
		       ", orphan %" PRIu64 ", frame-record %" PRIu64
		       " rows, stale-rule %" PRIu64 " rows, unknown %" PRIu64,
		       t->fdes, t->fde_bad, t->fde_orphan, t->frame_bad,
		       t->stale_bad, t->arm_unknown);
	if (!t->has_annot)
		printf("; no .sframe_annot");
	if (t->has_fixarea)
		printf("; fixups %" PRIu64 " needed, %" PRIu64
		       " written, %" PRIu64 "/%" PRIu64 " slots free",
		       t->nfix, t->fix_written, t->fix_free, t->fix_total);
	else if (in->opt->modfix)
		printf("; fixups %" PRIu64 " needed, %" PRIu64
		       " written to %s", t->nfix, t->fix_written, in->opt->modfix);
	else
		printf("; fixups %" PRIu64 " needed", t->nfix);
	printf("\n");
	if (!in->opt->quiet && !in->opt->verbose && (t->known[0] || t->known[1]))
		printf("%s: %s: known findings (not listed, see --verbose): %" PRIu64
		       " uncovered, %" PRIu64 " wrong\n", prog, in->path,
		       t->known[0], t->known[1]);
}
