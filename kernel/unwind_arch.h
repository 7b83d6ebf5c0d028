/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the generic SFrame unwinder (unwind.c) needs from an architecture:
 * unwind_x86_64.c and unwind_arm64.c implement it.
 */
#ifndef _SFRAME_UNWIND_ARCH_H
#define _SFRAME_UNWIND_ARCH_H

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/rethook.h>
#include <linux/sched.h>
#include <sframe/compat.h>
#include <sframe/sframe.h>
#include <sframe/step.h>
#include <sframe/unwind.h>
#include <asm/sections.h>
#ifdef CONFIG_ARM64
#include <asm/insn.h>
#include <asm/pointer_auth.h>
#else
#include <asm/switch_to.h>
#include <asm/text-patching.h>
#endif

/* DWARF numbers of the stack and frame pointer, as SFrame rules name them. */
#ifdef CONFIG_X86_64
#define SFRAME_ARCH_SP_REG	SFRAME_DWARF_AMD64_SP
#define SFRAME_ARCH_FP_REG	SFRAME_DWARF_AMD64_FP
#define SFRAME_ARCH_HAS_LR	0
#define SFRAME_ARCH_STRIP	NULL
#elif defined(CONFIG_ARM64)
#define SFRAME_ARCH_SP_REG	SFRAME_DWARF_AARCH64_SP
#define SFRAME_ARCH_FP_REG	SFRAME_DWARF_AARCH64_FP
#define SFRAME_ARCH_HAS_LR	1
#define SFRAME_ARCH_STRIP	sframe_arch_strip

/* A return address without its pointer authentication code (either key). */
static inline unsigned long sframe_arch_strip(unsigned long ra)
{
	return sframe_strip_pac(ra);
}
#endif

/*
 * The architecture for sframe_step(), in the kernel and user walkers alike:
 *	static const struct sframe_step_arch arch = SFRAME_ARCH_STEP;
 */
#define SFRAME_ARCH_STEP {				\
	.sp_reg = SFRAME_ARCH_SP_REG,			\
	.fp_reg = SFRAME_ARCH_FP_REG,			\
	.has_lr = SFRAME_ARCH_HAS_LR,			\
	.strip = SFRAME_ARCH_STRIP,			\
}

/* Fill state->stacks with the stacks @state->task may be walked on. */
void sframe_arch_init_stacks(struct sframe_unwind_state *state);

/**
 * sframe_arch_blocked_frame() - a blocked task's switch frame
 * @task: the task
 * @stack: its task stack
 * @f: set: pc, sp and fp (all 0 when the frame is not on @stack), and
 *     flags (SFRAME_FRAME_EXACT for a task that never ran)
 *
 * Inline: the walk of a blocked task takes them from registers.
 */
static __always_inline void
sframe_arch_blocked_frame(struct task_struct *task,
			  const struct sframe_stack *stack,
			  struct sframe_frame *f)
{
#ifdef CONFIG_X86_64
	struct inactive_task_frame *frame;
	unsigned long sp = task->thread.sp;

	/* The switch frame must lie on the task stack before it is read. */
	if (sp < stack->low || sp > stack->high ||
	    stack->high - sp < sizeof(*frame) ||
	    !IS_ALIGNED(sp, sizeof(long))) {
		f->pc = 0;
		f->sp = 0;
		f->fp = 0;
		f->flags = 0;
		return;
	}
	frame = (struct inactive_task_frame *)sp;
	f->sp = (unsigned long)(frame + 1);
	f->fp = READ_ONCE_NOCHECK(frame->bp);
	f->pc = READ_ONCE_NOCHECK(frame->ret_addr);
#else
	f->pc = sframe_strip_pac(thread_saved_pc(task));
	f->sp = thread_saved_sp(task);
	f->fp = thread_saved_fp(task);
#endif
	/* A task that never ran starts at the first byte of its entry. */
	f->flags = f->pc == (unsigned long)sframe_fork_entry ?
		   SFRAME_FRAME_EXACT : 0;
}

/* Start (or continue after a boundary) at an exception frame. */
void sframe_arch_start_regs(struct sframe_unwind_state *state,
			    struct pt_regs *regs);

