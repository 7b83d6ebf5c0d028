// SPDX-License-Identifier: GPL-2.0-only
/*
 * DWARF CFI reader of sframe-gen (see cfi.h).
 *
 * A section is a sequence of CIEs and FDEs.  Each FDE's program runs after
 * its CIE's initial instructions, row by row; at each DW_CFA_advance_* or
 * DW_CFA_set_loc the current register rules become a row.  Register rules
 * are kept for SP, FP and RA only (other registers do not matter to
 * SFrame); the remember/restore stack is bounded, every loop ends with its
 * input, and every read is bounds-checked.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cfi.h"

#define DW_CFA_advance_loc		0x40
#define DW_CFA_offset			0x80
#define DW_CFA_restore			0xc0
#define DW_CFA_nop			0x00
#define DW_CFA_set_loc			0x01
#define DW_CFA_advance_loc1		0x02
#define DW_CFA_advance_loc2		0x03
#define DW_CFA_advance_loc4		0x04
#define DW_CFA_offset_extended		0x05
#define DW_CFA_restore_extended		0x06
#define DW_CFA_undefined		0x07
#define DW_CFA_same_value		0x08
#define DW_CFA_register			0x09
#define DW_CFA_remember_state		0x0a
#define DW_CFA_restore_state		0x0b
#define DW_CFA_def_cfa			0x0c
#define DW_CFA_def_cfa_register		0x0d
#define DW_CFA_def_cfa_offset		0x0e
#define DW_CFA_def_cfa_expression	0x0f
#define DW_CFA_expression		0x10
#define DW_CFA_offset_extended_sf	0x11
#define DW_CFA_def_cfa_sf		0x12
#define DW_CFA_def_cfa_offset_sf	0x13
#define DW_CFA_val_offset		0x14
#define DW_CFA_val_offset_sf		0x15
#define DW_CFA_val_expression		0x16
#define DW_CFA_AARCH64_negate_ra_state	0x2d
#define DW_CFA_GNU_args_size		0x2e
#define DW_CFA_GNU_negative_offset_extended 0x2f

#define DW_EH_PE_omit		0xff
#define DW_EH_PE_absptr		0x00
#define DW_EH_PE_uleb128	0x01
#define DW_EH_PE_udata2		0x02
#define DW_EH_PE_udata4		0x03
#define DW_EH_PE_udata8		0x04
#define DW_EH_PE_sleb128	0x09
#define DW_EH_PE_sdata2		0x0a
#define DW_EH_PE_sdata4		0x0b
#define DW_EH_PE_sdata8		0x0c
#define DW_EH_PE_pcrel		0x10
#define DW_EH_PE_indirect	0x80

/* Remembered states per FDE, and rows per function. */
#define CFI_MAX_STATES		16
#define CFI_MAX_ROWS		1048576

/*
 * A register's rule, for the three registers SFrame knows: unchanged,
 * undefined, saved at CFA + off (R_OFFSET) or its value CFA + off
 * (R_VAL_OFFSET), in register @reg (R_REG), saved at @reg + off (R_AT_REG,
 * DW_CFA_expression DW_OP_bregN) or its value @reg + off (R_VAL_REG), or
 * anything else (R_OTHER).
 */
enum {
	R_SAME, R_UNDEF, R_OFFSET, R_VAL_OFFSET, R_REG, R_AT_REG, R_VAL_REG,
	R_OTHER
};

struct cfi_reg {
	uint8_t kind;
	uint64_t reg;
	int64_t off;
};

/* CFA = @cfa_reg + @cfa_off, loaded if @cfa_deref; @cfa_expr: other. */
struct cfi_state {
	uint64_t cfa_reg;
	int64_t cfa_off;
	int cfa_deref;
	int cfa_expr;
	struct cfi_reg sp, fp, ra;
	int mangled;
};

struct cur {
	const uint8_t *p, *end;
	int be;
	int bad;
};

