// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SFrame kernel stack unwinder: generic part.
 *
 * One step takes the frame (pc, sp, fp[, lr]) to its caller's frame:
 *
 *  1. The annotation table (sframe/annot.h) is consulted first.  A pt_regs
 *     annotation is an exception boundary (continue from the saved
 *     registers) or, at the task's own pt_regs, the final frame; a stack
 *     switch gives the frame's real SP; an explicit rule replaces SFrame;
 *     an UNRELIABLE range (the verifier found SFrame wrong there) marks
 *     the walk unreliable.
 *  2. Otherwise the SFrame row of the PC (PC - 1 for return addresses)
 *     gives CFA, RA and FP.
 *
 * Every stack read is bounds-checked against the stacks the task may use,
 * and the walk consumes them upwards only (a frame never lies below the one
 * before it, and a stack once left is never entered again).  The walk ends
 * reliably only at the final frame: the task's own pt_regs (user tasks and
 * kthreads) or the idle task's first frame.  Any other end, and anything
 * dubious on the way, makes it unreliable (livepatch then retries later).
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/ptrace.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <sframe/lookup.h>
#include "unwind_arch.h"

static const char * const sframe_unwind_errors[SFRAME_UW_MAX] = {
	[SFRAME_UW_OK]		= "ok",
	[SFRAME_UW_NO_RULE]	= "PC without SFrame or annotation",
	[SFRAME_UW_BAD_RANGE]	= "PC where SFrame is known wrong",
	[SFRAME_UW_NOT_TEXT]	= "PC is not kernel text",
	[SFRAME_UW_STACK]	= "address outside the task's stacks",
	[SFRAME_UW_DIRECTION]	= "stack pointer moved down",
	[SFRAME_UW_RA]		= "return address not recoverable",
	[SFRAME_UW_LR]		= "return address in LR, LR unknown",
	[SFRAME_UW_REGS]	= "exception frame not allowed here",
	[SFRAME_UW_FINAL]	= "walk did not end at the final frame",
	[SFRAME_UW_TOO_DEEP]	= "too many frames",
	[SFRAME_UW_FALLBACK]	= "frame found by frame pointer",
	[SFRAME_UW_CALLSITE]	= "return address not after a call",
};

/**
 * sframe_unwind_strerror() - describe an enum sframe_unwind_error
 * @error: the code
 *
 * Return: a constant string.
 */
const char *sframe_unwind_strerror(int error)
{
	if (error < 0 || error >= SFRAME_UW_MAX)
		return "unknown";
	return sframe_unwind_errors[error];
}
EXPORT_SYMBOL_GPL(sframe_unwind_strerror);

/* The walk stays usable (best effort) but is no longer reliable. */
static void sframe_uw_unreliable(struct sframe_unwind_state *state, int error)
{
	if (state->reliable || !state->error) {
		state->error = error;
		state->error_pc = state->pc;
	}
	state->reliable = false;
}

/* The walk cannot go on. */
static bool sframe_uw_stop(struct sframe_unwind_state *state, int error)
{
	sframe_uw_unreliable(state, error);
	state->stopped = true;
	return false;
}

/*
 * Make [addr, addr + size) readable: on the current stack above what was
 * consumed, or on a stack not visited yet (which then becomes current).
 */
static __always_inline bool
sframe_uw_on_stack(struct sframe_unwind_state *state, unsigned long addr,
		   unsigned long size)
{
	struct sframe_stack *s = &state->stack;
	unsigned int i;

	if (addr + size < addr)
		return false;
	if (addr >= s->low && addr + size <= s->high)
		return true;
	for (i = 0; i < state->nr_stacks; i++) {
		struct sframe_stack *n = &state->stacks[i];

		if (n->low && addr >= n->low && addr + size <= n->high) {
			*s = *n;
			/* Never again: stack transitions are one-way. */
			n->low = 0;
			n->high = 0;
			return true;
		}
	}
	return false;
}

static __always_inline bool
sframe_uw_read(struct sframe_unwind_state *state, unsigned long addr,
	       unsigned long *val)
{
	if (!IS_ALIGNED(addr, sizeof(long)) ||
	    !sframe_uw_on_stack(state, addr, sizeof(long)))
		return false;
	*val = READ_ONCE_NOCHECK(*(unsigned long *)addr);
	return true;
}

static __always_inline bool sframe_uw_mem_read(void *ctx, unsigned long addr,
					       unsigned long *val)
{
	return sframe_uw_read(ctx, addr, val);
}

/* A CFA below SP lies on another stack (never on the current one). */
static bool sframe_uw_mem_below(void *ctx, unsigned long cfa)
{
	struct sframe_unwind_state *state = ctx;

	return cfa < state->stack.low || cfa > state->stack.high;
}

/*
 * The fast path's reads: on the current stack, no switch.  The step then
 * succeeds with SP = @hi: the stack below it is consumed here already
 * (sframe_uw_next() need not check that SP again).
 */
static __always_inline bool sframe_uw_span(struct sframe_stack *s,
					   unsigned long lo, unsigned long hi)
{
	if (lo < s->low || lo >= hi || hi > s->high)
		return false;
	s->low = hi;
	return true;
}

static __always_inline bool sframe_uw_mem_span(void *ctx, unsigned long lo,
					       unsigned long hi)
{
	struct sframe_unwind_state *state = ctx;

	return sframe_uw_span(&state->stack, lo, hi);
}

static __always_inline unsigned long
sframe_uw_mem_load(void *ctx, unsigned long addr)
{
	return READ_ONCE_NOCHECK(*(unsigned long *)addr);
}

static const struct sframe_step_mem sframe_uw_mem = {
	.read	= sframe_uw_mem_read,
	.below	= sframe_uw_mem_below,
	.span	= sframe_uw_mem_span,
	.load	= sframe_uw_mem_load,
};

static const struct sframe_step_arch sframe_uw_arch = SFRAME_ARCH_STEP;

/* What a failed sframe_step() means for a kernel walk. */
static const u8 sframe_uw_step_errors[] = {
	[SFRAME_STEP_END]	= SFRAME_UW_FINAL,
	[SFRAME_STEP_CFA_REG]	= SFRAME_UW_NO_RULE,
	[SFRAME_STEP_SP_LOW]	= SFRAME_UW_NO_RULE,
	[SFRAME_STEP_READ]	= SFRAME_UW_STACK,
	[SFRAME_STEP_DIRECTION]	= SFRAME_UW_DIRECTION,
	[SFRAME_STEP_LR]	= SFRAME_UW_LR,
	[SFRAME_STEP_RA]	= SFRAME_UW_RA,
	[SFRAME_STEP_FP]	= SFRAME_UW_NO_RULE,
};

