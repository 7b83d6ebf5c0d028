// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe_unwind_demo: show and measure the SFrame unwinder on a live kernel.
 *
 *   insmod sframe_unwind_demo.ko show=1    traces side by side
 *   insmod sframe_unwind_demo.ko bench=1   unwinding benchmark
 *
 * show=1 prints our reliable trace of a kthread blocked in a chain of this
 * module's functions, and of a timer interrupt that lands in a spinning
 * chain, each next to the architecture's own unwinder (ORC on x86_64,
 * frame pointers on arm64).
 *
 * bench=1 unwinds the same set of stacks (every task that is not running,
 * pinned with sframe_unwind_call_blocked(), and current) with both
 * unwinders in one run and prints the time per stack and the ratio, with
 * the lookup cache warm (as in a system that keeps taking traces) and
 * emptied before each walk, and where a step's time goes.  It is a
 * benchmark, not a test: nothing fails on a slow result.  Under QEMU's TCG
 * the absolute numbers are emulated time; the ratio is what to read.
 *
 * Without parameters the module only loads (the module KUnit test uses it
 * as "another module" to load and unload).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/clock.h>
#include <linux/timex.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <sframe/lookup.h>
#include <sframe/unwind.h>

#include "sframe_park.h"

static bool show;
module_param(show, bool, 0444);
MODULE_PARM_DESC(show, "print reliable traces next to " SFRAME_REF_UNWINDER "'s");

static bool bench;
module_param(bench, bool, 0444);
MODULE_PARM_DESC(bench, "benchmark against " SFRAME_REF_UNWINDER);

static unsigned int rounds = 50;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "benchmark: walks of each stack per unwinder");

#define DEMO_MAX	64

struct demo_trace {
	unsigned long e[DEMO_MAX];
	unsigned int n;
};

static bool demo_store(void *cookie, unsigned long addr)
{
	struct demo_trace *t = cookie;

	if (t->n >= DEMO_MAX)
		return false;
	t->e[t->n++] = addr;
	return true;
}

/* ---- show ---------------------------------------------------------------- */

/*
 * Print both traces side by side.  @skip: leading entries not compared
 * (the walkers' own call sites, when both walk current).
 */
static void demo_print(const char *what, int ret, const char *why,
		       const struct demo_trace *ours, const char *ref_what,
		       const struct demo_trace *ref, unsigned int skip)
{
	bool same = ours->n == ref->n && ours->n >= skip &&
		    !memcmp(ours->e + skip, ref->e + skip,
			    (ours->n - skip) * sizeof(long));
	unsigned int i;

	pr_info("%s: SFrame %s (%u frames), %s %s (%u frames): %s\n", what,
		ret ? "UNRELIABLE" : "reliable", ours->n, SFRAME_REF_UNWINDER,
		ref_what, ref->n, same ? "same trace" : "traces differ");
	if (ret)
		pr_info("  SFrame walk not reliable: %s\n", why);
	pr_info("  %-3s %-44s %s\n", "#", "SFrame", SFRAME_REF_UNWINDER);
	for (i = 0; i < max(ours->n, ref->n); i++) {
		const char *mark = i < ours->n && i < ref->n && i >= skip &&
				   ours->e[i] != ref->e[i] ? "   <- differs" : "";

		if (i < ours->n && i < ref->n)
			pr_info("  #%-2u %-44pS %pS%s\n", i, (void *)ours->e[i],
				(void *)ref->e[i], mark);
		else if (i < ours->n)
			pr_info("  #%-2u %pS\n", i, (void *)ours->e[i]);
		else
			pr_info("  #%-2u %-44s %pS\n", i, "", (void *)ref->e[i]);
	}
}

struct demo_pair {
	struct demo_trace ours, ref;
	struct sframe_unwind_state st;
	int ret, ref_ret;
};

