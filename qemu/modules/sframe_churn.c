// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe_churn: reliable stack walks of every task, continuously, checked
 * against the architecture's own unwinder while the system churns.
 *
 *   insmod sframe_churn.ko [threads=N]    start N walker kthreads
 *   cat /sys/kernel/debug/sframe/churn    counters so far
 *   echo stop >/sys/kernel/debug/sframe/churn   stop the walkers (the
 *                                         counters then stay as they are)
 *   echo hang MS >/sys/kernel/debug/sframe/churn   the writer sleeps MS ms
 *                                         uninterruptibly (churn_hang(): a
 *                                         hung-task report, with its stack)
 *   echo stall MS >/sys/kernel/debug/sframe/churn  the writer spins MS ms
 *                                         with preemption off (churn_stall():
 *                                         an RCU stall report, with stacks)
 *   rmmod sframe_churn                    stop them, print a summary
 *
 * Each walker kthread takes every thread of the system in turn, pins it
 * with sframe_unwind_call_blocked() (task_call_func(): the task is off the
 * CPU and cannot run while the callback runs, so its stack cannot change)
 * and, inside that one callback, walks it with our reliable walk and with
 * the architecture's unwinder:
 *
 *   x86_64: ORC's reliable walk.  When both walks are reliable, the traces
 *   must be identical.  A reliable walk of ours that ORC refuses (or the
 *   reverse) is counted, not compared: ORC refuses any kernel exception
 *   frame, which ours crosses through the annotations.
 *
 *   arm64: the frame-record walk, which is only right where every frame
 *   has a frame record: compared when our walk is reliable and crossed no
 *   kernel exception frame (an interrupted function may not have its
 *   frame record yet, which the frame-record walk cannot tell).
 *
 * A disagreement is a bug in one of the two unwinders or in the SFrame
 * data: the first few are printed with both traces.  The walkers also walk
 * their own stack (which must always be reliable) and count tasks they
 * found running (-EBUSY: not walked) or without a stack (exited).
 *
 * It is a test module (the boot tests' "churn" stage): the load comes
 * from a user-space program, /proc/PID/stack readers, perf and module
 * loads at the same time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <sframe/lookup.h>
#include <sframe/unwind.h>

static unsigned int threads;
module_param(threads, uint, 0444);
MODULE_PARM_DESC(threads, "walker kthreads (default: one per online CPU)");

static unsigned int report = 3;
module_param(report, uint, 0644);
MODULE_PARM_DESC(report, "disagreements printed with both traces");

#define CHURN_MAX_FRAMES	64
/* Tasks taken per round (the rest wait for the next round). */
#define CHURN_MAX_TASKS		2048
#define CHURN_MAX_THREADS	16

struct churn_trace {
	unsigned long e[CHURN_MAX_FRAMES];
	unsigned int n;
	bool full;
};

/* Our walk's trace, and whether it crossed an exception frame in the kernel. */
struct churn_ours {
	struct churn_trace t;
	struct sframe_unwind_state st;
	bool kernel_regs;
};

struct churn_pair {
	struct churn_ours ours;
	struct churn_trace ref;
	int ret, ref_ret;
};

static bool churn_store(struct churn_trace *t, unsigned long addr)
{
	if (t->n >= CHURN_MAX_FRAMES) {
		t->full = true;
		return false;
	}
	t->e[t->n++] = addr;
	return true;
}

static bool churn_store_ref(void *cookie, unsigned long addr)
{
	return churn_store(cookie, addr);
}

static bool churn_store_ours(void *cookie, unsigned long addr)
{
	struct churn_ours *o = cookie;

	if (o->st.regs && !user_mode(o->st.regs))
		o->kernel_regs = true;
	return churn_store(&o->t, addr);
}

enum churn_counter {
	CHURN_ROUNDS,		/* passes over all tasks */
	CHURN_WALKS,		/* tasks walked (pinned) */
	CHURN_RELIABLE,		/* ... of which our walk was reliable */
	CHURN_KREGS,		/* reliable, across a kernel exception frame */
	CHURN_COMPARED,		/* reliable traces compared with the reference */
	CHURN_AGREE,
	CHURN_DISAGREE,
	CHURN_REF_REFUSED,	/* ours reliable, the reference not (x86_64) */
	CHURN_REF_ONLY,		/* the reference reliable, ours not (x86_64) */
	CHURN_BUSY,		/* running on a CPU: not walked */
	CHURN_GONE,		/* no stack any more */
	CHURN_SELF,		/* walks of the walker's own stack */
	CHURN_SELF_FAILED,	/* ... that were not reliable (a defect) */
	CHURN_NS,		/* time spent in pinned walks */
	CHURN_NR
};

static const char *const churn_names[CHURN_NR] = {
	[CHURN_ROUNDS]		= "rounds",
	[CHURN_WALKS]		= "walks",
	[CHURN_RELIABLE]	= "reliable",
	[CHURN_KREGS]		= "reliable_kernel_regs",
	[CHURN_COMPARED]	= "compared",
	[CHURN_AGREE]		= "agree",
	[CHURN_DISAGREE]	= "disagree",
	[CHURN_REF_REFUSED]	= "ref_refused",
	[CHURN_REF_ONLY]	= "ref_only",
	[CHURN_BUSY]		= "busy",
	[CHURN_GONE]		= "gone",
	[CHURN_SELF]		= "self",
	[CHURN_SELF_FAILED]	= "self_failed",
	[CHURN_NS]		= "ns",
};

/* Where our walks stopped being reliable: the most frequent PCs. */
#define CHURN_MAX_PCS		8

struct churn_pc {
	unsigned long pc;
	int error;
	u64 count;
};

static struct churn_pc churn_pcs[CHURN_MAX_PCS];
static DEFINE_SPINLOCK(churn_pcs_lock);

static atomic64_t churn_count[CHURN_NR];
static atomic64_t churn_unreliable[SFRAME_UW_MAX];
static atomic_t churn_reported;
static u64 churn_start_ns;

static void churn_inc(enum churn_counter c)
{
	atomic64_inc(&churn_count[c]);
}

/* Both walks of a pinned task: interrupts off, under its runqueue lock. */
static int churn_walk_pair(struct task_struct *task, void *arg)
{
	struct churn_pair *p = arg;

	p->ret = sframe_stack_walk_state(churn_store_ours, &p->ours, task,
					 NULL, &p->ours.st);
	p->ref_ret = sframe_ref_walk(churn_store_ref, &p->ref, task, true);
	return 0;
}

/* Count @pc among the first CHURN_MAX_PCS distinct ones seen. */
static void churn_note_pc(unsigned long pc, int error)
{
	unsigned int i;

	spin_lock(&churn_pcs_lock);
	for (i = 0; i < CHURN_MAX_PCS; i++) {
		if (!churn_pcs[i].count) {
			churn_pcs[i].pc = pc;
			churn_pcs[i].error = error;
		}
		if (churn_pcs[i].pc == pc && churn_pcs[i].error == error) {
			churn_pcs[i].count++;
			break;
		}
	}
	spin_unlock(&churn_pcs_lock);
}

static bool churn_same(const struct churn_trace *a, const struct churn_trace *b)
{
	return a->n == b->n && !memcmp(a->e, b->e, a->n * sizeof(a->e[0]));
}

/* Out of the pinned section: printing is allowed here. */
static void churn_print(struct task_struct *task, const struct churn_pair *p)
{
	const struct churn_trace *a = &p->ours.t, *b = &p->ref;
	unsigned int i;

	pr_warn("%s/%d: SFrame reliable trace (%u frames%s) differs from %s (%u frames)\n",
		task->comm, task_pid_nr(task), a->n,
		p->ours.kernel_regs ? ", across a kernel exception frame" : "",
		SFRAME_REF_UNWINDER, b->n);
	for (i = 0; i < max(a->n, b->n); i++) {
		bool diff = i >= a->n || i >= b->n || a->e[i] != b->e[i];

		pr_warn("  #%-2u %-44pS %pS%s\n", i,
			(void *)(i < a->n ? a->e[i] : 0),
			(void *)(i < b->n ? b->e[i] : 0),
			diff ? "   <- differs" : "");
	}
}

static void churn_judge(struct task_struct *task, struct churn_pair *p)
{
	bool ours = !p->ret && !p->ours.t.full;
	bool ref = !p->ref_ret && !p->ref.full;

	churn_inc(CHURN_WALKS);
	if (!p->ret) {
		churn_inc(CHURN_RELIABLE);
		if (p->ours.kernel_regs)
			churn_inc(CHURN_KREGS);
	} else if (p->ours.st.error > SFRAME_UW_OK &&
		   p->ours.st.error < SFRAME_UW_MAX) {
		atomic64_inc(&churn_unreliable[p->ours.st.error]);
		churn_note_pc(p->ours.st.error_pc, p->ours.st.error);
	}
	if (IS_ENABLED(CONFIG_X86_64)) {
		if (ours && !ref)
			churn_inc(CHURN_REF_REFUSED);
		if (!ours && ref)
			churn_inc(CHURN_REF_ONLY);
	} else if (p->ours.kernel_regs) {
		/* frame records are not valid across an exception frame */
		ref = false;
	}
	if (!ours || !ref)
		return;
	churn_inc(CHURN_COMPARED);
	if (churn_same(&p->ours.t, &p->ref)) {
		churn_inc(CHURN_AGREE);
		return;
	}
	churn_inc(CHURN_DISAGREE);
	if (atomic_inc_return(&churn_reported) <= READ_ONCE(report))
		churn_print(task, p);
}

static void churn_walk_self(struct churn_pair *p)
{
	memset(&p->ours, 0, sizeof(p->ours));
	churn_inc(CHURN_SELF);
	if (sframe_stack_walk_state(churn_store_ours, &p->ours, current, NULL,
				    &p->ours.st)) {
		churn_inc(CHURN_SELF_FAILED);
		if (atomic_inc_return(&churn_reported) <= READ_ONCE(report))
			pr_warn("own stack not reliable at %pB: %s\n",
				(void *)p->ours.st.error_pc,
				sframe_unwind_strerror(p->ours.st.error));
	}
}

static int churn_thread(void *arg)
{
	struct task_struct **tasks, *g, *t;
	struct churn_pair *p;
	unsigned int n, i;
	u64 t0;
	int ret;

	tasks = kmalloc_array(CHURN_MAX_TASKS, sizeof(*tasks), GFP_KERNEL);
	p = kmalloc(sizeof(*p), GFP_KERNEL);
	if (!tasks || !p)
		goto out;

	while (!kthread_should_stop()) {
		/* A snapshot of the system's threads, each held. */
		n = 0;
		rcu_read_lock();
		for_each_process_thread(g, t) {
			if (n == CHURN_MAX_TASKS)
				break;
			get_task_struct(t);
			tasks[n++] = t;
		}
		rcu_read_unlock();

		for (i = 0; i < n; i++) {
			t = tasks[i];
			if (t != current && !kthread_should_stop()) {
				memset(p, 0, sizeof(*p));
				t0 = local_clock();
				ret = sframe_unwind_call_blocked(t, churn_walk_pair, p);
				atomic64_add(local_clock() - t0,
					     &churn_count[CHURN_NS]);
				if (!ret)
					churn_judge(t, p);
				else if (ret == -EBUSY)
					churn_inc(CHURN_BUSY);
				else
					churn_inc(CHURN_GONE);
			}
			put_task_struct(t);
			cond_resched();
		}
		churn_walk_self(p);
		churn_inc(CHURN_ROUNDS);
	}
out:
	kfree(p);
	kfree(tasks);
	/* kthread_stop() may come at any time: wait for it. */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static struct task_struct *churn_threads[CHURN_MAX_THREADS];
static unsigned int churn_nr_threads;
static DEFINE_MUTEX(churn_stop_lock);
static u64 churn_stop_ns;

/* Stop the walkers, once (a write to the debugfs file, or the module exit). */
static void churn_stop(void)
{
	unsigned int i;

	mutex_lock(&churn_stop_lock);
	for (i = 0; i < churn_nr_threads; i++) {
		kthread_stop(churn_threads[i]);
		put_task_struct(churn_threads[i]);
	}
	if (churn_nr_threads)
		churn_stop_ns = local_clock();
	churn_nr_threads = 0;
	mutex_unlock(&churn_stop_lock);
}

static int churn_show(struct seq_file *m, void *v)
{
	u64 end = READ_ONCE(churn_stop_ns) ?: local_clock();
	u64 secs = div_u64(end - churn_start_ns, NSEC_PER_SEC);
	int i;

	seq_printf(m, "seconds %llu\n", secs);
	for (i = 0; i < CHURN_NR; i++)
		seq_printf(m, "%s %lld\n", churn_names[i],
			   atomic64_read(&churn_count[i]));
	for (i = SFRAME_UW_OK + 1; i < SFRAME_UW_MAX; i++)
		seq_printf(m, "unreliable %lld %s\n",
			   atomic64_read(&churn_unreliable[i]),
			   sframe_unwind_strerror(i));
	spin_lock(&churn_pcs_lock);
	for (i = 0; i < CHURN_MAX_PCS && churn_pcs[i].count; i++)
		seq_printf(m, "unreliable_at %llu %pS %s\n", churn_pcs[i].count,
			   (void *)churn_pcs[i].pc,
			   sframe_unwind_strerror(churn_pcs[i].error));
	spin_unlock(&churn_pcs_lock);
	return 0;
}

static int churn_open(struct inode *inode, struct file *file)
{
	return single_open(file, churn_show, NULL);
}

/*
 * The stack dumps of the kernel's own detectors, on demand: the hung-task
 * detector's (sched_show_task() of a blocked task) and the RCU stall
 * detector's (the stalled CPU's own stack, from its tick, and the other
 * CPUs' through an NMI or IPI where the architecture has one).  noinline:
 * the tests look for these names in the reports.
 */
static noinline void churn_hang(unsigned int ms)
{
	schedule_timeout_uninterruptible(msecs_to_jiffies(ms));
	barrier();	/* not a tail call: this frame stays on the stack */
}

static noinline void churn_stall(unsigned int ms)
{
	unsigned int i;

	preempt_disable();
	for (i = 0; i < ms; i++)
		mdelay(1);
	preempt_enable();
}

/* Bounded: the detectors need seconds, not more. */
#define CHURN_DUMP_MAX_MS	60000

static ssize_t churn_write(struct file *file, const char __user *buf,
			   size_t len, loff_t *ppos)
{
	char cmd[32];
	unsigned int ms;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, buf, len))
		return -EFAULT;
	cmd[len] = 0;
	if (sscanf(cmd, "hang %u", &ms) == 1 && ms <= CHURN_DUMP_MAX_MS)
		churn_hang(ms);
	else if (sscanf(cmd, "stall %u", &ms) == 1 && ms <= CHURN_DUMP_MAX_MS)
		churn_stall(ms);
	else if (sysfs_streq(cmd, "stop"))
		churn_stop();
	else
		return -EINVAL;
	return len;
}