/* Everything below @sp on the current stack is consumed. */
static __always_inline bool
sframe_uw_consume(struct sframe_unwind_state *state, unsigned long sp)
{
	if (!sframe_uw_on_stack(state, sp, 0))
		return false;
	state->stack.low = sp;
	return true;
}

/* Apply an explicit annotation rule to @rule (same shape as SFrame's). */
static void sframe_uw_annot_rule(const struct sframe_annot *a,
				 struct sframe_rows_rule *rule)
{
	memset(rule, 0, sizeof(*rule));
	rule->cfa.kind = SFRAME_LOC_REG;
	rule->cfa.reg = a->base == SFRAME_ANNOT_BASE_FP ? SFRAME_ARCH_FP_REG :
							  SFRAME_ARCH_SP_REG;
	rule->cfa.offset = a->off;
	if (a->flags & SFRAME_ANNOT_F_RA_SAVED) {
		rule->ra.kind = SFRAME_LOC_CFA;
		rule->ra.deref = 1;
		rule->ra.offset = a->ra_off;
	} else {
		rule->ra.kind = SFRAME_LOC_SAME;
	}
	if (a->flags & SFRAME_ANNOT_F_FP_SAVED) {
		rule->fp.kind = SFRAME_LOC_CFA;
		rule->fp.deref = 1;
		rule->fp.offset = a->fp_off;
	} else {
		rule->fp.kind = SFRAME_LOC_SAME;
	}
}

/* The walk's own rule (not an answer's), without saves below SP. */
static const struct sframe_rows_rule *
sframe_uw_own_rule(struct sframe_unwind_state *state)
{
	struct sframe_rows_rule *rule = &state->rule;

	/* Saves below SP were restored already (no red zone). */
	sframe_locs_no_red_zone(&rule->cfa, &rule->ra, &rule->fp,
				SFRAME_ARCH_SP_REG);
	return rule;
}

/*
 * The task's own pt_regs, where every task starts, at @addr: the final
 * frame.  Checked where @addr lies on the current stack already (the walk
 * through listed return sites takes this decision of sframe_uw_regs()).
 */
static __always_inline bool
sframe_uw_final_regs_on(unsigned long final, const struct sframe_stack *stack,
			unsigned long addr)
{
	return addr == final && addr >= stack->low &&
	       addr + sizeof(struct pt_regs) <= stack->high;
}

static __always_inline bool
sframe_uw_final_regs(const struct sframe_unwind_state *state,
		     unsigned long addr)
{
	return sframe_uw_final_regs_on((unsigned long)task_pt_regs(state->task),
				       &state->stack, addr);
}

/*
 * The usual end of a walk, decided where the annotation is at hand: @a is
 * a pt_regs annotation whose registers, at @sp plus its offset, are the
 * task's own (@final, aligned) on @stack.
 */
static __always_inline bool
sframe_uw_final_annot(const struct sframe_annot *a, unsigned long sp,
		      unsigned long final, const struct sframe_stack *stack)
{
	return a->type == SFRAME_ANNOT_REGS &&
	       sframe_uw_final_regs_on(final, stack, sp + a->off);
}

/* Cross a pt_regs annotation: final frame, or continue at the regs. */
static bool sframe_uw_regs(struct sframe_unwind_state *state,
			   unsigned long addr, bool trap)
{
	struct pt_regs *regs = (struct pt_regs *)addr;

	if (!IS_ALIGNED(addr, sizeof(long)) ||
	    !sframe_uw_on_stack(state, addr, sizeof(*regs)))
		return sframe_uw_stop(state, SFRAME_UW_STACK);
	if (sframe_uw_final_regs(state, addr)) {
		state->done = true;
		state->regs = regs;
		return false;
	}
	if (sframe_arch_user_regs(regs))
		return sframe_uw_stop(state, SFRAME_UW_REGS);
	if (!sframe_uw_consume(state, addr + sizeof(*regs)))
		return sframe_uw_stop(state, SFRAME_UW_STACK);
	sframe_arch_start_regs(state, regs);
	state->next_slot = 0;
	/* After a breakpoint trap the instruction at PC - 1 is yet to run. */
	if (trap)
		state->pc--;
	/* The interrupted SP lies above the saved registers. */
	if (!sframe_uw_on_stack(state, state->sp, 0))
		return sframe_uw_stop(state, SFRAME_UW_STACK);
	return true;
}

/*
 * Cross the pt_regs or END annotation @a of the frame's PC: the walk goes
 * on at the saved registers, or ends (the final frame), or stops.
 */
static void sframe_uw_boundary(struct sframe_unwind_state *state,
			       const struct sframe_annot *a)
{
	if (a->type == SFRAME_ANNOT_REGS)
		sframe_uw_regs(state, state->sp + a->off,
			       a->flags & SFRAME_ANNOT_F_TRAP);
	else if (is_idle_task(state->task))
		state->done = true;
	else
		sframe_uw_stop(state, SFRAME_UW_FINAL);
}

/*
 * The boot CPU's idle task (init_task) runs cpu_startup_entry() from
 * rest_init(), which never returns: the frames below are __init code
 * (arch_call_rest_init(), start_kernel()), freed after boot, that nothing
 * returns to and livepatch cannot patch.  Its walk ends at rest_init()'s
 * frame.  Otherwise the task could only be switched by going idle, which
 * never happens while every CPU is busy (ORC's reliable walk fails there).
 */
static bool sframe_uw_in_rest_init(unsigned long pc)
{
	/*
	 * Its range, found once.  Racing CPUs write the same values; the
	 * end is published after the start (release) and read before it
	 * (acquire), so an end seen set comes with its start.
	 */
	static unsigned long start, end;
	unsigned long s, e, size, off;

	/* pairs with the smp_store_release() below */
	e = smp_load_acquire(&end);
	if (!e) {
		s = sframe_rest_init();
		if (!s || !kallsyms_lookup_size_offset(s, &size, &off) || off)
			return false;
		WRITE_ONCE(start, s);
		e = s + size;
		/* the start first: pairs with the smp_load_acquire() above */
		smp_store_release(&end, e);
	}
	return pc >= READ_ONCE(start) && pc < e;
}

/*
 * Where a frame has no rule (or an SP-based one where SP is unknown, after
 * a frame-record step on arm64): the frame record at FP, a best effort,
 * never reliable.  Return: the rule, or NULL with the walk stopped.
 */
static const struct sframe_rows_rule *
sframe_uw_fp_rule(struct sframe_unwind_state *state)
{
	sframe_uw_unreliable(state, SFRAME_UW_FALLBACK);
	if (!IS_ENABLED(CONFIG_FRAME_POINTER) && !IS_ENABLED(CONFIG_ARM64)) {
		sframe_uw_stop(state, SFRAME_UW_NO_RULE);
		return NULL;
	}
	sframe_fp_record_rule(&sframe_uw_arch, IS_ENABLED(CONFIG_ARM64),
			      &state->rule);
	return &state->rule;
}

