/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The SFrame kernel stack unwinder.
 *
 * A walk starts from the current task, a blocked task or a struct pt_regs
 * and steps from frame to frame with the SFrame rows of vmlinux and modules,
 * overridden by the annotation table (include/sframe/annot.h) in entry code
 * and where the build-time verifier found SFrame wrong.
 * See Documentation/unwinder.rst.
 */
#ifndef _SFRAME_UNWIND_H
#define _SFRAME_UNWIND_H

#include <linux/stacktrace.h>
#include <linux/types.h>
#include <sframe/lookup.h>		/* struct sframe_answer */
#include <sframe/step.h>		/* SFRAME_FRAME_* */

struct task_struct;
struct pt_regs;
struct llist_node;

/* A walk gives up after this many frames (loops, corrupted stacks). */
#define SFRAME_UNWIND_MAX_FRAMES	512

/* Stacks a walk may visit: task, IRQ, overflow, SDEI (2), EFI. */
#define SFRAME_UNWIND_MAX_STACKS	6

/**
 * enum sframe_unwind_error - why a walk is not reliable, or stopped
 * @SFRAME_UW_OK: nothing wrong (yet)
 * @SFRAME_UW_NO_RULE: a PC has neither SFrame nor an annotation
 * @SFRAME_UW_BAD_RANGE: a PC lies where the verifier found SFrame wrong
 * @SFRAME_UW_NOT_TEXT: a PC is not kernel text
 * @SFRAME_UW_STACK: a read or a frame outside the task's stacks
 * @SFRAME_UW_DIRECTION: the stack pointer did not move up the stack
 * @SFRAME_UW_RA: the return address cannot be recovered
 * @SFRAME_UW_LR: the return address is in LR where LR is not known
 * @SFRAME_UW_REGS: a pt_regs boundary that is not allowed here
 * @SFRAME_UW_FINAL: the walk ended somewhere other than the final frame
 * @SFRAME_UW_TOO_DEEP: more than %SFRAME_UNWIND_MAX_FRAMES frames
 * @SFRAME_UW_FALLBACK: a frame was found with frame pointers
 * @SFRAME_UW_CALLSITE: a return address does not follow a call instruction
 * @SFRAME_UW_MAX: number of codes
 */
enum sframe_unwind_error {
	SFRAME_UW_OK,
	SFRAME_UW_NO_RULE,
	SFRAME_UW_BAD_RANGE,
	SFRAME_UW_NOT_TEXT,
	SFRAME_UW_STACK,
	SFRAME_UW_DIRECTION,
	SFRAME_UW_RA,
	SFRAME_UW_LR,
	SFRAME_UW_REGS,
	SFRAME_UW_FINAL,
	SFRAME_UW_TOO_DEEP,
	SFRAME_UW_FALLBACK,
	SFRAME_UW_CALLSITE,
	SFRAME_UW_MAX
};

/**
 * struct sframe_stack - a stack region the walk may read
 * @low: lowest address still usable (moves up as frames are consumed)
 * @high: one past the highest address
 */
struct sframe_stack {
	unsigned long low;
	unsigned long high;
};

/**
 * struct sframe_unwind_state - one walk
 * @task: the task whose stack is walked
 * @pc: PC of the current frame (a return address unless %SFRAME_FRAME_EXACT)
 * @sp: stack pointer of the current frame
 * @fp: frame pointer register value of the current frame
 * @lr: link register of the current frame (arm64, with %SFRAME_FRAME_LR)
 * @regs: the pt_regs the current frame was recovered from, or NULL
 * @flags: %SFRAME_FRAME_* (sframe/step.h): @pc exact (interrupted or
 *         current, not a return address), @lr live, @sp only a bound
 * @done: the walk reached its final frame (and is complete)
 * @stopped: the walk cannot continue (see @error)
 * @reliable: no frame so far failed a reliability rule
 * @error: first reason (enum sframe_unwind_error) for !@reliable or @stopped
 * @error_pc: the PC of the frame where @error was found
 * @frames: frames visited so far
 * @stack: the stack the current frame lies on
 * @stacks: stacks not yet visited
 * @nr_stacks: entries of @stacks
 * @graph_idx: function-graph return stack cursor
 * @kr_cur: kretprobe return stack cursor
 * @next_slot: the slot of @pc in vmlinux's return-site table when it is
 *             a listed return site (sframe_ra_slot(): found by the step
 *             that read it), or 0
 * @ans: sframe_unwind_next()'s scratch: the answer of the current PC when the
 *       lookup cache does not hold it
 * @rule: sframe_unwind_next()'s scratch: a rule that is not in an answer
 *        (an annotation's, the entry rule, the frame record)
 *
 * The scratch members live here rather than on sframe_unwind_next()'s
 * stack, where CONFIG_INIT_STACK_ALL_ZERO would clear them at every step;
 * they come last, and sframe_unwind_start() does not clear them either.
 * It sets every other member one by one (and @stacks only up to
 * @nr_stacks): a member added here must be initialised there.
 */
