// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of the SFrame kernel unwinder (kernel/unwind.c).
 *
 * Known chains of noinline functions are unwound from a parked kthread,
 * from kprobe handlers at every instruction of a chain (across the int3 /
 * BRK exception entry), and from a timer interrupt that lands in a spinning
 * chain.  The traces must be exact and reliable; on x86_64 they must equal
 * ORC's for every task, on arm64 the frame-pointer unwinder's.  Corrupted
 * stacks must give an error and nothing worse.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/hrtimer.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/sched/debug.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/static_call.h>
#include <sframe/compat.h>
#include <sframe/lookup.h>
#include <sframe/unwind.h>
#ifdef CONFIG_X86_64
#include <asm/insn.h>
#include <asm/sections.h>
#endif
#include "sframe_kunit.h"
#include "sframe_park.h"
#include "../kernel/unwind_arch.h"	/* sframe_arch_after_call() */

#define SFU_MAX		64

#define SFU_REF_NAME	SFRAME_REF_UNWINDER

struct sfu_trace {
	unsigned long e[SFU_MAX];
	unsigned int n;
	unsigned int limit;	/* stop the walk after this many, if not 0 */
	unsigned int refused;	/* calls after the limit */
	bool overflow;
};

static bool sfu_store(void *cookie, unsigned long addr)
{
	struct sfu_trace *t = cookie;

	if (t->limit && t->n >= t->limit) {
		t->refused++;
		return false;
	}
	if (t->n >= SFU_MAX) {
		t->overflow = true;
		return false;
	}
	t->e[t->n++] = addr;
	return true;
}

const unsigned long sframe_kunit_inittext[2] = {
	(unsigned long)_sinittext, (unsigned long)_einittext,
};
EXPORT_SYMBOL_GPL(sframe_kunit_inittext);

/* ---- the chain: sframe_park.h ------------------------------------- */

/* A saved return address as code address: arm64 may have signed it (PAC). */
static unsigned long sfu_code(unsigned long word)
{
#ifdef CONFIG_ARM64
	return sframe_strip_pac(word);
#else
	return word;
#endif
}

static bool sfu_in(unsigned long addr, void *func)
{
	unsigned long start, size;

	return sframe_kunit_symbol(addr, &start, &size) &&
	       start == (unsigned long)func;
}

/* Is @addr inside the function called @name (kallsyms)? */
static bool sfu_named(unsigned long addr, const char *name)
{
	char buf[KSYM_SYMBOL_LEN];
	size_t len = strlen(name);

	sprint_symbol(buf, addr);
	return !strncmp(buf, name, len) && buf[len] == '+';
}

/*
 * Index in @t of @chain[0], with @chain[1..] following in order, or -1.
 * @from: first index to consider.
 */
static int sfu_find_chain(const struct sfu_trace *t, unsigned int from,
			  void *const *chain, unsigned int len)
{
	unsigned int i, k;

	for (i = from; i + len <= t->n; i++) {
		for (k = 0; k < len; k++)
			if (!sfu_in(t->e[i + k], chain[k]))
				break;
		if (k == len)
			return i;
	}
	return -1;
}

static void sfu_print(struct kunit *test, const char *what,
		      const struct sfu_trace *t)
{
	unsigned int i;

	kunit_info(test, "%s (%u entries%s):\n", what, t->n,
		   t->overflow ? ", truncated" : "");
	for (i = 0; i < t->n; i++)
		kunit_info(test, "  %pS\n", (void *)t->e[i]);
}

/* ---- (a) a parked kthread -------------------------------------------- */

/*
 * A kthread asleep in the chain's leaf. It must be off the CPU within
 * SFU_PARK_WAIT_MS; if not, its stack goes to the log and the test stops
 * (no hang to be found only by the runner's timeout). NULL if the test
 * failed: the caller cleans up and returns.
 */
#define SFU_PARK_WAIT_MS	20000

static struct task_struct *sfu_park(struct kunit *test, struct sframe_park *c)
{
	struct task_struct *task = sframe_park_start(c, "sfu_parked");
	unsigned long end;

	if (IS_ERR(task)) {
		/* no assertion: callers have probes to unregister */
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(task));
		return NULL;
	}
	end = jiffies + msecs_to_jiffies(SFU_PARK_WAIT_MS);
	/* Until it sleeps in wait_for_completion(). */
	while (!wait_task_inactive(task, TASK_UNINTERRUPTIBLE)) {
		if (time_after(jiffies, end)) {
			sched_show_task(task);
			sframe_park_stop(c, task);
			KUNIT_FAIL(test, "parked kthread still on a CPU after %d ms",
				   SFU_PARK_WAIT_MS);
			return NULL;
		}
		usleep_range(1000, 2000);
	}
	return task;
}

static int sfu_walk_task(struct task_struct *task, struct sfu_trace *t,
			 struct sframe_unwind_state *st)
{
	int ret = -EBUSY;

	memset(t, 0, sizeof(*t));
	if (!try_get_task_stack(task))
		return -ESRCH;
	if (!task_curr(task) || task == current)
		ret = sframe_stack_walk_state(sfu_store, t, task, NULL, st);
	put_task_stack(task);
	return ret;
}

static void sfu_test_parked(struct kunit *test)
{
	struct sframe_unwind_state *st;
	struct sfu_trace *t, *ref;
	struct task_struct *task;
	struct sframe_park *c;
	int ret, at;

	/* (off the stack: KASAN builds warn about a frame this size) */
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	ref = kunit_kzalloc(test, sizeof(*ref), GFP_KERNEL);
	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, c && t && ref && st);
	task = sfu_park(test, c);
	if (!task)
		return;

	ret = sfu_walk_task(task, t, st);
	sfu_print(test, "parked kthread, SFrame", t);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "walk unreliable: %s",
			    sframe_unwind_strerror(st->error));
	KUNIT_EXPECT_TRUE(test, st->done);
	at = sfu_find_chain(t, 0, sframe_park_chain, ARRAY_SIZE(sframe_park_chain));
	KUNIT_EXPECT_GE_MSG(test, at, 0, "chain leaf..func1 not found in order");
	if (at >= 0) {
		void *const rest[] = { sframe_park_thread };

		KUNIT_EXPECT_EQ_MSG(test, sfu_find_chain(t, at + 4, rest, 1),
				    at + 4, "func1 not called from the thread");
		KUNIT_EXPECT_TRUE(test, at + 5 < t->n &&
				  sfu_named(t->e[at + 5], "kthread"));
	}
	/* The final frame: ret_from_fork's pt_regs ends the walk. */
	KUNIT_EXPECT_TRUE(test, t->n && sfu_in(t->e[t->n - 1], sframe_fork_entry));
	KUNIT_EXPECT_PTR_EQ(test, st->regs, task_pt_regs(task));

	/* The same as the reference unwinder. */
	ret = sframe_ref_walk(sfu_store, ref, task, true);
	KUNIT_EXPECT_EQ(test, ret, 0);
	sfu_print(test, "parked kthread, " SFU_REF_NAME, ref);
	KUNIT_EXPECT_EQ(test, t->n, ref->n);
	KUNIT_EXPECT_EQ(test, memcmp(t->e, ref->e, sizeof(long) * min(t->n, ref->n)), 0);

	sframe_park_stop(c, task);
}

/* ---- (d) every task against the reference unwinder ------------------- */

struct sfu_cmp {
	struct sfu_trace ours, ref, plain, cut;
	struct sframe_unwind_state st;
	int ret, ref_ret, error;
	/* the first walk with its consumer stopping it that went wrong */
	int cut_bad;
};

/*
 * sframe_stack_walk() (arch_stack_walk(), which keeps no state) and
 * sframe_stack_walk_state() report the same; and stopped by the consumer
 * after each frame in turn, the walks report just those frames.
 */