/*
 * What an answer that is not plain (sframe_answer.plain) asks of a step:
 * an exact PC, an annotation, no rule, a return address not after a call.
 * A stack switch sets state->sp (the walk stops if the step fails).
 * Return: the rule to step with; or NULL when the step is over (a pt_regs
 * boundary crossed: the walk goes on unless it ended or stopped).
 */
static const struct sframe_rows_rule *
sframe_uw_special(struct sframe_unwind_state *state,
		  const struct sframe_answer *ans, unsigned long lookup)
{
	bool exact = state->flags & SFRAME_FRAME_EXACT;
	const struct sframe_annot *a = ans->annot;

	/*
	 * A return address a call did not push (a corrupted slot, a stale
	 * frame) cannot start a trustworthy frame: the trace goes on as a
	 * best effort but is not reliable.  The exception: the address an
	 * END annotation marks (x86_64 secondary_startup_64 pushes one by
	 * hand before its lretq to start_secondary()).
	 */
	if (!exact && !ans->after_call && !(a && a->type == SFRAME_ANNOT_END))
		sframe_uw_unreliable(state, SFRAME_UW_CALLSITE);
	if (a) {
		switch (a->type) {
		case SFRAME_ANNOT_REGS:
		case SFRAME_ANNOT_END:
			sframe_uw_boundary(state, a);
			return NULL;
		case SFRAME_ANNOT_SP_INDIRECT:
			/* Stack switch: the frame's own SP was saved at SP + off. */
			if (!sframe_uw_read(state, state->sp + a->off, &state->sp)) {
				sframe_uw_stop(state, SFRAME_UW_STACK);
				return NULL;
			}
			break;
		case SFRAME_ANNOT_UNRELIABLE:
			sframe_uw_unreliable(state, SFRAME_UW_BAD_RANGE);
			break;
		case SFRAME_ANNOT_RULE:
			sframe_uw_annot_rule(a, &state->rule);
			return sframe_uw_own_rule(state);
		}
	}
	if (likely(!ans->err))
		return ans->rule;
	if (exact && sframe_arch_entry_rule(state, lookup, &state->rule))
		return sframe_uw_own_rule(state);
	if (!kernel_text_address(state->pc)) {
		sframe_uw_stop(state, SFRAME_UW_NOT_TEXT);
		return NULL;
	}
	sframe_uw_unreliable(state, SFRAME_UW_NO_RULE);
	return sframe_uw_fp_rule(state);
}

/*
 * Where vmlinux's return sites are listed (arm64), a walk rarely asks the
 * lookup cache: that path is kept out of the walk loop, which then needs
 * fewer registers.  Elsewhere the cache is the common path, inline.
 */
#ifdef SFRAME_ARCH_CALL_SIZE
#define sframe_uw_lookup_inline	noinline
#else
#define sframe_uw_lookup_inline	__always_inline
#endif

/*
 * The usual end of a walk, taken before sframe_uw_special() would take
 * it (through sframe_uw_boundary() and sframe_uw_regs()): a return
 * address after a call, in a pt_regs annotation whose pt_regs are the
 * task's own, on the current stack.
 */
static __always_inline bool
sframe_uw_final_answer(struct sframe_unwind_state *state,
		       const struct sframe_answer *ans, bool exact)
{
	const struct sframe_annot *a = ans->annot;

	if (exact || !ans->after_call || !a ||
	    !sframe_uw_final_annot(a, state->sp,
				   (unsigned long)task_pt_regs(state->task),
				   &state->stack))
		return false;
	state->done = true;
	state->regs = (struct pt_regs *)(state->sp + a->off);
	return true;
}

/*
 * The rule of a PC that is not a listed return site: all answers at once,
 * usually from the per-CPU lookup cache (rules come without saves below
 * SP), then what an answer that is not plain asks.  Return: the rule to
 * step with, or NULL when the step is over (see sframe_uw_special()).
 */
static sframe_uw_lookup_inline const struct sframe_rows_rule *
sframe_uw_lookup(struct sframe_unwind_state *state)
{
	bool exact = state->flags & SFRAME_FRAME_EXACT;
	const struct sframe_answer *ans;
	unsigned long lookup;

	/* A return address may follow a call at a function's end. */
	lookup = exact ? state->pc : state->pc - 1;
	if (unlikely(state->task == &init_task) &&
	    sframe_uw_in_rest_init(lookup)) {
		if (!exact && !sframe_arch_after_call(state->pc))
			sframe_uw_unreliable(state, SFRAME_UW_CALLSITE);
		state->done = true;
		return NULL;
	}
	ans = sframe_kernel_answer(lookup, &state->ans);
	/* Usually a return address with a rule and nothing else. */
	if (likely(ans->plain && !exact))
		return ans->rule;
	/* (where return sites are listed, sframe_uw_run_final() takes it) */
	if (!SFRAME_RA_LISTED && sframe_uw_final_answer(state, ans, exact))
		return NULL;
	return sframe_uw_special(state, ans, lookup);
}

/*
 * The return address @ra (read from @slot), now state->pc, is not a listed
 * return site: undo a return trampoline, and check that it is text.
 * Whether a call ends there is asked with its answer, by the next step.
 */
static __always_inline bool
sframe_uw_unlisted(struct sframe_unwind_state *state, unsigned long ra,
		   unsigned long slot)
{
	if (unlikely(sframe_arch_ra_trampoline(ra)))
		state->pc = sframe_arch_recover_ra(state, ra, slot);
	if (!state->pc)
		return sframe_uw_stop(state, SFRAME_UW_RA);
	/*
	 * vmlinux text inline.  Outside vmlinux's image, a module's return
	 * address by its answer, which the next step asks for anyway
	 * (usually from the lookup cache): the registry has rules for loaded
	 * modules' text only (their init text until it is freed).  The rest
	 * (an answer without a rule: vmlinux's init text, which vmlinux's
	 * section describes also after it is freed; trampolines, BPF, text
	 * without SFrame, and anything that is not text): the full check.
	 */
	if (!is_kernel_text(state->pc) &&
	    (__is_kernel(state->pc) ||
	     sframe_kernel_answer(state->pc - 1, &state->ans)->err) &&
	    !kernel_text_address(state->pc))
		return sframe_uw_stop(state, SFRAME_UW_NOT_TEXT);
	return true;
}

/*
 * sframe_unwind_next() for a user of the lookup cache
 * (sframe_kernel_answers_begin()), on a walk that has not ended: the PC's
 * answer is used where it lies, in this CPU's lookup cache
 * (sframe_kernel_answer()).  Inlined into sframe_unwind_next() and into
 * the walk loop.
 */