struct sframe_unwind_state {
	struct task_struct *task;
	unsigned long pc, sp, fp, lr;
	struct pt_regs *regs;
	unsigned int flags;
	bool done, stopped, reliable;
	int error;
	unsigned long error_pc;
	unsigned int frames;
	struct sframe_stack stack;
	struct sframe_stack stacks[SFRAME_UNWIND_MAX_STACKS];
	unsigned int nr_stacks;
	int graph_idx;
	struct llist_node *kr_cur;
	u64 next_slot;
	struct sframe_answer ans;
	struct sframe_rows_rule rule;
};

void sframe_unwind_start(struct sframe_unwind_state *state,
			 struct task_struct *task, struct pt_regs *regs);
bool sframe_unwind_next(struct sframe_unwind_state *state);
const char *sframe_unwind_strerror(int error);

void sframe_stack_walk(stack_trace_consume_fn consume_entry, void *cookie,
		       struct task_struct *task, struct pt_regs *regs);
int sframe_stack_walk_reliable(stack_trace_consume_fn consume_entry,
			       void *cookie, struct task_struct *task);
/* sframe.reliable=arch: arch_stack_walk_reliable() uses the arch's unwinder */
extern bool sframe_reliable_arch;
int sframe_stack_walk_state(stack_trace_consume_fn consume_entry,
			    void *cookie, struct task_struct *task,
			    struct pt_regs *regs,
			    struct sframe_unwind_state *state);
int sframe_unwind_call_blocked(struct task_struct *task,
			       int (*fn)(struct task_struct *task, void *arg),
			       void *arg);

/*
 * The architecture's own unwinder, kept next to ours for comparison by the
 * tests and the benchmark (scripts/patches/0006): ORC on x86_64, the
 * frame-record walk on arm64.
 */
#ifdef CONFIG_X86_64
#define SFRAME_REF_UNWINDER	"ORC"
void arch_stack_walk_orc(stack_trace_consume_fn consume_entry, void *cookie,
			 struct task_struct *task, struct pt_regs *regs);
int arch_stack_walk_reliable_orc(stack_trace_consume_fn consume_entry,
				 void *cookie, struct task_struct *task);
#else
#define SFRAME_REF_UNWINDER	"frame pointers"
void arch_stack_walk_fp(stack_trace_consume_fn consume_entry, void *cookie,
			struct task_struct *task, struct pt_regs *regs);
#endif

/**
 * sframe_ref_walk() - walk a task with the reference unwinder
 * @consume_entry: called for each return address
 * @cookie: its argument
 * @task: the task (current, or one kept off the CPU)
 * @reliable: x86_64: ORC's reliable walk, else its best-effort one
 *
 * The one place that picks the architecture's unwinder our walks are
 * compared and timed against (SFRAME_REF_UNWINDER).  arm64's frame-record
 * walk has no reliable mode in the kernels we support.
 *
 * Return: 0, or the reliable walk's error.
 */
static inline int sframe_ref_walk(stack_trace_consume_fn consume_entry,
				  void *cookie, struct task_struct *task,
				  bool reliable)
{
#ifdef CONFIG_X86_64
	if (reliable)
		return arch_stack_walk_reliable_orc(consume_entry, cookie, task);
	arch_stack_walk_orc(consume_entry, cookie, task, NULL);
#else
	arch_stack_walk_fp(consume_entry, cookie, task, NULL);
#endif
	return 0;
}

#endif /* _SFRAME_UNWIND_H */
