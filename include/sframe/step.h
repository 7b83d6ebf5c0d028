/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One frame step: from a frame's registers and the rule of its PC to its
 * caller's registers.  The kernel unwinder (kernel/unwind.c), the user-space
 * unwinder for perf (kernel/unwind_user.c) and the host tests all step with
 * sframe_step(); they differ only in how they read memory (struct
 * sframe_step_mem) and in what they do with the result (reliability rules,
 * return-address hooks, the end of a walk).
 *
 * A rule comes from an SFrame row (sframe_find()), from a kernel annotation,
 * or is the constant frame-record rule (sframe_fp_record_rule()) with which
 * both walkers go on where there is no row: a frame without SFrame is
 * stepped exactly like one with it.
 *
 * The step is freestanding and allocation-free; it is inlined into each
 * walker, with the walker's read function, so that the common case costs
 * no indirect call.
 */
#ifndef _SFRAME_STEP_H
#define _SFRAME_STEP_H

#include "sframe.h"

/* struct sframe_frame.flags */
#define SFRAME_FRAME_EXACT	0x1	/* pc was interrupted, not a return address */
#define SFRAME_FRAME_LR		0x2	/* lr holds the frame's live link register */
#define SFRAME_FRAME_SP_LOW	0x4	/* sp is only a lower bound (see below) */

/**
 * struct sframe_frame - the registers that locate one frame
 * @pc: its PC: a return address unless %SFRAME_FRAME_EXACT
 * @sp: its stack pointer
 * @fp: its frame pointer register
 * @lr: its link register (AArch64, s390x), valid with %SFRAME_FRAME_LR
 * @flags: %SFRAME_FRAME_*
 *
 * Only an interrupted frame (or the walker's own) knows its link register.
 * After a frame-record step on AArch64 the caller's SP is not known: the
 * record lies at the bottom of the caller's frame, so SP is only a lower
 * bound (%SFRAME_FRAME_SP_LOW), good for direction checks but not as the
 * base of a CFA rule.
 */
struct sframe_frame {
	unsigned long pc, sp, fp, lr;
	unsigned int flags;
};

/**
 * struct sframe_step_mem - how a walker reads the stack it walks
 * @read: load the word at an address; false if it may not be read
 *        (outside the walk's stacks, misaligned, not mapped)
 * @below: may a CFA lie below the current SP?  Only on another stack
 *         the walker has not visited yet (kernel IRQ or exception stacks);
 *         NULL: never
 * @span: optional: may the words of [@lo, @hi) be loaded with @load,
 *        all on the stack the walk is on now (no stack switch)?  False
 *        unless @lo < @hi.  When it says yes the step succeeds with the
 *        caller's SP at @hi, so a walker may take the stack below @hi as
 *        consumed right there.  With it, a simple rule
 *        (sframe_step_prepare()) takes one check for all its reads
 * @load: load a word of a range @span allowed
 *
 * @ctx is the walker's argument to each.
 *
 * Walkers define it as a static const object: sframe_step() is always
 * inlined, so the calls are direct.
 */
struct sframe_step_mem {
	bool (*read)(void *ctx, unsigned long addr, unsigned long *val);
	bool (*below)(void *ctx, unsigned long cfa);
	bool (*span)(void *ctx, unsigned long lo, unsigned long hi);
	unsigned long (*load)(void *ctx, unsigned long addr);
};

/**
 * struct sframe_step_arch - what one step needs of an architecture
 * @sp_reg: DWARF number of the stack pointer
 * @fp_reg: DWARF number of the frame pointer
 * @has_lr: the return address is passed in a register (AArch64, s390x)
 * @strip: remove a pointer authentication code from a return address
 *         (AArch64), or NULL
 */
struct sframe_step_arch {
	u16 sp_reg, fp_reg;
	bool has_lr;
	unsigned long (*strip)(unsigned long ra);
};

/* sframe_step() results; the walker maps them to its own errors. */
enum sframe_step_status {
	SFRAME_STEP_OK,
	SFRAME_STEP_END,	/* outermost frame: the rule's RA is undefined */
	SFRAME_STEP_CFA_REG,	/* CFA based on a register other than SP or FP */
	SFRAME_STEP_SP_LOW,	/* CFA based on SP, which is only a bound */
	SFRAME_STEP_READ,	/* a stack read failed */
	SFRAME_STEP_DIRECTION,	/* CFA misaligned, or not above SP */
	SFRAME_STEP_LR,		/* RA in the link register, not known here */
	SFRAME_STEP_RA,		/* RA neither saved nor in a register */
	SFRAME_STEP_FP,		/* FP from a register other than SP or FP */
};