static uint64_t rd(struct cur *c, int n)
{
	uint64_t v = 0;
	int i;

	if (c->bad || c->end - c->p < n) {
		c->bad = 1;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (c->be ? 8 * (n - 1 - i) : 8 * i);
	c->p += n;
	return v;
}

/* LEB128, unsigned or (@sign) signed; bits past 64 are dropped. */
static uint64_t leb(struct cur *c, int sign)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t b;

	do {
		if (c->bad || c->p >= c->end) {
			c->bad = 1;
			return 0;
		}
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		v |= ~0ULL << shift;
	return v;
}

#define uleb(c)	leb(c, 0)
#define sleb(c)	((int64_t)leb(c, 1))

/* An encoded pointer at @c (at section address @here). */
static uint64_t rd_ptr(struct cur *c, uint8_t enc, uint64_t here, int asz)
{
	uint64_t v;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
		v = rd(c, asz);
		break;
	case DW_EH_PE_uleb128:
		v = uleb(c);
		break;
	case DW_EH_PE_udata2:
		v = rd(c, 2);
		break;
	case DW_EH_PE_udata4:
		v = rd(c, 4);
		break;
	case DW_EH_PE_udata8:
		v = rd(c, 8);
		break;
	case DW_EH_PE_sleb128:
		v = sleb(c);
		break;
	case DW_EH_PE_sdata2:
		v = (int64_t)(int16_t)rd(c, 2);
		break;
	case DW_EH_PE_sdata4:
		v = (int64_t)(int32_t)rd(c, 4);
		break;
	case DW_EH_PE_sdata8:
		v = rd(c, 8);
		break;
	default:
		c->bad = 1;
		return 0;
	}
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		v += here;
	else if (enc & 0x70)
		c->bad = 1;	/* datarel, textrel, funcrel: not in our inputs */
	if (enc & DW_EH_PE_indirect)
		c->bad = 1;
	return v;
}

struct cie {
	uint64_t code_align;
	int64_t data_align;
	unsigned int ra_reg;
	uint8_t fde_enc;
	int aug_z, signal, pauth_b;
	const uint8_t *insns, *insns_end;
};

static void fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int parse_cie(const struct cfi_abi *abi, const uint8_t *start,
		     const uint8_t *end, struct cie *cie)
{
	struct cur c = { .p = start, .end = end, .be = abi->be };
	const char *aug;
	uint8_t version;
	size_t n;

	memset(cie, 0, sizeof(*cie));
	cie->fde_enc = DW_EH_PE_absptr;
	version = rd(&c, 1);
	if (c.bad || (version != 1 && version != 3 && version != 4))
		return -1;
	aug = (const char *)c.p;
	n = strnlen(aug, end - c.p);
	if (n == (size_t)(end - c.p))
		return -1;
	c.p += n + 1;
	if (version == 4) {
		rd(&c, 1);	/* address size */
		rd(&c, 1);	/* segment selector size */
	}
	if (!strncmp(aug, "eh", 2))
		rd(&c, abi->addr_size);
	cie->code_align = uleb(&c);
	cie->data_align = sleb(&c);
	cie->ra_reg = version == 1 ? rd(&c, 1) : uleb(&c);
	if (aug[0] == 'z') {
		uint64_t len = uleb(&c);
		const uint8_t *aend;
		const char *a;

		if (c.bad || len > (uint64_t)(c.end - c.p))
			return -1;
		aend = c.p + len;
		cie->aug_z = 1;
		for (a = aug + 1; *a; a++) {
			struct cur ac = { .p = c.p, .end = aend, .be = abi->be };

			switch (*a) {
			case 'R':
				cie->fde_enc = rd(&ac, 1);
				break;
			case 'L':
				rd(&ac, 1);
				break;
			case 'P': {
				uint8_t penc = rd(&ac, 1);

				rd_ptr(&ac, penc & 0x7f, 0, abi->addr_size);
				ac.bad = 0;	/* personality: not needed */
				break;
			}
			case 'S':
				cie->signal = 1;
				continue;
			case 'B':
				cie->pauth_b = 1;
				continue;
			case 'G':
				continue;
			default:
				return -1;
			}
			if (ac.bad)
				return -1;
			c.p = ac.p;
		}
		c.p = aend;
	} else if (aug[0] && strcmp(aug, "eh")) {
		return -1;	/* augmentation we cannot skip */
	}
	if (c.bad || !cie->code_align)
		return -1;
	cie->insns = c.p;
	cie->insns_end = end;
	return 0;
}

