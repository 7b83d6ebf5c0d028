// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFrame core: where the fields of a section lie, for programs that patch
 * sections in place (the hostile-section tests forge their own to attack
 * the kernel's user unwinder).  Host programs only: the kernel has no use
 * for them.
 */
#include "internal.h"

/* An FDE field: in the index entry or (attr) the v3 attribute. */
struct sframe_fde_layout {
	u8 attr;
	u8 off;
	u8 len;
};

#define SFRAME_FLD(o, l)	{ .off = (o), .len = (l) }
#define SFRAME_ATTR_FLD(o, l)	{ .attr = 1, .off = (o), .len = (l) }

/* v2 adds rep_size to the v1 fields. */
#define SFRAME_V1_FDE_FIELDS						\
	[SFRAME_FIELD_FDE_START] = SFRAME_FLD(SFRAME_V1_FDE_START, 4),	\
	[SFRAME_FIELD_FDE_SIZE] = SFRAME_FLD(SFRAME_V1_FDE_FUNC_SIZE, 4), \
	[SFRAME_FIELD_FDE_FRE_OFF] = SFRAME_FLD(SFRAME_V1_FDE_FRE_OFF, 4), \
	[SFRAME_FIELD_FDE_NUM_FRES] = SFRAME_FLD(SFRAME_V1_FDE_NUM_FRES, 4), \
	[SFRAME_FIELD_FDE_INFO] = SFRAME_FLD(SFRAME_V1_FDE_INFO, 1)

static const struct sframe_fde_layout
sframe_fde_layouts[SFRAME_VERSION_3][SFRAME_FIELD_FDE_REP_SIZE + 1] = {
	[SFRAME_VERSION_1 - 1] = { SFRAME_V1_FDE_FIELDS },
	[SFRAME_VERSION_2 - 1] = {
		SFRAME_V1_FDE_FIELDS,
		[SFRAME_FIELD_FDE_REP_SIZE] =
			SFRAME_FLD(SFRAME_V2_FDE_REP_SIZE, 1),
	},
	[SFRAME_VERSION_3 - 1] = {
		[SFRAME_FIELD_FDE_START] = SFRAME_FLD(SFRAME_V3_FDE_START, 8),
		[SFRAME_FIELD_FDE_SIZE] =
			SFRAME_FLD(SFRAME_V3_FDE_FUNC_SIZE, 4),
		[SFRAME_FIELD_FDE_FRE_OFF] =
			SFRAME_FLD(SFRAME_V3_FDE_FRE_OFF, 4),
		[SFRAME_FIELD_FDE_NUM_FRES] =
			SFRAME_ATTR_FLD(SFRAME_V3_ATTR_NUM_FRES, 2),
		[SFRAME_FIELD_FDE_INFO] =
			SFRAME_ATTR_FLD(SFRAME_V3_ATTR_INFO, 1),
		[SFRAME_FIELD_FDE_INFO2] =
			SFRAME_ATTR_FLD(SFRAME_V3_ATTR_INFO2, 1),
		[SFRAME_FIELD_FDE_REP_SIZE] =
			SFRAME_ATTR_FLD(SFRAME_V3_ATTR_REP_SIZE, 1),
	},
};

/**
 * sframe_fde_field() - where one field of a function descriptor lies
 * @sec: opened section
 * @fde: the descriptor (from sframe_get_fde())
 * @field: an FDE field, %SFRAME_FIELD_FDE_START to %SFRAME_FIELD_FDE_REP_SIZE
 * @loc: result: section offset and size in bytes; size 0 if the version
 *       has no such field (info2 before v3, rep_size in v1)
 *
 * Return: 0, or -SFRAME_E_INVAL for a field that is no FDE field.
 */
int sframe_fde_field(const struct sframe_section *sec,
		     const struct sframe_fde *fde, enum sframe_field_id field,
		     struct sframe_field *loc)
{
	const struct sframe_fde_layout *l;

	if (field > SFRAME_FIELD_FDE_REP_SIZE ||
	    sec->version < SFRAME_VERSION_1 || sec->version > SFRAME_VERSION_3)
		return -SFRAME_E_INVAL;
	l = &sframe_fde_layouts[sec->version - 1][field];
	loc->off = l->off + (l->attr ? fde->fres - SFRAME_V3_FDE_ATTR_SIZE :
			     sec->fde_base + fde->index * sec->fde_size);
	loc->len = l->len;
	return 0;
}

/**
 * sframe_fre_field() - where one field of a frame row entry lies
 * @sec: opened section
 * @fde: the function the row belongs to
 * @fre: the row (from sframe_read_fre())
 * @field: an FRE field, %SFRAME_FIELD_FRE_START to %SFRAME_FIELD_FRE_FP
 * @loc: result: section offset and size in bytes
 *
 * The data-word fields are the words sframe_fre_rule() reads the CFA
 * offset, the RA and the FP from (the offset word of a FLEX pair).  Their
 * size is 0 when the row has no such word: the header fixes the RA slot
 * (AMD64), the row leaves it out, or a FLEX row marks the RA as padding.
 * A DEFAULT row's RA padding word (0) is the RA field.
 *
 * Return: 0, or a negative SFRAME_E_* code for a data-word field of a row
 * that sframe_fre_rule() rejects.
 */
int sframe_fre_field(const struct sframe_section *sec,
		     const struct sframe_fde *fde, const struct sframe_fre *fre,
		     enum sframe_field_id field, struct sframe_field *loc)
{
	unsigned int asz = 1U << SFRAME_FUNC_FRE_TYPE(fde->info), idx;
	struct sframe_word_map m;
	struct sframe_words w;
	int type, err;

	if (SFRAME_FUNC_FRE_TYPE(fde->info) > SFRAME_FRE_TYPE_ADDR4)
		return -SFRAME_E_FRE_TYPE;
	*loc = (struct sframe_field){ .off = fre->off };
	switch (field) {
	case SFRAME_FIELD_FRE_START:
		loc->len = asz;
		return 0;
	case SFRAME_FIELD_FRE_INFO:
		loc->off += asz;
		loc->len = 1;
		return 0;
	case SFRAME_FIELD_FRE_CFA:
	case SFRAME_FIELD_FRE_RA:
	case SFRAME_FIELD_FRE_FP:
		break;
	default:
		return -SFRAME_E_INVAL;
	}

	type = sframe_fde_type(sec, fde);
	if (type < 0)
		return type;
	err = sframe_read_words(sec, fde, fre, false, &w);
	if (err || !w.n)
		return err;
	if (type == SFRAME_FDE_TYPE_FLEX)
		err = sframe_map_flex(&w, &m);
	else
		err = sframe_map_default(sec, &w, &m);
	if (err)
		return err;

	idx = field == SFRAME_FIELD_FRE_CFA ? m.cfa :
	      field == SFRAME_FIELD_FRE_RA ? m.ra : m.fp;
	if (idx != SFRAME_NO_WORD) {
		loc->len = 1U << SFRAME_FRE_WORD_SIZE(fre->info);
		loc->off += asz + 1 + idx * loc->len;
	}
	return 0;
}