static void sfu_cmp_cuts(struct task_struct *task, struct sfu_cmp *c)
{
	unsigned int k;
	int ret;

	c->cut_bad = -1;
	memset(&c->plain, 0, sizeof(c->plain));
	sframe_stack_walk(sfu_store, &c->plain, task, NULL);
	for (k = 1; k < c->ours.n && c->cut_bad < 0; k++) {
		memset(&c->cut, 0, sizeof(c->cut));
		c->cut.limit = k;
		sframe_stack_walk(sfu_store, &c->cut, task, NULL);
		if (c->cut.n != k || c->cut.refused != 1 ||
		    memcmp(c->cut.e, c->ours.e, k * sizeof(long)))
			c->cut_bad = k;
		memset(&c->cut, 0, sizeof(c->cut));
		c->cut.limit = k;
		ret = sframe_stack_walk_state(sfu_store, &c->cut, task, NULL,
					      &c->st);
		if (!ret || c->cut.n != k || c->cut.refused != 1 ||
		    memcmp(c->cut.e, c->ours.e, k * sizeof(long)))
			c->cut_bad = k;
	}
}

static int sfu_cmp_task(struct task_struct *task, void *arg)
{
	struct sfu_cmp *c = arg;

	memset(&c->ours, 0, sizeof(c->ours));
	memset(&c->ref, 0, sizeof(c->ref));
	if (task_curr(task))
		return -EBUSY;
	c->ret = sframe_stack_walk_state(sfu_store, &c->ours, task, NULL,
					 &c->st);
	c->ref_ret = sframe_ref_walk(sfu_store, &c->ref, task, true);
	c->error = c->st.error;
	sfu_cmp_cuts(task, c);
	return 0;
}

static void sfu_test_all_tasks(struct kunit *test)
{
	struct task_struct *g, *task, **tasks;
	unsigned int n = 0, max = 1024, i, same = 0, reliable = 0, busy = 0;
	struct sfu_cmp *c;

	tasks = kunit_kcalloc(test, max, sizeof(*tasks), GFP_KERNEL);
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tasks);
	KUNIT_ASSERT_NOT_NULL(test, c);

	rcu_read_lock();
	for_each_process_thread(g, task) {
		if (n < max && task != current) {
			get_task_struct(task);
			tasks[n++] = task;
		}
	}
	rcu_read_unlock();

	for (i = 0; i < n; i++) {
		task = tasks[i];
		if (!try_get_task_stack(task)) {
			put_task_struct(task);
			continue;
		}
		if (task_call_func(task, sfu_cmp_task, c)) {
			busy++;
		} else {
			bool eq = c->ours.n == c->ref.n &&
				  !memcmp(c->ours.e, c->ref.e,
					  c->ours.n * sizeof(long));

			reliable += !c->ret;
			KUNIT_EXPECT_EQ_MSG(test, c->ret, 0,
					    "%s/%d: unreliable: %s", task->comm,
					    task->pid,
					    sframe_unwind_strerror(c->error));
			if (!c->ref_ret && eq) {
				same++;
			} else {
				KUNIT_FAIL(test, "%s/%d: differs from " SFU_REF_NAME,
					   task->comm, task->pid);
				sfu_print(test, "ours", &c->ours);
				sfu_print(test, SFU_REF_NAME, &c->ref);
			}
			if (c->plain.n != c->ours.n ||
			    memcmp(c->plain.e, c->ours.e,
				   c->ours.n * sizeof(long))) {
				KUNIT_FAIL(test, "%s/%d: sframe_stack_walk() differs",
					   task->comm, task->pid);
				sfu_print(test, "sframe_stack_walk()", &c->plain);
			}
			KUNIT_EXPECT_LT_MSG(test, c->cut_bad, 0,
					    "%s/%d: walk stopped after %d frames went wrong",
					    task->comm, task->pid, c->cut_bad);
		}
		put_task_stack(task);
		put_task_struct(task);
	}
	kunit_info(test, "%u tasks: %u reliable, %u equal to %s, %u running (skipped)\n",
		   n, reliable, same, SFU_REF_NAME, busy);
	KUNIT_EXPECT_GT(test, same, 0U);
}

/*
 * Idle tasks: each CPU's, walked from that CPU (so it cannot be running).
 * Secondary CPUs' idle tasks end at their END annotation; the boot CPU's
 * (init_task) at rest_init(), above the freed __init frames.
 */
struct sfu_idle {
	struct sfu_trace t;
	struct sframe_unwind_state st;
	int ret;
};

static int sfu_idle_walk(struct task_struct *task, void *arg)
{
	struct sfu_idle *w = arg;

	memset(&w->t, 0, sizeof(w->t));
	w->ret = sframe_stack_walk_state(sfu_store, &w->t, task, NULL, &w->st);
	return 0;
}

static void sfu_test_idle_tasks(struct kunit *test)
{
	struct sfu_idle *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	char sym[KSYM_NAME_LEN];
	unsigned int cpu, walked = 0;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, w);
	for_each_online_cpu(cpu) {
		struct task_struct *idle = idle_task(cpu);

		if (set_cpus_allowed_ptr(current, cpumask_of(cpu)))
			continue;
		ret = sframe_unwind_call_blocked(idle, sfu_idle_walk, w);
		if (ret)
			continue;
		walked++;
		KUNIT_EXPECT_EQ_MSG(test, w->ret, 0, "CPU %u idle: %s", cpu,
				    sframe_unwind_strerror(w->st.error));
		if (w->ret || !w->t.n)
			sfu_print(test, "idle", &w->t);
		if (idle == &init_task && w->t.n) {
			/* a return address: rest_init() ends with its call */
			sprint_symbol_no_offset(sym, w->t.e[w->t.n - 1] - 1);
			KUNIT_EXPECT_STREQ(test, sym, "rest_init");
		}
	}
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	kunit_info(test, "%u idle tasks walked\n", walked);
	KUNIT_EXPECT_GT(test, walked, 0U);
}

/* ---- (c) a timer interrupt in a spinning chain ----------------------- */

struct sfu_timer {
	struct hrtimer timer;
	struct sframe_park *c;
	struct sfu_trace t;
	struct sframe_unwind_state st;
	int ret;
};

static enum hrtimer_restart sfu_timer_fn(struct hrtimer *h)
{
	struct sfu_timer *tm = container_of(h, struct sfu_timer, timer);

	if (sframe_park_irq_retry(tm->c, h))
		return HRTIMER_RESTART;
	if (!tm->c->missed)
		tm->ret = sframe_stack_walk_state(sfu_store, &tm->t, current,
						  NULL, &tm->st);
	atomic_set(&tm->c->fired, 1);
	return HRTIMER_NORESTART;
}

static void sfu_test_irq(struct kunit *test)
{
	struct sfu_timer *tm;
	struct sframe_park *c;
	int at;

	tm = kunit_kzalloc(test, sizeof(*tm), GFP_KERNEL);
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tm);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->mode = SFRAME_PARK_SPIN;
	tm->c = c;
	hrtimer_init(&tm->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	tm->timer.function = sfu_timer_fn;
	migrate_disable();
	hrtimer_start(&tm->timer, ms_to_ktime(20), HRTIMER_MODE_REL_PINNED_HARD);
	sframe_park_fn1(c);
	migrate_enable();
	hrtimer_cancel(&tm->timer);

	KUNIT_ASSERT_FALSE_MSG(test, c->missed,
			       "no timer interrupt in the spin (%u tries)",
			       c->tries);
	if (c->tries)
		kunit_info(test, "%u timer interrupts let pass\n", c->tries);
	sfu_print(test, "timer interrupt in a spinning chain", &tm->t);
	KUNIT_EXPECT_EQ_MSG(test, tm->ret, 0, "walk unreliable: %s",
			    sframe_unwind_strerror(tm->st.error));
	KUNIT_EXPECT_TRUE(test, tm->st.done);
	/* Below the boundary: exactly the interrupted chain. */
	at = sfu_find_chain(&tm->t, 0, sframe_park_chain, ARRAY_SIZE(sframe_park_chain));
	KUNIT_EXPECT_GE_MSG(test, at, 1, "interrupted chain not found in order");
	if (at >= 1) {
		void *const rest[] = { sfu_test_irq };

		KUNIT_EXPECT_EQ(test, sfu_find_chain(&tm->t, at + 4, rest, 1),
				at + 4);
	}
}

/* ---- (b) a kprobe at every instruction of a chain -------------------- */
#ifdef CONFIG_KPROBES

struct sfu_probe {
	struct kprobe kp;
	struct sfu_trace t;
	struct sframe_unwind_state st;
	int ret;
	bool hit;
};

static int sfu_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct sfu_probe *sp = container_of(p, struct sfu_probe, kp);

	if (sp->hit)
		return 0;
	sp->hit = true;
	sp->ret = sframe_stack_walk_state(sfu_store, &sp->t, current, NULL,
					  &sp->st);
	return 0;
}

