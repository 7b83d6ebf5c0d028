/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SFrame sections of the running kernel: vmlinux's own .sframe and those
 * of loaded modules, found by text address.  Lookups take no locks and may
 * run in any context, NMI included.
 */
#ifndef _SFRAME_KERNEL_H
#define _SFRAME_KERNEL_H

#include <linux/types.h>
#include <linux/sframe_unwind.h>
#include <sframe/sframe.h>
#include <sframe/annot.h>

/* log2 of the text block size of the lookup indexes (ORC uses 256 B). */
#define SFRAME_KERNEL_INDEX_SHIFT	8

/* log2 of the text block size of an annotation table's block bitmap */
#define SFRAME_ANNOT_BLOCK_SHIFT	8

/**
 * struct sframe_annot_table - a sorted annotation table
 * @entries: entries sorted by address
 * @count: number of used entries
 * @blocks: optional bitmap: bit b set if an entry may cover the block
 *          [@lo + b * 256, @lo + (b + 1) * 256); NULL: search every time
 * @lo: first byte the bitmap covers
 * @hi: one past the last
 */
struct sframe_annot_table {
	const struct sframe_annot *entries;
	size_t count;
	unsigned long *blocks;
	unsigned long lo, hi;
};

const struct sframe_section *sframe_vmlinux_section(void);
const struct sframe_annot *sframe_annot_find(unsigned long pc);
bool sframe_module_veneer(unsigned long pc);
const struct sframe_section *sframe_module_part(struct module *mod,
						unsigned int i);
int sframe_kernel_find(unsigned long pc, struct sframe_rule *rule);
int sframe_kernel_lookup(unsigned long pc, const struct sframe_annot **annot,
			 struct sframe_rule *rule);
void sframe_kernel_cache_flush(void);
bool sframe_vmlinux_rows_wait(void);
int sframe_table_init(struct sframe_section *sec, u32 **index,
		      const void *data, size_t size, unsigned long addr,
		      bool module);

struct dentry;
struct dentry *sframe_debugfs_dir(void);

#endif /* _SFRAME_KERNEL_H */