static struct cfi_reg *reg_of(const struct cfi_abi *abi, struct cfi_state *s,
			      uint64_t r)
{
	if (r == abi->sp)
		return &s->sp;
	if (r == abi->fp)
		return &s->fp;
	if (r == abi->ra)
		return &s->ra;
	return NULL;
}

#define DW_OP_deref	0x06
#define DW_OP_breg0	0x70
#define DW_OP_breg31	0x8f
#define DW_OP_bregx	0x92

/*
 * The one DWARF expression shape SFrame can hold: DW_OP_bregN off (or
 * DW_OP_bregx N off), then DW_OP_deref if @deref may be set.  Return 0
 * with @reg, @off (and @deref) set, or -1 for anything else.
 */
static int breg_expr(const uint8_t *p, uint64_t len, int be, uint64_t *reg,
		     int64_t *off, int *deref)
{
	struct cur c = { .p = p, .end = p + len, .be = be };
	uint8_t op = rd(&c, 1);

	if (op >= DW_OP_breg0 && op <= DW_OP_breg31)
		*reg = op - DW_OP_breg0;
	else if (op == DW_OP_bregx)
		*reg = uleb(&c);
	else
		return -1;
	*off = sleb(&c);
	if (deref)
		*deref = 0;
	if (deref && c.p < c.end && *c.p == DW_OP_deref) {
		c.p++;
		*deref = 1;
	}
	return c.bad || c.p != c.end ? -1 : 0;
}

/* @r as a location; 0, or the reason it is none (@why_bad). */
static int to_loc(const struct cfi_reg *r, struct cfi_loc *l, int why_bad)
{
	memset(l, 0, sizeof(*l));
	switch (r->kind) {
	case R_SAME:
	case R_UNDEF:		/* FP undefined: nothing to restore */
		l->kind = CFI_LOC_SAME;
		return 0;
	case R_OFFSET:
	case R_VAL_OFFSET:
		l->kind = CFI_LOC_CFA;
		l->deref = r->kind == R_OFFSET;
		break;
	case R_REG:
	case R_AT_REG:
	case R_VAL_REG:
		if (r->reg > 0xffff)
			return why_bad;
		l->kind = CFI_LOC_REG;
		l->reg = r->reg;
		l->deref = r->kind == R_AT_REG;
		break;
	default:
		return why_bad;
	}
	if (r->off != (int32_t)r->off)
		return CFI_OFFSET;
	l->off = r->off;
	return 0;
}

/*
 * The row SFrame would hold for state @s (pc offset @start): @row->why if
 * no version can hold it, @row->flex if only a v3 FLEX FDE can.
 */
