/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A kthread parked in a known chain of functions, for the unwinder's tests
 * and demo: a walk of it must find sframe_park_chain[] in order, then the
 * kthread's final frame.
 *
 * Included by one file of each module that walks through its own code (the
 * built-in KUnit suite, the module KUnit test, sframe_unwind_demo.ko), so
 * the chain is that module's text, described by that module's .sframe.
 * The functions are static: each user gets its own copy of the code, from
 * this one source.
 */
#ifndef _SFRAME_PARK_H
#define _SFRAME_PARK_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/task.h>

/**
 * enum sframe_park_mode - what the chain's leaf does
 * @SFRAME_PARK_SLEEP: completes @ready and sleeps until @release
 * @SFRAME_PARK_SPIN: spins until @fired is set (from an interrupt)
 * @SFRAME_PARK_CALL: returns at once (kprobes on the chain's code)
 */
enum sframe_park_mode {
	SFRAME_PARK_SLEEP,
	SFRAME_PARK_SPIN,
	SFRAME_PARK_CALL,
};

/**
 * struct sframe_park - a run of the chain
 * @mode: what the leaf does
 * @ready: completed by the leaf before it sleeps
 * @release: the sleeping leaf returns once it is completed
 * @fired: the spinning leaf returns once it is set
 * @spinner: the task spinning in the leaf, while it does
 * @tries: interrupts that sframe_park_irq_retry() let pass
 * @missed: no interrupt came in the spin (sframe_park_irq_retry())
 * @sink: results of the chain, so that no call is optimised away
 */
struct sframe_park {
	enum sframe_park_mode mode;
	struct completion ready, release;
	atomic_t fired;
	struct task_struct *spinner;
	unsigned int tries;
	bool missed;
	int sink;
};

/* Interrupts sframe_park_irq_retry() lets pass before it gives up. */
#define SFRAME_PARK_IRQ_TRIES	2000

static noinline int sframe_park_leaf(struct sframe_park *p)
{
	switch (p->mode) {
	case SFRAME_PARK_SLEEP:
		complete(&p->ready);
		wait_for_completion(&p->release);
		break;
	case SFRAME_PARK_SPIN:
		WRITE_ONCE(p->spinner, current);
		while (!atomic_read(&p->fired))
			cpu_relax();
		WRITE_ONCE(p->spinner, NULL);
		break;
	default:
		WRITE_ONCE(p->sink, READ_ONCE(p->sink) + 1);
		break;
	}
	return READ_ONCE(p->sink);
}

static noinline int sframe_park_fn3(struct sframe_park *p)
{
	int r = sframe_park_leaf(p);

	barrier_data(&r);
	return r + 3;
}

static noinline int sframe_park_fn2(struct sframe_park *p)
{
	int r = sframe_park_fn3(p);

	barrier_data(&r);
	return r + 2;
}

/* The chain's entry: fn1 -> fn2 -> fn3 -> leaf. */
static noinline int sframe_park_fn1(struct sframe_park *p)
{
	int r = sframe_park_fn2(p);

	barrier_data(&r);
	return r * 5 + 1;
}

/**
 * sframe_park_irq_retry() - in a hard hrtimer's callback: not this time?
 * @p: a run of the chain in %SFRAME_PARK_SPIN mode
 * @timer: the timer, started %HRTIMER_MODE_REL_PINNED_HARD by the task
 *	that then runs the chain with migration disabled
 *
 * The interrupt must come in the task spinning in the leaf, at task level.
 * On a preemptible SMP kernel it can also come before the chain is
 * entered (the vCPU was late), while another task has the CPU, or in a
 * softirq: then @timer is moved 1 ms on and true is returned (return
 * %HRTIMER_RESTART), at most %SFRAME_PARK_IRQ_TRIES times. Otherwise
 * false: walk now, unless @p->missed says that the tries ran out; then set
 * @p->fired.
 */
static inline bool sframe_park_irq_retry(struct sframe_park *p,
					 struct hrtimer *timer)
{
	if (current == READ_ONCE(p->spinner) && !in_serving_softirq())
		return false;
	if (++p->tries < SFRAME_PARK_IRQ_TRIES) {
		hrtimer_forward_now(timer, ms_to_ktime(1));
		return true;
	}
	p->missed = true;
	return false;
}

/* The chain as a walk reports it, innermost first. */
static void *const sframe_park_chain[] __maybe_unused = {
	sframe_park_leaf, sframe_park_fn3, sframe_park_fn2, sframe_park_fn1,
};

static int __maybe_unused sframe_park_thread(void *arg)
{
	struct sframe_park *p = arg;

	WRITE_ONCE(p->sink, sframe_park_fn1(p));
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

/*
 * A kthread @name in the chain, asleep in the leaf or about to be (the
 * caller waits for it to be off the CPU as its context allows), with a
 * reference; or an ERR_PTR().
 */
static __maybe_unused struct task_struct *
sframe_park_start(struct sframe_park *p, const char *name)
{
	struct task_struct *task;

	p->mode = SFRAME_PARK_SLEEP;
	init_completion(&p->ready);
	init_completion(&p->release);
	task = kthread_run(sframe_park_thread, p, "%s", name);
	if (IS_ERR(task))
		return task;
	get_task_struct(task);
	wait_for_completion(&p->ready);
	return task;
}

/* Release the kthread of sframe_park_start() and drop it. */
static void __maybe_unused sframe_park_stop(struct sframe_park *p,
					    struct task_struct *task)
{
	complete(&p->release);
	kthread_stop(task);
	put_task_struct(task);
}

#endif /* _SFRAME_PARK_H */
