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
#include <linux/slab.h>
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

/* Key @k's first and second bucket. */
static u32 sframe_ra_first(const struct sframe_ra_table *t, u32 k)
{
	return sframe_ra_scale(t, sframe_ra_hash1(k));
}

static u32 sframe_ra_second(const struct sframe_ra_table *t, u32 k)
{
	return sframe_ra_scale(t, sframe_ra_hash2(sframe_ra_hash1(k)));
}

/* The bucket of key @k other than @b (@b is one of its two). */
static u32 sframe_ra_other(const struct sframe_ra_table *t, u32 k, u32 b)
{
	u32 b1 = sframe_ra_first(t, k);

	return b == b1 ? sframe_ra_second(t, k) : b1;
}

/* Put @e in a free slot of bucket @b, if it has one. */
static bool sframe_ra_put(u64 *slot, u32 b, u64 e)
{
	if (!slot[2 * b]) {
		slot[2 * b] = e;
		return true;
	}
	if (!slot[2 * b + 1]) {
		slot[2 * b + 1] = e;
		return true;
	}
	return false;
}

/*
 * Cuckoo insertion: a free slot in the entry's first bucket (the one a
 * lookup reads first), else in its second; else it takes a slot of its
 * first bucket and the entry it evicts moves to its own other bucket, and
 * so on.  Return: false when SFRAME_RA_MAX_KICKS evictions found no free
 * slot (an entry is then lost: the table must be built again).
 */
static bool sframe_ra_insert(const struct sframe_ra_table *t, u64 *slot,
			     u64 e)
{
	u32 k = e, b = sframe_ra_first(t, k), i, n;
	u64 old;

	if (sframe_ra_put(slot, b, e) ||
	    sframe_ra_put(slot, sframe_ra_second(t, k), e))
		return true;
	for (n = 0; n < SFRAME_RA_MAX_KICKS; n++) {
		i = 2 * b + (n & 1);
		old = slot[i];
		slot[i] = e;
		e = old;
		b = sframe_ra_other(t, e, b);
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
	u32 buckets = max(DIV_ROUND_UP(n * 3ULL, 4), 1ULL), build, i;
	u64 *slot;

	for (build = 0; build < SFRAME_RA_BUILDS; build++) {
		slot = kvcalloc(2 * (size_t)buckets, sizeof(*slot), GFP_KERNEL);
		if (!slot)
			return NULL;
		t->buckets = buckets;
		for (i = 0; i < n; i++)
			if (!sframe_ra_insert(t, slot, ent[i]))
				break;
		if (i == n)
			return slot;
		kvfree(slot);
		buckets += buckets / 8 + 1;
	}
	/* Not seen: the table is at most 2/3 full. */
	pr_warn("vmlinux: return-site table: no placement found\n");
	return NULL;
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
	u64 *slot, *ent;
	u32 val;
	int err;

	if (!ri_start || !kallsyms_lookup_size_offset(ri_start, &ri_size, &off) ||
	    off)
		return 0;

	for (ra = base + SFRAME_ARCH_CALL_SIZE; ra < end; ra += SFRAME_ARCH_CALL_SIZE)
		calls += sframe_arch_after_call(ra);
	if (!calls || end - base >= U32_MAX)
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
		if (a)
			val = (a - t->annots) | SFRAME_RA_ANNOT;
		else if (r)
			val = (r - rows->rules) * sizeof(*step);
		else
			continue;
		ent[n++] = (u32)(ra - base + 1) | (u64)val << 32;
	}
	slot = sframe_ra_fill(t, ent, n);
	kvfree(ent);
	if (!slot)
		goto nomem;
	for (b = 0; b < t->buckets; b++)
		for (i = 2 * b; i < 2 * b + 2; i++)
			second += slot[i] &&
				  sframe_ra_first(t, slot[i]) != b;
	/* Complete before @slot: pairs with sframe_ra_rule()'s acquire. */
	smp_store_release(&t->slot, slot);
	pr_info("vmlinux: return sites: %u of %u calls listed (plain answers, pt_regs), %u buckets, %u in their second: %zu bytes\n",
		n, calls, t->buckets, second,
		2 * (size_t)t->buckets * sizeof(*slot));
	return 2 * (size_t)t->buckets * sizeof(*slot);
nomem:
	pr_warn("vmlinux: no return-site table: walks use the lookup cache\n");
	return 0;
}