/* struct sframe_rule.flags, only for sframe_fp_record_rule(): */
#define SFRAME_RULE_SP_LOW	0x8000	/* caller's SP only a lower bound */
/* struct sframe_rows_rule.flags, only from sframe_step_prepare(): */
#define SFRAME_RULE_STEP_SIMPLE	0x4000	/* sframe_step()'s fast path applies */

/* A save slot of a simple rule: loaded from below the CFA, word-aligned. */
static __always_inline bool sframe_step_simple_slot(const struct sframe_loc *loc)
{
	return loc->kind == SFRAME_LOC_CFA && loc->deref && loc->offset < 0 &&
	       !(loc->offset & (sizeof(long) - 1));
}

/**
 * sframe_step_prepare() - classify a rule for sframe_step()'s fast path
 * @arch: the architecture
 * @rule: a rule as the walker will step with it (for the kernel: after
 *        sframe_locs_no_red_zone()); changed only in
 *        %SFRAME_RULE_STEP_SIMPLE
 *
 * A rule is simple when CFA = SP or FP + offset (not loaded), RA is saved
 * at a word-aligned slot below the CFA, FP is saved so or unchanged, the
 * caller's SP is the CFA, and the frame is not outermost: the rule of
 * almost every return address of a kernel or user stack.  Call it last,
 * on a rule that does not change afterwards (decoded rows, the lookup
 * caches); a rule without the flag takes the general path.
 */
static __always_inline void sframe_step_prepare(const struct sframe_step_arch *arch,
						struct sframe_rows_rule *rule)
{
	bool simple = rule->cfa.kind == SFRAME_LOC_REG && !rule->cfa.deref &&
		      (rule->cfa.reg == arch->sp_reg ||
		       rule->cfa.reg == arch->fp_reg) &&
		      sframe_step_simple_slot(&rule->ra) &&
		      (rule->fp.kind == SFRAME_LOC_SAME ||
		       sframe_step_simple_slot(&rule->fp)) &&
		      !rule->sp_from_cfa &&
		      !(rule->flags & (SFRAME_RULE_OUTERMOST | SFRAME_RULE_SP_LOW));

	rule->step_low = 0;
	rule->flags &= ~SFRAME_RULE_STEP_SIMPLE;
	if (!simple)
		return;
	rule->flags |= SFRAME_RULE_STEP_SIMPLE;
	rule->step_low = rule->ra.offset;
	if (rule->fp.kind == SFRAME_LOC_CFA && rule->fp.offset < rule->ra.offset)
		rule->step_low = rule->fp.offset;
}

/**
 * sframe_lr_entry_rule() - the rule at a function's entry on a link-register ABI
 * @arch: the architecture (AArch64, s390x)
 * @rule: result
 *
 * Nothing is on the stack yet: CFA = SP, RA in the link register, FP
 * unchanged.  Only for an interrupted PC (the link register is known),
 * in code that has no row of its own but runs before any frame exists:
 * PLT stubs, the kernel's module branch veneers.
 */
static __always_inline void sframe_lr_entry_rule(const struct sframe_step_arch *arch,
						 struct sframe_rows_rule *rule)
{
	__builtin_memset(rule, 0, sizeof(*rule));
	rule->cfa.kind = SFRAME_LOC_REG;
	rule->cfa.reg = arch->sp_reg;
	rule->ra.kind = SFRAME_LOC_SAME;
	rule->fp.kind = SFRAME_LOC_SAME;
	rule->flags = SFRAME_RULE_CFA_BASE_SP;
}

/**
 * sframe_fp_record_rule() - the rule of a frame found by its frame record
 * @arch: the architecture
 * @aarch64: the record lies at the bottom of the frame (AArch64)
 * @rule: result
 *
 * Both ABIs keep the record {saved FP, RA} at FP: CFA = FP + 16, RA at
 * CFA - 8, FP at CFA - 16.  On x86_64 the record sits right below the
 * caller's SP; on AArch64 below the frame's locals, so the caller's SP is
 * only bounded.
 */
