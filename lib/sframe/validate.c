// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFrame core: validation, the walk of a whole section that checks what a
 * lookup does not, before the kernel trusts it.
 */
#include "internal.h"

struct sframe_validation {
	sframe_report_fn report;
	void *arg;
	int first;
#ifndef SFRAME_ACCESS_HEADER
	struct sframe_rows_builder *rows;	/* rows built meanwhile, or NULL */
#endif
};

static void sframe_problem(struct sframe_validation *v, int err, u32 fde,
			   u32 fre)
{
	if (!v->first)
		v->first = err;
	if (v->report)
		v->report(v->arg, err, fde, fre);
}

/* Walk and check the rows of one function; returns bytes walked. */
static u32 sframe_validate_fres(const struct sframe_section *sec,
				const struct sframe_fde *fde,
				struct sframe_validation *v)
{
	bool v1_mask = sec->version == SFRAME_VERSION_1 &&
		       sframe_fde_pcmask(fde);
	struct sframe_fre fre = { 0 };
	struct sframe_rule rule;
	u32 p = fde->fres, k;
	int err;

	for (k = 0; k < fde->num_fres; k++) {
		u32 prev = fre.start;

		err = sframe_fre_read(sec, fde, p, &fre);
		if (err) {
			sframe_problem(v, err, fde->index, k);
			return p - fde->fres;
		}
		p = fre.next;
		if (k && fre.start <= prev && !v1_mask)
			sframe_problem(v, -SFRAME_E_FRE_ORDER, fde->index, k);
		if (fre.start >= fde->size && !(fre.start == 0 && !fde->size))
			sframe_problem(v, -SFRAME_E_FRE_START, fde->index, k);
		/* Located: sframe_fre_read() checked its type and bounds. */
		err = sframe_rule(sec, fde, &fre, true, sec->abi, &rule);
		if (err)
			sframe_problem(v, err, fde->index, k);
#ifndef SFRAME_ACCESS_HEADER
		if (v->rows)
			sframe_rows_fre(v->rows, fde, k, &fre, err ? NULL : &rule);
#endif
	}
	return p - fde->fres;
}

/*
 * Did resolving the start of @fde wrap around the address space (the
 * section address plus a start field of at most 4 bytes: v1, v2)?  The
 * search orders such starts by their fields (struct sframe_key), the rest
 * of the core by the resolved addresses: the orders agree when all starts
 * wrap or none does.
 */
static bool sframe_start_wraps(const struct sframe_section *sec,
			       const struct sframe_fde *fde)
{
	s64 rel = fde->start - sec->addr;

	if (sec->version >= SFRAME_VERSION_3)
		return false;
	return rel >= 0 ? fde->start < sec->addr : fde->start >= sec->addr;
}

/* sframe_validate(), building rows meanwhile if @v.rows is set. */
static int sframe_validate_all(const struct sframe_section *sec,
			       struct sframe_validation v)
{
	u64 fres = 0, bytes = 0, prev_start = 0;
	bool unsorted = false, wraps = false;
	struct sframe_fde fde;
	u32 i, pos;
	int err;

	for (i = 0; i < sec->num_fdes; i++) {
		pos = i;
#ifndef SFRAME_ACCESS_HEADER
		/*
		 * Rows are built in address order: an indexed section's FDEs
		 * in the order of its index (what is checked does not depend
		 * on the order; the sort order check has no index to follow).
		 */
		if (v.rows)
			pos = sframe_pos(sec, i);
#endif
		err = sframe_get_fde(sec, pos, &fde);
		if (err) {
			sframe_problem(&v, err, pos, SFRAME_NO_INDEX);
			continue;
		}
		if (!i)
			wraps = sframe_start_wraps(sec, &fde);
		if ((fde.size && fde.start + fde.size - 1 < fde.start) ||
		    sframe_start_wraps(sec, &fde) != wraps)
			sframe_problem(&v, -SFRAME_E_FUNC_RANGE, pos,
				       SFRAME_NO_INDEX);
		if ((sec->flags & SFRAME_F_FDE_SORTED) && i &&
		    fde.start < prev_start && !unsorted) {
			sframe_problem(&v, -SFRAME_E_UNSORTED, pos,
				       SFRAME_NO_INDEX);
			unsorted = true;
		}
		prev_start = fde.start;
		if (sframe_fde_pcmask(&fde) && sec->version >= SFRAME_VERSION_2 &&
		    !fde.rep_size)
			sframe_problem(&v, -SFRAME_E_REP_SIZE, pos,
				       SFRAME_NO_INDEX);
		fres += fde.num_fres;
#ifndef SFRAME_ACCESS_HEADER
		if (v.rows)
			sframe_rows_begin(v.rows, &fde);
#endif
		bytes += sframe_validate_fres(sec, &fde, &v);
		if (sec->version >= SFRAME_VERSION_3)
			bytes += SFRAME_V3_FDE_ATTR_SIZE;
	}
	if (fres != sec->num_fres)
		sframe_problem(&v, -SFRAME_E_NUM_FRES, SFRAME_NO_INDEX,
			       SFRAME_NO_INDEX);
	if (bytes != sec->fre_end - sec->fre_base)
		sframe_problem(&v, -SFRAME_E_FRE_LEN, SFRAME_NO_INDEX,
			       SFRAME_NO_INDEX);
	return v.first;
}

/**
 * sframe_validate() - check a whole section before trusting it
 * @sec: opened section
 * @report: called once per problem found (may be NULL)
 * @arg: passed to @report
 *
 * Linear in the section size.  Checks every FDE and FRE lies inside the
 * FRE sub-section, FRE types, PCMASK block sizes and FDE types, that FRE
 * starts strictly increase and stay below the function size, that every
 * row decodes (data-word sizes and counts valid for the ABI and FDE type,
 * FLEX control words, register numbers), that function ranges do not wrap,
 * that the FRE count and byte length match the header, and that FDEs are
 * sorted by start address when the header says so.
 *
 * Return: 0 if the section is valid, else the first problem's code.
 */
int sframe_validate(const struct sframe_section *sec,
		    sframe_report_fn report, void *arg)
{
	struct sframe_validation v = { .report = report, .arg = arg };

	return sframe_validate_all(sec, v);
}
EXPORT_SYMBOL_GPL(sframe_validate);

#ifndef SFRAME_ACCESS_HEADER
/* sframe_validate() that builds rows meanwhile (sframe_validate_rows()). */
int sframe_validate_build(const struct sframe_section *sec,
			  struct sframe_rows_builder *bld)
{
	struct sframe_validation v = { .rows = bld };

	return sframe_validate_all(sec, v);
}
#endif
