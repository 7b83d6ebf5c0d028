// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the kernel unwinder asks of a text address (struct sframe_answer):
 * its annotation, its SFrame rule in the shape the step takes it, and
 * whether a call ends right before it.
 *
 * The registry (sections.c) finds annotations and rules.  Here the rules
 * get the step's shape (sframe_kernel_step_rule()): vmlinux's all at once,
 * by a worker once its rows are built; and answers are cached per CPU
 * (sframe_kernel_answer(), sframe/lookup.h): kernel stacks repeat the same
 * return addresses all the time.  An answer is kept for one generation of
 * the registry (sframe_kernel_gen).  See sframe_kernel_answer() for why
 * the cache is safe in NMI context.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <asm/sections.h>
#include <sframe/lookup.h>
#include <sframe/user.h>
#include "unwind_arch.h"

/*
 * The lookup caches (sframe/lookup.h, sframe_kernel_answer()): one set per
 * CPU until sframe_kernel_cache_size() gives them their size.
 */
DEFINE_PER_CPU(struct sframe_cache_entry [SFRAME_CACHE_WAYS],
	       sframe_cache_first);
struct sframe_cache sframe_cache __read_mostly = {
	.sets = &sframe_cache_first[0],
};

/* Fills of a full set, for the choice of the entry replaced. */
static DEFINE_PER_CPU(unsigned int, sframe_cache_fills);
/* Users of this CPU's cache (sframe_kernel_answers_begin()), nested */
DEFINE_PER_CPU(unsigned int, sframe_cache_users);

/* vmlinux's rules as the step uses them, by rule id of its rows, or NULL */
static const struct sframe_rows_rule *sframe_vmlinux_step_rules;
/* With them (sframe_unwind_tables_fn()): the return sites, the caches */
static size_t sframe_vmlinux_ra_bytes, sframe_vmlinux_cache_bytes;
/* An empty rule in the step's shape, set before those rules are published */
static struct sframe_rows_rule sframe_empty_step_rule;

static const struct sframe_step_arch sframe_kernel_arch = SFRAME_ARCH_STEP;

/*
 * A rule as the kernel walk steps with it: saves below SP were restored
 * already (the kernel has no red zone: sframe_rule_no_red_zone()), and
 * classified for sframe_step()'s fast path.  vmlinux's rules once when its
 * rows are built, a module's answer when it is looked up.
 */
static void sframe_kernel_step_rule(struct sframe_rows_rule *rule)
{
	sframe_locs_no_red_zone(&rule->cfa, &rule->ra, &rule->fp,
				SFRAME_ARCH_SP_REG);
	sframe_step_prepare(&sframe_kernel_arch, rule);
}

/*
 * The caches' size: one entry per %SFRAME_CACHE_ROWS rows of vmlinux in
 * all, shared out among the possible CPUs, at most %SFRAME_CACHE_MAX each
 * (the return addresses a CPU's stacks keep meeting are that few), so that
 * their memory follows the kernel's size and not the CPUs' count.  Below
 * two sets a CPU keeps its first set.  The new caches start empty.
 *
 * Return: the bytes of a CPU's cache.
 */
static size_t sframe_kernel_cache_size(u32 nrows)
{
	struct sframe_cache_entry __percpu *sets;
	unsigned long n;

	BUILD_BUG_ON(!is_power_of_2(SFRAME_CACHE_MAX));
	n = min_t(unsigned long,
		  nrows / SFRAME_CACHE_ROWS / num_possible_cpus(),
		  SFRAME_CACHE_MAX);
	if (n < 2 * SFRAME_CACHE_WAYS)
		goto out;
	n = rounddown_pow_of_two(n);
	sets = __alloc_percpu(n * sizeof(*sets), __alignof__(*sets));
	if (!sets) {
		pr_warn("vmlinux: no memory for the lookup caches: one set per CPU\n");
		goto out;
	}
	/*
	 * Zeroed (every entry of generation 0: none) before the pointer: a
	 * reader with the first sets' mask may take the new sets, and reads
	 * them through the pointer.
	 */
	smp_store_release(&sframe_cache.sets, sets);
	/* The sets before their number: pairs with sframe_kernel_cache_set() */
	smp_store_release(&sframe_cache.mask, n / SFRAME_CACHE_WAYS - 1);
out:
	return (sframe_cache.mask + 1) * SFRAME_CACHE_WAYS *
	       sizeof(struct sframe_cache_entry);
}

