// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-verify: coverage.  Every byte of every code symbol has an SFrame
 * row, an annotation or an exception; every annotation stays within one
 * symbol.
 */
#include <stdio.h>
#include <stdlib.h>
#include "verify.h"

/*
 * An annotation describes code of one function: one that runs past its
 * symbol (e.g. an unparenthesised "end - start" of 0xffff bytes) would
 * override SFrame in code it was never meant for.
 */
void check_annot_spans(struct input *in)
{
	size_t i;

	for (i = 0; i < in->nannots; i++) {
		const struct annot *a = &in->annots[i];
		const struct region *r = region_at(in, a->lo);
		const struct region *e = region_at(in, a->hi - 1);
		struct region fake;
		char detail[160];

		if (r && r == e)
			continue;
		snprintf(detail, sizeof(detail),
			 "annotation of type %u ends in %s", a->type,
			 e ? e->name : "(no symbol)");
		in->st.unknown += a->hi - a->lo;
		finding(in, "annotation spans symbols",
			region_or_fake(in, a->lo, &fake), a->lo, a->hi, NULL,
			NULL, detail);
	}
}

void check_coverage(struct input *in)
{
	struct ivals gaps = { 0 };
	size_t k, i;

	for (k = 0; k < in->nregs; k++) {
		struct region *r = &in->regs[k];
		uint64_t len = r->hi - r->lo, rows;

		in->st.text += len;
		rows = iv_overlap(&in->rows, r->lo, r->hi);
		in->st.sframe += rows;
		gaps.n = 0;
		if (rows == len)
			continue;
		{
			struct ivals nrow = { 0 };

			iv_subtract(&in->rows, r->lo, r->hi, &nrow);
			for (i = 0; i < nrow.n; i++) {
				in->st.annot += iv_overlap(&in->annot_all,
							   nrow.v[i].lo,
							   nrow.v[i].hi);
				iv_subtract(&in->annot_all, nrow.v[i].lo,
					    nrow.v[i].hi, &gaps);
			}
			free(nrow.v);
		}
		for (i = 0; i < gaps.n; i++) {
			uint64_t lo = gaps.v[i].lo, hi = gaps.v[i].hi;
			enum cls c = CLS_UNKNOWN;
			struct exception *e;
			char detail[64];

			if (is_ftrace_nops(in, r, lo, hi))
				c = CLS_FTRACE_NOP;
			else if (is_drap_gap(in, r, lo, hi))
				c = CLS_DRAP;
			else if (is_call_padding(in, r, lo, hi))
				c = CLS_CALL_PADDING;
			e = exc_match(in, EXC_MISSING, r, lo, hi, c);
			snprintf(detail, sizeof(detail), "[%s%s%s]",
				 in->f.secs[r->shndx].name,
				 c != CLS_UNKNOWN ? " " : "",
				 c != CLS_UNKNOWN ? cls_names[c] : "");
			if (e)
				in->st.exc += hi - lo;
			else
				in->st.unknown += hi - lo;
			finding(in, "uncovered", r, lo, hi, e, NULL, detail);
		}
	}
	free(gaps.v);
}
