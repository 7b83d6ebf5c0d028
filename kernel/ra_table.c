// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmlinux's return-site table (sframe/lookup.h, sframe_ra_rule()): where
 * every call has one size (arm64), the return sites of vmlinux's text are
 * listed once at boot with the rule a step takes there, so that a walk
 * through vmlinux needs no lookup at all.  Built by answer.c's worker
 * once vmlinux's rules are in the step's shape.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <asm/sections.h>
#include <sframe/lookup.h>
#include "unwind_arch.h"

/* vmlinux's return sites (sframe/lookup.h): @slot published once built */
struct sframe_ra_table sframe_vmlinux_ra;
EXPORT_SYMBOL_GPL(sframe_vmlinux_ra);

/* The home slot of key @k. */
static u32 sframe_ra_home(const struct sframe_ra_table *t, u32 k)
{
	return (k * GOLDEN_RATIO_32) >> t->shift;
}

/*
 * Robin Hood insertion: a key that has come further from its home slot
 * than the one it meets takes that slot, and the other moves on.  Lookups
 * probe as for any linear probing, but no key lies far from its home (the
 * hot return addresses of a kernel cost what any other does, whatever the
 * text layout).  The table is never full: an empty slot comes.
 */
static void sframe_ra_insert(struct sframe_ra_table *t, u64 *slot, u32 k,
			     u32 val)
{
	u64 cur = k | (u64)val << 32, e;
	u32 h = sframe_ra_home(t, k), d = 0, ed;

	for (;; h = (h + 1) & t->mask, d++) {
		e = slot[h];
		if (!e) {
			slot[h] = cur;
			t->max_probe = max(t->max_probe, d);
			return;
		}
		ed = (h - sframe_ra_home(t, (u32)e)) & t->mask;
		if (ed < d) {
			slot[h] = cur;
			t->max_probe = max(t->max_probe, d);
			cur = e;
			d = ed;
		}
	}
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
 * Return: true if the table was built and published.
 */
bool sframe_vmlinux_ra_build(const struct sframe_rows *rows,
			     const struct sframe_rows_rule *step)
{
	const unsigned long base = (unsigned long)_stext;
	const unsigned long end = (unsigned long)_etext;
	struct sframe_ra_table *t = &sframe_vmlinux_ra;
	u32 calls = 0, n = 0, slots;
	unsigned long ra, ri_start = sframe_rest_init(), ri_size, off;
	const struct sframe_rows_rule *r;
	const struct sframe_annot *a;
	u64 *slot;
	u32 val;
	int err;

	if (!ri_start || !kallsyms_lookup_size_offset(ri_start, &ri_size, &off) ||
	    off)
		return false;

	for (ra = base + SFRAME_ARCH_CALL_SIZE; ra < end; ra += SFRAME_ARCH_CALL_SIZE)
		calls += sframe_arch_after_call(ra);
	if (!calls || end - base >= U32_MAX)
		return false;
	/* At most 3/4 full: short probes.  Counted first, to size it. */
	slots = roundup_pow_of_two(calls + calls / 3 + 1);
	slot = kvcalloc(slots, sizeof(*slot), GFP_KERNEL);
	if (!slot) {
		pr_warn("vmlinux: no memory for the return-site table\n");
		return false;
	}
	t->rules = step;
	t->annots = sframe_vmlinux_annot.entries;
	t->base = base;
	t->size = end - base;
	t->shift = 32 - ilog2(slots);
	t->mask = slots - 1;
	t->max_probe = 0;
	for (ra = base + SFRAME_ARCH_CALL_SIZE; ra < end; ra += SFRAME_ARCH_CALL_SIZE) {
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
		sframe_ra_insert(t, slot, ra - base + 1, val);
		n++;
	}
	/* Complete before @slot: pairs with sframe_ra_rule()'s acquire. */
	smp_store_release(&t->slot, slot);
	pr_info("vmlinux: return sites: %u of %u calls listed (plain answers, pt_regs), %u slots, longest probe %u: %zu bytes\n",
		n, calls, slots, t->max_probe, slots * sizeof(*slot));
	return true;
}