static void to_row(const struct cfi_abi *abi, const struct cfi_state *s,
		   uint32_t start, struct cfi_row *row)
{
	int why;

	memset(row, 0, sizeof(*row));
	row->start = start;
	row->mangled = s->mangled;
	if (s->cfa_expr || s->cfa_reg > 0xffff) {
		row->why = CFI_CFA_EXPR;
		return;
	}
	if (s->cfa_off != (int32_t)s->cfa_off) {
		row->why = CFI_OFFSET;
		return;
	}
	row->cfa = (struct cfi_loc){ .kind = CFI_LOC_REG, .reg = s->cfa_reg,
				     .deref = s->cfa_deref, .off = s->cfa_off };
	if (s->cfa_deref)
		row->flex = CFI_CFA_EXPR;
	else if (s->cfa_reg != abi->sp && s->cfa_reg != abi->fp)
		row->flex = CFI_CFA_REG;

	if (s->ra.kind == R_UNDEF) {
		row->ra.kind = CFI_LOC_UNDEF;
	} else {
		why = to_loc(&s->ra, &row->ra, CFI_RA_RULE);
		if (why) {
			row->why = why;
			return;
		}
	}
	why = to_loc(&s->fp, &row->fp, CFI_FP_RULE);
	if (why) {
		row->why = why;
		return;
	}
	/* A value CFA + off, unloaded, has no FLEX encoding (it is padding). */
	if ((row->ra.kind == CFI_LOC_CFA && !row->ra.deref) ||
	    (row->fp.kind == CFI_LOC_CFA && !row->fp.deref)) {
		row->why = row->ra.kind == CFI_LOC_CFA && !row->ra.deref ?
			   CFI_RA_RULE : CFI_FP_RULE;
		return;
	}
	/*
	 * x86_64: the return address is always at CFA - 8 (the call put it
	 * there); SFrame does not store that rule.
	 */
	if (abi->machine == 62 && row->ra.kind == CFI_LOC_CFA &&
	    row->ra.off == -8)
		row->ra.kind = CFI_LOC_SAME;
	if (!row->flex && (row->ra.kind == CFI_LOC_REG ||
			   (abi->machine == 62 && row->ra.kind == CFI_LOC_CFA)))
		row->flex = CFI_RA_RULE;
	if (!row->flex && row->fp.kind == CFI_LOC_REG)
		row->flex = CFI_FP_RULE;
}

struct prog {
	const struct cfi_abi *abi;
	const struct cie *cie;
	struct cfi_state init, s;
	struct cfi_state stack[CFI_MAX_STATES];
	int depth;
	uint64_t loc;		/* offset from the function start */
	uint64_t size;
	struct cfi_fde *fde;
	uint32_t cap;
};

static int same_loc(const struct cfi_loc *a, const struct cfi_loc *b)
{
	return a->kind == b->kind && a->deref == b->deref && a->reg == b->reg &&
	       a->off == b->off;
}

/* The same rule for SFrame (start aside)? */
static int same_row(const struct cfi_row *a, const struct cfi_row *b)
{
	return a->why == b->why && a->flex == b->flex &&
	       a->mangled == b->mangled && same_loc(&a->cfa, &b->cfa) &&
	       same_loc(&a->ra, &b->ra) && same_loc(&a->fp, &b->fp);
}

static int add_row(struct prog *pr)
{
	struct cfi_fde *f = pr->fde;
	struct cfi_row row;

	if (pr->loc >= pr->size)
		return 0;
	to_row(pr->abi, &pr->s, pr->loc, &row);
	/* A row at the same address replaces the one before. */
	if (f->nrows && f->rows[f->nrows - 1].start == row.start) {
		f->nrows--;
		if (!f->nrows || !same_row(&f->rows[f->nrows - 1], &row))
			f->rows[f->nrows++] = row;
		return 0;
	}
	/* CFI rows for other registers look the same to SFrame: one row. */
	if (f->nrows && same_row(&f->rows[f->nrows - 1], &row))
		return 0;
	if (f->nrows >= CFI_MAX_ROWS)
		return -1;
	if (f->nrows == pr->cap) {
		struct cfi_row *n;

		pr->cap = pr->cap ? 2 * pr->cap : 8;
		n = realloc(f->rows, pr->cap * sizeof(*n));
		if (!n)
			return -1;
		f->rows = n;
	}
	f->rows[f->nrows++] = row;
	return 0;
}