static __always_inline void sframe_fp_record_rule(const struct sframe_step_arch *arch,
						  bool aarch64,
						  struct sframe_rows_rule *rule)
{
	__builtin_memset(rule, 0, sizeof(*rule));
	rule->cfa.kind = SFRAME_LOC_REG;
	rule->cfa.reg = arch->fp_reg;
	rule->cfa.offset = 2 * sizeof(long);
	rule->ra.kind = SFRAME_LOC_CFA;
	rule->ra.deref = 1;
	rule->ra.offset = -(s32)sizeof(long);
	rule->fp.kind = SFRAME_LOC_CFA;
	rule->fp.deref = 1;
	rule->fp.offset = -2 * (s32)sizeof(long);
	if (aarch64)
		rule->flags = SFRAME_RULE_SP_LOW;
}

/*
 * A location of @rule (RA or FP, kind CFA or REG) in frame @f with CFA
 * @cfa: its base (the CFA, or the SP or FP register) plus the offset,
 * loaded if the rule says so.  Return: %SFRAME_STEP_OK, or @bad_reg for
 * a base register the frame does not know.
 */
static __always_inline int sframe_step_loc(const struct sframe_step_arch *arch,
					   const struct sframe_step_mem *mem,
					   void *ctx, const struct sframe_loc *loc,
					   const struct sframe_frame *f,
					   unsigned long cfa, int bad_reg,
					   unsigned long *val,
					   unsigned long *slot)
{
	unsigned long addr;

	if (loc->kind == SFRAME_LOC_CFA)
		addr = cfa;
	else if (loc->reg == arch->fp_reg)
		addr = f->fp;
	else if (loc->reg == arch->sp_reg && !(f->flags & SFRAME_FRAME_SP_LOW))
		addr = f->sp;
	else
		return bad_reg;
	addr += loc->offset;
	*slot = 0;
	if (!loc->deref) {
		*val = addr;
		return SFRAME_STEP_OK;
	}
	*slot = addr;
	return mem->read(ctx, addr, val) ? SFRAME_STEP_OK : SFRAME_STEP_READ;
}

/*
 * sframe_step() for a simple rule on one stack: the CFA, one bounds check
 * for both slots (they lie below the CFA, which becomes the caller's SP),
 * two loads.  Return: false, with nothing written, for anything else (a
 * CFA that is misaligned, not above SP, or off the current stack; a frame
 * whose SP is only a bound): the general path then decides, and says why
 * a step fails.
 */
static __always_inline bool sframe_step_simple(const struct sframe_step_arch *arch,
					       const struct sframe_step_mem *mem,
					       void *ctx,
					       const struct sframe_rows_rule *rule,
					       struct sframe_frame *f,
					       unsigned long *ra,
					       unsigned long *ra_slot)
{
	bool fp_saved = rule->fp.kind == SFRAME_LOC_CFA;
	unsigned long cfa, ra_addr;

	if (unlikely(f->flags & SFRAME_FRAME_SP_LOW))
		return false;
	cfa = (rule->cfa.reg == arch->fp_reg ? f->fp : f->sp) + rule->cfa.offset;
	ra_addr = cfa + rule->ra.offset;
	/* Both slots in [CFA + step_low, CFA): @span rejects a wrap. */
	if (unlikely((cfa & (sizeof(long) - 1)) || cfa <= f->sp ||
		     !mem->span(ctx, cfa + rule->step_low, cfa)))
		return false;
	*ra = mem->load(ctx, ra_addr);
	if (fp_saved)
		f->fp = mem->load(ctx, cfa + rule->fp.offset);
	if (arch->strip)
		*ra = arch->strip(*ra);
	f->sp = cfa;
	f->flags = 0;
	*ra_slot = ra_addr;
	return true;
}

