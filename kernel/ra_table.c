// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmlinux's return-site table (sframe/lookup.h, sframe_ra_rule()): where
 * every call has one size (arm64), the return sites of vmlinux's text are
 * listed once at boot with the rule a step takes there, so that a walk
 * through vmlinux needs no lookup at all.  Built by answer.c's worker
 * once vmlinux's rules are in the step's shape.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/debug.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <asm/sections.h>
#include <sframe/lookup.h>
#include "unwind_arch.h"

/* vmlinux's return sites (sframe/lookup.h): @slot published once built */
struct sframe_ra_table sframe_vmlinux_ra;
EXPORT_SYMBOL_GPL(sframe_vmlinux_ra);

/* Evictions one insertion may make before the table is built anew */
#define SFRAME_RA_MAX_KICKS	512
/* Builds, each with an eighth more buckets than the one before */
#define SFRAME_RA_BUILDS	8

/* Entry @e's key */
static u32 sframe_ra_key(u64 e)
{
	return FIELD_GET(SFRAME_RA_KEY, e);
}

/* Entry @e's return address - _stext, which the buckets are a hash of */
static u32 sframe_ra_off(u64 e)
{
	return sframe_ra_key(e) << SFRAME_RA_KEY_SHIFT;
}

/* The first and second bucket of return address - _stext @k */
static u32 sframe_ra_first(const struct sframe_ra_table *t, u32 k)
{
	return sframe_ra_scale(t, sframe_ra_hash1(k));
}

static u32 sframe_ra_second(const struct sframe_ra_table *t, u32 k)
{
	return sframe_ra_scale(t, sframe_ra_hash2(sframe_ra_hash1(k)));
}

/* The bucket of @k other than @b (@b is one of its two). */
static u32 sframe_ra_other(const struct sframe_ra_table *t, u32 k, u32 b)
{
	u32 b1 = sframe_ra_first(t, k);

	return b == b1 ? sframe_ra_second(t, k) : b1;
}

/* Put @e in a free slot of bucket @b, if it has one. */
static bool sframe_ra_put(u64 *slot, u32 b, u64 e)
{
	u64 *s = &slot[SFRAME_RA_WAYS * (size_t)b];
	int i;

	for (i = 0; i < SFRAME_RA_WAYS; i++) {
		if (sframe_ra_key(s[i]) == SFRAME_RA_EMPTY) {
			s[i] = e;
			return true;
		}
	}
	return false;
}

/*
 * The return addresses on the stacks of the tasks asleep while the table
 * is built, sorted: where kernel threads wait (their loops, the waits
 * they call), which is where they wait ever after.  Only while the table
 * is built (one worker).
 */
#define SFRAME_RA_ASLEEP_MAX	1024

static struct {
	unsigned long *ra;
	u32 n;
} sframe_ra_asleep;

static bool sframe_ra_asleep_add(void *cookie, unsigned long addr)
{
	if (sframe_ra_asleep.n >= SFRAME_RA_ASLEEP_MAX)
		return false;
	sframe_ra_asleep.ra[sframe_ra_asleep.n++] = addr;
	return true;
}

static int sframe_ra_asleep_walk(struct task_struct *task, void *arg)
{
	sframe_stack_walk(sframe_ra_asleep_add, NULL, task, NULL);
	return 0;
}

static int sframe_ra_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* Walk the tasks that are asleep (the table is not published yet). */
static void sframe_ra_asleep_collect(void)
{
	struct task_struct *g, *task;

	sframe_ra_asleep.n = 0;
	sframe_ra_asleep.ra = kvmalloc_array(SFRAME_RA_ASLEEP_MAX,
					     sizeof(*sframe_ra_asleep.ra),
					     GFP_KERNEL);
	if (!sframe_ra_asleep.ra)
		return;
	rcu_read_lock();
	for_each_process_thread(g, task) {
		/* (two loops: a break would leave the inner one only) */
		if (sframe_ra_asleep.n >= SFRAME_RA_ASLEEP_MAX)
			goto full;
		if (task != current)
			sframe_unwind_call_blocked(task, sframe_ra_asleep_walk,
						   NULL);
	}
full:
	rcu_read_unlock();
	sort(sframe_ra_asleep.ra, sframe_ra_asleep.n,
	     sizeof(*sframe_ra_asleep.ra), sframe_ra_cmp, NULL);
}

/* Is @ra one of them?  (Asked about every entry: no compare callback.) */
static bool sframe_ra_asleep_has(unsigned long ra)
{
	u32 lo = 0, hi = sframe_ra_asleep.n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (sframe_ra_asleep.ra[mid] < ra)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sframe_ra_asleep.n && sframe_ra_asleep.ra[lo] == ra;
}

static void sframe_ra_asleep_free(void)
{
	kvfree(sframe_ra_asleep.ra);
	sframe_ra_asleep.ra = NULL;
	sframe_ra_asleep.n = 0;
}

/*
 * The return sites nearly every walk meets: those in the scheduler's and
 * the locks' text (every blocked task's walk goes through them), on the
 * stacks of the tasks asleep at boot (sframe_ra_asleep) and in pt_regs or
 * END annotations (where walks end).  They are placed first and evicted
 * last, so that they lie in their first bucket, which a lookup reads
 * first.
 */
