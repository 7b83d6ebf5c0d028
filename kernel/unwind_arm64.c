// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SFrame kernel stack unwinder: arm64 part.
 *
 * Stacks as in arch/arm64/kernel/stacktrace.c: the task stack; for current
 * in a non-preemptible context the IRQ and overflow stacks, in NMI context
 * the SDEI stacks, and the EFI runtime stack while in EFI.
 */
#include <linux/efi.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/efi.h>
#include <asm/insn.h>
#include <asm/pointer_auth.h>
#include <asm/stacktrace.h>
#include <sframe/kernel.h>
#include "unwind_arch.h"

static const struct sframe_step_arch arm64_step_arch = SFRAME_ARCH_STEP;

static void sframe_arm64_add(struct sframe_unwind_state *state,
			     struct stack_info info)
{
	if (!info.low || state->nr_stacks >= SFRAME_UNWIND_MAX_STACKS)
		return;
	state->stacks[state->nr_stacks].low = info.low;
	state->stacks[state->nr_stacks++].high = info.high;
}

/**
 * sframe_arch_init_stacks() - the stacks a walk of state->task may use
 * @state: the walk
 */
void sframe_arch_init_stacks(struct sframe_unwind_state *state)
{
	struct task_struct *task = state->task;

	state->nr_stacks = 0;
	sframe_arm64_add(state, stackinfo_get_task(task));
	if (task != current)
		return;
	if (!preemptible()) {
		sframe_arm64_add(state, stackinfo_get_irq());
		sframe_arm64_add(state, stackinfo_get_overflow());
	}
	if (in_nmi()) {
		sframe_arm64_add(state, stackinfo_get_sdei_normal());
		sframe_arm64_add(state, stackinfo_get_sdei_critical());
	}
#ifdef CONFIG_EFI
	if (current_in_efi())
		sframe_arm64_add(state, stackinfo_get_efi());
#endif
}

/**
 * sframe_arch_start_regs() - continue at an exception frame
 * @state: the walk
 * @regs: the saved registers of the interrupted context
 *
 * The interrupted function may not have saved its return address yet: LR
 * is valid for this one frame.
 */
void sframe_arch_start_regs(struct sframe_unwind_state *state,
			    struct pt_regs *regs)
{
	state->pc = READ_ONCE_NOCHECK(regs->pc);
	state->sp = READ_ONCE_NOCHECK(regs->sp);
	state->fp = READ_ONCE_NOCHECK(regs->regs[29]);
	state->lr = sframe_strip_pac(READ_ONCE_NOCHECK(regs->regs[30]));
	state->regs = regs;
	state->flags = SFRAME_FRAME_EXACT | SFRAME_FRAME_LR;
}

/**
 * sframe_arch_recover_ra() - the real return address
 * @state: the walk, with state->fp already the caller's frame pointer
 * @ra: the value read from the stack or LR, its PAC stripped
 * @slot: where it was read (unused: arm64 keys return hooks by FP)
 *
 * Return: @ra, or the address function-graph tracing or a kretprobe
 * replaced.
 */
unsigned long sframe_arch_recover_ra(struct sframe_unwind_state *state,
				     unsigned long ra, unsigned long slot)
{
	struct task_struct *task __maybe_unused = state->task;

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	if (task->ret_stack && ra == (unsigned long)return_to_handler)
		ra = ftrace_graph_ret_addr(task, &state->graph_idx, ra,
					   (void *)state->fp);
#endif
#ifdef CONFIG_KRETPROBES
	if (is_kretprobe_trampoline(ra))
		ra = kretprobe_find_ret_addr(task, (void *)state->fp,
					     &state->kr_cur);
#endif
	return ra;
}

/**
 * sframe_arch_entry_rule() - rule for a PC ahead of a function's rows
 * @state: the walk
 * @pc: the interrupted PC
 * @rule: result
 *
 * With ftrace, functions begin with two patchable NOPs and their FDE starts
 * after them (function + 8).  Nothing has touched the stack there yet: when
 * @pc is one or two instructions before an FDE whose first row is the
 * entry rule (CFA = SP, RA in LR), that rule applies to @pc as well.
 *
 * A module's branch veneers (sframe_module_veneer()) have that rule
 * throughout: they are entered by a branch-and-link or a tail call and
 * leave with a branch, touching only x16 and x17.
 *
 * Return: true with @rule filled.
 */
bool sframe_arch_entry_rule(struct sframe_unwind_state *state,
			    unsigned long pc, struct sframe_rows_rule *rule)
{
	struct sframe_rule r;
	unsigned long off;

	if (sframe_module_veneer(pc)) {
		sframe_lr_entry_rule(&arm64_step_arch, rule);
		return true;
	}

	for (off = AARCH64_INSN_SIZE; off <= 2 * AARCH64_INSN_SIZE;
	     off += AARCH64_INSN_SIZE) {
		if (sframe_kernel_find(pc + off, &r) ||
		    r.func_start != pc + off || r.fre_start ||
		    r.cfa.reg != SFRAME_ARCH_SP_REG || r.cfa.offset ||
		    r.ra.kind != SFRAME_LOC_SAME)
			continue;
		sframe_rule_recovery(rule, &r);
		return true;
	}
	return false;
}

/**
 * sframe_arch_after_call() - does a return address follow a call?
 * @ra: kernel text address, PAC already stripped
 *
 * Return: true if the instruction before @ra is a BL, BLR or BLRA*.
 */
bool sframe_arch_after_call(unsigned long ra)
{
	__le32 insn;
	u32 op;

	if (!IS_ALIGNED(ra, AARCH64_INSN_SIZE))
		return false;
	if (__is_kernel_text(ra) && __is_kernel_text(ra - AARCH64_INSN_SIZE))
		insn = *(__le32 *)(ra - AARCH64_INSN_SIZE);
	else if (copy_from_kernel_nofault(&insn, (void *)(ra - AARCH64_INSN_SIZE),
					  sizeof(insn)))
		return false;
	op = le32_to_cpu(insn);
	return aarch64_insn_is_bl(op) || aarch64_insn_is_blr(op) ||
	       aarch64_insn_is_blr_auth(op);
}

bool sframe_arch_user_regs(const struct pt_regs *regs)
{
	return (READ_ONCE_NOCHECK(regs->pstate) & PSR_MODE_MASK) ==
	       PSR_MODE_EL0t;	/* user_mode() */
}