/*
 * vmlinux's rules in the step's shape, once its rows are built (off the
 * boot path, sections.c), then, where there is one, the return-site table
 * (ra_table.c) on them: after the text is final (the alternatives are
 * applied when the secondary CPUs are up, before the initcalls that queue
 * this).  Until the rules are published, answers for vmlinux come from
 * the registry and are shaped one at a time: the same answers.
 */
static void sframe_unwind_tables_fn(struct work_struct *work)
{
	const struct sframe_rows *rows;
	struct sframe_rows_rule *step;
	u64 t0;
	u32 i;

	if (!sframe_vmlinux_rows_wait())
		return;
	rows = sframe_vmlinux_rows();
	t0 = local_clock();
	step = kmemdup(rows->rules, rows->nrules * sizeof(*step), GFP_KERNEL);
	if (!step) {
		pr_warn("vmlinux: no memory for the unwinder's rules: lookups decode them\n");
		return;
	}
	for (i = 0; i < rows->nrules; i++)
		sframe_kernel_step_rule(&step[i]);
	sframe_kernel_step_rule(&sframe_empty_step_rule);
	/*
	 * The rules and the empty rule complete before the pointer: pairs
	 * with the lookups' acquire.
	 */
	smp_store_release(&sframe_vmlinux_step_rules, step);
	pr_info("vmlinux: unwinder rules: %u rules: %zu bytes (built in %llu us, off the boot path)\n",
		rows->nrules, rows->nrules * sizeof(*step),
		div_u64(local_clock() - t0, NSEC_PER_USEC));
	t0 = local_clock();
	sframe_vmlinux_ra_bytes = sframe_vmlinux_ra_build(rows, step);
	if (sframe_vmlinux_ra_bytes)
		pr_info("vmlinux: return sites listed in %llu us, off the boot path\n",
			div_u64(local_clock() - t0, NSEC_PER_USEC));
	sframe_vmlinux_cache_bytes = sframe_kernel_cache_size(rows->nrows);
}

static DECLARE_WORK(sframe_unwind_tables_work, sframe_unwind_tables_fn);

/*
 * Everything the unwinder keeps for vmlinux after the boot, for the
 * record (the benchmark reads it): once the tables are built and the
 * section went with the init memory, or was kept.
 */
static void __init sframe_unwind_data_report(void)
{
	const struct sframe_rows *rows = sframe_vmlinux_rows();
	struct sframe_vmlinux_bytes b;
	size_t rules, all, text;

	flush_work(&sframe_unwind_tables_work);
	/*
	 * The worker is done: flush_work() orders all it stored, the sizes
	 * included, before what follows (the acquire pairs with its release
	 * as at every reader of the rules).
	 */
	if (!rows || !smp_load_acquire(&sframe_vmlinux_step_rules))
		return;
	sframe_vmlinux_bytes(&b);
	rules = rows->nrules * sizeof(*sframe_vmlinux_step_rules);
	all = b.section + b.index + b.rows + b.annot + rules +
	      sframe_vmlinux_ra_bytes;
	text = _etext - _stext;
	pr_info("vmlinux: unwind data: .sframe %zu, its index %zu, decoded rows %zu, unwinder rules %zu, return sites %zu, annotation index %zu: %zu bytes in all, %zu per MB of text; lookup caches %zu bytes per CPU, %u CPUs; freed with the init memory %zu bytes\n",
		b.section, b.index, b.rows, rules, sframe_vmlinux_ra_bytes,
		b.annot, all, text ? (size_t)div64_u64((u64)all << 20, text) : 0,
		sframe_vmlinux_cache_bytes + sframe_user_cache_bytes(),
		num_possible_cpus(), b.freed);
}

/**
 * sframe_free_init_mem() - the init memory is about to be freed
 *
 * Called by kernel_init() after the initcalls (and the built-in KUnit
 * suites), before free_initmem(): vmlinux's .sframe, placed in the init
 * data, goes with it; its decoded rows answer from now on
 * (sframe_vmlinux_drop_section()).
 */
void __init sframe_free_init_mem(void)
{
	sframe_vmlinux_drop_section();
	sframe_unwind_data_report();
}

