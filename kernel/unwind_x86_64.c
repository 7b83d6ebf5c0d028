// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SFrame kernel stack unwinder: x86_64 part.
 *
 * Stacks: the task stack and, for current, this CPU's IRQ stack.  The IST
 * exception stacks (NMI, #DB, #MC, #DF) are not walked: those entries are
 * not annotated, so a walk that meets them stops there as unreliable.
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/rethook.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/irq_stack.h>
#include <asm/processor.h>
#include <asm/text-patching.h>
#include <asm/switch_to.h>
#include "unwind_arch.h"

/**
 * sframe_arch_init_stacks() - the stacks a walk of state->task may use
 * @state: the walk
 */
void sframe_arch_init_stacks(struct sframe_unwind_state *state)
{
	struct task_struct *task = state->task;
	unsigned long base = (unsigned long)task_stack_page(task);
	unsigned int n = 0;

	state->stacks[n].low = base;
	state->stacks[n++].high = base + THREAD_SIZE;
	if (task == current) {
		/* hardirq_stack_ptr points to the topmost word of the stack. */
		unsigned long top = sframe_hardirq_stack_ptr();

		if (top) {
			top += sizeof(long);
			state->stacks[n].low = top - IRQ_STACK_SIZE;
			state->stacks[n++].high = top;
		}
	}
	state->nr_stacks = n;
}

/**
 * sframe_arch_start_regs() - continue at an exception frame
 * @state: the walk
 * @regs: the saved registers of the interrupted context
 */
void sframe_arch_start_regs(struct sframe_unwind_state *state,
			    struct pt_regs *regs)
{
	state->pc = READ_ONCE_NOCHECK(regs->ip);
	state->sp = READ_ONCE_NOCHECK(regs->sp);
	state->fp = READ_ONCE_NOCHECK(regs->bp);
	state->regs = regs;
	state->flags = SFRAME_FRAME_EXACT;
}

/**
 * sframe_arch_recover_ra() - the real return address
 * @state: the walk
 * @ra: the value read from the stack
 * @slot: where it was read
 *
 * Return: @ra, or the address function-graph tracing or a kretprobe
 * (rethook) replaced.
 */
unsigned long sframe_arch_recover_ra(struct sframe_unwind_state *state,
				     unsigned long ra, unsigned long slot)
{
	ra = ftrace_graph_ret_addr(state->task, &state->graph_idx, ra,
				   (unsigned long *)slot);
#ifdef CONFIG_RETHOOK
	if (is_rethook_trampoline(ra))
		ra = rethook_find_ret_addr(state->task, slot, &state->kr_cur);
#endif
	return ra;
}

/**
 * sframe_arch_entry_rule() - rule for a PC ahead of a function's rows
 * @state: the walk
 * @pc: the interrupted PC
 * @rule: result
 *
 * x86_64 FDEs start at the function's first byte: there is no such PC.
 *
 * Return: false.
 */
bool sframe_arch_entry_rule(struct sframe_unwind_state *state,
			    unsigned long pc, struct sframe_rows_rule *rule)
{
	return false;
}

/* Length of a ModRM-addressed instruction of one opcode byte (no prefix). */
static unsigned int sframe_x86_modrm_len(const u8 *modrm, unsigned int avail)
{
	unsigned int mod = *modrm >> 6, rm = *modrm & 7;

	if (mod == 3)
		return 2;
	if (rm == 4) {		/* SIB byte follows */
		if (avail < 2)
			return 0;
		if (mod == 0)
			return (modrm[1] & 7) == 5 ? 7 : 3;
		return mod == 1 ? 4 : 7;
	}
	if (mod == 0)
		return rm == 5 ? 6 : 2;	/* RIP-relative disp32 */
	return mod == 1 ? 3 : 6;
}

/* Does a function (an FDE) start at @addr?  Safe in any context. */
static bool sframe_x86_func_start(unsigned long addr)
{
	struct sframe_rule rule;

	return !sframe_kernel_find(addr, &rule) && rule.func_start == addr;
}

/**
 * sframe_arch_after_call() - does a return address follow a call?
 * @ra: kernel text address
 *
 * Matches the instructions a return address can follow: "call rel32"
 * (direct calls, retpoline and static-call thunks, patched paravirt
 * calls), also with an INT3 over its opcode, and "call r/m64" (ff /2, 2
 * to 7 bytes, any prefix before it).
 * Text bytes could match by chance, so a true answer proves little; a
 * false one proves the slot was not written by a call.
 *
 * The bytes before @ra need not all exist: a module's first function
 * starts its mapping, and a call in its first bytes returns to less than
 * 8 bytes from the start.  Then only the bytes from the start of @ra's
 * page are matched (the others stay zero, which matches no call).
 *
 * Return: true if an instruction that ends at @ra is a call.
 */
bool sframe_arch_after_call(unsigned long ra)
{
	u8 b[8];
	unsigned int n;

	if (__is_kernel_text(ra) && __is_kernel_text(ra - sizeof(b))) {
		memcpy(b, (void *)(ra - sizeof(b)), sizeof(b));
	} else if (copy_from_kernel_nofault(b, (void *)(ra - sizeof(b)),
					    sizeof(b))) {
		n = offset_in_page(ra);
		if (n < 2 || n >= sizeof(b))
			return false;
		memset(b, 0, sizeof(b) - n);
		if (copy_from_kernel_nofault(b + sizeof(b) - n,
					     (void *)(ra - n), n))
			return false;
	}
	if (b[sizeof(b) - 5] == CALL_INSN_OPCODE)
		return true;
	/*
	 * An INT3 where a call would start: text_poke_bp() rewriting a call
	 * site (a static call update: cond_resched() in a livepatch
	 * transition), or a kprobe on a call.  The four bytes after it are
	 * then a call's displacement (the old or the new one): a call if
	 * they lead to the start of a function.
	 */
	if (b[sizeof(b) - 5] == INT3_INSN_OPCODE) {
		s32 disp;

		memcpy(&disp, &b[sizeof(b) - 4], sizeof(disp));
		if (sframe_x86_func_start(ra + disp))
			return true;
	}
	for (n = 2; n <= 7; n++) {
		const u8 *op = &b[sizeof(b) - n];

		if (op[0] == 0xff && ((op[1] >> 3) & 7) == 2 &&
		    sframe_x86_modrm_len(&op[1], n - 1) == n)
			return true;
	}
	return false;
}

bool sframe_arch_user_regs(const struct pt_regs *regs)
{
	/*
	 * user_mode(), 64-bit.  The whole word: since 6.9 the CS selector
	 * is a u16 sharing it with FRED's extension bits.
	 */
	return READ_ONCE_NOCHECK(*(const unsigned long *)&regs->cs) & 3;
}
