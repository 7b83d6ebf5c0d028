/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SFrame sections of the running kernel: vmlinux's own .sframe and those
 * of loaded modules, found by text address.  Lookups take no locks and may
 * run in any context, NMI included.
 */
#ifndef _SFRAME_KERNEL_H
#define _SFRAME_KERNEL_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/types.h>
#include <linux/sframe_unwind.h>
#include <asm/barrier.h>
#include <asm/sections.h>
#include <sframe/sframe.h>
#include <sframe/annot.h>

/* log2 of the text block size of the lookup indexes (ORC uses 256 B). */
#define SFRAME_KERNEL_INDEX_SHIFT	8
/*
 * vmlinux's section index has 4 KiB blocks: once its decoded rows are
 * built (by the end of the initcalls), they answer every lookup, and the
 * section and its index go with the init memory, so an index entry per
 * 256 bytes of text would cost boot memory for little.  A lookup in the
 * section searches the FDEs of 4 KiB of text: a few more steps.
 */
#define SFRAME_VMLINUX_INDEX_SHIFT	12

/*
 * log2 of the text block size of an annotation table's bitmap of covered
 * blocks, and of its block index: most text has no annotation, which a
 * bit per KB says; the few blocks with some are searched with an index
 * entry per 4 KB (their annotations lie together: entry code).
 */
#define SFRAME_ANNOT_BLOCK_SHIFT	10
#define SFRAME_ANNOT_INDEX_SHIFT	12

/**
 * struct sframe_annot_table - a sorted annotation table
 * @entries: entries sorted by address
 * @count: number of used entries
 * @first: optional block index of @entries over [@lo, @hi), in blocks
 *         of 1 << %SFRAME_ANNOT_INDEX_SHIFT bytes (sframe_block_bounds());
 *         NULL: search the whole table every time
 * @covered: with @first, a bitmap of the blocks of 1 <<
 *           %SFRAME_ANNOT_BLOCK_SHIFT bytes some entry covers a byte of:
 *           the others need no search
 * @lo: first byte the index covers
 * @hi: one past the last
 * @nblocks: bits of @covered, from @lo on
 * @nindex: blocks of @first, from @lo on (it has @nindex + 1 entries)
 */
struct sframe_annot_table {
	const struct sframe_annot *entries;
	size_t count;
	u32 *first;
	unsigned long *covered;
	unsigned long lo, hi, nblocks, nindex;
};

/* The first address an annotation covers (its PC is self-relative). */
static inline unsigned long sframe_annot_start(const struct sframe_annot *a)
{
	return (unsigned long)&a->pc + a->pc;
}

/*
 * The entry of @t covering @pc, or NULL.  Lock-free, any context: a table
 * never changes once registered; vmlinux's lives for ever, a module's
 * until an RCU grace period after it is removed (search it under
 * rcu_read_lock(), as sections.c does).
 */
static __always_inline const struct sframe_annot *
sframe_annot_search(const struct sframe_annot_table *t, unsigned long pc)
{
	const struct sframe_annot *a = t->entries;
	size_t lo = 0, hi = t->count;
	u32 blo, bhi;

	/* Most text is in no covered block; else a few steps are left. */
	if (t->first) {
		unsigned long off = pc - t->lo;

		if (pc < t->lo ||
		    off >> SFRAME_ANNOT_BLOCK_SHIFT >= t->nblocks ||
		    !test_bit(off >> SFRAME_ANNOT_BLOCK_SHIFT, t->covered) ||
		    !sframe_block_bounds(t->first, t->nindex,
					 SFRAME_ANNOT_INDEX_SHIFT, off,
					 &blo, &bhi))
			return NULL;
		lo = blo;
		hi = bhi;
	}
	/* Number of entries starting at or below @pc. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sframe_annot_start(&a[mid]) <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	a += lo - 1;
	return pc - sframe_annot_start(a) < a->len ? a : NULL;
}

/* vmlinux's annotations (sframe_annot_find() for a vmlinux address) */
extern struct sframe_annot_table sframe_vmlinux_annot;

const struct sframe_section *sframe_vmlinux_section(void);
const struct sframe_annot *sframe_annot_find(unsigned long pc);
bool sframe_module_veneer(unsigned long pc);
const struct sframe_section *sframe_module_part(struct module *mod,
						unsigned int i);
int sframe_kernel_find(unsigned long pc, struct sframe_rule *rule);
int sframe_kernel_find_all(unsigned long pc, const struct sframe_annot **annot,
			   struct sframe_rule *rule);

/*
 * vmlinux's section is valid: set at early_initcall; cleared if the
 * rows' validation rejects it, or if it must outlive the init memory and
 * there is no memory for it (sframe_vmlinux_drop_section())
 */
extern bool sframe_vmlinux_ready;
/* vmlinux's decoded rows, published once built, or NULL */
extern const struct sframe_rows *sframe_vmlinux_rows_pub;

/* vmlinux (text, data, init text) rather than a module? */
static inline bool sframe_in_vmlinux(unsigned long pc)
{
	return __is_kernel(pc) || is_kernel_inittext(pc);
}

/* vmlinux text (or init text), whether its section is usable or not */
static inline bool sframe_vmlinux_code(unsigned long pc)
{
	return __is_kernel_text(pc) || is_kernel_inittext(pc);
}

/* The init text is gone (sframe_vmlinux_drop_section()): set once */
extern bool sframe_vmlinux_init_freed;

/*
 * vmlinux text its SFrame describes: its text, and its init text until
 * that is freed.  A reader of the section checks it under rcu_read_lock()
 * (sframe_vmlinux_drop_section() waits for it).
 */
static inline bool sframe_vmlinux_text(unsigned long pc)
{
	return sframe_vmlinux_ready &&
	       (__is_kernel_text(pc) ||
		(is_kernel_inittext(pc) && !READ_ONCE(sframe_vmlinux_init_freed)));
}

/*
 * vmlinux's decoded rows once built (never changed afterwards), else NULL.
 * Lock-free: safe in any context.
 */
static inline const struct sframe_rows *sframe_vmlinux_rows(void)
{
	/* Pairs with the worker's release: the rows are complete. */
	return smp_load_acquire(&sframe_vmlinux_rows_pub);
}

bool sframe_vmlinux_rows_wait(void);

/**
 * struct sframe_vmlinux_bytes - the memory of vmlinux's SFrame data
 * @section: its .sframe (0 once it went with the init memory)
 * @index: the section's lookup index (likewise)
 * @rows: its decoded rows with their function starts (0 until built)
 * @annot: its annotation table's block index
 * @freed: what went with the init memory: the section and its index
 */
struct sframe_vmlinux_bytes {
	size_t section, index, rows, annot, freed;
};

void sframe_vmlinux_bytes(struct sframe_vmlinux_bytes *b);
void sframe_vmlinux_drop_section(void);

/*
 * The generation of what a lookup finds: a new one starts (release) after
 * every change of the module list, of a module's init text, or of kernel
 * text (sframe_kernel_text_changed()).  Caches of answers compare it.
 */
extern atomic_long_t sframe_kernel_gen;

int sframe_table_init(struct sframe_section *sec, u32 **index,
		      const void *data, size_t size, unsigned long addr,
		      bool module, bool validate);

struct dentry;
struct dentry *sframe_debugfs_dir(void);

#endif /* _SFRAME_KERNEL_H */