static int __init sframe_unwind_tables_init(void)
{
	if (sframe_vmlinux_section())
		queue_work(system_unbound_wq, &sframe_unwind_tables_work);
	return 0;
}
core_initcall(sframe_unwind_tables_init);

/**
 * sframe_unwind_tables_wait() - wait for vmlinux's rules and return sites
 *
 * Return: true if answers for vmlinux now read its rules in the step's
 * shape (and the return-site table is built where there is one).
 */
bool sframe_unwind_tables_wait(void)
{
	flush_work(&sframe_unwind_tables_work);
	/* Pairs with the worker's release. */
	return smp_load_acquire(&sframe_vmlinux_step_rules);
}
EXPORT_SYMBOL_GPL(sframe_unwind_tables_wait);

/* As the rows: their log lines before what runs after the initcalls. */
static int __init sframe_unwind_tables_sync(void)
{
	flush_work(&sframe_unwind_tables_work);
	return 0;
}
late_initcall_sync(sframe_unwind_tables_sync);

/**
 * sframe_kernel_cache_flush() - forget every cached lookup
 *
 * For benchmarks and tests that want cold lookups.  Racing with
 * sframe_module_init()/sframe_module_free() is harmless: any new
 * generation empties the caches.
 */
void sframe_kernel_cache_flush(void)
{
	sframe_kernel_text_changed();
}
EXPORT_SYMBOL_GPL(sframe_kernel_cache_flush);

/* The answer from the registry, uncached (a module's, or before the rules). */
static noinline void sframe_answer_uncached(unsigned long pc,
					    struct sframe_answer *ans)
{
	struct sframe_rule rule;
	int err;

	err = sframe_kernel_find_all(pc, &ans->annot, &rule);
	ans->err = err;
	if (err)
		memset(&ans->own, 0, sizeof(ans->own));
	else
		sframe_rule_recovery(&ans->own, &rule);
	sframe_kernel_step_rule(&ans->own);
	ans->rule = &ans->own;
}

/*
 * vmlinux's annotation of @pc, for a fill whose row an annotation meets,
 * or in a gap: out of line, as few fills search.  The tracer tests hook it
 * as a function a fill calls halfway (the answer's rule and error set).
 */
static noinline const struct sframe_annot *
sframe_vmlinux_annot_search(unsigned long pc)
{
	return sframe_annot_search(&sframe_vmlinux_annot, pc);
}

/*
 * vmlinux's rows' rule for @pc, in the step's shape.  vmlinux's rows
 * answer its text but for their %SFRAME_ROWS_CORE rows: a rule, or no
 * function there (a gap between functions, where entry code without
 * SFrame lies, with its annotations), which sframe_kernel_find_all() would
 * only find again from the same rows.  Return: the rule; or NULL with
 * *@err < 0 (the rows' answer: no rule) or 1 (not theirs to answer).
 * *@marked: an annotation may meet the rule's row (sframe_rows_mark()).
 */
static __always_inline const struct sframe_rows_rule *
sframe_answer_rows(unsigned long pc, int *err, bool *marked)
{
	u32 id;

	*err = 1;
	*marked = true;
	/*
	 * Pairs with the worker's release: the rules and the rows are
	 * complete.  Published for a valid section only
	 * (sframe_vmlinux_text()), and never changed: read again below
	 * rather than kept in a register across the search.
	 */
	if (!smp_load_acquire(&sframe_vmlinux_step_rules) ||
	    !sframe_vmlinux_code(pc))
		return NULL;
	id = sframe_rows_lookup_id(sframe_vmlinux_rows(), pc);
	if (id == SFRAME_ROWS_GAP || id == SFRAME_ROWS_CORE) {
		*err = id == SFRAME_ROWS_GAP ? -SFRAME_E_NO_FDE : 1;
		return NULL;
	}
	*err = 0;
	*marked = id & SFRAME_ROWS_MARK;
	return &READ_ONCE(sframe_vmlinux_step_rules)[id & ~SFRAME_ROWS_MARK];
}

/* The usual answer: @rule, no annotation, after a call */
static __always_inline void sframe_answer_plain(struct sframe_answer *ans,
						const struct sframe_rows_rule *rule)
{
	ans->rule = rule;
	ans->err = 0;
	ans->annot = NULL;
	ans->after_call = true;
	ans->plain = true;
}