static bool sframe_ra_hot(const struct sframe_ra_table *t, u64 e)
{
	unsigned long ra = t->base + sframe_ra_off(e);

	return (e & SFRAME_RA_ANNOT) || in_sched_functions(ra - 1) ||
	       sframe_ra_asleep_has(ra);
}

/*
 * Cuckoo insertion: a free slot in the entry's first bucket (the one a
 * lookup reads first), else in its second; else it takes a slot of its
 * first bucket (not a hot one's if it can) and the entry it evicts moves
 * to its own other bucket, and so on.  Return: false when
 * SFRAME_RA_MAX_KICKS evictions found no free slot (an entry is then
 * lost: the table must be built again).
 */
static bool sframe_ra_insert(const struct sframe_ra_table *t, u64 *slot,
			     u64 e)
{
	u32 k = sframe_ra_off(e), b = sframe_ra_first(t, k), i, n, w;
	u64 old;

	if (sframe_ra_put(slot, b, e) ||
	    sframe_ra_put(slot, sframe_ra_second(t, k), e))
		return true;
	for (n = 0; n < SFRAME_RA_MAX_KICKS; n++) {
		for (w = 0; w < SFRAME_RA_WAYS; w++) {
			i = SFRAME_RA_WAYS * b + (n + w) % SFRAME_RA_WAYS;
			if (!sframe_ra_hot(t, slot[i]))
				break;
		}
		if (w == SFRAME_RA_WAYS)
			i = SFRAME_RA_WAYS * b + n % SFRAME_RA_WAYS;
		old = slot[i];
		slot[i] = e;
		e = old;
		b = sframe_ra_other(t, sframe_ra_off(e), b);
		if (sframe_ra_put(slot, b, e))
			return true;
	}
	return false;
}

/*
 * Build @t's slots for the @n entries @ent, with an eighth more buckets
 * when an insertion fails (other bucket counts place keys elsewhere).
 * About 2/3 full: most keys lie in their first bucket.  Return: the
 * slots, or NULL (no memory, or no placement after SFRAME_RA_BUILDS).
 */
static u64 *sframe_ra_fill(struct sframe_ra_table *t, const u64 *ent, u32 n)
{
	u32 buckets = max(DIV_ROUND_UP(n * 3ULL, 2 * SFRAME_RA_WAYS), 1ULL);
	u32 build, i;
	u64 *slot;

	for (build = 0; build < SFRAME_RA_BUILDS; build++) {
		slot = kvmalloc_array(SFRAME_RA_WAYS * (size_t)buckets, sizeof(*slot),
				      GFP_KERNEL);
		if (!slot)
			return NULL;
		for (i = 0; i < SFRAME_RA_WAYS * buckets; i++)
			slot[i] = SFRAME_RA_EMPTY;
		t->buckets = buckets;
		/* The hot entries first, then the others. */
		for (i = 0; i < 2 * n; i++) {
			bool first_pass = i < n;

			if (sframe_ra_hot(t, ent[i % n]) == first_pass &&
			    !sframe_ra_insert(t, slot, ent[i % n]))
				break;
		}
		if (i == 2 * n)
			return slot;
		kvfree(slot);
		buckets += buckets / 8 + 1;
	}
	/* Not seen: the table is at most 2/3 full. */
	pr_warn("vmlinux: return-site table: no placement found\n");
	return NULL;
}

/*
 * The bits of a slot that give rule @r as a frame record (SFRAME_RA_REC),
 * or 0 if they cannot: a simple rule whose CFA is SP or FP plus N, with FP
 * saved at CFA - R and RA right above it, N and R whole words that fit.
 */
static u64 sframe_ra_rec(const struct sframe_rows_rule *r)
{
	s32 n = r->cfa.offset, lo = -r->fp.offset;
	u64 rec;

	if (!(r->flags & SFRAME_RULE_STEP_SIMPLE) ||
	    r->fp.kind != SFRAME_LOC_CFA ||
	    r->ra.offset != r->fp.offset + (s32)sizeof(long) ||
	    n < 0 || n % sizeof(long) ||
	    n / sizeof(long) > FIELD_MAX(SFRAME_RA_REC_CFA) ||
	    lo <= 0 || lo % sizeof(long) ||
	    lo / sizeof(long) > FIELD_MAX(SFRAME_RA_REC_LOW))
		return 0;
	if (r->cfa.reg == SFRAME_ARCH_FP_REG)
		rec = SFRAME_RA_REC | SFRAME_RA_REC_FP;
	else if (n == lo)
		rec = SFRAME_RA_REC | SFRAME_RA_REC_SP;
	else
		rec = SFRAME_RA_REC;
	return rec |
	       FIELD_PREP(SFRAME_RA_REC_CFA, n / sizeof(long)) |
	       FIELD_PREP(SFRAME_RA_REC_LOW, lo / sizeof(long));
}