/*
 * Turn the return address @ra (pointer authentication already stripped),
 * read from @slot (its stack address, 0 for the link register; on arm64 the
 * caller's frame record, state->fp, is used instead), into the address the
 * function returns to: undo function-graph tracing and kretprobe return
 * trampolines.
 */
unsigned long sframe_arch_recover_ra(struct sframe_unwind_state *state,
				     unsigned long ra, unsigned long slot);

/*
 * Is @ra a return trampoline that sframe_arch_recover_ra() undoes?  Inline,
 * so that an ordinary return address costs two compares and no call.
 */
static __always_inline bool sframe_arch_ra_trampoline(unsigned long ra)
{
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	if (ra == (unsigned long)return_to_handler)
		return true;
#endif
#ifdef CONFIG_X86_64
#ifdef CONFIG_RETHOOK
	return is_rethook_trampoline(ra);
#else
	return false;
#endif
#else
	return is_kretprobe_trampoline(ra);
#endif
}

/*
 * The rule for an interrupted @pc that has no SFrame row but is known to
 * run before a function's first row (arm64: the patchable-entry NOPs ahead
 * of the FDE).  Return: true with @rule filled.
 */
bool sframe_arch_entry_rule(struct sframe_unwind_state *state,
			    unsigned long pc, struct sframe_rows_rule *rule);

/* Does the kernel text address @ra follow a call instruction? */
bool sframe_arch_after_call(unsigned long ra);

/*
 * Is @ra vmlinux text (_stext to _etext), and so are the @len bytes before
 * it?  One compare (those below _stext wrap around): on the path of every
 * lookup cache fill.
 */
static __always_inline bool sframe_text_upto(unsigned long ra,
					     unsigned long len)
{
	return ra - len - (unsigned long)_stext <=
	       (unsigned long)_etext - (unsigned long)_stext - len - 1;
}

/*
 * The most common cases of sframe_arch_after_call(), with no call: vmlinux
 * text after a direct call ("call rel32", "bl"), or on x86_64 after
 * "call *%reg" (ff d0+reg, also with a REX prefix: kthread functions, work
 * items, the retpoline thunk calls the alternatives turn into indirect
 * calls).  False: not one of them (it may still follow a call).
 */
static __always_inline bool sframe_arch_after_call_fast(unsigned long ra)
{
#ifdef CONFIG_X86_64
	const u8 *b = (const u8 *)ra;

	return sframe_text_upto(ra, CALL_INSN_SIZE) &&
	       (b[-CALL_INSN_SIZE] == CALL_INSN_OPCODE ||
		(b[-2] == 0xff && (b[-1] & 0xf8) == 0xd0));
#elif defined(CONFIG_ARM64)
	return IS_ALIGNED(ra, AARCH64_INSN_SIZE) &&
	       sframe_text_upto(ra, AARCH64_INSN_SIZE) &&
	       aarch64_insn_is_bl(le32_to_cpu(*(const __le32 *)(ra - AARCH64_INSN_SIZE)));
#else
	return false;
#endif
}

/* sframe_arch_after_call() with its most common cases inline */
static __always_inline bool sframe_arch_after_call_inline(unsigned long ra)
{
	return sframe_arch_after_call_fast(ra) || sframe_arch_after_call(ra);
}

/*
 * user_mode() of @regs without a KASAN check: a best-effort walk of a task
 * that is running may find its pt_regs annotation over stack the task has
 * reused since (a redzone of a live frame).
 */
bool sframe_arch_user_regs(const struct pt_regs *regs);

/* Capture pc, sp and fp at this point of the (always inlining) caller. */
static __always_inline void sframe_arch_here(unsigned long *pc,
					     unsigned long *sp,
					     unsigned long *fp)
{
#ifdef CONFIG_X86_64
	asm volatile("lea (%%rip), %0\n\t"
		     "mov %%rsp, %1\n\t"
		     "mov %%rbp, %2\n\t"
		     : "=r" (*pc), "=r" (*sp), "=r" (*fp));
#elif defined(CONFIG_ARM64)
	asm volatile("adr %0, .\n\t"
		     "mov %1, sp\n\t"
		     "mov %2, x29\n\t"
		     : "=r" (*pc), "=r" (*sp), "=r" (*fp));
#endif
}

#endif /* _SFRAME_UNWIND_ARCH_H */