/* A post handler keeps the probe an int3/BRK trap (no optimisation). */
static void sfu_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
}

static unsigned int sfu_insn_len(unsigned long addr)
{
#ifdef CONFIG_X86_64
	struct insn insn;

	if (insn_decode_kernel(&insn, (void *)addr) < 0 || !insn.length)
		return 1;
	return insn.length;
#else
	return 4;
#endif
}

static void sfu_test_kprobes(struct kunit *test)
{
	unsigned int f, ok = 0, refused = 0, ftrace = 0, bad = 0, total = 0;
	unsigned int flagged = 0;
	struct sfu_probe *sp;
	struct sframe_park *c;

	sp = kunit_kzalloc(test, sizeof(*sp), GFP_KERNEL);
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sp);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->mode = SFRAME_PARK_CALL;

	for (f = 0; f < ARRAY_SIZE(sframe_park_chain); f++) {
		unsigned long start, size, addr;

		KUNIT_ASSERT_TRUE(test, sframe_kunit_symbol((unsigned long)sframe_park_chain[f],
							    &start, &size));
		for (addr = start; addr < start + size; addr += sfu_insn_len(addr)) {
			int err, at;

			total++;
			memset(sp, 0, sizeof(*sp));
			sp->kp.addr = (kprobe_opcode_t *)addr;
			sp->kp.pre_handler = sfu_pre;
			sp->kp.post_handler = sfu_post;
			err = register_kprobe(&sp->kp);
			if (err) {
				refused++;
				kunit_info(test, "kprobe refused at %pS: %d\n",
					   (void *)addr, err);
				continue;
			}
			if (kprobe_ftrace(&sp->kp)) {
				/* An ftrace call site: no trap to cross. */
				ftrace++;
				unregister_kprobe(&sp->kp);
				continue;
			}
			sframe_park_fn1(c);
			unregister_kprobe(&sp->kp);
			if (!sp->hit) {
				/* e.g. padding after the function's end */
				refused++;
				kunit_info(test, "kprobe at %pS not hit\n",
					   (void *)addr);
				continue;
			}
			/*
			 * Where the verifier found the rule wrong (a fixup:
			 * clang 14's AArch64 prologues and epilogues have no
			 * asynchronous CFI), the walk must be unreliable.
			 */
			if (sframe_kunit_flagged(addr)) {
				if (sp->ret) {
					flagged++;
					continue;
				}
				bad++;
				KUNIT_FAIL(test, "kprobe at %pS: reliable in a flagged range",
					   (void *)addr);
				continue;
			}
			/* The interrupted PC, then exactly the callers. */
			at = sfu_find_chain(&sp->t, 0, sframe_park_chain + f,
					    ARRAY_SIZE(sframe_park_chain) - f);
			if (sp->ret || at < 1 || sp->t.e[at] != addr) {
				bad++;
				KUNIT_FAIL(test, "kprobe at %pS: %s, chain at %d",
					   (void *)addr,
					   sp->ret ? sframe_unwind_strerror(sp->st.error) :
					   "reliable", at);
				if (bad <= 3)
					sfu_print(test, "trace", &sp->t);
				continue;
			}
			ok++;
		}
	}
	kunit_info(test, "%u instructions: %u probed and exact+reliable, %u flagged by the verifier and unreliable, %u refused/not hit, %u ftrace sites, %u wrong\n",
		   total, ok, flagged, refused, ftrace, bad);
	KUNIT_EXPECT_EQ(test, bad, 0U);
	KUNIT_EXPECT_GT(test, ok, 0U);
}

#else
static void sfu_test_kprobes(struct kunit *test)
{
	kunit_skip(test, "CONFIG_KPROBES is off");
}
#endif /* CONFIG_KPROBES */

/* ---- (e) kretprobe on the chain -------------------------------------- */
#ifdef CONFIG_KRETPROBES

static int sfu_kret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

static void sfu_test_kretprobe(struct kunit *test)
{
	/* The trace and the walk off the stack (KASAN: frame size limit). */
	struct sframe_unwind_state *st;
	struct kretprobe *rp;
	struct task_struct *task;
	struct sframe_park *c;
	struct sfu_trace *t;
	int ret;

	rp = kunit_kcalloc(test, 2, sizeof(*rp), GFP_KERNEL);
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rp);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, st);
	rp[0].kp.addr = (kprobe_opcode_t *)sframe_park_fn2;
	rp[1].kp.addr = (kprobe_opcode_t *)sframe_park_fn3;
	rp[0].handler = sfu_kret_handler;
	rp[1].handler = sfu_kret_handler;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp[0]), 0);
	ret = register_kretprobe(&rp[1]);
	if (ret) {
		/* no assertion with rp[0] registered: kunit frees it */
		unregister_kretprobe(&rp[0]);
		KUNIT_FAIL(test, "register_kretprobe: %d", ret);
		return;
	}

	task = sfu_park(test, c);
	if (!task)
		goto out;
	ret = sfu_walk_task(task, t, st);
	sfu_print(test, "parked kthread, kretprobes on func2 and func3", t);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "walk unreliable: %s",
			    sframe_unwind_strerror(st->error));
	KUNIT_EXPECT_GE(test, sfu_find_chain(t, 0, sframe_park_chain,
					     ARRAY_SIZE(sframe_park_chain)), 0);
	sframe_park_stop(c, task);
out:
	unregister_kretprobe(&rp[1]);
	unregister_kretprobe(&rp[0]);
}

#else
static void sfu_test_kretprobe(struct kunit *test)
{
	kunit_skip(test, "CONFIG_KRETPROBES is off");
}
#endif /* CONFIG_KRETPROBES */

/* ---- (e) function-graph tracer and a kretprobe at once ---------------- */
#if defined(CONFIG_FUNCTION_GRAPH_TRACER) && defined(CONFIG_KRETPROBES)

/* The chain functions the graph tracer hooks: [start, end) each. */
static unsigned long sfu_graph_fn[3][2];
static atomic_t sfu_graph_hooked;
/* Entries of other functions: the filter did not apply (see below). */
static atomic_t sfu_graph_other;

static notrace int sfu_graph_entry(SFRAME_FGRAPH_ENT_ARGS)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sfu_graph_fn); i++) {
		if (trace->func >= sfu_graph_fn[i][0] &&
		    trace->func < sfu_graph_fn[i][1]) {
			atomic_inc(&sfu_graph_hooked);
			return 1;	/* hook this function's return */
		}
	}
	atomic_inc(&sfu_graph_other);
	return 0;
}

static notrace void sfu_graph_return(SFRAME_FGRAPH_RET_ARGS)
{
}

static struct fgraph_ops sfu_graph_ops = {
	.entryfunc = sfu_graph_entry,
	.retfunc = sfu_graph_return,
};

/*
 * Limit the graph tracer to the chain (true), or lift the limit (false).
 * Without it register_ftrace_graph() rewrites every traced call site of
 * the kernel (some 40,000 on the test kernels) with int3 batches, and so
 * does its unregistration.  Under QEMU TCG that once held a vCPU for
 * minutes at one instruction, a call site being patched, inside
 * unregister_ftrace_graph() (1 boot in 80 here; the soft-lockup reports
 * fit a breakpoint executed again after it was removed).  The graph
 * tracer follows the global filter on 6.1 and its ops' own on 6.12
 * (sframe_fgraph_filter()); the globs also take a compiler-made clone
 * (.constprop, .isra).  Setting a filter returns nothing here, and a filter that matches
 * nothing traces everything: the case counts the graph entries of other
 * functions and fails if there are any.
 */
static void sfu_graph_filter(bool on)
{
#ifdef CONFIG_DYNAMIC_FTRACE
	static const char *const names[] = {
		"sframe_park_leaf*", "sframe_park_fn3*", "sframe_park_fn2*",
	};
	unsigned int i;
	char buf[32];

	if (!on) {
		sframe_fgraph_filter(&sfu_graph_ops, NULL, 0, 1);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		/* the parser writes into its buffer */
		strscpy(buf, names[i], sizeof(buf));
		sframe_fgraph_filter(&sfu_graph_ops, buf, strlen(buf), !i);
	}
#endif
}