static __always_inline bool sframe_uw_next(struct sframe_unwind_state *state)
{
	/* Set before use; addressed only by the inline step (registers). */
	struct sframe_frame f __uninitialized;
	unsigned long ra __uninitialized, slot __uninitialized;
	const struct sframe_rows_rule *rule = NULL;
	const struct sframe_annot *annot;
	bool by_fp = false;
	int err;

	if (++state->frames > SFRAME_UNWIND_MAX_FRAMES)
		return sframe_uw_stop(state, SFRAME_UW_TOO_DEEP);

	/*
	 * A listed return site of vmlinux (arm64: found when the previous
	 * step read it): its rule, nothing else to check or look up.
	 */
	if (state->next_slot) {
		rule = sframe_ra_slot_rule(state->next_slot, &annot);
		/*
		 * A listed return site in a pt_regs or END annotation (never
		 * in rest_init(), see sframe_uw_lookup()): usually the last
		 * frame of the walk.
		 */
		if (!rule) {
			sframe_uw_boundary(state, annot);
			return !state->stopped && !state->done;
		}
	}
	if (!rule) {
		rule = sframe_uw_lookup(state);
		if (!rule)
			return !state->stopped && !state->done;
	}

	f.sp = state->sp;
	f.fp = state->fp;
	f.lr = state->lr;
	f.flags = state->flags;
	for (;;) {
		err = sframe_step(&sframe_uw_arch, &sframe_uw_mem, state, rule,
				  &f, &ra, &slot);
		if (likely(err != SFRAME_STEP_SP_LOW) || by_fp)
			break;
		/* An SP-based rule where SP is only a bound: the record. */
		by_fp = true;
		rule = sframe_uw_fp_rule(state);
		if (!rule)
			return false;
	}
	if (unlikely(err))
		return sframe_uw_stop(state, sframe_uw_step_errors[err]);
	/* The fast path consumed the stack up to SP already. */
	if (f.sp != state->stack.low && !sframe_uw_consume(state, f.sp))
		return sframe_uw_stop(state, SFRAME_UW_STACK);

	state->sp = f.sp;
	state->fp = f.fp;
	state->flags = f.flags;
	state->regs = NULL;
	state->pc = ra;
	/*
	 * A listed return site is vmlinux text, after a call, neither zero
	 * nor a return trampoline: the next step takes its rule as it is,
	 * or crosses its pt_regs annotation.
	 */
	state->next_slot = sframe_ra_slot(ra);
	if (likely(state->next_slot))
		return true;
	return sframe_uw_unlisted(state, ra, slot);
}

/**
 * sframe_unwind_next() - step to the caller's frame
 * @state: the walk
 *
 * Return: true if @state now describes the next frame (state->pc is its
 * PC); false when the walk ended (state->done: at the final frame) or
 * stopped (state->stopped, state->error says why).
 */
bool sframe_unwind_next(struct sframe_unwind_state *state)
{
	bool ret;

	if (state->done || state->stopped)
		return false;
	sframe_kernel_answers_begin();
	ret = sframe_uw_next(state);
	sframe_kernel_answers_end();
	return ret;
}
EXPORT_SYMBOL_GPL(sframe_unwind_next);
NOKPROBE_SYMBOL(sframe_unwind_next);

/*
 * The start of every walk: each field a walk reads before it writes it,
 * and no more: not the stacks beyond @nr_stacks (sframe_arch_init_stacks()
 * sets those it counts, a blocked task has none), nor the scratch at the
 * end.  A memset() of it all was a tenth of a short warm walk.
 */
static __always_inline void sframe_uw_init(struct sframe_unwind_state *state,
					   struct task_struct *task)
{
	state->task = task;
	state->pc = 0;
	state->sp = 0;
	state->fp = 0;
	state->lr = 0;
	state->regs = NULL;
	state->flags = 0;
	state->done = false;
	state->stopped = false;
	state->reliable = true;
	state->error = SFRAME_UW_OK;
	state->error_pc = 0;
	state->frames = 0;
	state->graph_idx = 0;
	state->kr_cur = NULL;
	state->next_slot = 0;
}

/*
 * A walk of a blocked task, at the PC it will resume at: a task switches
 * out on its task stack, and its frames all lie there, so the walk starts
 * on it, with no other to visit.  Inlined into the walk of a blocked task
 * (livepatch's), where the walk loop takes the state from registers.
 */
static __always_inline void
sframe_uw_start_blocked(struct sframe_unwind_state *state,
			struct task_struct *task)
{
	struct sframe_frame f __uninitialized;

	sframe_uw_init(state, task);
	state->nr_stacks = 0;
	state->stack.low = (unsigned long)task_stack_page(task);
	state->stack.high = state->stack.low + THREAD_SIZE;
	sframe_arch_blocked_frame(task, &state->stack, &f);
	state->pc = f.pc;
	state->sp = f.sp;
	state->fp = f.fp;
	state->flags = f.flags;
	if (!sframe_uw_on_stack(state, state->sp, 0))
		sframe_uw_stop(state, SFRAME_UW_STACK);
	else if (!(state->flags & SFRAME_FRAME_EXACT))
		state->next_slot = sframe_ra_slot(state->pc);
}

/**
 * sframe_unwind_start() - start a walk
 * @state: the walk to initialise
 * @task: the task to walk; current, or one that is blocked (not running)
 *        and whose stack the caller pinned (try_get_task_stack())
 * @regs: start at this exception frame (current task only), or NULL
 *
 * Without @regs, a walk of current starts in this function's caller and a
 * walk of a blocked task at the PC it will resume at.
 */
noinline void sframe_unwind_start(struct sframe_unwind_state *state,
				  struct task_struct *task,
				  struct pt_regs *regs)
{
	unsigned long pc, sp, fp;

	if (task != current && !regs) {
		sframe_uw_start_blocked(state, task);
		return;
	}

	sframe_uw_init(state, task);
	state->stack.low = 0;
	state->stack.high = 0;
	sframe_arch_init_stacks(state);
	if (regs) {
		sframe_arch_start_regs(state, regs);
		if (!sframe_uw_on_stack(state, state->sp, 0))
			sframe_uw_stop(state, SFRAME_UW_STACK);
		return;
	}

	/* Here, then one step out to our caller. */
	sframe_arch_here(&pc, &sp, &fp);
	state->pc = pc;
	state->sp = sp;
	state->fp = fp;
	state->flags = SFRAME_FRAME_EXACT;
	if (!sframe_uw_on_stack(state, sp, 0))
		sframe_uw_stop(state, SFRAME_UW_STACK);
	else
		sframe_unwind_next(state);
	state->frames = 0;
}
EXPORT_SYMBOL_GPL(sframe_unwind_start);
NOKPROBE_SYMBOL(sframe_unwind_start);