/* Both walks of a task kept off the CPU; -EAGAIN until it sleeps. */
static int demo_walk_pair(struct task_struct *task, void *arg)
{
	struct demo_pair *p = arg;

	if (READ_ONCE(task->__state) != TASK_UNINTERRUPTIBLE)
		return -EAGAIN;
	p->ret = sframe_stack_walk_state(demo_store, &p->ours, task, NULL,
					 &p->st);
	p->ref_ret = sframe_ref_walk(demo_store, &p->ref, task, true);
	return 0;
}

static void demo_show_blocked(void)
{
	struct task_struct *task;
	struct sframe_park c = { };
	struct demo_pair *p;
	int tries, ret;
	char what[64];

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return;
	task = sframe_park_start(&c, "sfdemo_blocked");
	if (IS_ERR(task)) {
		kfree(p);
		return;
	}
	/* Until it sleeps in wait_for_completion(): at most ~2 s. */
	for (tries = 0; tries < 1000; tries++) {
		ret = sframe_unwind_call_blocked(task, demo_walk_pair, p);
		if (ret != -EBUSY && ret != -EAGAIN)
			break;
		usleep_range(1000, 2000);
	}
	if (!ret) {
		snprintf(what, sizeof(what), "blocked task %s/%d", task->comm,
			 task->pid);
		demo_print(what, p->ret, sframe_unwind_strerror(p->st.error),
			   &p->ours, IS_ENABLED(CONFIG_X86_64) ?
			   (p->ref_ret ? "unreliable" : "reliable") :
			   "best effort", &p->ref, 0);
	} else {
		pr_info("blocked task: could not catch it asleep (%d)\n", ret);
	}

	sframe_park_stop(&c, task);
	kfree(p);
}

struct demo_timer {
	struct hrtimer timer;
	struct sframe_park c;
	struct demo_trace ours, ref;
	struct sframe_unwind_state st;
	int ret;
};

static enum hrtimer_restart demo_timer_fn(struct hrtimer *h)
{
	struct demo_timer *tm = container_of(h, struct demo_timer, timer);

	if (sframe_park_irq_retry(&tm->c, h))
		return HRTIMER_RESTART;
	if (tm->c.missed) {
		atomic_set(&tm->c.fired, 1);
		return HRTIMER_NORESTART;
	}
	tm->ret = sframe_stack_walk_state(demo_store, &tm->ours, current,
					  NULL, &tm->st);
	sframe_ref_walk(demo_store, &tm->ref, current, false);
	atomic_set(&tm->c.fired, 1);
	return HRTIMER_NORESTART;
}

/*
 * The interrupted chain runs in a kthread of its own, which also arms the
 * timer (so it fires on the CPU the chain spins on): its walk ends at the
 * kthread's final frame, whatever called this module's init.
 */
static int demo_irq_thread(void *arg)
{
	struct demo_timer *tm = arg;

	migrate_disable();
	hrtimer_start(&tm->timer, ms_to_ktime(10), HRTIMER_MODE_REL_PINNED_HARD);
	sframe_park_fn1(&tm->c);
	migrate_enable();
	hrtimer_cancel(&tm->timer);
	complete(&tm->c.ready);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static void demo_show_irq(void)
{
	struct demo_timer *tm = kzalloc(sizeof(*tm), GFP_KERNEL);
	struct task_struct *task;

	if (!tm)
		return;
	tm->c.mode = SFRAME_PARK_SPIN;
	init_completion(&tm->c.ready);
	hrtimer_init(&tm->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	tm->timer.function = demo_timer_fn;
	task = kthread_run(demo_irq_thread, tm, "sfdemo_irq");
	if (IS_ERR(task)) {
		kfree(tm);
		return;
	}
	get_task_struct(task);
	wait_for_completion(&tm->c.ready);
	kthread_stop(task);
	put_task_struct(task);
	if (tm->c.missed) {
		pr_warn("timer interrupt in a spinning chain: no interrupt came in the spin (%u tries)\n",
			tm->c.tries);
		kfree(tm);
		return;
	}
	/* #0 is where each walker was called from: not compared. */
	demo_print("timer interrupt in a spinning chain", tm->ret,
		   sframe_unwind_strerror(tm->st.error), &tm->ours,
		   "best effort", &tm->ref, 1);
	kfree(tm);
}

/* ---- bench --------------------------------------------------------------- */

/*
 * Time in cycles (TSC, CNTVCT): under QEMU, sched_clock() may fall back to
 * jiffies when the TSC calibration fails; the cycle counter never does.
 * demo_bench() converts to nanoseconds with one 200 ms calibration.
 */
static inline u64 demo_now(void)
{
	return get_cycles();
}

/*
 * Phase markers for tools/bench/insn-profile.c (make bench-kernel
 * PROFILE=1): instructions that do nothing and carry the number of the
 * bench phase that begins, so that a profile of the guest's instructions
 * tells the phases apart.
 */
enum demo_phase {
	DEMO_OTHER, DEMO_WARM, DEMO_REF, DEMO_COLD, DEMO_START, DEMO_RELIABLE,
	DEMO_REF_RELIABLE, DEMO_LOOKUPS,
};

#if defined(CONFIG_ARM64)
#define DEMO_MARK(phase) ({						\
	asm volatile(".inst 0xd280001f | ((0x5a00 + %c0) << 5)" :: "i" (phase)); \
})
#elif defined(CONFIG_X86_64)
#define DEMO_MARK(phase) ({						\
	asm volatile("nopl 0x5a5a0000 + %c0(%%rax)" :: "i" (phase));	\
})
#else
#define DEMO_MARK(phase) do { } while (0)
#endif