/* Trampoline addresses on @task's stack: the hooks are really active. */
static unsigned int sfu_count_trampolines(struct task_struct *task)
{
	unsigned long *p = task_stack_page(task);
	unsigned long *end = p + THREAD_SIZE / sizeof(long);
	unsigned int n = 0;
	unsigned long w;

	/*
	 * Another task's whole stack, its frames' KASAN redzones included:
	 * read without instrumentation, as an unwinder does.
	 */
	for (; p < end; p++) {
		w = sfu_code(READ_ONCE_NOCHECK(*p));
		n += w == (unsigned long)return_to_handler ||
		     is_kretprobe_trampoline(w);
	}
	return n;
}

static void sfu_test_fgraph(struct kunit *test)
{
	void *const hooked[] = { sframe_park_leaf, sframe_park_fn3, sframe_park_fn2 };
	struct sframe_unwind_state st;
	struct sfu_trace *t, *ref;
	struct task_struct *task;
	struct kretprobe *rp;
	unsigned int i, tramps;
	struct sframe_park *c;
	int ret, at;

	rp = kunit_kzalloc(test, sizeof(*rp), GFP_KERNEL);
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	/* two traces: more than a frame should hold (clang's 2 KB limit) */
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	ref = kunit_kzalloc(test, sizeof(*ref), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rp);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	for (i = 0; i < ARRAY_SIZE(hooked); i++) {
		unsigned long start, size;

		KUNIT_ASSERT_TRUE(test, sframe_kunit_symbol((unsigned long)hooked[i],
							    &start, &size));
		sfu_graph_fn[i][0] = start;
		sfu_graph_fn[i][1] = start + size;
	}
	atomic_set(&sfu_graph_hooked, 0);
	atomic_set(&sfu_graph_other, 0);
	sfu_graph_filter(true);
	ret = register_ftrace_graph(&sfu_graph_ops);
	if (ret) {
		sfu_graph_filter(false);
		KUNIT_FAIL(test, "register_ftrace_graph: %d", ret);
		return;
	}
	rp->kp.addr = (kprobe_opcode_t *)sframe_park_fn1;
	rp->handler = sfu_kret_handler;
	ret = register_kretprobe(rp);
	if (ret) {
		unregister_ftrace_graph(&sfu_graph_ops);
		sfu_graph_filter(false);
		KUNIT_FAIL(test, "register_kretprobe: %d", ret);
		return;
	}

	task = sfu_park(test, c);
	if (!task)
		goto out;
	tramps = sfu_count_trampolines(task);
	ret = sfu_walk_task(task, t, &st);
	sfu_print(test, "parked kthread, fgraph on leaf..func2, kretprobe on func1", t);
	kunit_info(test, "%d graph hooks taken, %u trampoline addresses on the stack\n",
		   atomic_read(&sfu_graph_hooked), tramps);
	/* leaf, func3 and func2 hooked by fgraph, func1 by the kretprobe */
	KUNIT_EXPECT_GE(test, atomic_read(&sfu_graph_hooked), 3);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&sfu_graph_other), 0,
			    "the graph tracer hooked other functions: the filter did not apply");
	KUNIT_EXPECT_GE(test, tramps, 3U);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "walk unreliable: %s",
			    sframe_unwind_strerror(st.error));
	at = sfu_find_chain(t, 0, sframe_park_chain, ARRAY_SIZE(sframe_park_chain));
	KUNIT_EXPECT_GE_MSG(test, at, 0, "original return addresses not reported");
	if (at >= 0) {
		void *const rest[] = { sframe_park_thread };

		KUNIT_EXPECT_EQ(test, sfu_find_chain(t, at + 4, rest, 1), at + 4);
	}
	for (i = 0; i < t->n; i++)
		KUNIT_EXPECT_FALSE_MSG(test, t->e[i] == (unsigned long)return_to_handler ||
				       is_kretprobe_trampoline(t->e[i]),
				       "trampoline reported at #%u", i);
	KUNIT_EXPECT_EQ(test, sframe_ref_walk(sfu_store, ref, task, true), 0);
	KUNIT_EXPECT_EQ(test, t->n, ref->n);
	KUNIT_EXPECT_EQ(test, memcmp(t->e, ref->e, sizeof(long) * min(t->n, ref->n)), 0);

	sframe_park_stop(c, task);
out:
	unregister_kretprobe(rp);
	unregister_ftrace_graph(&sfu_graph_ops);
	sfu_graph_filter(false);
}

#else
static void sfu_test_fgraph(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_FUNCTION_GRAPH_TRACER and CONFIG_KRETPROBES");
}
#endif /* CONFIG_FUNCTION_GRAPH_TRACER && CONFIG_KRETPROBES */

/* ---- (f) corrupted stacks --------------------------------------------- */

/*
 * An address inside the fork entry, computed at run time: a relocation into
 * the middle of a function that starts with ENDBR makes objtool warn on
 * IBT kernels (6.12's ret_from_fork_asm is one).
 */
static unsigned long sfu_fork_entry_plus(unsigned long off)
{
	unsigned long pc = (unsigned long)sframe_fork_entry;

	OPTIMIZER_HIDE_VAR(pc);
	return pc + off;
}

static void sfu_test_corrupt(struct kunit *test)
{
	unsigned long *slot, saved;
	struct sframe_unwind_state *st;
	struct task_struct *task;
	struct sfu_trace *t;
	struct sframe_park *c;
	unsigned int i;
	/*
	 * Static: built on the stack, this array would be 16-byte aligned
	 * and gcc would realign the frame through a DRAP register, which
	 * SFrame cannot describe (the verifier fails the build).  A value
	 * known only at run time is an offset into the fork entry instead.
	 */
	static const struct {
		const char *what;
		unsigned long val;
		bool in_fork_entry;
		bool in_heap;		/* @val: an offset into this test's heap */
		bool not_text;		/* never in the trace */
	} bad[] = {
		{ "return address 0", 0 },
		{ "return address not text", (unsigned long)&jiffies, .not_text = true },
		{ "return address into the leaf (loop)", (unsigned long)sframe_park_leaf + 1 },
		{ "fake boundary (fork entry)", 4, true },
		{ "return address -1", ~0UL, .not_text = true },
		{ "return address in the heap", 64, .in_heap = true, .not_text = true },
	};

	/* (off the stack: KASAN builds warn about a frame this size) */
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, c && t && st);
	task = sfu_park(test, c);
	if (!task)
		return;

	/* The slot holding func2's return address into func1. */
	slot = sframe_kunit_ra_slot(task, sframe_park_fn1);
	KUNIT_ASSERT_NOT_NULL(test, slot);
	saved = *slot;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		unsigned long val = bad[i].val;
		unsigned int k;
		int ret;

		if (bad[i].in_fork_entry)
			val = sfu_fork_entry_plus(val);
		else if (bad[i].in_heap)
			val += (unsigned long)t;
		*slot = val;
		ret = sfu_walk_task(task, t, st);
		kunit_info(test, "%s: %d (%s) after %u frames\n", bad[i].what,
			   ret, sframe_unwind_strerror(st->error), t->n);
		KUNIT_EXPECT_NE_MSG(test, ret, 0, "%s", bad[i].what);
		/* A value that is not text is never given as a frame. */
		for (k = 0; bad[i].not_text && k < t->n; k++)
			KUNIT_EXPECT_NE_MSG(test, t->e[k], val,
					    "%s: in the trace", bad[i].what);
	}
	*slot = saved;

#ifdef CONFIG_X86_64
	{
		unsigned long sp = task->thread.sp;

		task->thread.sp = 0x1000;
		KUNIT_EXPECT_NE(test, sfu_walk_task(task, t, st), 0);
		task->thread.sp = (unsigned long)&jiffies;
		KUNIT_EXPECT_NE(test, sfu_walk_task(task, t, st), 0);
		task->thread.sp = sp;
	}
#else
	{
		unsigned long sp = task->thread.cpu_context.sp;

		task->thread.cpu_context.sp = 0x1000;
		KUNIT_EXPECT_NE(test, sfu_walk_task(task, t, st), 0);
		task->thread.cpu_context.sp = sp;
	}
#endif
	/* Restored: reliable again. */
	KUNIT_EXPECT_EQ(test, sfu_walk_task(task, t, st), 0);
	sframe_park_stop(c, task);
}