/* The answer for @pc into @ans, from sframe_answer_rows()'s result. */
static __always_inline void
sframe_answer_finish(unsigned long pc, struct sframe_answer *ans,
		     const struct sframe_rows_rule *rule, int err, bool marked)
{
	if (rule || err < 0) {
		ans->rule = rule ?: &sframe_empty_step_rule;
		ans->err = rule ? 0 : err;
		/* No annotation meets an unmarked row (sframe_vmlinux_rows_fn()). */
		ans->annot = rule && !marked ? NULL : sframe_vmlinux_annot_search(pc);
	} else {
		sframe_answer_uncached(pc, ans);
	}
	/*
	 * Whether a call ends at @pc + 1 is read from the bytes before it:
	 * only where they are text (a rule or an annotation says so, else
	 * the kernel's list of text).  A return address from a corrupt slot
	 * may point anywhere, device memory too: nothing is read there.
	 */
	ans->after_call = (!ans->err || ans->annot ||
			   kernel_text_address(pc + 1)) &&
			  sframe_arch_after_call_inline(pc + 1);
	ans->plain = !ans->annot && !ans->err && ans->after_call;
}

/* The answer for @pc, looked up afresh into @ans. */
static __always_inline void sframe_answer_compute(unsigned long pc,
						  struct sframe_answer *ans)
{
	const struct sframe_rows_rule *rule;
	bool marked;
	int err;

	rule = sframe_answer_rows(pc, &err, &marked);
	sframe_answer_finish(pc, ans, rule, err, marked);
}

/*
 * Only the outermost user of the cache (sframe_kernel_answers_begin()), in
 * task context, writes it.  A walk can nest in a user without an interrupt
 * (in_interrupt() false): what a fill calls can be traced, and a tracer's
 * stack trace (func_stack_trace, the stack tracer, a stacktrace trigger,
 * bpf_get_stack()) walks again on this CPU, in the middle of the fill; on
 * arm64, with TRACE_IRQFLAGS (lockdep, the irqsoff tracer), each traced
 * change of the IRQ state asks return_address(), which walks: at an
 * exception's entry before it counts as an interrupt, between any two
 * instructions of a user.
 */
static __always_inline bool sframe_cache_may_fill(void)
{
	return sframe_vmlinux_ready && !in_interrupt() &&
	       __this_cpu_read(sframe_cache_users) == 1;
}

/*
 * The entry of @e's set to fill: one that is empty or of an older
 * generation than @gen, else the two in turn.  Marked empty (generation 0)
 * until filled: an interrupt's lookup of any PC, even of its old one or of
 * 0 (the PC of an entry left empty), misses it.
 */
static __always_inline struct sframe_cache_entry *
sframe_cache_victim(struct sframe_cache_entry *e, unsigned long gen)
{
	if (READ_ONCE(e->gen) == gen)
		e += READ_ONCE(e[1].gen) != gen ||
		     (__this_cpu_inc_return(sframe_cache_fills) & 1);
	WRITE_ONCE(e->gen, 0);
	barrier();
	return e;
}

/* The answer in @e complete: it is @pc's of generation @gen. */
static __always_inline void sframe_cache_keep(struct sframe_cache_entry *e,
					      unsigned long pc, unsigned long gen)
{
	WRITE_ONCE(e->pc, pc);
	barrier();
	WRITE_ONCE(e->gen, gen);
}

/* sframe_kernel_answer_fill() from its rows' result on */
static noinline const struct sframe_answer *
sframe_kernel_answer_fill_rest(unsigned long pc, struct sframe_cache_entry *e,
			       unsigned long gen, struct sframe_answer *scratch,
			       const struct sframe_rows_rule *rule, int err,
			       bool marked)
{
	struct sframe_answer *ans = scratch;
	bool fill = sframe_cache_may_fill();

	if (fill) {
		e = sframe_cache_victim(e, gen);
		ans = &e->ans;
	}
	sframe_answer_finish(pc, ans, rule, err, marked);
	if (fill) {
		/*
		 * Text that neither vmlinux nor a module holds (BPF programs,
		 * trampolines, kprobe slots) is freed and reused without a new
		 * generation: its answer serves this step and is not kept
		 * (the entry stays empty).
		 */
		if (ans->err != -SFRAME_E_NO_FDE || ans->annot ||
		    sframe_in_vmlinux(pc) || is_module_text_address(pc))
			sframe_cache_keep(e, pc, gen);
	}
	return ans;
}