struct demo_bench {
	u64 ns_ours, ns_ref, ns_ours_rel, ns_ref_rel, ns_annot, ns_find;
	u64 ns_uncached;
	u64 ns_cold, ns_start, ns_cached;
	unsigned long frames_ours, frames_ref, stacks, reliable, lookups;
	unsigned long ra_listed;
	struct demo_trace t;
	struct sframe_unwind_state st;
};

static bool demo_count(void *cookie, unsigned long addr)
{
	(*(unsigned long *)cookie)++;
	return true;
}

/*
 * Both unwinders, @rounds times each, on one stack.  Interrupts are off
 * (task_call_func() holds the task's pi_lock) and the two loops alternate,
 * so both see the same caches.
 */
static int demo_bench_one(struct task_struct *task, void *arg)
{
	struct demo_bench *b = arg;
	unsigned long n_ours = 0, n_ref = 0, dummy = 0;
	const struct sframe_annot *annot;
	struct sframe_rule rule;
	u64 t0, t1, t2;
	unsigned int r, i;
	int rel = 0;

	/* warm up */
	sframe_stack_walk(demo_count, &dummy, task, NULL);
	sframe_ref_walk(demo_count, &dummy, task, false);
	DEMO_MARK(DEMO_WARM);
	t0 = demo_now();
	for (r = 0; r < rounds; r++)
		sframe_stack_walk(demo_count, &n_ours, task, NULL);
	t1 = demo_now();
	DEMO_MARK(DEMO_REF);
	for (r = 0; r < rounds; r++)
		sframe_ref_walk(demo_count, &n_ref, task, false);
	t2 = demo_now();
	DEMO_MARK(DEMO_OTHER);
	b->ns_ours += t1 - t0;
	b->ns_ref += t2 - t1;
	b->frames_ours += n_ours / rounds;
	b->frames_ref += n_ref / rounds;

	/* Cold: the lookup cache emptied before every walk. */
	DEMO_MARK(DEMO_COLD);
	t0 = demo_now();
	for (r = 0; r < rounds; r++) {
		sframe_kernel_cache_flush();
		sframe_stack_walk(demo_count, &dummy, task, NULL);
	}
	t1 = demo_now();
	b->ns_cold += t1 - t0;
	/* The start of a walk alone. */
	DEMO_MARK(DEMO_START);
	t0 = demo_now();
	for (r = 0; r < rounds; r++)
		sframe_unwind_start(&b->st, task, NULL);
	t1 = demo_now();
	b->ns_start += t1 - t0;

	/* The reliable walks (ORC's too on x86_64). */
	DEMO_MARK(DEMO_RELIABLE);
	t0 = demo_now();
	for (r = 0; r < rounds; r++)
		rel = sframe_stack_walk_reliable(demo_count, &dummy, task);
	t1 = demo_now();
	DEMO_MARK(DEMO_REF_RELIABLE);
#ifdef CONFIG_X86_64
	for (r = 0; r < rounds; r++)
		sframe_ref_walk(demo_count, &dummy, task, true);
#endif
	t2 = demo_now();
	DEMO_MARK(DEMO_LOOKUPS);
	b->ns_ours_rel += t1 - t0;
	b->ns_ref_rel += t2 - t1;
	b->reliable += !rel;
	b->stacks++;

	/* Where a step's time goes: the two table lookups alone. */
	b->t.n = 0;
	sframe_stack_walk(demo_store, &b->t, task, NULL);
	t0 = demo_now();
	for (r = 0; r < rounds; r++)
		for (i = 1; i < b->t.n; i++)
			sframe_annot_find(b->t.e[i] - 1);
	t1 = demo_now();
	for (r = 0; r < rounds; r++)
		for (i = 1; i < b->t.n; i++)
			sframe_kernel_find(b->t.e[i] - 1, &rule);
	t2 = demo_now();
	b->ns_annot += t1 - t0;
	b->ns_find += t2 - t1;
	/* Return addresses the return-site table answers (arm64). */
	for (i = 1; i < b->t.n; i++)
		b->ra_listed += sframe_ra_rule(b->t.e[i], &annot) || annot;
	t0 = demo_now();
	for (r = 0; r < rounds; r++)
		for (i = 1; i < b->t.n; i++)
			sframe_kernel_lookup(b->t.e[i] - 1, &annot, &rule);
	t1 = demo_now();
	b->ns_cached += t1 - t0;
	/* Uncached: annotation search and decoded rows (or the section). */
	t0 = demo_now();
	for (r = 0; r < rounds; r++)
		for (i = 1; i < b->t.n; i++) {
			sframe_kernel_cache_flush();
			sframe_kernel_lookup(b->t.e[i] - 1, &annot, &rule);
		}
	t1 = demo_now();
	b->ns_uncached += t1 - t0;
	b->lookups += b->t.n > 1 ? (b->t.n - 1) * rounds : 0;
	DEMO_MARK(DEMO_OTHER);
	return 0;
}