/* ---- the lookup cache and the rows give the core's answers --------------- */

/* sframe_kernel_lookup() answers the recovery fields of a rule. */
static bool sfu_same_recovery(const struct sframe_rule *a,
			      const struct sframe_rule *b)
{
	return !memcmp(&a->cfa, &b->cfa, sizeof(a->cfa)) &&
	       !memcmp(&a->ra, &b->ra, sizeof(a->ra)) &&
	       !memcmp(&a->fp, &b->fp, sizeof(a->fp)) &&
	       a->sp_from_cfa == b->sp_from_cfa && a->flags == b->flags;
}

/* A cached lookup's result is the core's: error, annotation, rule. */
static bool sfu_same_answer(int e, const struct sframe_annot *a,
			    const struct sframe_rule *r, int core_e,
			    const struct sframe_annot *core_a,
			    const struct sframe_rule *core_r)
{
	return e == core_e && a == core_a && (e || sfu_same_recovery(r, core_r));
}

/* A lookup's result, for a message: error, annotation, recovery rule. */
static void sfu_rule_str(char *buf, size_t size, int err,
			 const struct sframe_annot *a, const struct sframe_rule *r)
{
	scnprintf(buf, size,
		  "%d, %s annotation, CFA %u.%u%+d RA %u.%u%+d%s FP %u.%u%+d%s sp %d flags %#x",
		  err, a ? "an" : "no", r->cfa.kind, r->cfa.reg, r->cfa.offset,
		  r->ra.kind, r->ra.reg, r->ra.offset, r->ra.deref ? "*" : "",
		  r->fp.kind, r->fp.reg, r->fp.offset, r->fp.deref ? "*" : "",
		  r->sp_from_cfa, r->flags);
}

/*
 * One lookup against sframe_kernel_find() (the core on the section), whose
 * rule the unwinder uses without saves below SP and classified for the
 * step's fast path (sframe_step_prepare(), on the core's rule here).  The
 * first few that differ are printed, with the cached lookup done again:
 * whether the difference lasts says where to look.
 */
static void sfu_lookup_ok(struct kunit *test, const struct sframe_section *sec,
			  unsigned long pc, unsigned int *bad)
{
	const struct sframe_step_arch arch = {
		.sp_reg = sec->sp_reg, .fp_reg = sec->fp_reg,
	};
	const struct sframe_annot *a, *a2, *fa;
	struct sframe_rows_rule rr;
	struct sframe_rule r1, r2, r3;
	int e1, e2, e3;

	memset(&r1, 0, sizeof(r1));
	memset(&r2, 0, sizeof(r2));
	e1 = sframe_kernel_lookup(pc, &a, &r1);
	e2 = sframe_kernel_find(pc, &r2);
	if (!e2) {
		sframe_rule_no_red_zone(&r2, sec->sp_reg);
		sframe_rule_recovery(&rr, &r2);
		sframe_step_prepare(&arch, &rr);
		sframe_rule_set_recovery(&r2, &rr);
	}
	fa = sframe_annot_find(pc);
	if (sfu_same_answer(e1, a, &r1, e2, fa, &r2))
		return;
	if (++*bad <= 3) {
		char c[112], k[112];

		e3 = sframe_kernel_lookup(pc, &a2, &r3);
		sfu_rule_str(c, sizeof(c), e1, a, &r1);
		sfu_rule_str(k, sizeof(k), e2, fa, &r2);
		kunit_info(test, "%pS: cached %s; core %s; cached again: %s\n",
			   (void *)pc, c, k,
			   sfu_same_answer(e3, a2, &r3, e2, fa, &r2) ?
			   "as the core" : "differs again");
	}
}

/*
 * The caches' size follows vmlinux's rows and the CPUs: a power of two of
 * at most %SFRAME_CACHE_MAX entries per CPU, together at most one entry
 * per %SFRAME_CACHE_ROWS rows (or one set per CPU), and no less than half
 * of that share.  A lookup's answer lands in its own set.
 */
static void sfu_test_cache_size(struct kunit *test)
{
	unsigned long sets, share, pc = (unsigned long)sfu_test_cache_size;
	const struct sframe_cache_entry *e;
	struct sframe_answer scratch;
	unsigned int cpus = num_possible_cpus();

	KUNIT_ASSERT_TRUE(test, sframe_unwind_tables_wait());
	/* as sframe_kernel_cache_set() reads it */
	sets = smp_load_acquire(&sframe_cache.mask) + 1;
	share = min_t(unsigned long,
		      sframe_vmlinux_rows()->nrows / SFRAME_CACHE_ROWS / cpus,
		      SFRAME_CACHE_MAX);
	kunit_info(test, "%u rows, %u CPUs: %lu entries per CPU\n",
		   sframe_vmlinux_rows()->nrows, cpus, sets * SFRAME_CACHE_WAYS);
	KUNIT_EXPECT_TRUE(test, is_power_of_2(sets));
	/* More than one set: not in the first set's memory. */
	KUNIT_EXPECT_TRUE(test, sets == 1 || READ_ONCE(sframe_cache.sets) !=
				&sframe_cache_first[0]);
	KUNIT_EXPECT_LE(test, sets * SFRAME_CACHE_WAYS, SFRAME_CACHE_MAX);
	if (share < 2 * SFRAME_CACHE_WAYS) {
		KUNIT_EXPECT_EQ(test, sets, 1UL);
	} else {
		KUNIT_EXPECT_LE(test, sets * SFRAME_CACHE_WAYS, share);
		KUNIT_EXPECT_GT(test, 2 * sets * SFRAME_CACHE_WAYS, share);
	}

	sframe_kernel_answers_begin();
	sframe_kernel_cache_flush();
	sframe_kernel_answer(pc, &scratch);
	e = sframe_kernel_cache_set(pc);
	KUNIT_EXPECT_TRUE(test,
			  READ_ONCE(e[0].pc) == pc || READ_ONCE(e[1].pc) == pc);
	sframe_kernel_answers_end();
}

static void sfu_test_cache(struct kunit *test)
{
	unsigned int f, pass, checked = 0, bad = 0;
	const struct sframe_section *sec = sframe_kunit_vmlinux_section(test);
	struct sframe_fde first, last;
	unsigned long pc;

	sframe_kernel_cache_flush();
	/* Pass 0 fills the cache, pass 1 reads it back. */
	for (pass = 0; pass < 2; pass++) {
		for (f = 0; f < ARRAY_SIZE(sframe_park_chain); f++) {
			void *fn = sframe_park_chain[f];
			unsigned long start, size, pc;

			KUNIT_ASSERT_TRUE(test, sframe_kunit_symbol((unsigned long)fn,
								    &start, &size));
			for (pc = start; pc < start + size; pc++) {
				checked++;
				sfu_lookup_ok(test, sec, pc, &bad);
			}
		}
	}
	/*
	 * The decoded rows (sections.c) against the section itself, across
	 * all of vmlinux's text with SFrame: every 61st byte, and the first
	 * and last byte of every function and the byte after it; the cache
	 * is emptied often.
	 */
	KUNIT_ASSERT_TRUE(test, sframe_unwind_tables_wait());
	KUNIT_ASSERT_EQ(test, sframe_get_fde(sec, 0, &first), 0);
	KUNIT_ASSERT_EQ(test, sframe_get_fde(sec, sec->num_fdes - 1, &last), 0);
	for (pc = first.start; pc < last.start + last.size; pc += 61) {
		if (!(checked & 1023))
			sframe_kernel_cache_flush();
		checked++;
		sfu_lookup_ok(test, sec, pc, &bad);
	}
	for (f = 0; f < sec->num_fdes; f++) {
		if (sframe_get_fde(sec, f, &first))
			continue;
		checked += 3;
		sfu_lookup_ok(test, sec, first.start, &bad);
		sfu_lookup_ok(test, sec, first.start + first.size - 1, &bad);
		sfu_lookup_ok(test, sec, first.start + first.size, &bad);
	}
	kunit_info(test, "%u lookups, %u differ from the core's answer\n",
		   checked, bad);
	KUNIT_EXPECT_EQ(test, bad, 0U);
	KUNIT_EXPECT_GT(test, checked, 0U);
}