/* Run @p..@end; @initial: the CIE's instructions (no rows, sets init). */
static int run(struct prog *pr, const uint8_t *p, const uint8_t *end,
	       int initial, uint64_t fde_start, const char **why)
{
	struct cur c = { .p = p, .end = end, .be = pr->abi->be };
	const struct cie *cie = pr->cie;
	struct cfi_state *s = &pr->s;

	while (c.p < c.end && !c.bad) {
		uint8_t op = rd(&c, 1);
		uint64_t r, delta = 0;
		struct cfi_reg *reg;
		int64_t off;
		int advance = 0;

		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			delta = (op & 0x3f) * cie->code_align;
			advance = 1;
			break;
		case DW_CFA_offset:
			off = uleb(&c) * cie->data_align;
			reg = reg_of(pr->abi, s, op & 0x3f);
			if (reg) {
				reg->kind = R_OFFSET;
				reg->off = off;
			}
			continue;
		case DW_CFA_restore:
			reg = reg_of(pr->abi, s, op & 0x3f);
			if (reg)
				*reg = *reg_of(pr->abi, &pr->init, op & 0x3f);
			continue;
		}
		switch (advance ? DW_CFA_nop : op) {
		case DW_CFA_nop:
			break;
		case DW_CFA_set_loc: {
			uint64_t to = rd_ptr(&c, cie->fde_enc, 0, pr->abi->addr_size);

			if (to < fde_start + pr->loc) {
				*why = "DW_CFA_set_loc goes backwards";
				return -1;
			}
			delta = to - fde_start - pr->loc;
			advance = 1;
			break;
		}
		case DW_CFA_advance_loc1:
			delta = rd(&c, 1) * cie->code_align;
			advance = 1;
			break;
		case DW_CFA_advance_loc2:
			delta = rd(&c, 2) * cie->code_align;
			advance = 1;
			break;
		case DW_CFA_advance_loc4:
			delta = rd(&c, 4) * cie->code_align;
			advance = 1;
			break;
		case DW_CFA_offset_extended:
			r = uleb(&c);
			off = uleb(&c) * cie->data_align;
			goto offset;
		case DW_CFA_offset_extended_sf:
			r = uleb(&c);
			off = sleb(&c) * cie->data_align;
offset:
			reg = reg_of(pr->abi, s, r);
			if (reg) {
				reg->kind = R_OFFSET;
				reg->off = off;
			}
			break;
		case DW_CFA_GNU_negative_offset_extended:
			r = uleb(&c);
			off = -(int64_t)uleb(&c) * cie->data_align;
			goto offset;
		case DW_CFA_restore_extended:
			r = uleb(&c);
			reg = reg_of(pr->abi, s, r);
			if (reg)
				*reg = *reg_of(pr->abi, &pr->init, r);
			break;
		case DW_CFA_undefined:
		case DW_CFA_same_value:
			r = uleb(&c);
			reg = reg_of(pr->abi, s, r);
			if (reg)
				reg->kind = op == DW_CFA_undefined ? R_UNDEF : R_SAME;
			break;
		case DW_CFA_register: {
			uint64_t to;

			r = uleb(&c);
			to = uleb(&c);
			reg = reg_of(pr->abi, s, r);
			if (reg) {
				reg->kind = R_REG;
				reg->reg = to;
				reg->off = 0;
			}
			break;
		}
		case DW_CFA_remember_state:
			if (pr->depth >= CFI_MAX_STATES) {
				*why = "too many DW_CFA_remember_state";
				return -1;
			}
			pr->stack[pr->depth++] = *s;
			break;
		case DW_CFA_restore_state:
			if (!pr->depth) {
				*why = "DW_CFA_restore_state without remember";
				return -1;
			}
			/* RA-signing state included, as libgcc and gas do. */
			*s = pr->stack[--pr->depth];
			break;
		case DW_CFA_def_cfa:
			s->cfa_reg = uleb(&c);
			s->cfa_off = uleb(&c);
			s->cfa_expr = 0;
			s->cfa_deref = 0;
			break;
		case DW_CFA_def_cfa_sf:
			s->cfa_reg = uleb(&c);
			s->cfa_off = sleb(&c) * cie->data_align;
			s->cfa_expr = 0;
			s->cfa_deref = 0;
			break;
		case DW_CFA_def_cfa_register:
			s->cfa_reg = uleb(&c);
			/* As libgcc: back to register + offset. */
			s->cfa_expr = 0;
			s->cfa_deref = 0;
			break;
		case DW_CFA_def_cfa_offset:
			s->cfa_off = uleb(&c);
			break;
		case DW_CFA_def_cfa_offset_sf:
			s->cfa_off = sleb(&c) * cie->data_align;
			break;
		case DW_CFA_def_cfa_expression: {
			int64_t eoff;
			uint64_t ereg;
			int deref;

			r = uleb(&c);
			if (c.bad || r > (uint64_t)(c.end - c.p)) {
				c.bad = 1;
				break;
			}
			/* CFA = [load] bregN + off, AMD64's realigned frames. */
			if (!breg_expr(c.p, r, c.be, &ereg, &eoff, &deref)) {
				s->cfa_reg = ereg;
				s->cfa_off = eoff;
				s->cfa_deref = deref;
				s->cfa_expr = 0;
			} else {
				s->cfa_expr = 1;
			}
			c.p += r;
			break;
		}
		case DW_CFA_expression:
		case DW_CFA_val_expression: {
			int64_t eoff;
			uint64_t ereg;

			r = uleb(&c);
			delta = uleb(&c);
			if (c.bad || delta > (uint64_t)(c.end - c.p)) {
				c.bad = 1;
				break;
			}
			reg = reg_of(pr->abi, s, r);
			if (reg && !breg_expr(c.p, delta, c.be, &ereg, &eoff,
					      NULL)) {
				reg->kind = op == DW_CFA_expression ? R_AT_REG :
								      R_VAL_REG;
				reg->reg = ereg;
				reg->off = eoff;
			} else if (reg) {
				reg->kind = R_OTHER;
			}
			c.p += delta;
			delta = 0;
			break;
		}
		case DW_CFA_val_offset:
		case DW_CFA_val_offset_sf:
			r = uleb(&c);
			if (op == DW_CFA_val_offset)
				off = uleb(&c) * cie->data_align;
			else
				off = sleb(&c) * cie->data_align;
			reg = reg_of(pr->abi, s, r);
			if (reg) {
				reg->kind = R_VAL_OFFSET;
				reg->off = off;
			}
			break;
		case DW_CFA_AARCH64_negate_ra_state:
			if (pr->abi->machine != 183) {
				*why = "DW_CFA_GNU_window_save (SPARC) on this machine";
				return -1;
			}
			s->mangled = !s->mangled;
			break;
		case DW_CFA_GNU_args_size:
			uleb(&c);
			break;
		default:
			*why = "unknown DW_CFA opcode";
			return -1;
		}
		if (advance && !initial) {
			if (add_row(pr))
				goto nomem;
			/* Past the end nothing is recorded: no wrap-around. */
			if (delta > pr->size - pr->loc)
				pr->loc = pr->size;
			else
				pr->loc += delta;
		}
	}
	if (c.bad) {
		*why = "CFA program runs past its entry";
		return -1;
	}
	return 0;