/* sframe_uw_run() results */
enum {
	SFRAME_UW_RUN_STEP,	/* state->pc reported: sframe_uw_next() next */
	SFRAME_UW_RUN_NEXT,	/* a new state->pc to report, or the end */
	SFRAME_UW_RUN_STOP,	/* the consumer stopped the walk */
	SFRAME_UW_RUN_DONE,	/* the final frame reported: state->done */
};

#ifdef SFRAME_ARCH_CALL_SIZE
/* The bounds of sframe_uw_run()'s stack, a local: as sframe_uw_mem_span() */
static __always_inline bool sframe_uw_run_span(void *ctx, unsigned long lo,
					       unsigned long hi)
{
	return sframe_uw_span(ctx, lo, hi);
}

static const struct sframe_step_mem sframe_uw_run_mem = {
	.span	= sframe_uw_run_span,
	.load	= sframe_uw_mem_load,
};

/*
 * sframe_step_simple() at a listed return site whose slot gives the rule
 * as a frame record (SFRAME_RA_REC): the same CFA, checks and loads, the
 * rule not read.  Both slots lie in [record, CFA); @s->low is the frame's
 * SP, word-aligned (sframe_uw_run()), so a record at or above it has its
 * CFA above SP; a record at SP is all that needs.  Return: 1 if it
 * stepped, 0 if the step needs the general path, -1 if the slot holds no
 * record.
 */
static __always_inline int sframe_uw_rec_step(u64 e, struct sframe_stack *s,
					      struct sframe_frame *f,
					      unsigned long *ra,
					      unsigned long *slot)
{
	unsigned long cfa, rec;

	if (likely(e & SFRAME_RA_REC_SP)) {
		rec = f->sp;
		cfa = rec + FIELD_GET(SFRAME_RA_REC_CFA, e) * sizeof(long);
		/* sframe_uw_span(): the rest holds at SP. */
		if (cfa <= rec || cfa > s->high)
			return 0;
	} else if (e & SFRAME_RA_REC) {
		cfa = (e & SFRAME_RA_REC_FP ? f->fp : f->sp) +
		      FIELD_GET(SFRAME_RA_REC_CFA, e) * sizeof(long);
		rec = cfa - FIELD_GET(SFRAME_RA_REC_LOW, e) * sizeof(long);
		/*
		 * sframe_uw_span()'s checks, written out with the
		 * alignment's (the CFA is aligned if the record is): one
		 * chain of compares.
		 */
		if (rec < s->low || rec >= cfa || cfa > s->high ||
		    (rec & (sizeof(long) - 1)))
			return 0;
	} else {
		return -1;
	}
	s->low = cfa;
	f->fp = sframe_uw_mem_load(NULL, rec);
	*ra = sframe_uw_mem_load(NULL, rec + sizeof(long));
	if (sframe_uw_arch.strip)
		*ra = sframe_uw_arch.strip(*ra);
	f->sp = cfa;
	*slot = rec + sizeof(long);
	return 1;
}

/*
 * A walk's registers while it runs through listed return sites: a local of
 * the walk, which @consume_entry cannot reach, so that it stays in
 * registers across the call, where the state, which a callback could
 * reach, would be loaded again after every call.
 */
struct sframe_uw_run {
	struct sframe_stack stack;	/* low: the frame's SP */
	struct sframe_frame f;		/* pc, sp, fp of the frame to report */
	unsigned int frames;
	u64 e;				/* the slot of f.pc */
	unsigned long ra, slot;		/* SFRAME_UW_RUN_NEXT, not listed */
	unsigned long regs;		/* SFRAME_UW_RUN_DONE: the pt_regs */
};

/*
 * The walk through listed return sites (arm64: most of a walk): report
 * @r->f.pc, then step with its rule, for as long as each new PC is a
 * listed return site with a simple rule (sframe_step_simple(), or its
 * frame record in the slot) and the step stays on the current stack.  A
 * copy of the return-site table (published, never changed) is a local as
 * well.  What this loop does not handle it leaves to sframe_uw_next()
 * (sframe_uw_run_final() takes the usual end of a walk first).  It reads
 * no lookup cache and no state: it needs no disabled preemption.
 *
 * Call with @r->e giving a rule, @r->f.flags 0, @r->f.sp aligned and equal
 * to @r->stack.low (the stack below SP is consumed: SP lies on the current
 * stack while a walk goes on, and the steps keep stack.low at SP).
 * Return: SFRAME_UW_RUN_STEP (@r->f.pc reported, its step left to
 * sframe_uw_next()), SFRAME_UW_RUN_NEXT (@r->f.pc the new PC to report,
 * @r->e its slot: 0 if not listed, then @r->ra and @r->slot as the step
 * read them) or SFRAME_UW_RUN_STOP.
 */
static __always_inline int sframe_uw_run_regs(struct sframe_uw_run *r,
					      stack_trace_consume_fn consume_entry,
					      void *cookie)
{
	const struct sframe_ra_table tab = {
		/*
		 * Published: @r->e was read from it after sframe_ra_slot()'s
		 * acquire, earlier in this walk, which orders these reads
		 * as well.
		 */
		.slot = READ_ONCE(sframe_vmlinux_ra.slot),
		.base = sframe_vmlinux_ra.base,
		.size = sframe_vmlinux_ra.size,
		.buckets = sframe_vmlinux_ra.buckets,
	};
	const struct sframe_rows_rule *rule;
	const struct sframe_annot *annot;
	int stepped;

	for (;;) {
		if (!consume_entry(cookie, r->f.pc))
			return SFRAME_UW_RUN_STOP;
		if (r->frames >= SFRAME_UNWIND_MAX_FRAMES)
			return SFRAME_UW_RUN_STEP;
		stepped = sframe_uw_rec_step(r->e, &r->stack, &r->f, &r->ra,
					     &r->slot);
		if (!stepped)
			return SFRAME_UW_RUN_STEP;
		if (stepped < 0) {
			rule = sframe_ra_slot_rule(r->e, &annot);
			if (!(rule->flags & SFRAME_RULE_STEP_SIMPLE) ||
			    !sframe_step_simple(&sframe_uw_arch,
						&sframe_uw_run_mem, &r->stack,
						rule, &r->f, &r->ra, &r->slot))
				return SFRAME_UW_RUN_STEP;
		}
		r->frames++;
		r->f.pc = r->ra;
		r->e = sframe_ra_entry(&tab, tab.slot, r->ra);
		if (unlikely(!sframe_ra_slot_plain(r->e)))
			return SFRAME_UW_RUN_NEXT;
	}
}