/* The number of @pc's set in the lookup cache */
static unsigned long sfu_cache_set(unsigned long pc)
{
	unsigned long set;

	preempt_disable();
	set = sframe_kernel_cache_set(pc) -
	      this_cpu_ptr(READ_ONCE(sframe_cache.sets));
	preempt_enable();
	return set / SFRAME_CACHE_WAYS;
}

/*
 * A walk that starts in the middle of another on this CPU must leave the
 * answers the other holds in the cache as they are: on arm64 with
 * TRACE_IRQFLAGS, every exception taken from the kernel walks for
 * return_address() before it counts as an interrupt, between any two
 * instructions of a step.  Both entries of a set are held, and a nested
 * user looks up a third PC of that set.
 */
static void sfu_test_cache_nested(struct kunit *test)
{
	unsigned long pcs[SFRAME_CACHE_WAYS + 1], start, size, pc, set;
	const struct sframe_answer *held[SFRAME_CACHE_WAYS];
	struct sframe_answer want[SFRAME_CACHE_WAYS], scratch;
	const struct sframe_cache_entry *e;
	unsigned int n = 0, cached, kept, tries = 0;
	unsigned long gen;

	/* The caches at their final size before a set is chosen */
	KUNIT_ASSERT_TRUE(test, sframe_unwind_tables_wait());
	KUNIT_ASSERT_TRUE(test, sframe_kunit_symbol((unsigned long)sfu_test_cache,
						    &start, &size));
	pcs[n++] = start;
	set = sfu_cache_set(start);
	for (pc = start + 1; pc < start + size && n < ARRAY_SIZE(pcs); pc++)
		if (sfu_cache_set(pc) == set)
			pcs[n++] = pc;
	if (n < ARRAY_SIZE(pcs))
		kunit_skip(test, "no %zu PCs of one cache set", ARRAY_SIZE(pcs));

	/* Again if another CPU started a generation (text patched) meanwhile */
	do {
		cached = 0;
		kept = 0;
		sframe_kernel_answers_begin();
		sframe_kernel_cache_flush();
		gen = atomic_long_read(&sframe_kernel_gen);
		for (n = 0; n < SFRAME_CACHE_WAYS; n++) {
			held[n] = sframe_kernel_answer(pcs[n], &scratch);
			want[n] = *held[n];
			cached += held[n] != &scratch;
		}
		/* As an exception's walk would, between two steps of this one */
		sframe_kernel_answers_begin();
		sframe_kernel_answer(pcs[n], &scratch);
		sframe_kernel_answers_end();
		for (n = 0; n < SFRAME_CACHE_WAYS; n++) {
			e = container_of(held[n], struct sframe_cache_entry, ans);
			kept += held[n] != &scratch &&
				READ_ONCE(e->pc) == pcs[n] &&
				!memcmp(held[n], &want[n], sizeof(want[n]));
		}
		sframe_kernel_answers_end();
	} while (atomic_long_read(&sframe_kernel_gen) != gen && ++tries < 10);

	kunit_info(test, "%u of %u answers held in the cache kept over a nested lookup of %pS\n",
		   kept, cached, (void *)pcs[SFRAME_CACHE_WAYS]);
	KUNIT_EXPECT_EQ(test, cached, SFRAME_CACHE_WAYS);
	KUNIT_EXPECT_EQ(test, kept, SFRAME_CACHE_WAYS);
}

#ifdef CONFIG_DYNAMIC_FTRACE
/*
 * A walk nested in a cache fill (a tracer's callback on a function the fill
 * calls: func_stack_trace, the stack tracer, a stacktrace trigger,
 * bpf_get_stack()) must not leave one PC cached with another's answer.  The
 * fill of @pc1 (annotated, no FDE) is traced in
 * sframe_vmlinux_annot_search(), which it calls once its rule and error
 * are in the entry; the callback walks and looks up @pc2, of the same
 * cache set, without an annotation.
 */
static unsigned long sfu_reentry_pc;
static bool sfu_reentry_on;
static struct sframe_answer sfu_reentry_ans;	/* the nested lookup's */
static atomic_t sfu_reentry_hits, sfu_reentry_depth;

static notrace void sfu_reentry_cb(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	const struct sframe_answer *ans;
	struct sframe_answer scratch;
	unsigned long entries[16];

	if (!READ_ONCE(sfu_reentry_on))
		return;
	/* One nested walk at a time: what it calls is traced too. */
	if (atomic_inc_return(&sfu_reentry_depth) == 1) {
		atomic_inc(&sfu_reentry_hits);
		stack_trace_save(entries, ARRAY_SIZE(entries), 0);
		sframe_kernel_answers_begin();
		ans = sframe_kernel_answer(READ_ONCE(sfu_reentry_pc), &scratch);
		sfu_reentry_ans = *ans;
		sframe_kernel_answers_end();
	}
	atomic_dec(&sfu_reentry_depth);
}

/*
 * Trace @func with sfu_reentry_cb() (off until sfu_reentry_on).  A new
 * ftrace_ops each time: ftrace_free_filter() leaves an ops' hashes freed
 * but in place, so an ops must not be filtered again after it.
 */
static struct ftrace_ops *sfu_reentry_trace(struct kunit *test,
					    const char *func)
{
	struct ftrace_ops *ops = kunit_kzalloc(test, sizeof(*ops), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, ops);
	ops->func = sfu_reentry_cb;
	ret = ftrace_set_filter(ops, (unsigned char *)func, strlen(func), 1);
	if (ret)
		kunit_skip(test, "%s cannot be traced: %d", func, ret);
	ret = register_ftrace_function(ops);
	if (ret)
		ftrace_free_filter(ops);
	KUNIT_ASSERT_EQ(test, ret, 0);
	atomic_set(&sfu_reentry_hits, 0);
	return ops;
}

static void sfu_reentry_untrace(struct ftrace_ops *ops)
{
	unregister_ftrace_function(ops);
	ftrace_free_filter(ops);
}

/*
 * Look up @pc1, with the lookup of @pc nested where the fill is traced;
 * with preemption disabled.  Return: the cached answers that then differ
 * from fresh ones.
 */
static unsigned int sfu_reentry_fill(unsigned long pc1, unsigned long pc)
{
	const struct sframe_annot *a;
	struct sframe_rule r;

	WRITE_ONCE(sfu_reentry_pc, pc);
	WRITE_ONCE(sfu_reentry_on, true);
	sframe_kernel_lookup(pc1, &a, &r);
	WRITE_ONCE(sfu_reentry_on, false);
	return sframe_kernel_cache_check(NULL, 0);
}

static void sfu_test_cache_reentry(struct kunit *test)
{
	unsigned long pc1 = 0, pc2, start, size;
	const struct sframe_annot *a;
	struct ftrace_ops *ops;
	struct sframe_rule r;
	unsigned int bad;

	for (a = __start_sframe_annot; a < __stop_sframe_annot && !pc1; a++) {
		unsigned long pc = (unsigned long)&a->pc + a->pc;

		if (a->type && core_kernel_text(pc) &&
		    sframe_kernel_find(pc, &r) == -SFRAME_E_NO_FDE)
			pc1 = pc;
	}
	if (!pc1)
		kunit_skip(test, "no annotated vmlinux text without an FDE");
	KUNIT_ASSERT_TRUE(test, sframe_kunit_symbol((unsigned long)sfu_test_cache,
						    &start, &size));
	for (pc2 = start; pc2 < start + size; pc2++)
		if (sfu_cache_set(pc2) == sfu_cache_set(pc1) &&
		    !sframe_annot_find(pc2))
			break;
	if (pc2 == start + size)
		kunit_skip(test, "no PC of the same cache set");

	ops = sfu_reentry_trace(test, "sframe_vmlinux_annot_search");
	preempt_disable();
	sframe_kernel_cache_flush();
	bad = sfu_reentry_fill(pc1, pc2);
	preempt_enable();

	sfu_reentry_untrace(ops);
	kunit_info(test, "%pS filled, %pS looked up in %d nested walks: %u cached answers differ\n",
		   (void *)pc1, (void *)pc2, atomic_read(&sfu_reentry_hits), bad);
	KUNIT_EXPECT_GT(test, atomic_read(&sfu_reentry_hits), 0);
	KUNIT_EXPECT_EQ(test, bad, 0U);
}