/**
 * sframe_step() - recover the caller's frame
 * @arch: the architecture (a constant)
 * @mem: how to read the stack (a static const object)
 * @ctx: its argument
 * @rule: the rule for @f's PC: its recovery part (struct sframe_rows_rule,
 *        as decoded rows and lookup caches keep it, used where it lies)
 * @f: the frame; on success, the caller's frame without its PC
 * @ra: on success, the return address (the caller's PC), its pointer
 *      authentication code stripped
 * @ra_slot: on success, where @ra was read, or 0 if from the link register
 *
 * The CFA is SP or FP plus an offset (loaded if the rule says so); it must
 * be word-aligned and lie above SP, or at SP only for an interrupted frame
 * (a function's entry), or below it only where @mem allows.  RA and FP are
 * the CFA, SP or FP plus an offset, loaded if the rule says so (SFrame's
 * stack slots, and the register-based rules of v3 FLEX rows such as
 * AMD64's realigned frames: CFA = load(FP - 24), FP = load(FP)); RA may
 * also be the link register of an interrupted frame, FP unchanged.  The
 * caller's SP is CFA plus the rule's adjustment.  Nothing is written to
 * @f unless the step succeeds; the walker checks RA (return hooks, text,
 * user space) and sets the new PC.
 *
 * A rule sframe_step_prepare() found simple, on a walker that checks
 * ranges (@mem->span), takes sframe_step_simple() first: the same result
 * with one range check for both reads and no rule interpretation.
 *
 * Return: %SFRAME_STEP_OK or another enum sframe_step_status.
 */
static __always_inline int sframe_step(const struct sframe_step_arch *arch,
				       const struct sframe_step_mem *mem,
				       void *ctx,
				       const struct sframe_rows_rule *rule,
				       struct sframe_frame *f,
				       unsigned long *ra,
				       unsigned long *ra_slot)
{
	unsigned long cfa, fp = f->fp, slot = 0;
	int st;

	if (mem->span && likely(rule->flags & SFRAME_RULE_STEP_SIMPLE) &&
	    sframe_step_simple(arch, mem, ctx, rule, f, ra, ra_slot))
		return SFRAME_STEP_OK;
	if (unlikely(rule->flags & SFRAME_RULE_OUTERMOST))
		return SFRAME_STEP_END;

	/* CFA */
	if (rule->cfa.reg == arch->sp_reg) {
		if (unlikely(f->flags & SFRAME_FRAME_SP_LOW))
			return SFRAME_STEP_SP_LOW;
		cfa = f->sp;
	} else if (rule->cfa.reg == arch->fp_reg) {
		cfa = f->fp;
	} else {
		return SFRAME_STEP_CFA_REG;
	}
	cfa += rule->cfa.offset;
	if (unlikely(rule->cfa.deref) && !mem->read(ctx, cfa, &cfa))
		return SFRAME_STEP_READ;
	if (unlikely(cfa & (sizeof(long) - 1)))
		return SFRAME_STEP_DIRECTION;
	/* A frame without stack (CFA == SP) only at an interrupted entry. */
	if (cfa == f->sp && !(f->flags & SFRAME_FRAME_EXACT))
		return SFRAME_STEP_DIRECTION;
	if (cfa < f->sp && (!mem->below || !mem->below(ctx, cfa)))
		return SFRAME_STEP_DIRECTION;

	/* RA */
	if (rule->ra.kind == SFRAME_LOC_CFA || rule->ra.kind == SFRAME_LOC_REG) {
		st = sframe_step_loc(arch, mem, ctx, &rule->ra, f, cfa,
				     SFRAME_STEP_RA, ra, &slot);
		if (st)
			return st;
	} else if (rule->ra.kind == SFRAME_LOC_SAME && arch->has_lr) {
		if (!(f->flags & SFRAME_FRAME_LR))
			return SFRAME_STEP_LR;
		*ra = f->lr;
	} else {
		return SFRAME_STEP_RA;
	}

	/* FP */
	if (rule->fp.kind == SFRAME_LOC_CFA || rule->fp.kind == SFRAME_LOC_REG) {
		unsigned long fp_slot;

		st = sframe_step_loc(arch, mem, ctx, &rule->fp, f, cfa,
				     SFRAME_STEP_FP, &fp, &fp_slot);
		if (st)
			return st;
	} else if (rule->fp.kind != SFRAME_LOC_SAME) {
		return SFRAME_STEP_FP;
	}

	if (arch->strip)
		*ra = arch->strip(*ra);
	f->sp = cfa + rule->sp_from_cfa;
	f->fp = fp;
	f->flags = rule->flags & SFRAME_RULE_SP_LOW ? SFRAME_FRAME_SP_LOW : 0;
	*ra_slot = slot;
	return SFRAME_STEP_OK;
}

#endif /* _SFRAME_STEP_H */