/**
 * sframe_vmlinux_ra_build() - list vmlinux's return sites
 * @rows: vmlinux's decoded rows
 * @step: their rules in the step's shape, by rule id
 *
 * List vmlinux's return sites whose answer is plain: after a call, with a
 * rule in @rows, no annotation (which includes the verifier's fixups);
 * and those in a pt_regs or END annotation, which need no rule.
 * Not the return trampolines (a walk replaces such an address), nor the
 * calls of rest_init() (the end of init_task's walk, sframe_uw_next()):
 * a walk asks the cache there, as for every address not listed.
 * Text patched later (ftrace entry NOPs turned into calls and back) keeps
 * the table's "after a call" as a stale answer could: see unwinder.rst.
 * Without memory there is no table: lookups use the cache.
 *
 * Return: the bytes of the table, built and published; 0 if there is none.
 */
size_t sframe_vmlinux_ra_build(const struct sframe_rows *rows,
			       const struct sframe_rows_rule *step)
{
	const unsigned long base = (unsigned long)_stext;
	const unsigned long end = (unsigned long)_etext;
	struct sframe_ra_table *t = &sframe_vmlinux_ra;
	u32 calls = 0, n = 0, second = 0, b, i;
	unsigned long ra, ri_start = sframe_rest_init(), ri_size, off;
	const struct sframe_rows_rule *r;
	const struct sframe_annot *a;
	u32 rec = 0, rec_sp = 0, hot = 0, hot_second = 0, id, bad = 0;
	u64 *slot, *ent, val;
	int err;

	if (!ri_start || !kallsyms_lookup_size_offset(ri_start, &ri_size, &off) ||
	    off)
		return 0;

	for (ra = base + SFRAME_ARCH_CALL_SIZE; ra < end; ra += SFRAME_ARCH_CALL_SIZE)
		calls += sframe_arch_after_call(ra);
	if (!calls || end - base > SFRAME_RA_EMPTY << SFRAME_RA_KEY_SHIFT)
		return 0;
	/* The entries first: a build that fails starts again from them. */
	ent = kvmalloc_array(calls, sizeof(*ent), GFP_KERNEL);
	if (!ent)
		goto nomem;
	t->rules = step;
	t->annots = sframe_vmlinux_annot.entries;
	t->base = base;
	t->size = end - base;
	for (ra = base + SFRAME_ARCH_CALL_SIZE; ra < end && n < calls;
	     ra += SFRAME_ARCH_CALL_SIZE) {
		if (!sframe_arch_after_call(ra))
			continue;
		if (sframe_arch_ra_trampoline(ra) ||
		    (ra - 1 >= ri_start && ra - 1 < ri_start + ri_size))
			continue;
		r = sframe_rows_rule_of(rows, ra - 1, &err);
		a = sframe_annot_search(&sframe_vmlinux_annot, ra - 1);
		if (a && a->type != SFRAME_ANNOT_REGS &&
		    a->type != SFRAME_ANNOT_END)
			continue;
		if (a) {
			id = a - t->annots;
			val = SFRAME_RA_ANNOT;
		} else if (r) {
			id = r - rows->rules;
			val = sframe_ra_rec(&step[id]);
			rec += !!val;
			rec_sp += !!(val & SFRAME_RA_REC_SP);
		} else {
			continue;
		}
		/* Not seen: no table has so many rules or annotations. */
		if (id > FIELD_MAX(SFRAME_RA_INDEX)) {
			bad++;
			continue;
		}
		ent[n++] = FIELD_PREP(SFRAME_RA_KEY, (ra - base) >> SFRAME_RA_KEY_SHIFT) |
			   FIELD_PREP(SFRAME_RA_INDEX, id) | val;
	}
	sframe_ra_asleep_collect();
	slot = sframe_ra_fill(t, ent, n);
	kvfree(ent);
	if (!slot) {
		sframe_ra_asleep_free();
		goto nomem;
	}
	for (b = 0; b < t->buckets; b++) {
		for (i = SFRAME_RA_WAYS * b; i < SFRAME_RA_WAYS * (b + 1); i++) {
			if (sframe_ra_key(slot[i]) == SFRAME_RA_EMPTY)
				continue;
			hot += sframe_ra_hot(t, slot[i]);
			if (sframe_ra_first(t, sframe_ra_off(slot[i])) == b)
				continue;
			second++;
			hot_second += sframe_ra_hot(t, slot[i]);
		}
	}
	sframe_ra_asleep_free();
	/* Complete before @slot: pairs with sframe_ra_slot()'s acquire. */
	smp_store_release(&t->slot, slot);
	pr_info("vmlinux: return sites: %u of %u calls listed (plain answers, pt_regs), %u by their frame record (%u at SP), %u buckets, %u in their second (of the %u hot ones %u): %zu bytes\n",
		n, calls, rec, rec_sp, t->buckets, second, hot, hot_second,
		SFRAME_RA_WAYS * (size_t)t->buckets * sizeof(*slot));
	if (bad)
		pr_warn("vmlinux: return sites: %u not listed: rule or annotation number too large\n",
			bad);
	return SFRAME_RA_WAYS * (size_t)t->buckets * sizeof(*slot);
nomem:
	pr_warn("vmlinux: no return-site table: walks use the lookup cache\n");
	return 0;
}