/* Is @pc's answer the usual one (sframe_answer_plain())? */
static bool sfu_answer_plain(unsigned long pc)
{
	struct sframe_answer scratch;
	bool plain;

	sframe_kernel_answers_begin();
	plain = sframe_kernel_answer(pc, &scratch)->plain;
	sframe_kernel_answers_end();
	return plain;
}

/*
 * Address 0 (a walk from the pt_regs of a call through a NULL pointer) is
 * never cached, and must not take the answer an entry being filled still
 * holds: both entries of 0's set get plain answers of this generation,
 * then the fill of @pc1 (annotated, no FDE, in the same set) replaces one
 * and is traced halfway, where a nested walk looks up 0.
 */
static void sfu_test_cache_pc0(struct kunit *test)
{
	unsigned long pc, pc1 = 0, pcs[SFRAME_CACHE_WAYS];
	unsigned long set0 = sfu_cache_set(0);
	const struct sframe_annot *a;
	struct sframe_answer want, scratch;
	unsigned int n = 0, bad;
	struct ftrace_ops *ops;
	struct sframe_rule r;

	for (a = __start_sframe_annot; a < __stop_sframe_annot && !pc1; a++) {
		unsigned long lo = sframe_annot_start(a);

		if (!a->type || !core_kernel_text(lo))
			continue;
		for (pc = lo; pc < lo + a->len && !pc1; pc++)
			if (sfu_cache_set(pc) == set0 &&
			    sframe_kernel_find(pc, &r) == -SFRAME_E_NO_FDE)
				pc1 = pc;
	}
	if (!pc1)
		kunit_skip(test, "no annotated vmlinux text without an FDE in the set of 0");
	for (pc = (unsigned long)_stext;
	     pc < (unsigned long)_etext && n < SFRAME_CACHE_WAYS; pc++)
		if (sfu_cache_set(pc) == set0 && !sframe_annot_find(pc) &&
		    sfu_answer_plain(pc))
			pcs[n++] = pc;
	if (n < SFRAME_CACHE_WAYS)
		kunit_skip(test, "no plain PCs in the set of 0");

	ops = sfu_reentry_trace(test, "sframe_vmlinux_annot_search");
	preempt_disable();
	sframe_kernel_cache_flush();
	sframe_kernel_answers_begin();
	want = *sframe_kernel_answer(0, &scratch);
	sframe_kernel_answers_end();
	for (n = 0; n < SFRAME_CACHE_WAYS; n++)
		sframe_kernel_lookup(pcs[n], &a, &r);
	bad = sfu_reentry_fill(pc1, 0);
	preempt_enable();

	sfu_reentry_untrace(ops);
	kunit_info(test, "%pS filled over %pS and %pS; 0 looked up in %d nested walks: error %d, plain %d (want %d, %d)\n",
		   (void *)pc1, (void *)pcs[0], (void *)pcs[1],
		   atomic_read(&sfu_reentry_hits), sfu_reentry_ans.err,
		   sfu_reentry_ans.plain, want.err, want.plain);
	KUNIT_EXPECT_GT(test, atomic_read(&sfu_reentry_hits), 0);
	KUNIT_EXPECT_EQ(test, sfu_reentry_ans.err, want.err);
	KUNIT_EXPECT_PTR_EQ(test, sfu_reentry_ans.annot, want.annot);
	KUNIT_EXPECT_EQ(test, sfu_reentry_ans.plain, want.plain);
	KUNIT_EXPECT_EQ(test, sfu_reentry_ans.after_call, want.after_call);
	KUNIT_EXPECT_EQ(test, bad, 0U);
}
#endif /* CONFIG_DYNAMIC_FTRACE */

#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
/*
 * A cached answer must not outlive a static call update.  With a NULL
 * target an inline static_call_cond() site is a NOP; an update makes it a
 * call (as a livepatch transition does to PREEMPT_DYNAMIC's
 * cond_resched()), and a return address after it is then after a call.
 */
static unsigned long sfu_sc_ra;
static unsigned int sfu_sc_calls;

static noinline void sfu_sc_target(void)
{
	WRITE_ONCE(sfu_sc_ra, (unsigned long)__builtin_return_address(0));
}

DEFINE_STATIC_CALL_NULL(sfu_sc, sfu_sc_target);

static noinline void sfu_sc_site(void)
{
	static_call_cond(sfu_sc)();
	/* not a tail call: the site is a call (or a NOP) with a return */
	WRITE_ONCE(sfu_sc_calls, sfu_sc_calls + 1);
}

static void sfu_test_static_call(struct kunit *test)
{
	const struct sframe_answer *ans;
	struct sframe_answer scratch;
	bool as_nop, as_call;
	unsigned long ra;
	unsigned int bad;

	/* The return address of the site, from a call through it. */
	static_call_update(sfu_sc, sfu_sc_target);
	sfu_sc_site();
	ra = READ_ONCE(sfu_sc_ra);
	KUNIT_ASSERT_NE(test, ra, 0UL);
	static_call_update(sfu_sc, NULL);

	/* This CPU's cache: filled while the site is a NOP, read after. */
	migrate_disable();
	sframe_kernel_answers_begin();
	ans = sframe_kernel_answer(ra - 1, &scratch);
	as_nop = ans->after_call;
	sframe_kernel_answers_end();
	static_call_update(sfu_sc, sfu_sc_target);
	sframe_kernel_answers_begin();
	ans = sframe_kernel_answer(ra - 1, &scratch);
	as_call = ans->after_call;
	bad = sframe_kernel_cache_check(NULL, 0);
	sframe_kernel_answers_end();
	migrate_enable();
	static_call_update(sfu_sc, NULL);

	kunit_info(test, "%pS: after a call: %d as a NOP, %d as a call; %u cached answers differ\n",
		   (void *)ra, as_nop, as_call, bad);
	KUNIT_EXPECT_FALSE(test, as_nop);
	KUNIT_EXPECT_TRUE(test, as_call);
	KUNIT_EXPECT_EQ(test, bad, 0U);
}

#ifdef CONFIG_X86_64
/*
 * A return address after a call whose opcode is covered by an INT3
 * (text_poke_bp() rewriting the site, or a kprobe on the call) is still
 * after a call when the displacement leads to a function's start.  The
 * bytes lie in data here, which sframe_arch_after_call() reads as it
 * reads text; an answer reads no bytes where no text is.
 */
static u8 sfu_int3_buf[16];

static bool sfu_int3_after_call(u8 op, s32 disp)
{
	sfu_int3_buf[3] = op;
	memcpy(&sfu_int3_buf[4], &disp, sizeof(disp));
	return sframe_arch_after_call((unsigned long)&sfu_int3_buf[8]);
}

static void sfu_test_int3_call(struct kunit *test)
{
	/* the displacement of a call from the buffer to a function */
	s32 d = (long)sfu_sc_target - (long)&sfu_int3_buf[8];
	struct sframe_answer scratch;
	const struct sframe_answer *ans;

	KUNIT_EXPECT_TRUE(test, sfu_int3_after_call(0xe8, d));
	/* (vmlinux's data: the answer is cached, the bytes change) */
	sframe_kernel_cache_flush();
	sframe_kernel_answers_begin();
	ans = sframe_kernel_answer((unsigned long)&sfu_int3_buf[8] - 1,
				   &scratch);
	KUNIT_EXPECT_FALSE_MSG(test, ans->after_call,
			       "an answer read call-site bytes in data");
	sframe_kernel_answers_end();
	KUNIT_EXPECT_TRUE(test, sfu_int3_after_call(0xcc, d));
	/* not to a function's start; INT3 padding; not a call */
	KUNIT_EXPECT_FALSE(test, sfu_int3_after_call(0xcc, d + 1));
	KUNIT_EXPECT_FALSE(test, sfu_int3_after_call(0xcc, (s32)0xcccccccc));
	KUNIT_EXPECT_FALSE(test, sfu_int3_after_call(0x90, d));
}
#endif /* CONFIG_X86_64 */
#endif /* CONFIG_HAVE_STATIC_CALL_INLINE */

#ifdef SFRAME_ARCH_CALL_SIZE
/*
 * The return-site table against the lookup cache at @ra: a listed site has
 * the cache's plain answer (the same rule), or its pt_regs/END annotation
 * after a call; a site not listed has neither, or is one the table leaves
 * out on purpose (rest_init()'s calls, the return trampolines).  Counts a
 * difference in *@bad, and prints the first three.
 */