NOKPROBE_SYMBOL(sframe_kernel_answer_fill_rest);

/**
 * sframe_kernel_answer_fill() - look up what the cache does not have
 * @pc: text address
 * @e: the first entry of its cache set (of this CPU)
 * @gen: the cache generation read before
 * @scratch: where the answer goes when it is not cached
 *
 * The slow path of sframe_kernel_answer(), for a user of the cache
 * (sframe_kernel_answers_begin()).  For the outermost user in task
 * context (once the cache is ready) the answer is written into @e
 * directly, marked empty meanwhile; an interrupt's answer goes to
 * @scratch, and so does that of a walk nested in another user.
 * vmlinux's decoded rows give the rule without a copy on the way.
 *
 * Return: the answer (in @e or @scratch).
 */
noinline const struct sframe_answer *
sframe_kernel_answer_fill(unsigned long pc, struct sframe_cache_entry *e,
			  unsigned long gen, struct sframe_answer *scratch)
{
	const struct sframe_rows_rule *rule;
	bool marked;
	int err;

	/*
	 * What follows is looked up after @gen was read (pairs with the
	 * release that starts a new generation in sections.c).
	 */
	smp_rmb();
	/* A lookup outside begin/end would never fill: say so. */
	if (IS_ENABLED(CONFIG_DEBUG_PREEMPT))
		WARN_ON_ONCE(!__this_cpu_read(sframe_cache_users));
	rule = sframe_answer_rows(pc, &err, &marked);
	/*
	 * The usual answer: a rule of vmlinux's rows that no annotation
	 * meets, after a call the inline checks know.  On the way nothing
	 * is called (the function saves no registers); the rest is out of
	 * line.  A walk can still nest here (an exception's, on arm64), as
	 * a second user that does not write.
	 */
	if (likely(rule && !marked && sframe_arch_after_call_fast(pc + 1))) {
		if (!sframe_cache_may_fill()) {
			sframe_answer_plain(scratch, rule);
			return scratch;
		}
		e = sframe_cache_victim(e, gen);
		sframe_answer_plain(&e->ans, rule);
		sframe_cache_keep(e, pc, gen);
		return &e->ans;
	}
	return sframe_kernel_answer_fill_rest(pc, e, gen, scratch, rule, err,
					      marked);
}

NOKPROBE_SYMBOL(sframe_kernel_answer_fill);

/**
 * sframe_kernel_cache_check() - this CPU's cached answers against fresh ones
 * @bad: where to copy the first @max entries that differ (may be NULL)
 * @max: room in @bad
 *
 * For tests: every entry of the current generation is looked up again.
 *
 * Return: the number of entries whose answer differs.
 */
unsigned int sframe_kernel_cache_check(struct sframe_cache_entry *bad,
				       unsigned int max)
{
	struct sframe_cache_entry *c;
	struct sframe_answer fresh;
	unsigned long i, size, gen;
	unsigned int n = 0;

	/* No fill nested in the check changes the entries it reads. */
	sframe_kernel_answers_begin();
	gen = atomic_long_read(&sframe_kernel_gen);
	/* The number of sets, then the sets (sframe_kernel_cache_set()) */
	size = (smp_load_acquire(&sframe_cache.mask) + 1) * SFRAME_CACHE_WAYS;
	c = this_cpu_ptr(READ_ONCE(sframe_cache.sets));

	for (i = 0; i < size; i++) {
		const struct sframe_answer *a = &c[i].ans;
		unsigned long pc = READ_ONCE(c[i].pc);

		if (READ_ONCE(c[i].gen) != gen)
			continue;
		sframe_answer_compute(pc, &fresh);
		if (a->err == fresh.err && a->annot == fresh.annot &&
		    a->after_call == fresh.after_call &&
		    a->plain == fresh.plain &&
		    (a->err || !memcmp(a->rule, fresh.rule, sizeof(*a->rule))))
			continue;
		if (bad && n < max) {
			bad[n] = c[i];
			bad[n].ans.own = *a->rule;
		}
		n++;
	}
	sframe_kernel_answers_end();
	return n;
}
EXPORT_SYMBOL_GPL(sframe_kernel_cache_check);