static const struct file_operations churn_fops = {
	.owner = THIS_MODULE,
	.open = churn_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = churn_write,
};

static struct dentry *churn_file;

/*
 * An address in this module's init text, looked up (so cached on this
 * CPU) while the module loads.  The text is freed after the load; the boot
 * test then asks debugfs sframe/lookup for the address on the same CPU:
 * no answer cached for the init text may outlive it.
 */
static unsigned long init_pc;
module_param(init_pc, ulong, 0400);	/* a kernel address: root only */
MODULE_PARM_DESC(init_pc, "an init-text address looked up during the load");

static noinline void __init churn_init_lookup(void)
{
	const struct sframe_annot *a;
	struct sframe_rule rule;

	init_pc = (unsigned long)churn_init_lookup + 4;
	sframe_kernel_lookup(init_pc, &a, &rule);
}

static int __init churn_init(void)
{
	struct task_struct *t;
	unsigned int i, nr = threads ? threads : num_online_cpus();

	churn_init_lookup();
	nr = min_t(unsigned int, nr, CHURN_MAX_THREADS);
	churn_start_ns = local_clock();
	churn_file = debugfs_create_file("churn", 0600, sframe_debugfs_dir(),
					 NULL, &churn_fops);
	for (i = 0; i < nr; i++) {
		t = kthread_run(churn_thread, NULL, "sfchurn/%u", i);
		if (IS_ERR(t))
			break;
		get_task_struct(t);
		churn_threads[churn_nr_threads++] = t;
	}
	if (!churn_nr_threads) {
		debugfs_remove(churn_file);
		return -ENOMEM;
	}
	pr_info("%u walker threads against %s\n", churn_nr_threads,
		SFRAME_REF_UNWINDER);
	return 0;
}

static void __exit churn_exit(void)
{
	debugfs_remove(churn_file);
	churn_stop();
	pr_info("%lld walks, %lld reliable, %lld compared with %s: %lld agree, %lld disagree; own stack %lld of %lld unreliable\n",
		atomic64_read(&churn_count[CHURN_WALKS]),
		atomic64_read(&churn_count[CHURN_RELIABLE]),
		atomic64_read(&churn_count[CHURN_COMPARED]),
		SFRAME_REF_UNWINDER,
		atomic64_read(&churn_count[CHURN_AGREE]),
		atomic64_read(&churn_count[CHURN_DISAGREE]),
		atomic64_read(&churn_count[CHURN_SELF_FAILED]),
		atomic64_read(&churn_count[CHURN_SELF]));
}

module_init(churn_init);
module_exit(churn_exit);
MODULE_DESCRIPTION("Reliable stack walks of every task under load, checked against the architecture's unwinder");
MODULE_LICENSE("GPL");