static void sfu_ra_same(struct kunit *test, unsigned long ra, unsigned long ri,
			unsigned long ri_size, unsigned long *bad)
{
	const struct sframe_ra_table *t = &sframe_vmlinux_ra;
	const struct sframe_rows_rule *r;
	const struct sframe_annot *a;
	const struct sframe_answer *ans;
	struct sframe_answer scratch, first;
	bool ok, want;

	r = sframe_ra_rule(ra, &a);
	sframe_kernel_answers_begin();
	sframe_kernel_cache_flush();
	ans = sframe_kernel_answer(ra - 1, &scratch);
	if (r) {
		ok = ans->plain && ans->rule == r;
	} else if (a) {
		ok = ans->annot == a && ans->after_call &&
		     (a->type == SFRAME_ANNOT_REGS || a->type == SFRAME_ANNOT_END);
	} else {
		want = ra - t->base < t->size &&
		       (ans->plain ||
			(ans->annot && ans->after_call &&
			 (ans->annot->type == SFRAME_ANNOT_REGS ||
			  ans->annot->type == SFRAME_ANNOT_END))) &&
		       !(ra - 1 >= ri && ra - 1 < ri + ri_size) &&
		       ra != (unsigned long)return_to_handler &&
		       !is_kretprobe_trampoline(ra);
		ok = !want;
	}
	if (ok || ++*bad > 3) {
		sframe_kernel_answers_end();
		return;
	}
	/* The first few that differ, with a second lookup for comparison. */
	first = *ans;
	sframe_kernel_cache_flush();
	ans = sframe_kernel_answer(ra - 1, &scratch);
	scratch = *ans;
	sframe_kernel_answers_end();
	kunit_info(test, "%pS: table: %s; cache: error %d, %s annotation, after a call %d, plain %d, %s rule; again: error %d, %s annotation, after a call %d, plain %d, %s rule\n",
		   (void *)ra, r ? "listed" : a ? "annotated" : "not listed",
		   first.err, first.annot ? "an" : "no", first.after_call,
		   first.plain, first.rule == r ? "its" : "another",
		   scratch.err, scratch.annot ? "an" : "no", scratch.after_call,
		   scratch.plain, scratch.rule == r ? "its" : "another");
}

/*
 * A slot's frame record (SFRAME_RA_REC) says what the rule of its return
 * site says: the step through either is the same.
 */
static bool sfu_ra_rec_same(u64 e, unsigned long ra)
{
	const struct sframe_rows_rule *r;
	const struct sframe_annot *a;
	long n = FIELD_GET(SFRAME_RA_REC_CFA, e) * sizeof(long);
	long lo = FIELD_GET(SFRAME_RA_REC_LOW, e) * sizeof(long);

	r = sframe_ra_rule(ra, &a);
	return r && (r->flags & SFRAME_RULE_STEP_SIMPLE) &&
	       r->cfa.reg == ((e & SFRAME_RA_REC_FP) ? SFRAME_DWARF_AARCH64_FP :
						       SFRAME_DWARF_AARCH64_SP) &&
	       r->cfa.offset == n && r->fp.kind == SFRAME_LOC_CFA &&
	       r->fp.offset == -lo && r->ra.kind == SFRAME_LOC_CFA &&
	       r->ra.offset == -lo + (long)sizeof(long) &&
	       r->step_low == -lo &&
	       (!(e & SFRAME_RA_REC_SP) ||
		(!(e & SFRAME_RA_REC_FP) && n == lo));
}
#endif

#ifdef SFRAME_ARCH_CALL_SIZE
/*
 * Nothing outside vmlinux's text is listed: not the address whose key is
 * an empty slot's (SFRAME_RA_EMPTY, 64 MiB - 4 past _stext, where module
 * or BPF text may lie), which a table of empty slots alone would match on
 * its key; not the first address past the text, nor one before it.
 */
static void sfu_ra_outside(struct kunit *test)
{
	const struct sframe_ra_table *t = &sframe_vmlinux_ra;
	const unsigned long empty_ra = t->base +
		((unsigned long)SFRAME_RA_EMPTY << SFRAME_RA_KEY_SHIFT);
	u64 empty[SFRAME_RA_WAYS] = { SFRAME_RA_EMPTY, SFRAME_RA_EMPTY };
	struct sframe_ra_table e = *t;

	e.slot = empty;
	e.buckets = 1;
	KUNIT_EXPECT_EQ(test, sframe_ra_entry(&e, empty, empty_ra), 0ULL);
	KUNIT_EXPECT_EQ(test, sframe_ra_entry(t, t->slot, empty_ra), 0ULL);
	KUNIT_EXPECT_EQ(test, sframe_ra_entry(t, t->slot, t->base + t->size), 0ULL);
	KUNIT_EXPECT_EQ(test, sframe_ra_entry(t, t->slot,
					      t->base - SFRAME_ARCH_CALL_SIZE), 0ULL);
}
#endif

/*
 * arm64: vmlinux's return-site table gives the lookup cache's answers, at
 * every listed site and at every 7th instruction of vmlinux's text, and
 * lists nothing outside it.
 */
static void sfu_test_ra_table(struct kunit *test)
{
#ifdef SFRAME_ARCH_CALL_SIZE
	const struct sframe_ra_table *t = &sframe_vmlinux_ra;
	unsigned long ri, ri_size, off, ra, listed = 0, checked = 0, bad = 0;
	unsigned long rec = 0;
	u32 i, k;

	KUNIT_ASSERT_TRUE(test, sframe_unwind_tables_wait());
	KUNIT_ASSERT_NOT_NULL(test, READ_ONCE(t->slot));
	KUNIT_ASSERT_TRUE(test, sframe_kunit_symbol(sframe_rest_init(),
						    &ri, &ri_size));
	for (i = 0; i < SFRAME_RA_WAYS * t->buckets; i++) {
		k = FIELD_GET(SFRAME_RA_KEY, t->slot[i]);
		if (k == SFRAME_RA_EMPTY)
			continue;
		listed++;
		ra = t->base + ((unsigned long)k << SFRAME_RA_KEY_SHIFT);
		sfu_ra_same(test, ra, ri, ri_size, &bad);
		if (t->slot[i] & SFRAME_RA_REC) {
			rec++;
			bad += !sfu_ra_rec_same(t->slot[i], ra);
		}
	}
	for (off = 0; off < t->size; off += 7 * SFRAME_ARCH_CALL_SIZE) {
		checked++;
		sfu_ra_same(test, t->base + off, ri, ri_size, &bad);
	}
	sfu_ra_outside(test);
	kunit_info(test, "%lu listed return sites (%lu by their frame record), %lu other addresses checked\n",
		   listed, rec, checked);
	KUNIT_EXPECT_GT(test, listed, 1000UL);
	KUNIT_EXPECT_GT(test, rec, listed / 2);
	KUNIT_EXPECT_EQ(test, bad, 0UL);
#else
	kunit_skip(test, "no return-site table on this architecture");
#endif
}

static struct kunit_case sframe_unwind_cases[] = {
	KUNIT_CASE(sfu_test_parked),
	KUNIT_CASE(sfu_test_irq),
	KUNIT_CASE(sfu_test_kprobes),
	KUNIT_CASE(sfu_test_kretprobe),
	KUNIT_CASE(sfu_test_fgraph),
	KUNIT_CASE(sfu_test_corrupt),
	KUNIT_CASE(sfu_test_all_tasks),
	KUNIT_CASE(sfu_test_idle_tasks),
	KUNIT_CASE(sfu_test_cache_size),
	KUNIT_CASE(sfu_test_cache),
	KUNIT_CASE(sfu_test_cache_nested),
#ifdef CONFIG_DYNAMIC_FTRACE
	KUNIT_CASE(sfu_test_cache_reentry),
	KUNIT_CASE(sfu_test_cache_pc0),
#endif
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	KUNIT_CASE(sfu_test_static_call),
#ifdef CONFIG_X86_64
	KUNIT_CASE(sfu_test_int3_call),
#endif
#endif
	KUNIT_CASE(sfu_test_ra_table),
	{}
};

static struct kunit_suite sframe_unwind_suite = {
	.name = "sframe_unwind",
	.test_cases = sframe_unwind_cases,
};

kunit_test_suite(sframe_unwind_suite);

MODULE_LICENSE("GPL");
