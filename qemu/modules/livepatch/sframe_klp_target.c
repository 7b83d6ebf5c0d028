// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe_klp_target.ko: tasks parked inside functions that a livepatch
 * (sframe_klp_patch.ko) replaces, to show that livepatch's consistency
 * model is enforced by the reliable SFrame unwinder (a boot test drives
 * them):
 *
 *  - the "sleeper" kthread blocks in sfk_sleep_func() until released;
 *  - the "spinner" kthread loops in sfk_spin_inner(), called by
 *    sfk_spin_outer(), on the same CPU as a "hog" kthread, so that the
 *    timer interrupt preempts it: its stack then holds an exception
 *    boundary (the interrupt's pt_regs) between the scheduler and the
 *    patched function's callee;
 *  - the "busy" kthread runs in sfk_busy_fn(), which no patch replaces,
 *    calling cond_resched() and never sleeping: livepatch switches it from
 *    that cond_resched() (SFRAME_KLP_COND_RESCHED), after a reliable walk
 *    of current's own stack.
 *
 * debugfs sframe_klp/: write 1/0 to "sleep", "spin" or "busy" to start or
 * release a task; read "trace" for each live task's reliable stack trace,
 * taken while it is off the CPU; read "result" for what the last calls
 * returned (1: original function, 2: the livepatch's) and how the busy
 * task was switched (1: from its cond_resched(), 2: otherwise, 3: before it
 * saw its switch pending) and, while its switch was pending, how often it
 * looped, blocked and was preempted; read "reloc" for what sfk_reloc_func()
 * returns (1, or 42 once sframe_klp_reloc.ko replaced it with a function
 * that calls the static sfk_secret() through a livepatch relocation).
 */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/stacktrace.h>
#include <linux/wait.h>

#include <sframe/compat.h>
#include <sframe/unwind.h>

#include "sframe_klp_target.h"

#define SFK_MAX_FRAMES	64

static DECLARE_WAIT_QUEUE_HEAD(sfk_wq);
static bool sfk_sleep_release;
static bool sfk_spin_stop, sfk_busy_stop;
static struct task_struct *sfk_sleeper, *sfk_spinner, *sfk_hog, *sfk_busy;
static int sfk_sleep_result, sfk_spin_result, sfk_busy_result;
/*
 * While its switch was pending, the busy task's loop iterations and the
 * times it blocked or was preempted: when it is not switched, they tell
 * whether it ran its cond_resched() at all.
 */
static unsigned long sfk_busy_loops, sfk_busy_blocked, sfk_busy_preempted;
static DEFINE_MUTEX(sfk_lock);
static struct dentry *sfk_dir;

/*
 * What the old functions return, read with READ_ONCE(): a constant return
 * value would let the compiler store it in the caller without using the
 * call's result (clang's interprocedural constant propagation does, even
 * for exported noinline functions), and the replacement's value would
 * never be seen.
 */
static int sfk_old_result = 1;

/**
 * sfk_sleep_func() - sleep until released (the "sleep" file)
 *
 * Replaced by sframe_klp_patch.ko, whose version returns 2 at once.
 *
 * Return: 1.
 */
noinline int sfk_sleep_func(void)
{
	wait_event_interruptible(sfk_wq, READ_ONCE(sfk_sleep_release));
	return READ_ONCE(sfk_old_result);
}
EXPORT_SYMBOL_GPL(sfk_sleep_func);

/**
 * sfk_spin_inner() - spin until stopped (the "spin" file)
 *
 * Where the timer interrupt finds the spinner: its caller,
 * sfk_spin_outer(), is on the stack below the exception boundary.
 */
noinline void sfk_spin_inner(void)
{
	while (!READ_ONCE(sfk_spin_stop))
		cpu_relax();
}
EXPORT_SYMBOL_GPL(sfk_spin_inner);

/**
 * sfk_spin_outer() - call sfk_spin_inner()
 *
 * Replaced by sframe_klp_patch.ko, whose version returns 2 at once.
 *
 * Return: 1.
 */
noinline int sfk_spin_outer(void)
{
	sfk_spin_inner();
	return READ_ONCE(sfk_old_result);
}
EXPORT_SYMBOL_GPL(sfk_spin_outer);

/* Static: a livepatch reaches it only through a livepatch relocation. */
static int sfk_secret_val = 41;

static noinline int sfk_secret(void)
{
	return READ_ONCE(sfk_secret_val);
}

/**
 * sfk_reloc_func() - what the "reloc" file shows
 *
 * Replaced by sframe_klp_reloc.ko, whose version calls the static
 * sfk_secret() through a livepatch relocation and returns 42.
 *
 * Return: 1.
 */
noinline int sfk_reloc_func(void)
{
	return sfk_secret() - 40;
}
EXPORT_SYMBOL_GPL(sfk_reloc_func);

static int sfk_sleeper_fn(void *arg)
{
	WRITE_ONCE(sfk_sleep_result, sfk_sleep_func());
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static int sfk_spinner_fn(void *arg)
{
	WRITE_ONCE(sfk_spin_result, sfk_spin_outer());
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static int sfk_hog_fn(void *arg)
{
	while (!READ_ONCE(sfk_spin_stop))
		cpu_relax();
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

/*
 * The busy task: spins calling cond_resched() until livepatch switched it
 * (or it is stopped, or 10 s passed since its switch became pending, 30 s
 * in all), and records how.  Switched from inside cond_resched() (1) when
 * TIF_PATCH_PENDING was set before the call and clear after it with no
 * context switch in between: nobody else may switch a task while it runs
 * (short of a forced or reversed transition).  Any other clearing is 2.
 *
 * A task of higher priority can still take the CPU from it for a moment:
 * ftrace's stop_machine() while the patch is enabled, the soft-lockup
 * watchdog's stopper every few seconds.  When livepatch's first walk of
 * all tasks comes then, it switches the busy task before the task saw its
 * switch pending: its patch_state leaves the transition's initial state
 * (or is already the target when it first looks) with TIF_PATCH_PENDING
 * never seen set (3: the check did not run; the caller tries again on
 * another transition).
 *
 * Then it sleeps at normal priority until stopped.
 */
static int sfk_busy_fn(void *arg)
{
	unsigned long end = jiffies + 30 * HZ, nsw, nvcsw = 0, nivcsw = 0;
	int how = 0, state, first = SFRAME_KLP_IDLE;
	unsigned long loops = 0;
	bool pending, was = false;

	while (!how && !READ_ONCE(sfk_busy_stop) && time_before(jiffies, end)) {
		pending = klp_patch_pending(current);
		/* (livepatch writes it from other CPUs) */
		state = READ_ONCE(current->patch_state);
		if (was && !pending)
			how = 2;
		if (!was && !pending && first == SFRAME_KLP_IDLE &&
		    state != SFRAME_KLP_IDLE) {
			first = state;
			end = min(end, jiffies + 10 * HZ);
		} else if (!was && !pending && state != first) {
			how = 3;
		}
		if (pending && !was) {
			end = min(end, jiffies + 10 * HZ);
			nvcsw = current->nvcsw;
			nivcsw = current->nivcsw;
		}
		was |= pending;
		loops += pending;
		nsw = current->nvcsw + current->nivcsw;
		cond_resched();
		if (pending && !klp_patch_pending(current))
			how = nsw == current->nvcsw + current->nivcsw ? 1 : 2;
		cpu_relax();
	}
	if (!how && !was && first != SFRAME_KLP_IDLE)
		how = 3;
	if (was) {
		WRITE_ONCE(sfk_busy_loops, loops);
		WRITE_ONCE(sfk_busy_blocked, current->nvcsw - nvcsw);
		WRITE_ONCE(sfk_busy_preempted, current->nivcsw - nivcsw);
	}
	WRITE_ONCE(sfk_busy_result, how);
	sched_set_normal(current, 0);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static void sfk_stop(struct task_struct **t)
{
	if (*t) {
		kthread_stop(*t);
		put_task_struct(*t);
		*t = NULL;
	}
}

static struct task_struct *sfk_start(int (*fn)(void *), const char *name,
				     int cpu, bool fifo)
{
	struct task_struct *t;

	t = kthread_create(fn, NULL, "%s", name);
	if (IS_ERR(t))
		return NULL;
	get_task_struct(t);
	if (cpu >= 0)
		kthread_bind(t, cpu);
	if (fifo)
		sched_set_fifo_low(t);
	wake_up_process(t);
	return t;
}

static int sfk_sleep_set(bool on)
{
	if (on && !sfk_sleeper) {
		WRITE_ONCE(sfk_sleep_release, false);
		WRITE_ONCE(sfk_sleep_result, 0);
		sfk_sleeper = sfk_start(sfk_sleeper_fn, "sfk_sleeper", -1, false);
	} else if (!on && sfk_sleeper) {
		WRITE_ONCE(sfk_sleep_release, true);
		wake_up_all(&sfk_wq);
		/* let it return from sfk_sleep_func() before it is stopped */
		while (!READ_ONCE(sfk_sleep_result))
			usleep_range(10000, 20000);
		sfk_stop(&sfk_sleeper);
	}
	return 0;
}

static int sfk_spin_set(bool on)
{
	/* both on the last CPU: the tick preempts one for the other */
	int cpu = cpumask_last(cpu_online_mask);

	/*
	 * Without full preemption nothing preempts the spinner inside the
	 * kernel: it would hog its CPU (an RCU stall) and never be walked.
	 */
	if (on && !preempt_model_full())
		return -EOPNOTSUPP;
	if (on && !sfk_spinner) {
		WRITE_ONCE(sfk_spin_stop, false);
		WRITE_ONCE(sfk_spin_result, 0);
		sfk_spinner = sfk_start(sfk_spinner_fn, "sfk_spinner", cpu, false);
		sfk_hog = sfk_start(sfk_hog_fn, "sfk_hog", cpu, false);
	} else if (!on && sfk_spinner) {
		WRITE_ONCE(sfk_spin_stop, true);
		while (!READ_ONCE(sfk_spin_result))
			usleep_range(10000, 20000);
		sfk_stop(&sfk_spinner);
		sfk_stop(&sfk_hog);
	}
	return 0;
}

/*
 * The busy task runs SCHED_FIFO on the first CPU (the spinner and the hog
 * share the last): nothing but interrupts takes it off the CPU, so only
 * its own cond_resched() can switch it, not a transition attempt that
 * finds it preempted.  Other tasks keep the other CPU, and the share of
 * this one that RT throttling leaves them.
 */
static int sfk_busy_set(bool on)
{
	if (on && (!SFRAME_KLP_COND_RESCHED || num_online_cpus() < 2))
		return -EOPNOTSUPP;
	if (on && !sfk_busy) {
		WRITE_ONCE(sfk_busy_stop, false);
		WRITE_ONCE(sfk_busy_result, 0);
		WRITE_ONCE(sfk_busy_loops, 0);
		WRITE_ONCE(sfk_busy_blocked, 0);
		WRITE_ONCE(sfk_busy_preempted, 0);
		sfk_busy = sfk_start(sfk_busy_fn, "sfk_busy",
				     cpumask_first(cpu_online_mask), true);
	} else if (!on && sfk_busy) {
		WRITE_ONCE(sfk_busy_stop, true);
		sfk_stop(&sfk_busy);
	}
	return 0;
}

static ssize_t sfk_write(struct file *file, const char __user *buf,
			 size_t len, loff_t *ppos)
{
	int (*set)(bool on) = file->private_data;
	bool on;
	int ret;

	ret = kstrtobool_from_user(buf, len, &on);
	if (ret)
		return ret;
	mutex_lock(&sfk_lock);
	ret = set(on);
	mutex_unlock(&sfk_lock);
	return ret ? ret : len;
}

static const struct file_operations sfk_set_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= sfk_write,
	.llseek	= noop_llseek,
};

struct sfk_trace {
	unsigned long e[SFK_MAX_FRAMES];
	unsigned int n;
	struct sframe_unwind_state st;
	int ret;
};

static bool sfk_store(void *cookie, unsigned long addr)
{
	struct sfk_trace *t = cookie;

	if (t->n >= SFK_MAX_FRAMES)
		return false;
	t->e[t->n++] = addr;
	return true;
}

static int sfk_walk(struct task_struct *task, void *arg)
{
	struct sfk_trace *t = arg;

	t->n = 0;
	t->ret = sframe_stack_walk_state(sfk_store, t, task, NULL, &t->st);
	return 0;
}

/*
 * One line per task: its reliable trace, taken while it is off the CPU
 * (retried while it runs), as "NAME: reliable|unreliable (why): f1 f2 ...".
 */
static void sfk_show_task(struct seq_file *m, const char *name,
			  struct task_struct *task)
{
	struct sfk_trace *t;
	unsigned int i;
	int ret = -EBUSY, tries;

	if (!task)
		return;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return;
	for (tries = 0; tries < 2000 && ret == -EBUSY; tries++) {
		ret = sframe_unwind_call_blocked(task, sfk_walk, t);
		if (ret == -EBUSY)
			usleep_range(500, 1000);
	}
	if (ret) {
		seq_printf(m, "%s: not walked (%d)\n", name, ret);
	} else {
		seq_printf(m, "%s: %s:", name, t->ret ? "unreliable" : "reliable");
		if (t->ret)
			seq_printf(m, " (%s)", sframe_unwind_strerror(t->st.error));
		for (i = 0; i < t->n; i++)
			seq_printf(m, " %ps", (void *)t->e[i]);
		seq_putc(m, '\n');
	}
	kfree(t);
}

static int sfk_trace_show(struct seq_file *m, void *v)
{
	mutex_lock(&sfk_lock);
	sfk_show_task(m, "sleeper", sfk_sleeper);
	sfk_show_task(m, "spinner", sfk_spinner);
	mutex_unlock(&sfk_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfk_trace);

static int sfk_result_show(struct seq_file *m, void *v)
{
	seq_printf(m, "sleep %d\nspin %d\nbusy %d\n",
		   READ_ONCE(sfk_sleep_result), READ_ONCE(sfk_spin_result),
		   READ_ONCE(sfk_busy_result));
	seq_printf(m, "busy_pending loops %lu, blocked %lu, preempted %lu\n",
		   READ_ONCE(sfk_busy_loops), READ_ONCE(sfk_busy_blocked),
		   READ_ONCE(sfk_busy_preempted));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfk_result);

static int sfk_reloc_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", sfk_reloc_func());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfk_reloc);

static int __init sfk_init(void)
{
	sfk_dir = debugfs_create_dir("sframe_klp", NULL);
	debugfs_create_file("sleep", 0200, sfk_dir, sfk_sleep_set,
			    &sfk_set_fops);
	debugfs_create_file("spin", 0200, sfk_dir, sfk_spin_set,
			    &sfk_set_fops);
	debugfs_create_file("busy", 0200, sfk_dir, sfk_busy_set,
			    &sfk_set_fops);
	debugfs_create_file("trace", 0400, sfk_dir, NULL, &sfk_trace_fops);
	debugfs_create_file("result", 0400, sfk_dir, NULL, &sfk_result_fops);
	debugfs_create_file("reloc", 0400, sfk_dir, NULL, &sfk_reloc_fops);
	return 0;
}

static void __exit sfk_exit(void)
{
	debugfs_remove_recursive(sfk_dir);
	mutex_lock(&sfk_lock);
	sfk_sleep_set(false);
	sfk_spin_set(false);
	sfk_busy_set(false);
	mutex_unlock(&sfk_lock);
}

module_init(sfk_init);
module_exit(sfk_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Tasks parked in functions a livepatch replaces (SFrame unwinder consistency test)");