nomem:
	*why = "too many rows";
	return -1;
}

const char *cfi_why_str(int why)
{
	static const char * const names[CFI_WHY_MAX] = {
		[CFI_OK] = "ok",
		[CFI_CFA_REG] = "CFA based on a register other than SP or FP",
		[CFI_CFA_EXPR] = "CFA given by a DWARF expression",
		[CFI_RA_RULE] = "return address neither saved nor in its register",
		[CFI_FP_RULE] = "frame pointer neither saved nor unchanged",
		[CFI_OFFSET] = "offset out of range",
		[CFI_RA_UNDEF] = "return address undefined (outermost frame)",
	};

	return why >= 0 && why < CFI_WHY_MAX ? names[why] : "?";
}

void cfi_free(struct cfi_fde *fdes, size_t nfdes)
{
	size_t i;

	for (i = 0; i < nfdes; i++)
		free(fdes[i].rows);
	free(fdes);
}

int cfi_read(const struct cfi_abi *abi, const uint8_t *data, size_t size,
	     uint64_t addr, int eh, struct cfi_fde **fdes, size_t *nfdes,
	     char *err, size_t errlen)
{
	const uint8_t *p = data, *end = data + size;
	struct cfi_fde *out = NULL;
	size_t n = 0, cap = 0;

	*fdes = NULL;
	*nfdes = 0;
	while (p < end) {
		struct cur c = { .p = p, .end = end, .be = abi->be };
		uint64_t len, id, id_at;
		const uint8_t *body, *next;
		int is64 = 0;

		len = rd(&c, 4);
		if (c.bad)
			goto trunc;
		if (len == 0xffffffff) {
			len = rd(&c, 8);
			is64 = 1;
		}
		if (!len && eh)
			break;		/* .eh_frame terminator */
		if (c.bad || len > (uint64_t)(end - c.p))
			goto trunc;
		next = c.p + len;
		id_at = c.p - data;
		id = rd(&c, is64 ? 8 : 4);
		body = c.p;
		if (c.bad)
			goto trunc;
		if ((eh && id == 0) ||
		    (!eh && id == (is64 ? ~0ULL : 0xffffffffULL))) {
			p = next;	/* a CIE: parsed when an FDE uses it */
			continue;
		}
		{
			const uint8_t *cie_at = eh ? data + id_at - id : data + id;
			struct cur cc = { .p = cie_at, .end = end, .be = abi->be };
			struct prog pr = { .abi = abi };
			struct cie cie;
			struct cfi_fde *f;
			uint64_t clen, start, range;
			const char *why = NULL;

			if ((eh && id > id_at) || (!eh && id >= size))
				goto bad_cie;
			clen = rd(&cc, 4);
			if (cc.bad || clen == 0xffffffff ||
			    clen > (uint64_t)(end - cc.p) ||
			    parse_cie(abi, cc.p + 4, cc.p + clen, &cie))
				goto bad_cie;
			c.p = body;
			start = rd_ptr(&c, cie.fde_enc, addr + (c.p - data),
				       abi->addr_size);
			range = rd_ptr(&c, cie.fde_enc & 0x0f, 0,
				       abi->addr_size);
			if (cie.aug_z) {
				uint64_t alen = uleb(&c);

				if (c.bad || alen > (uint64_t)(next - c.p))
					goto trunc;
				c.p += alen;
			}
			if (c.bad || c.p > next)
				goto trunc;
			if (n == cap) {
				struct cfi_fde *nf;

				cap = cap ? 2 * cap : 64;
				nf = realloc(out, cap * sizeof(*nf));
				if (!nf) {
					fail(err, errlen, "out of memory");
					goto out;
				}
				out = nf;
			}
			f = &out[n++];
			memset(f, 0, sizeof(*f));
			f->start = start;
			f->size = range;
			f->pauth_b = cie.pauth_b;
			f->signal = cie.signal;
			pr.cie = &cie;
			pr.size = range;
			pr.fde = f;
			memset(&pr.s, 0, sizeof(pr.s));
			pr.s.cfa_reg = abi->sp;
			if (run(&pr, cie.insns, cie.insns_end, 1, start, &why)) {
				fail(err, errlen, "CIE for the FDE at offset %#zx: %s",
				     (size_t)(p - data), why);
				goto out;
			}
			pr.init = pr.s;
			pr.depth = 0;
			if (run(&pr, c.p, next, 0, start, &why) || add_row(&pr)) {
				fail(err, errlen, "FDE at offset %#zx: %s",
				     (size_t)(p - data), why ? why : "too many rows");
				goto out;
			}
		}
		p = next;
	}
	*fdes = out;
	*nfdes = n;
	return 0;
trunc:
	fail(err, errlen, "entry at offset %#zx runs past the section's %zu bytes",
	     (size_t)(p - data), size);
	goto out;
bad_cie:
	fail(err, errlen, "FDE at offset %#zx: its CIE is missing or malformed",
	     (size_t)(p - data));
out:
	cfi_free(out, n);
	return -1;
}