/*
 * After sframe_uw_run_regs() returned SFRAME_UW_RUN_NEXT: the usual end of
 * a walk, the task's own pt_regs (at @final) on the current stack, crossed
 * as sframe_uw_regs() would.  Return: SFRAME_UW_RUN_DONE when the final
 * frame was reported (@r->regs: its pt_regs), SFRAME_UW_RUN_STOP, or
 * SFRAME_UW_RUN_NEXT for anything else.
 */
static __always_inline int sframe_uw_run_final(struct sframe_uw_run *r,
					       unsigned long final,
					       stack_trace_consume_fn consume_entry,
					       void *cookie)
{
	const struct sframe_annot *annot;

	if (!r->e)
		return SFRAME_UW_RUN_NEXT;
	sframe_ra_slot_rule(r->e, &annot);
	if (r->frames >= SFRAME_UNWIND_MAX_FRAMES ||
	    !sframe_uw_final_annot(annot, r->f.sp, final, &r->stack))
		return SFRAME_UW_RUN_NEXT;
	r->regs = r->f.sp + annot->off;
	if (!consume_entry(cookie, r->f.pc))
		return SFRAME_UW_RUN_STOP;
	r->frames++;
	return SFRAME_UW_RUN_DONE;
}

/* The state takes over where sframe_uw_run_regs() returned @ret. */
static __always_inline int sframe_uw_run_end(struct sframe_unwind_state *state,
					     const struct sframe_uw_run *r,
					     int ret)
{
	state->stack = r->stack;
	state->frames = r->frames;
	state->pc = r->f.pc;
	state->sp = r->f.sp;
	state->fp = r->f.fp;
	state->next_slot = r->e;
	if (ret == SFRAME_UW_RUN_DONE) {
		state->regs = (struct pt_regs *)r->regs;
		state->done = true;
	} else if (ret == SFRAME_UW_RUN_NEXT && !r->e) {
		sframe_uw_unlisted(state, r->ra, r->slot);
	}
	return ret;
}

/* sframe_uw_run_regs() from the state, which then takes the result. */
static __always_inline int sframe_uw_run(struct sframe_unwind_state *state,
					 stack_trace_consume_fn consume_entry,
					 void *cookie)
{
	struct sframe_uw_run r = {
		.stack = { .low = state->sp, .high = state->stack.high },
		.f = { .pc = state->pc, .sp = state->sp, .fp = state->fp },
		.frames = state->frames,
		.e = state->next_slot,
	};

	int ret = sframe_uw_run_regs(&r, consume_entry, cookie);

	if (ret == SFRAME_UW_RUN_NEXT)
		ret = sframe_uw_run_final(&r,
					  (unsigned long)task_pt_regs(state->task),
					  consume_entry, cookie);
	return sframe_uw_run_end(state, &r, ret);
}

/* The walk can take sframe_uw_run(). */
static __always_inline bool sframe_uw_run_ok(struct sframe_unwind_state *state)
{
	/* Each step keeps SP aligned (its CFA is checked so, or SP plus words). */
	return sframe_ra_slot_plain(state->next_slot) && !state->flags &&
	       IS_ALIGNED(state->sp, sizeof(long));
}
#else
static inline int sframe_uw_run(struct sframe_unwind_state *state,
				stack_trace_consume_fn consume_entry,
				void *cookie)
{
	return SFRAME_UW_RUN_STEP;
}

static inline bool sframe_uw_run_ok(struct sframe_unwind_state *state)
{
	return false;
}
#endif

/*
 * The walk after its start: one user of the lookup cache, preemption
 * disabled (sframe_kernel_answers_begin()), the step inlined (callers of
 * arch_stack_walk() may be atomic, so @consume_entry never sleeps).
 * @step_first: state->pc was reported (or is not to be: a walk of current
 * that sframe_unwind_start() stopped in sframe_stack_walk_state()), the
 * walk goes on with its step.
 */
static __always_inline int sframe_uw_walk(stack_trace_consume_fn consume_entry,
					  void *cookie,
					  struct sframe_unwind_state *state,
					  bool step_first)
{
	int ret = -EINVAL;

	sframe_kernel_answers_begin();
	if (step_first && !state->stopped && !state->done)
		sframe_uw_next(state);
	while (!state->stopped && !state->done) {
		if (sframe_uw_run_ok(state)) {
			switch (sframe_uw_run(state, consume_entry, cookie)) {
			case SFRAME_UW_RUN_STOP:
				goto out;
			case SFRAME_UW_RUN_DONE:
				goto done;
			case SFRAME_UW_RUN_NEXT:
				continue;
			}
		} else if (!consume_entry(cookie, state->pc)) {
			goto out;
		}
		if (!sframe_uw_next(state))
			break;
	}
done:
	if (state->done && state->reliable)
		ret = 0;
out:
	sframe_kernel_answers_end();
	return ret;
}

#ifdef SFRAME_ARCH_CALL_SIZE
/* A blocked task's walk from its start (task: state->task) */
static noinline int
sframe_uw_blocked_start(stack_trace_consume_fn consume_entry, void *cookie,
			struct sframe_unwind_state *state)
{
	sframe_uw_start_blocked(state, state->task);
	return sframe_uw_walk(consume_entry, cookie, state, false);
}

/*
 * The rest of a blocked task's walk (task: state->task) after
 * sframe_uw_run_regs() returned @ret, with the state filled from @r:
 * out of line, where it takes no registers from the run.
 */
static noinline int
sframe_uw_blocked_rest(stack_trace_consume_fn consume_entry, void *cookie,
		       struct sframe_unwind_state *state,
		       const struct sframe_uw_run r, int ret)
{
	sframe_uw_init(state, state->task);
	state->nr_stacks = 0;
	/* A PC that is not listed is checked with its answer (lookup cache). */
	sframe_kernel_answers_begin();
	sframe_uw_run_end(state, &r, ret);
	sframe_kernel_answers_end();
	if (ret == SFRAME_UW_RUN_DONE)
		return 0;
	if (ret == SFRAME_UW_RUN_STOP)
		return -EINVAL;
	return sframe_uw_walk(consume_entry, cookie, state,
			      ret == SFRAME_UW_RUN_STEP);
}

/*
 * A blocked task's walk.  As long as it runs through listed return sites
 * (usually all of it) it keeps no state: sframe_uw_run_regs() starts from
 * the switch frame in registers, and only a walk that goes on beyond (or
 * whose caller reads @state: @keep) fills @state.
 */
static __always_inline int
sframe_uw_walk_blocked(stack_trace_consume_fn consume_entry, void *cookie,
		       struct task_struct *task,
		       struct sframe_unwind_state *state, bool keep)
{
	struct sframe_uw_run r __uninitialized;
	int ret;