static noinline void demo_bench_current(struct demo_bench *b)
{
	unsigned long flags;

	local_irq_save(flags);
	sframe_unwind_call_blocked(current, demo_bench_one, b);
	local_irq_restore(flags);
}

static unsigned long demo_ratio100(u64 a, u64 b)
{
	return b ? div64_u64(a * 100, b) : 0;
}

static void demo_bench(void)
{
	struct task_struct *g, *task, **tasks;
	unsigned int n = 0, max = 4096, i;
	struct demo_bench b = { };
	unsigned long r, rr;
	u64 c0, t0, ps;

	if (!rounds)
		return;
	tasks = kcalloc(max, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return;
	rcu_read_lock();
	for_each_process_thread(g, task) {
		if (n < max && task != current) {
			get_task_struct(task);
			tasks[n++] = task;
		}
	}
	rcu_read_unlock();

	/* picoseconds per cycle */
	c0 = get_cycles();
	t0 = ktime_get_ns();
	msleep(200);
	ps = div64_u64((ktime_get_ns() - t0) * 1000, max_t(u64, get_cycles() - c0, 1));

	demo_bench_current(&b);
	for (i = 0; i < n; i++) {
		sframe_unwind_call_blocked(tasks[i], demo_bench_one, &b);
		put_task_struct(tasks[i]);
	}
	kfree(tasks);
	if (!b.stacks || !b.ns_ref || !ps) {
		pr_info("bench: no usable cycle counter\n");
		return;
	}
	/* cycles -> ns */
	b.ns_ours = div64_u64(b.ns_ours * ps, 1000);
	b.ns_ref = div64_u64(b.ns_ref * ps, 1000);
	b.ns_ours_rel = div64_u64(b.ns_ours_rel * ps, 1000);
	b.ns_ref_rel = div64_u64(b.ns_ref_rel * ps, 1000);
	b.ns_annot = div64_u64(b.ns_annot * ps, 1000);
	b.ns_find = div64_u64(b.ns_find * ps, 1000);
	b.ns_uncached = div64_u64(b.ns_uncached * ps, 1000);
	b.ns_cold = div64_u64(b.ns_cold * ps, 1000);
	b.ns_start = div64_u64(b.ns_start * ps, 1000);
	b.ns_cached = div64_u64(b.ns_cached * ps, 1000);

	r = demo_ratio100(b.ns_ours, b.ns_ref);
	pr_info("bench: %lu stacks x %u rounds, %lu frames (SFrame) / %lu (%s) per round\n",
		b.stacks, rounds, b.frames_ours, b.frames_ref,
		SFRAME_REF_UNWINDER);
	pr_info("bench: arch_stack_walk: SFrame %llu ns/stack, %s %llu ns/stack, ratio %lu.%02lu (goal <= %s)\n",
		div64_u64(b.ns_ours, b.stacks * rounds), SFRAME_REF_UNWINDER,
		div64_u64(b.ns_ref, b.stacks * rounds), r / 100, r % 100,
		IS_ENABLED(CONFIG_X86_64) ? "0.50" : "1.25");
	r = demo_ratio100(b.ns_cold, b.ns_ref);
	pr_info("bench: arch_stack_walk, lookup cache emptied before each walk: SFrame %llu ns/stack, ratio %lu.%02lu (goal <= %s)\n",
		div64_u64(b.ns_cold, b.stacks * rounds), r / 100, r % 100,
		IS_ENABLED(CONFIG_X86_64) ? "0.80" : "1.50");
	rr = demo_ratio100(b.ns_ours_rel, IS_ENABLED(CONFIG_X86_64) ?
			   b.ns_ref_rel : b.ns_ref);
	pr_info("bench: reliable walk: SFrame %llu ns/stack (%lu/%lu stacks reliable), %s %s %llu ns/stack, ratio %lu.%02lu\n",
		div64_u64(b.ns_ours_rel, b.stacks * rounds), b.reliable,
		b.stacks, SFRAME_REF_UNWINDER,
		IS_ENABLED(CONFIG_X86_64) ? "reliable" : "best effort",
		div64_u64(IS_ENABLED(CONFIG_X86_64) ? b.ns_ref_rel : b.ns_ref,
			  b.stacks * rounds), rr / 100, rr % 100);
	if (b.lookups && b.frames_ours)
		pr_info("bench: per frame: SFrame walk %llu ns warm, %llu ns cold (start of a walk %llu ns/stack); lookups: cached %llu ns, uncached %llu ns (annotation %llu ns, decoded rows), sframe_kernel_find() %llu ns; %s %llu ns\n",
			div64_u64(b.ns_ours, b.frames_ours * rounds),
			div64_u64(b.ns_cold, b.frames_ours * rounds),
			div64_u64(b.ns_start, b.stacks * rounds),
			div64_u64(b.ns_cached, b.lookups),
			div64_u64(b.ns_uncached, b.lookups),
			div64_u64(b.ns_annot, b.lookups),
			div64_u64(b.ns_find, b.lookups), SFRAME_REF_UNWINDER,
			div64_u64(b.ns_ref, max(b.frames_ref, 1UL) * rounds));
#ifdef SFRAME_ARCH_CALL_SIZE
	if (b.lookups)
		pr_info("bench: return-site table: %lu of %lu return addresses listed\n",
			b.ra_listed, b.lookups / rounds);
#endif
}

static int __init demo_init(void)
{
	if (show) {
		demo_show_blocked();
		demo_show_irq();
	}
	if (bench)
		demo_bench();
	return 0;
}

static void __exit demo_exit(void)
{
}

module_init(demo_init);
module_exit(demo_exit);

MODULE_DESCRIPTION("Show and benchmark the SFrame kernel unwinder");
MODULE_LICENSE("GPL");