/**
 * sframe_kernel_lookup() - annotation and SFrame rule of a text address
 * @pc: text address
 * @annot: result: the annotation covering @pc, or NULL
 * @rule: result: the SFrame rule's recovery fields (CFA, RA, FP, SP
 *        adjustment, flags) as the unwinder uses them (saves below SP
 *        dropped, sframe_rule_no_red_zone()), valid when 0 is returned;
 *        its function fields are zero (sframe_kernel_find() has them)
 *
 * sframe_kernel_answer() for those who want a struct sframe_rule.  A
 * module's annotation is freed with the module: a caller that may race
 * with its unloading reads *@annot under the rcu_read_lock() it called
 * this in (the module's tables go after a grace period).
 *
 * Return: 0, or a negative SFRAME_E_* code as sframe_kernel_find().
 */
int sframe_kernel_lookup(unsigned long pc, const struct sframe_annot **annot,
			 struct sframe_rule *rule)
{
	const struct sframe_answer *ans;
	struct sframe_answer scratch;
	int err;

	memset(rule, 0, sizeof(*rule));
	sframe_kernel_answers_begin();
	ans = sframe_kernel_answer(pc, &scratch);
	sframe_rule_set_recovery(rule, ans->rule);
	*annot = ans->annot;
	err = ans->err;
	sframe_kernel_answers_end();
	return err;
}
EXPORT_SYMBOL_GPL(sframe_kernel_lookup);

#ifdef CONFIG_DEBUG_FS
/*
 * debugfs sframe/lookup: write a text address (ADDR or ADDR+OFF), read
 * back what the unwinder's lookup (cache, rows, sections) answers for it:
 *	echo 0xffffffff81000000+16 > /sys/kernel/debug/sframe/lookup
 *	cat /sys/kernel/debug/sframe/lookup
 * The boot tests use it to show that a module's answers go with it.
 */
static unsigned long sframe_lookup_pc;
static DEFINE_MUTEX(sframe_lookup_mutex);

static const char * const sframe_loc_names[] = {
	[SFRAME_LOC_SAME]	= "same",
	[SFRAME_LOC_CFA]	= "cfa",
	[SFRAME_LOC_REG]	= "reg",
	[SFRAME_LOC_UNDEFINED]	= "undefined",
};

static void sframe_lookup_loc(struct seq_file *m, const char *name,
			      const struct sframe_loc *l)
{
	seq_printf(m, " %s=%s", name,
		   l->kind < ARRAY_SIZE(sframe_loc_names) ?
		   sframe_loc_names[l->kind] : "?");
	if (l->kind == SFRAME_LOC_REG)
		seq_printf(m, "(r%u)", l->reg);
	if (l->kind == SFRAME_LOC_CFA || l->kind == SFRAME_LOC_REG)
		seq_printf(m, "%+d%s", l->offset, l->deref ? " deref" : "");
}

static int sframe_lookup_show(struct seq_file *m, void *v)
{
	const struct sframe_annot *a;
	struct sframe_rule rule;
	unsigned long pc;
	int err;

	mutex_lock(&sframe_lookup_mutex);
	pc = sframe_lookup_pc;
	mutex_unlock(&sframe_lookup_mutex);
	if (!pc) {
		seq_puts(m, "write a text address here first\n");
		return 0;
	}
	/* the address may be a module's, which may be unloaded meanwhile */
	rcu_read_lock();
	err = sframe_kernel_lookup(pc, &a, &rule);
	seq_printf(m, "%#lx %pS: ", pc, (void *)pc);
	if (err) {
		seq_printf(m, "%s (%s)", sframe_errname(err), sframe_strerror(err));
	} else {
		seq_puts(m, "rule");
		sframe_lookup_loc(m, "cfa", &rule.cfa);
		sframe_lookup_loc(m, "ra", &rule.ra);
		sframe_lookup_loc(m, "fp", &rule.fp);
		if (rule.flags & SFRAME_RULE_OUTERMOST)
			seq_puts(m, " outermost");
	}
	if (a)
		seq_printf(m, "; annotation type %u", a->type);
	rcu_read_unlock();
	seq_putc(m, '\n');
	return 0;
}