	/*
	 * Read again only after the run: from memory (the run's only
	 * store), where a register would be taken from its loop.
	 */
	state->task = task;
	r.stack.low = (unsigned long)task_stack_page(task);
	r.stack.high = r.stack.low + THREAD_SIZE;
	/* The run's end finds the pt_regs from the top, not the bottom. */
	OPTIMIZER_HIDE_VAR(r.stack.high);
	sframe_arch_blocked_frame(task, &r.stack, &r.f);
	/* sframe_uw_start_blocked()'s checks and sframe_uw_run_ok()'s */
	if (r.f.flags || r.f.sp < r.stack.low || r.f.sp > r.stack.high ||
	    !IS_ALIGNED(r.f.sp, sizeof(long)))
		return sframe_uw_blocked_start(consume_entry, cookie, state);
	r.e = sframe_ra_slot(r.f.pc);
	if (!sframe_ra_slot_plain(r.e))
		return sframe_uw_blocked_start(consume_entry, cookie, state);
	r.stack.low = r.f.sp;
	r.frames = 0;
	ret = sframe_uw_run_regs(&r, consume_entry, cookie);
	/* The task's pt_regs lie at the top of the task stack. */
	if (ret == SFRAME_UW_RUN_NEXT)
		ret = sframe_uw_run_final(&r, r.stack.high -
					  sizeof(struct pt_regs),
					  consume_entry, cookie);
	if (!keep && ret == SFRAME_UW_RUN_DONE)
		return 0;
	if (!keep && ret == SFRAME_UW_RUN_STOP)
		return -EINVAL;
	return sframe_uw_blocked_rest(consume_entry, cookie, state, r, ret);
}
#else
static __always_inline int
sframe_uw_walk_blocked(stack_trace_consume_fn consume_entry, void *cookie,
		       struct task_struct *task,
		       struct sframe_unwind_state *state, bool keep)
{
	sframe_uw_start_blocked(state, task);
	return sframe_uw_walk(consume_entry, cookie, state, false);
}
#endif

/**
 * sframe_stack_walk_state() - walk a stack, report each PC, keep the state
 * @consume_entry: called with each PC, innermost first; false stops
 * @cookie: its argument
 * @task: the task (see sframe_unwind_start())
 * @regs: exception frame to start at, or NULL
 * @state: the walk, for the caller to inspect afterwards
 *
 * Without @regs, a walk of current starts at this function's caller.
 *
 * Return: 0 if the walk reached the task's final frame reliably,
 * -EINVAL otherwise (including when @consume_entry stopped it).
 */
noinline int sframe_stack_walk_state(stack_trace_consume_fn consume_entry,
				     void *cookie, struct task_struct *task,
				     struct pt_regs *regs,
				     struct sframe_unwind_state *state)
{
	if (task != current && !regs)
		return sframe_uw_walk_blocked(consume_entry, cookie, task,
					      state, true);
	sframe_unwind_start(state, task, regs);
	/* For current, sframe_unwind_start() stopped in this function. */
	return sframe_uw_walk(consume_entry, cookie, state,
			      !regs && task == current);
}
EXPORT_SYMBOL_GPL(sframe_stack_walk_state);
NOKPROBE_SYMBOL(sframe_stack_walk_state);

/**
 * sframe_stack_walk() - best-effort stack trace (arch_stack_walk())
 * @consume_entry: called with each PC, innermost first; false stops
 * @cookie: its argument
 * @task: the task
 * @regs: exception frame to start at (current only), or NULL
 *
 * Frames without SFrame are followed with frame pointers where the
 * architecture keeps them; the result is not guaranteed to be complete.
 */
noinline void sframe_stack_walk(stack_trace_consume_fn consume_entry,
				void *cookie, struct task_struct *task,
				struct pt_regs *regs)
{
	/* Initialised by sframe_unwind_start(): no zeroing here first. */
	struct sframe_unwind_state state __uninitialized;

	if (regs && task != current)
		return;
	/* A blocked task's walk inline (the loop keeps it in registers) */
	if (task != current) {
		sframe_uw_walk_blocked(consume_entry, cookie, task, &state,
				       false);
		return;
	}
	sframe_stack_walk_state(consume_entry, cookie, task, regs, &state);
}
EXPORT_SYMBOL_GPL(sframe_stack_walk);
NOKPROBE_SYMBOL(sframe_stack_walk);

/*
 * Like ORC's orc_warn(): a failed reliable walk of current is a defect in
 * the unwind data or the unwinder (current's stack cannot change under the
 * walk), so it is logged with PC, symbol and reason.  Other tasks' walks
 * fail for ordinary reasons during a livepatch transition (the task was
 * interrupted where no rule is reliable): those are only counted, and
 * logged with dynamic debug.  printk_deferred(): reliable walks of other
 * tasks run under task_call_func()'s runqueue lock, where printk() could
 * deadlock; __ratelimit() only trylocks.
 *
 * Each PC is logged once: since 6.4 livepatch walks current from every
 * cond_resched() of a task that still has to switch, so a task looping
 * over a defect would otherwise fill the log for as long as the
 * transition lasts (the debugfs "reliable" file keeps counting).  The
 * table is a cache: a PC whose slot another PC took is logged again,
 * within the rate limit.  A PC is entered only when the rate limit lets
 * its line out, so none is silenced without having been logged; the
 * cmpxchg() loop makes two CPUs failing at one PC log it once.  PC 0 (a
 * return address that could not be recovered) is not entered.
 */
static DEFINE_RATELIMIT_STATE(sframe_warn_rs, 5 * HZ, 10);

#define SFRAME_WARNED_BITS	5
static unsigned long sframe_warned_pc[1 << SFRAME_WARNED_BITS];

static __always_inline bool sframe_warn_first(unsigned long pc)
{
	unsigned long *slot, old;

	slot = &sframe_warned_pc[hash_long(pc, SFRAME_WARNED_BITS)];
	old = READ_ONCE(*slot);
	if (pc && old == pc)
		return false;
	if (!__ratelimit(&sframe_warn_rs))
		return false;
	if (!pc)
		return true;
	do {
		if (old == pc)
			return false;
	} while (!try_cmpxchg(slot, &old, pc));
	return true;
}

#define sframe_warn(pc, fmt, ...)					\
do {									\
	if (sframe_warn_first(pc))					\
		printk_deferred(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__);	\
} while (0)

/*
 * Reliable walks by outcome, for livepatch transitions: [SFRAME_UW_OK]
 * counts the reliable ones, the others the unreliable ones by the first
 * problem found; sframe_reliable_stopped those the consumer stopped.
 * debugfs sframe/reliable shows them; writing to it resets them.
 */
static atomic_long_t sframe_reliable_count[SFRAME_UW_MAX];
static atomic_long_t sframe_reliable_stopped;