static int sframe_lookup_open(struct inode *inode, struct file *file)
{
	return single_open(file, sframe_lookup_show, NULL);
}

/* "ADDR" or "ADDR+OFF" (C number syntax) */
static ssize_t sframe_lookup_write(struct file *file, const char __user *buf,
				   size_t len, loff_t *ppos)
{
	unsigned long pc, off = 0;
	char str[48], *plus;
	int err;

	if (!len || len >= sizeof(str))
		return -EINVAL;
	if (copy_from_user(str, buf, len))
		return -EFAULT;
	str[len] = '\0';
	plus = strchr(str, '+');
	if (plus) {
		*plus = '\0';
		err = kstrtoul(strim(plus + 1), 0, &off);
		if (err)
			return err;
	}
	err = kstrtoul(strim(str), 0, &pc);
	if (err)
		return err;
	pc += off;
	mutex_lock(&sframe_lookup_mutex);
	sframe_lookup_pc = pc;
	mutex_unlock(&sframe_lookup_mutex);
	return len;
}

static const struct file_operations sframe_lookup_fops = {
	.open		= sframe_lookup_open,
	.read		= seq_read,
	.write		= sframe_lookup_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/*
 * debugfs sframe/cache_check: every CPU's cached answers looked up again
 * (sframe_kernel_cache_check()); one line per CPU with the number that
 * differ.  A write empties the caches (sframe_kernel_cache_flush()).  The
 * boot tests empty them, run tracers whose callbacks walk in the middle of
 * our own lookups, and read it.
 */
#define SFRAME_CACHE_CHECK_SHOW	4

struct sframe_cache_check {
	unsigned int n;
	struct sframe_cache_entry bad[SFRAME_CACHE_CHECK_SHOW];
};

static void sframe_cache_check_cpu(void *arg)
{
	struct sframe_cache_check *cc = arg;

	cc->n = sframe_kernel_cache_check(cc->bad, ARRAY_SIZE(cc->bad));
}

static int sframe_cache_check_show(struct seq_file *m, void *v)
{
	struct sframe_cache_check *cc;
	struct sframe_answer fresh;
	unsigned int i;
	int cpu;

	cc = kmalloc(sizeof(*cc), GFP_KERNEL);
	if (!cc)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		cc->n = 0;
		if (smp_call_function_single(cpu, sframe_cache_check_cpu, cc, 1))
			continue;
		seq_printf(m, "cpu%d %u\n", cpu, cc->n);
		for (i = 0; i < min_t(unsigned int, cc->n, ARRAY_SIZE(cc->bad)); i++) {
			const struct sframe_answer *a = &cc->bad[i].ans;

			sframe_answer_compute(cc->bad[i].pc, &fresh);
			seq_printf(m, "  %pS: cached err %d annot %d after_call %d plain %d; now err %d annot %d after_call %d plain %d%s\n",
				   (void *)cc->bad[i].pc, a->err, !!a->annot,
				   a->after_call, a->plain, fresh.err,
				   !!fresh.annot, fresh.after_call, fresh.plain,
				   !a->err && !fresh.err &&
				   memcmp(&a->own, fresh.rule, sizeof(a->own)) ?
				   "; rule differs" : "");
		}
	}
	kfree(cc);
	return 0;
}

static int sframe_cache_check_open(struct inode *inode, struct file *file)
{
	return single_open(file, sframe_cache_check_show, NULL);
}

static ssize_t sframe_cache_check_write(struct file *file,
					const char __user *buf, size_t len,
					loff_t *ppos)
{
	sframe_kernel_cache_flush();
	return len;
}

static const struct file_operations sframe_cache_check_fops = {
	.open		= sframe_cache_check_open,
	.read		= seq_read,
	.write		= sframe_cache_check_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int __init sframe_lookup_debugfs_init(void)
{
	debugfs_create_file("lookup", 0600, sframe_debugfs_dir(), NULL,
			    &sframe_lookup_fops);
	debugfs_create_file("cache_check", 0600, sframe_debugfs_dir(), NULL,
			    &sframe_cache_check_fops);
	return 0;
}
late_initcall(sframe_lookup_debugfs_init);
#endif