/**
 * sframe_stack_walk_reliable() - reliable stack trace (livepatch)
 * @consume_entry: called with each PC, innermost first; false stops
 * @cookie: its argument
 * @task: current, or a blocked task whose stack is pinned
 *
 * Follows Documentation/livepatch/reliable-stacktrace.rst: succeeds only
 * when every PC was kernel text described by SFrame or an annotation,
 * every exception boundary was an annotated one, every read stayed on the
 * task's stacks, and the walk ended at the task's final frame.
 *
 * Return: 0 with the complete trace reported, or -EINVAL.
 */
noinline int sframe_stack_walk_reliable(stack_trace_consume_fn consume_entry,
					void *cookie, struct task_struct *task)
{
	/* Initialised by sframe_unwind_start(): no zeroing here first. */
	struct sframe_unwind_state state __uninitialized;
	int ret;

	ret = sframe_stack_walk_state(consume_entry, cookie, task, NULL,
				      &state);
	if (!ret) {
		atomic_long_inc(&sframe_reliable_count[SFRAME_UW_OK]);
	} else if (state.error > SFRAME_UW_OK && state.error < SFRAME_UW_MAX) {
		atomic_long_inc(&sframe_reliable_count[state.error]);
		if (task == current)
			sframe_warn(state.error_pc,
				    "%s:%d: own stack unreliable at %pB: %s\n",
				    task->comm, task->pid,
				    (void *)state.error_pc,
				    sframe_unwind_strerror(state.error));
		else	/* dynamic debug: file unwind.c +p */
			pr_debug_ratelimited("%s:%d: unreliable at %pB: %s\n",
					     task->comm, task->pid,
					     (void *)state.error_pc,
					     sframe_unwind_strerror(state.error));
	} else {
		atomic_long_inc(&sframe_reliable_stopped);
	}
	return ret;
}
EXPORT_SYMBOL_GPL(sframe_stack_walk_reliable);
NOKPROBE_SYMBOL(sframe_stack_walk_reliable);

struct sframe_pinned {
	int (*fn)(struct task_struct *task, void *arg);
	void *arg;
};

static int sframe_pinned_call(struct task_struct *task, void *arg)
{
	struct sframe_pinned *p = arg;

	if (task_curr(task))
		return -EBUSY;
	return p->fn(task, p->arg);
}

/**
 * sframe_unwind_call_blocked() - call @fn while @task cannot run
 * @task: a task other than current, or current
 * @fn: called with @task and @arg; its return value is returned
 * @arg: its argument
 *
 * For walking another task's stack reliably: the stack is pinned and the
 * task is kept off the CPU (task_call_func()) while @fn runs, with
 * interrupts disabled.  For current, @fn is simply called.
 *
 * Return: what @fn returned, -EBUSY if @task is running on a CPU, or
 * -ESRCH if it has no stack any more.
 */
int sframe_unwind_call_blocked(struct task_struct *task,
			       int (*fn)(struct task_struct *task, void *arg),
			       void *arg)
{
	struct sframe_pinned p = { .fn = fn, .arg = arg };
	int ret;

	if (task == current)
		return fn(task, arg);
	if (!try_get_task_stack(task))
		return -ESRCH;
	ret = task_call_func(task, sframe_pinned_call, &p);
	put_task_stack(task);
	return ret;
}
EXPORT_SYMBOL_GPL(sframe_unwind_call_blocked);

#ifdef CONFIG_DEBUG_FS
static int sframe_reliable_show(struct seq_file *m, void *v)
{
	long n, total = atomic_long_read(&sframe_reliable_stopped);
	int i;

	for (i = 0; i < SFRAME_UW_MAX; i++)
		total += atomic_long_read(&sframe_reliable_count[i]);
	seq_printf(m, "backend: %s\n",
		   sframe_reliable_arch ? "arch" : "sframe");
	seq_printf(m, "walks: %ld\n", total);
	seq_printf(m, "reliable: %ld\n",
		   atomic_long_read(&sframe_reliable_count[SFRAME_UW_OK]));
	for (i = SFRAME_UW_OK + 1; i < SFRAME_UW_MAX; i++) {
		n = atomic_long_read(&sframe_reliable_count[i]);
		if (n)
			seq_printf(m, "unreliable: %s: %ld\n",
				   sframe_unwind_strerror(i), n);
	}
	n = atomic_long_read(&sframe_reliable_stopped);
	if (n)
		seq_printf(m, "stopped by the caller: %ld\n", n);
	return 0;
}

static int sframe_reliable_open(struct inode *inode, struct file *file)
{
	return single_open(file, sframe_reliable_show, NULL);
}

static ssize_t sframe_reliable_write(struct file *file, const char __user *buf,
				     size_t len, loff_t *ppos)
{
	int i;

	for (i = 0; i < SFRAME_UW_MAX; i++)
		atomic_long_set(&sframe_reliable_count[i], 0);
	atomic_long_set(&sframe_reliable_stopped, 0);
	return len;
}

static const struct file_operations sframe_reliable_fops = {
	.open		= sframe_reliable_open,
	.read		= seq_read,
	.write		= sframe_reliable_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int __init sframe_reliable_debugfs_init(void)
{
	debugfs_create_file("reliable", 0600, sframe_debugfs_dir(), NULL,
			    &sframe_reliable_fops);
	return 0;
}
late_initcall(sframe_reliable_debugfs_init);
#endif

/*
 * sframe.reliable=sframe|arch (boot, or /sys/module/sframe/parameters/
 * reliable at run time): which unwinder serves arch_stack_walk_reliable().
 * "arch" falls back to the architecture's own reliable unwinder without a
 * rebuild: ORC on x86_64; arm64 has none in 6.1.
 */
bool sframe_reliable_arch __read_mostly;
EXPORT_SYMBOL_GPL(sframe_reliable_arch);

static int sframe_reliable_set(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "sframe")) {
		WRITE_ONCE(sframe_reliable_arch, false);
	} else if (sysfs_streq(val, "arch") && IS_ENABLED(CONFIG_X86_64)) {
		WRITE_ONCE(sframe_reliable_arch, true);
	} else {
		pr_warn("reliable=%s: expected \"sframe\"%s\n", val,
			IS_ENABLED(CONFIG_X86_64) ? " or \"arch\"" : "");
		return -EINVAL;
	}
	pr_info("arch_stack_walk_reliable() uses %s\n",
		sframe_reliable_arch ? "the architecture's unwinder" : "SFrame");
	return 0;
}

static int sframe_reliable_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", sframe_reliable_arch ? "arch" : "sframe");
}

static const struct kernel_param_ops sframe_reliable_ops = {
	.set	= sframe_reliable_set,
	.get	= sframe_reliable_get,
};

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "sframe."
module_param_cb(reliable, &sframe_reliable_ops, NULL, 0644);
MODULE_PARM_DESC(reliable, "arch_stack_walk_reliable() backend: sframe (default) or arch (x86_64: ORC)");
