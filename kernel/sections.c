// SPDX-License-Identifier: GPL-2.0-only
/*
 * SFrame sections of the running kernel.
 *
 * vmlinux's .sframe (bracketed by __start_sframe/__stop_sframe in the
 * linker script) is opened and indexed at early_initcall time (validated
 * there too unless the build checked it), then decoded once into rows by
 * a worker off the boot path, which validates it in the same pass where
 * the boot did not: the unwinder's lookups read the rows, with no decoding
 * and no bounds checks, because the section was validated and cannot
 * change.
 * The rows keep the function starts too, so once they are built the
 * section has no reader left: it lies in the init data (the linker
 * script puts it there) and goes with the init memory
 * (sframe_vmlinux_drop_section()), like the init text it also describes.
 * Modules get rows too (at load) where their text is compact.
 * Module sections are registered by the module loader after relocation
 * (sframe_module_init()) and removed when the module is freed.  Readers
 * walk an RCU list and never sleep or take locks, so unwinders may call
 * sframe_kernel_find() from any context.
 *
 * The registry knows nothing of the unwinder: what it asks of an address
 * is cached in answer.c, whose caches forget what a new generation of the
 * registry (sframe_kernel_gen) may have changed.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <asm/sections.h>
#include <sframe/kernel.h>

extern const u8 __start_sframe[], __stop_sframe[];
extern struct sframe_annot __start_sframe_annot[], __stop_sframe_annot[];

static struct sframe_section sframe_vmlinux;
/* Its lookup index (sframe_table_init()), or NULL */
static u32 *sframe_vmlinux_index;
bool sframe_vmlinux_ready __ro_after_init;
/* The init text is gone (sframe_vmlinux_drop_section()): no lookups there */
bool sframe_vmlinux_init_freed __ro_after_init;
/* The section went with the init memory: vmlinux's rows answer alone */
static bool sframe_vmlinux_sec_freed __ro_after_init;
/* What went with it: the section and its index */
static size_t sframe_vmlinux_freed_bytes __ro_after_init;
/* vmlinux's rows, published (smp_store_release()) once built, or NULL */
static struct sframe_rows sframe_vmlinux_rows_mem;
/* Their memory: set before they are published, read after (acquire) */
static size_t sframe_vmlinux_rows_bytes;
const struct sframe_rows *sframe_vmlinux_rows_pub;
struct sframe_annot_table sframe_vmlinux_annot __ro_after_init;

/*
 * Lookups' generation (sframe/kernel.h): caches compare it.  Always odd,
 * so never 0, which marks a cache entry empty (sframe_cache_victim()).
 */
atomic_long_t sframe_kernel_gen = ATOMIC_LONG_INIT(1);

/*
 * A new generation: every cached answer is gone.  Called after a change of
 * what a lookup can find (the module list, a module's init text, kernel
 * text): the release orders that change before the new generation, and a
 * cache's fill reads the generation before what it looks up (smp_rmb()
 * there), so an answer cached under the new generation was looked up in
 * the changed state.  Atomic: callers do not serialize (tests flush
 * without the lock), and each call must give a generation no earlier one
 * gave.
 */
static void sframe_kernel_gen_next(void)
{
	/*
	 * By two: always odd.  64 bits: an entry left in a cache that no
	 * lookup touches is never taken for one of a later generation.
	 */
	atomic_long_add_return_release(2, &sframe_kernel_gen);
}

/**
 * struct sframe_part - one SFrame section of a module's .sframe
 * @sec: the opened and validated section, or opened and waiting for its
 *       validation (@pending)
 * @index: its lookup index (kvfree() it), or NULL
 * @rows: its decoded rows (sframe_rows_free()), or none (@rows.nrows 0)
 * @rows_pub: @rows once complete, published with smp_store_release(), or
 *            NULL: lookups read it with smp_load_acquire()
 * @lo: lowest address its FDEs describe
 * @hi: end of the highest function its FDEs describe (@lo > @hi: none)
 * @pending: validated, and its rows built, off the load path
 *           (sframe_module_check_fn())
 */
struct sframe_part {
	struct sframe_section sec;
	u32 *index;
	struct sframe_rows rows;
	const struct sframe_rows *rows_pub;
	unsigned long lo, hi;
	bool pending;
};

/**
 * struct sframe_module_table - a registered module
 * @list: entry of sframe_modules
 * @mod: the module
 * @annot: its .sframe_annot
 * @fixups: its .sframe_fixup, converted to UNRELIABLE annotations
 * @veneers: the module loader's branch veneers (arm64: .plt and .init.plt),
 *           [lo, hi) each, empty if the module has none
 * @check: validates the parts that are @pending, off the load path
 * @listed: on sframe_modules (under sframe_modules_lock)
 * @nparts: number of SFrame sections in its .sframe
 * @parts: one per object file linked into the module, in link order (see
 *         sframe_open_part())
 */
struct sframe_module_table {
	struct list_head list;
	struct module *mod;
	struct work_struct check;
	bool listed;
	struct sframe_annot_table annot;
	struct sframe_annot_table fixups;
	struct {
		unsigned long lo, hi;
	} veneers[2];
	unsigned int nparts;
	struct sframe_part parts[];
};

static int sframe_annot_cmp(const void *l, const void *r)
{
	const struct sframe_annot *a = l, *b = r;
	unsigned long x = sframe_annot_start(a), y = sframe_annot_start(b);

	/* Empty slots last. */
	if (!a->type || !b->type)
		return (int)!a->type - (int)!b->type;
	return x < y ? -1 : x > y;
}

static void sframe_annot_swap(void *l, void *r, int size)
{
	struct sframe_annot *a = l, *b = r, t = *a;
	long delta = (long)b - (long)a;

	/* The addresses are relative to the entry: moving it moves them. */
	*a = *b;
	*b = t;
	if (a->type)
		a->pc += delta;
	if (b->type)
		b->pc -= delta;
}

/*
 * Sort an annotation table by address (empty slots last) and check it:
 * known types, non-empty ranges inside @within.  Return the number of
 * used entries, or a negative SFRAME_E_* code.
 */
static int sframe_annot_prepare(struct sframe_annot *tab, size_t n,
				bool (*within)(unsigned long addr, void *arg),
				void *arg)
{
	size_t i, used = 0;

	/* vmlinux's table comes sorted from the verifier: leave it alone. */
	for (i = 1; i < n; i++)
		if (sframe_annot_cmp(&tab[i - 1], &tab[i]) > 0)
			break;
	if (i < n)
		sort(tab, n, sizeof(*tab), sframe_annot_cmp, sframe_annot_swap);
	for (i = 0; i < n && tab[i].type; i++, used++) {
		unsigned long start = sframe_annot_start(&tab[i]);

		if (tab[i].type > SFRAME_ANNOT_TYPE_MAX || !tab[i].len ||
		    !within(start, arg) || !within(start + tab[i].len - 1, arg))
			return -SFRAME_E_INVAL;
		if (tab[i].type == SFRAME_ANNOT_RULE &&
		    tab[i].base > SFRAME_ANNOT_BASE_FP)
			return -SFRAME_E_INVAL;
	}
	return used;
}

/* The start of entry @i of an annotation table (a sframe_start_fn). */
static int __init sframe_annot_start_of(const void *ctx, u32 i, u64 *start)
{
	const struct sframe_annot_table *t = ctx;

	*start = sframe_annot_start(&t->entries[i]);
	return 0;
}

/*
 * The block index of a sorted table (sframe_block_bounds()): an uncached
 * lookup costs two loads and one entry's range check instead of a binary
 * search, and for most text (blocks no entry touches) one bit test.  Built
 * before the table is used; never changed.
 */
static void __init sframe_annot_blocks_init(struct sframe_annot_table *t)
{
	unsigned long lo = ULONG_MAX, hi = 0, start, nblocks, nindex;
	size_t i;

	if (!t->count || t->count > U32_MAX)
		return;
	for (i = 0; i < t->count; i++) {
		start = sframe_annot_start(&t->entries[i]);
		lo = min(lo, start);
		hi = max(hi, start + t->entries[i].len);
	}
	if (lo >= hi)
		return;
	nblocks = ((hi - lo - 1) >> SFRAME_ANNOT_BLOCK_SHIFT) + 1;
	nindex = ((hi - lo - 1) >> SFRAME_ANNOT_INDEX_SHIFT) + 1;
	t->covered = bitmap_zalloc(nblocks, GFP_KERNEL);
	t->first = kvmalloc_array(nindex + 1, sizeof(*t->first), GFP_KERNEL);
	if (!t->first || !t->covered) {
		kvfree(t->first);
		bitmap_free(t->covered);
		t->first = NULL;
		t->covered = NULL;
		return;
	}
	for (i = 0; i < t->count; i++) {
		start = sframe_annot_start(&t->entries[i]) - lo;
		if (t->entries[i].len)
			bitmap_set(t->covered, start >> SFRAME_ANNOT_BLOCK_SHIFT,
				   ((start + t->entries[i].len - 1) >>
				    SFRAME_ANNOT_BLOCK_SHIFT) -
				   (start >> SFRAME_ANNOT_BLOCK_SHIFT) + 1);
	}
	/* Sorted by start: one pass, for every block boundary. */
	sframe_block_fill(t->first, nindex, SFRAME_ANNOT_INDEX_SHIFT, lo,
			  t->count, sframe_annot_start_of, t);
	t->lo = lo;
	t->hi = hi;
	t->nblocks = nblocks;
	t->nindex = nindex;
}

static LIST_HEAD(sframe_modules);
static DEFINE_MUTEX(sframe_modules_lock);
/*
 * Time spent registering modules, on the load path (debugfs
 * sframe/module_load_ns) and validating them after it (module_check_ns).
 */
static u64 sframe_module_load_ns;
static u64 sframe_module_check_ns;

/*
 * The memory of a section's lookup index: a function of its own, which
 * the module KUnit suite redirects to see a failed allocation refused.
 */
static noinline u32 *sframe_index_alloc(u32 nwords)
{
	return kvmalloc_array(nwords, sizeof(u32), GFP_KERNEL);
}

/**
 * sframe_table_init() - open, validate and index a section of the kernel
 * @sec: section descriptor to fill
 * @index: result: lookup index memory (kvfree() it), or NULL
 * @data: first byte of the section
 * @size: upper bound of its size (the SFrame header gives the real one)
 * @addr: its run-time address
 * @module: the section comes from a module, relocated by the loader
 *          (%SFRAME_OPEN_RELOCATED says what that changes)
 * @validate: sframe_validate() it here; false only where the caller
 *            validates it before any reliable walk depends on it (opened,
 *            a section keeps every lookup in bounds, see sframe_open())
 *
 * Return: 0, or a negative SFRAME_E_* code: -SFRAME_E_INDEX when the
 * index of a sorted section cannot be allocated (the section is then
 * usable unindexed), -SFRAME_E_COST when that of an unsorted one cannot.
 */
int sframe_table_init(struct sframe_section *sec, u32 **index,
		      const void *data, size_t size, unsigned long addr,
		      bool module, bool validate)
{
	unsigned int shift = module ? SFRAME_KERNEL_INDEX_SHIFT :
				      SFRAME_VMLINUX_INDEX_SHIFT;
	u32 nwords;
	int err;

	*index = NULL;
	err = sframe_open(sec, data, size, addr,
			  module ? SFRAME_OPEN_RELOCATED : 0);
	if (err)
		return err;
	if (validate) {
		err = sframe_validate(sec, NULL, NULL);
		if (err)
			return err;
	}
	/*
	 * The index has a word per block of the text between the lowest
	 * and highest FDE.  An object linked into a module often has both
	 * core and init functions, which the loader places in allocations
	 * of their own, apart: its text spans more blocks than it has
	 * functions.  Larger blocks keep the index in proportion to the
	 * FDEs; a lookup then binary-searches the FDEs of a larger block,
	 * still a logarithmic number of them.  An unindexed module part
	 * would be scanned FDE by FDE at every lookup, and its rows (which
	 * need the sorted order the index holds) could not be built.
	 */
	for (;;) {
		err = sframe_index_size(sec, shift, &nwords);
		if (!module || shift == 32 ||
		    (!err && nwords <= 64 + 8 * sec->num_fdes))
			break;
		shift++;
	}
	if (err)
		return err;
	*index = sframe_index_alloc(nwords);
	/*
	 * Without an index a sorted section is binary-searched; an unsorted
	 * one would be scanned FDE by FDE at every lookup, in NMI context
	 * too, at a cost only the section bounds: refused.
	 */
	if (!*index)
		return sec->flags & SFRAME_F_FDE_SORTED ? -SFRAME_E_INDEX :
							  -SFRAME_E_COST;
	err = sframe_index_build(sec, shift, *index, nwords);
	if (err) {
		kvfree(*index);
		*index = NULL;
	}
	return err;
}
EXPORT_SYMBOL_GPL(sframe_table_init);

/*
 * Rows of a section: sframe_rows_build() decodes a validated section once
 * into a flat table (the trusted fast path: vmlinux is read-only after
 * init, a module's .sframe lives as long as the module, so nothing can
 * change it afterwards), and lookups read that table without decoding or
 * bounds checks.  The block size grows from 256 bytes until the block
 * table has at most one entry per two rows (vmlinux's init text lies far
 * above its text), or to 64 KiB (%SFRAME_ROWS_MAX_SHIFT).  With
 * @max_blocks, a table of more blocks is not made.  With @funcs, the rows
 * keep function starts (struct sframe_rows.func).  *@cap: the rows the
 * memory has room for.
 */
static int sframe_rows_alloc(const struct sframe_section *sec, u64 limit,
			     struct sframe_rows *rows, u32 max_blocks,
			     bool funcs, unsigned int *shift, u16 **hash,
			     u32 *cap)
{
	u32 nrows, nblocks, nrules, nslots;
	void *mem;

	memset(rows, 0, sizeof(*rows));
	*hash = NULL;
	for (*shift = SFRAME_KERNEL_INDEX_SHIFT; ; ++*shift) {
		if (sframe_rows_size(sec, *shift, limit, &nrows, &nblocks))
			return -SFRAME_E_INDEX;
		if (nblocks <= nrows / 2 + 64 || *shift == SFRAME_ROWS_MAX_SHIFT)
			break;
	}
	if (max_blocks && nblocks > max_blocks)
		return -SFRAME_E_INDEX;
	/* Rows are optional (lookups decode the section): no warning. */
	mem = kvmalloc((size_t)(nblocks + 1) * sizeof(u32) +
		       (size_t)nrows * (sizeof(u16) + sizeof(u16)),
		       GFP_KERNEL | __GFP_NOWARN);
	/* Scratch in proportion to the section: a module's objects are small. */
	sframe_rows_scratch(sec, &nrules, &nslots);
	rows->rules = kvmalloc_array(nrules, sizeof(*rows->rules),
				     GFP_KERNEL | __GFP_NOWARN);
	*hash = kmalloc_array(nslots, sizeof(**hash),
			      GFP_KERNEL | __GFP_NOWARN);
	if (funcs)
		rows->func = kvmalloc_array(sec->num_fdes, sizeof(*rows->func),
					    GFP_KERNEL | __GFP_NOWARN);
	if (!mem || !rows->rules || !*hash || (funcs && !rows->func)) {
		kvfree(mem);
		kvfree(rows->rules);
		kvfree(rows->func);
		kfree(*hash);
		*hash = NULL;
		memset(rows, 0, sizeof(*rows));
		return -SFRAME_E_INDEX;
	}
	rows->block = mem;
	rows->start = (u16 *)(rows->block + nblocks + 1);
	rows->id = rows->start + nrows;
	*cap = nrows;
	return 0;
}

/* The memory of the block index, starts and ids of @nrows rows */
static size_t sframe_rows_mem(const struct sframe_rows *rows, u32 nrows)
{
	return (size_t)(rows->nblocks + 1) * sizeof(*rows->block) +
	       (size_t)nrows * (sizeof(*rows->start) + sizeof(*rows->id));
}

/*
 * The memory was sized for @cap rows, at most one per FRE and two per
 * function, but rows with the rule of the row before are not kept: move
 * the rows into memory of their size when that saves a page or more (if
 * there is no memory, they stay).
 */
static u32 sframe_rows_shrink(struct sframe_rows *rows, u32 cap)
{
	void *mem;

	if (sframe_rows_mem(rows, cap) - sframe_rows_mem(rows, rows->nrows) <
	    PAGE_SIZE)
		return cap;
	mem = kvmalloc(sframe_rows_mem(rows, rows->nrows),
		       GFP_KERNEL | __GFP_NOWARN);
	if (!mem)
		return cap;
	memcpy(mem, rows->block, (rows->nblocks + 1) * sizeof(*rows->block));
	memcpy(mem + (rows->nblocks + 1) * sizeof(*rows->block), rows->start,
	       rows->nrows * sizeof(*rows->start));
	memcpy(mem + (rows->nblocks + 1) * sizeof(*rows->block) +
	       rows->nrows * sizeof(*rows->start), rows->id,
	       rows->nrows * sizeof(*rows->id));
	kvfree(rows->block);
	rows->block = mem;
	rows->start = (u16 *)(rows->block + rows->nblocks + 1);
	rows->id = rows->start + rows->nrows;
	return rows->nrows;
}

/*
 * The function starts were sized for every FDE, those of the init text
 * (above the rows' limit) included: move them into memory of their size
 * when that saves a page or more.  Return: the bytes they take.
 */
static size_t sframe_rows_shrink_funcs(struct sframe_rows *rows,
				       const struct sframe_section *sec)
{
	size_t used = rows->nfuncs * sizeof(*rows->func);
	u32 *func;

	if (!rows->func)
		return 0;
	if (sec->num_fdes * sizeof(*rows->func) - used < PAGE_SIZE)
		return sec->num_fdes * sizeof(*rows->func);
	func = kvmalloc(used, GFP_KERNEL | __GFP_NOWARN);
	if (!func)
		return sec->num_fdes * sizeof(*rows->func);
	memcpy(func, rows->func, used);
	kvfree(rows->func);
	rows->func = func;
	return used;
}

/*
 * After sframe_rows_build() or sframe_validate_rows() returned @err: keep
 * only the rules and the memory in use, or free everything on failure.
 * Return: the bytes the rows take, 0 without rows.
 */
static size_t sframe_rows_done(struct sframe_rows *rows, u16 *hash, u32 cap,
			       int err)
{
	struct sframe_rows_rule *rules = rows->rules;

	kfree(hash);
	if (!err) {
		rows->rules = kmemdup(rules, rows->nrules * sizeof(*rules),
				      GFP_KERNEL);
		if (rows->rules || !rows->nrules) {
			kvfree(rules);
			cap = sframe_rows_shrink(rows, cap);
			return sframe_rows_mem(rows, cap) +
			       rows->nrules * sizeof(*rules) +
			       sframe_rows_shrink_funcs(rows, rows->sec);
		}
	}
	kvfree(rules);
	kvfree(rows->block);
	kvfree(rows->func);
	memset(rows, 0, sizeof(*rows));
	return 0;
}

/*
 * Rows of a validated (and indexed or sorted) section, for the functions
 * below @limit (with their starts if @funcs); 0 bytes: none.
 */
static size_t sframe_rows_init(const struct sframe_section *sec, u64 limit,
			       struct sframe_rows *rows, u32 max_blocks,
			       bool funcs)
{
	unsigned int shift;
	u16 *hash;
	u32 cap;

	if (sframe_rows_alloc(sec, limit, rows, max_blocks, funcs, &shift,
			      &hash, &cap))
		return 0;
	return sframe_rows_done(rows, hash, cap,
				sframe_rows_build(sec, shift, limit, rows,
						  hash));
}

/*
 * Rows of a section that was opened, and indexed or sorted, but not
 * validated yet: sframe_validate_rows(), one pass for both (sizing the
 * rows reads only what an opened section keeps in bounds; the builder
 * checks its room).  A section neither sorted nor indexed is only
 * validated.  Return: the bytes the rows use (0 without rows); *@err: 0
 * if the section is valid (with or without rows), else why it is not.
 */
static size_t sframe_rows_init_validate(const struct sframe_section *sec,
					u64 limit, struct sframe_rows *rows,
					u32 max_blocks, bool funcs, int *err)
{
	unsigned int shift;
	u16 *hash;
	u32 cap;
	int ret;

	if ((!(sec->flags & SFRAME_F_FDE_SORTED) && !sec->order) ||
	    sframe_rows_alloc(sec, limit, rows, max_blocks, funcs, &shift,
			      &hash, &cap)) {
		*err = sframe_validate(sec, NULL, NULL);
		return 0;
	}
	ret = sframe_validate_rows(sec, shift, limit, rows, hash);
	/* sframe_rows_build()'s errors leave a valid section without rows. */
	*err = ret ? sframe_validate(sec, NULL, NULL) : 0;
	return sframe_rows_done(rows, hash, cap, ret);
}

static void sframe_rows_free(struct sframe_rows *rows)
{
	kvfree(rows->block);
	kvfree(rows->rules);
	kvfree(rows->func);
	memset(rows, 0, sizeof(*rows));
}

/* The rule for @pc: from the part's rows once they are published. */
static __always_inline int sframe_part_rows_or_find(const struct sframe_part *p,
						    unsigned long pc,
						    struct sframe_rule *rule)
{
	/* Pairs with the release in sframe_part_publish(). */
	const struct sframe_rows *rows = smp_load_acquire(&p->rows_pub);

	return rows ? sframe_rows_find(rows, pc, rule) :
		      sframe_find(&p->sec, pc, rule);
}

/* Publish a part's rows once they are complete. */
static void sframe_part_publish(struct sframe_part *p)
{
	if (!p->rows.nrows)
		return;
	/* Rows before the pointer: pairs with sframe_part_rows_or_find(). */
	smp_store_release(&p->rows_pub, &p->rows);
}

static bool sframe_within_vmlinux(unsigned long addr, void *arg)
{
	return __is_kernel_text(addr) || is_kernel_inittext(addr) ||
	       __is_kernel(addr);
}

/* What the annotation table's block index takes */
static size_t sframe_annot_index_bytes(const struct sframe_annot_table *t)
{
	if (!t->first)
		return 0;
	return (t->nindex + 1) * sizeof(*t->first) +
	       BITS_TO_LONGS(t->nblocks) * sizeof(long);
}

static void __init sframe_vmlinux_annot_init(void)
{
	size_t n = __stop_sframe_annot - __start_sframe_annot;
	int used;

	used = sframe_annot_prepare(__start_sframe_annot, n,
				    sframe_within_vmlinux, NULL);
	if (used < 0) {
		pr_err("vmlinux .sframe_annot rejected: malformed entry\n");
		return;
	}
	sframe_vmlinux_annot.entries = __start_sframe_annot;
	sframe_vmlinux_annot.count = used;
	sframe_annot_blocks_init(&sframe_vmlinux_annot);
	if (sframe_vmlinux_annot.first) {
		const struct sframe_annot_table *t = &sframe_vmlinux_annot;
		unsigned long nblocks = t->nblocks;

		pr_info("vmlinux: %d annotations (%zu slots), block index %zu bytes, %u of %lu blocks covered\n",
			used, n, sframe_annot_index_bytes(t),
			bitmap_weight(t->covered, nblocks), nblocks);
	} else {
		pr_info("vmlinux: %d annotations (%zu slots), no block index\n",
			used, n);
	}
}

/*
 * With CONFIG_SFRAME_UNWIND_VERIFY_FAIL the build decoded every byte of
 * vmlinux's section, and of every module's (Makefile.modfinal), with this
 * same core, checked it against the code (sframe-verify) and would have
 * failed on a malformed section, so the boot and the module loader only
 * open and index a section: opened, a section keeps every lookup in
 * bounds (sframe_open()).  The full check, sframe_validate(), then runs
 * off the boot or load path in one pass with the rows
 * (sframe_vmlinux_rows_fn(), sframe_module_check_fn()).  A section the
 * check rejects is withdrawn, with every answer cached from it: vmlinux's
 * before any module, livepatch or user task (the last initcall waits for
 * it), a module's within microseconds of its load.
 */
#define SFRAME_CHECKED_BY_BUILD	IS_ENABLED(CONFIG_SFRAME_UNWIND_VERIFY_FAIL)

/* sframe_rows_mark()'s ranges: the entries of an annotation table */
static void sframe_annot_range(void *ctx, u32 i, u64 *lo, u64 *hi)
{
	const struct sframe_annot_table *t = ctx;

	*lo = sframe_annot_start(&t->entries[i]);
	*hi = *lo + t->entries[i].len;
}

/*
 * vmlinux's rows are built off the boot path, by a worker on another CPU
 * while the boot goes on (about as long as validation again), then
 * published: until then lookups decode the indexed section, afterwards
 * they read the rows.  Either answer is the same.  The rows describe the
 * text, not the init text: freed at the end of the boot, it would keep
 * its rows, and the block index would span the data between the two.
 * The boot's lookups in the init text decode the section.
 */
static void sframe_vmlinux_rows_fn(struct work_struct *work)
{
	const u64 limit = (unsigned long)_etext;
	u64 t0 = local_clock();
	size_t bytes;
	int err = 0;

	if (SFRAME_CHECKED_BY_BUILD)
		bytes = sframe_rows_init_validate(&sframe_vmlinux, limit,
						  &sframe_vmlinux_rows_mem, 0,
						  true, &err);
	else
		bytes = sframe_rows_init(&sframe_vmlinux, limit,
					 &sframe_vmlinux_rows_mem, 0, true);
	if (err) {
		/*
		 * Before the initcalls end (not yet read-only).  Withdrawn
		 * before the new generation (its release): a cache fill reads
		 * the generation first, then sees the section gone and keeps
		 * nothing (sframe_kernel_answer_fill()).
		 */
		WRITE_ONCE(sframe_vmlinux_ready, false);
		sframe_kernel_gen_next();
		pr_err("vmlinux .sframe rejected: %s (%s)\n",
		       sframe_errname(err), sframe_strerror(err));
		return;
	}
	if (!bytes) {
		pr_warn("vmlinux: no decoded rows (no memory): lookups decode the section\n");
		return;
	}
	sframe_vmlinux_rows_bytes = bytes;
	/*
	 * The rows any annotation meets are marked: lookups elsewhere need
	 * not search the annotations (sframe_answer_compute()).
	 */
	BUILD_BUG_ON(SFRAME_ROWS_MAX_RULES > SFRAME_ROWS_MARK);
	sframe_rows_mark(&sframe_vmlinux_rows_mem, sframe_vmlinux_annot.count,
			 sframe_annot_range, &sframe_vmlinux_annot);
	/* Rows complete before the pointer: pairs with the lookups' acquire. */
	smp_store_release(&sframe_vmlinux_rows_pub, &sframe_vmlinux_rows_mem);
	pr_info("vmlinux: decoded rows: %u rows, %u rules, %u-byte blocks: %zu bytes (built in %llu us, off the boot path%s)\n",
		sframe_vmlinux_rows_mem.nrows, sframe_vmlinux_rows_mem.nrules,
		1U << sframe_vmlinux_rows_mem.shift, bytes,
		div_u64(local_clock() - t0, NSEC_PER_USEC),
		SFRAME_CHECKED_BY_BUILD ? ", the section validated with them" : "");
}

static DECLARE_WORK(sframe_vmlinux_rows_work, sframe_vmlinux_rows_fn);

/**
 * sframe_vmlinux_bytes() - the memory of vmlinux's SFrame data
 * @b: result
 *
 * For the record the unwinder prints once its tables are built
 * (sframe_unwind_tables_fn()).
 */
void sframe_vmlinux_bytes(struct sframe_vmlinux_bytes *b)
{
	const struct sframe_section *sec = &sframe_vmlinux;
	const struct sframe_rows *rows = sframe_vmlinux_rows();

	memset(b, 0, sizeof(*b));
	if (!sframe_vmlinux_ready)
		return;
	b->section = sec->size;
	if (sec->blocks)
		b->index = ((size_t)sec->idx_nblocks + 1 +
			    (sec->order ? sec->num_fdes : 0)) * sizeof(u32);
	if (sframe_vmlinux_sec_freed) {
		b->freed = sframe_vmlinux_freed_bytes;
		b->section = 0;
		b->index = 0;
	}
	if (rows)
		b->rows = sframe_vmlinux_rows_bytes;
	b->annot = sframe_annot_index_bytes(&sframe_vmlinux_annot);
}

/**
 * sframe_vmlinux_rows_wait() - wait for vmlinux's rows
 *
 * Return: true if lookups in vmlinux now read its decoded rows.
 */
bool sframe_vmlinux_rows_wait(void)
{
	flush_work(&sframe_vmlinux_rows_work);
	return sframe_vmlinux_rows();
}
EXPORT_SYMBOL_GPL(sframe_vmlinux_rows_wait);

/*
 * The rows are normally done long before the initcalls are: wait for them
 * at the last initcall anyway, so that their log line never lands in the
 * middle of what runs after the initcalls (built-in KUnit suites print
 * their results to the console then).
 */
static int __init sframe_vmlinux_rows_sync(void)
{
	flush_work(&sframe_vmlinux_rows_work);
	return 0;
}
late_initcall_sync(sframe_vmlinux_rows_sync);

static int __init sframe_vmlinux_init(void)
{
	size_t size = __stop_sframe - __start_sframe;
	u64 t0 = local_clock();
	int err;

	sframe_vmlinux_annot_init();

	err = sframe_table_init(&sframe_vmlinux, &sframe_vmlinux_index,
				__start_sframe, size,
				(unsigned long)__start_sframe, false,
				!SFRAME_CHECKED_BY_BUILD);
	/* Sorted, without index memory, it is still valid, only slower. */
	if (err == -SFRAME_E_INDEX &&
	    (sframe_vmlinux.flags & SFRAME_F_FDE_SORTED)) {
		pr_warn("vmlinux: no memory for the lookup index: lookups unindexed\n");
		err = 0;
	}
	if (err) {
		pr_err("vmlinux .sframe rejected: %s (%s)\n",
		       sframe_errname(err), sframe_strerror(err));
		return 0;
	}
	sframe_vmlinux_ready = true;
	if (SFRAME_CHECKED_BY_BUILD)
		pr_info("vmlinux: SFrame v%u, %u FDEs, %u FREs, %u bytes: opened and indexed in %llu us (checked by the build; validated with its rows, off the boot path)\n",
			sframe_vmlinux.version, sframe_vmlinux.num_fdes,
			sframe_vmlinux.num_fres, sframe_vmlinux.size,
			div_u64(local_clock() - t0, NSEC_PER_USEC));
	else
		pr_info("vmlinux: SFrame v%u, %u FDEs, %u FREs, %u bytes: valid (checked and indexed in %llu us)\n",
			sframe_vmlinux.version, sframe_vmlinux.num_fdes,
			sframe_vmlinux.num_fres, sframe_vmlinux.size,
			div_u64(local_clock() - t0, NSEC_PER_USEC));
	queue_work(system_unbound_wq, &sframe_vmlinux_rows_work);
	return 0;
}
early_initcall(sframe_vmlinux_init);

/**
 * sframe_vmlinux_section() - vmlinux's SFrame section
 *
 * Return: the opened, validated and indexed section, or NULL if vmlinux
 * has none, it was rejected, or it went with the init memory (its rows
 * answer then, sframe_vmlinux_drop_section()).
 */
const struct sframe_section *sframe_vmlinux_section(void)
{
	return sframe_vmlinux_ready && !sframe_vmlinux_sec_freed ?
	       &sframe_vmlinux : NULL;
}
EXPORT_SYMBOL_GPL(sframe_vmlinux_section);

/* The rows' %SFRAME_ROWS_CORE rows: the section answers there */
static u32 __init sframe_rows_core(const struct sframe_rows *rows)
{
	u32 i, n = 0;

	for (i = 0; i < rows->nrows; i++)
		n += rows->id[i] == SFRAME_ROWS_CORE;
	return n;
}

/*
 * Where vmlinux's rows cannot answer alone (no memory for them at boot,
 * rows they leave to the core), the section outlives the init memory as
 * a copy.  Readers load its data pointer afresh for each read: the old
 * copy and the new say the same, and the old one stays until the grace
 * period of sframe_vmlinux_drop_section() ends.
 */
static void __init sframe_vmlinux_keep(const struct sframe_rows *rows)
{
	u32 size = sframe_vmlinux.size;
	void *copy = vmalloc(size);

	if (!copy) {
		/*
		 * No lookup reads the section from now on (the rows, if
		 * any, still answer their rows); before the new generation.
		 */
		WRITE_ONCE(sframe_vmlinux_ready, false);
		pr_err("vmlinux: no memory to keep .sframe (%u bytes) after the boot: no SFrame for vmlinux but its decoded rows\n",
		       size);
		return;
	}
	memcpy(copy, sframe_vmlinux.data, size);
	/* The bytes before their address: readers depend on the address. */
	smp_store_release(&sframe_vmlinux.data, copy);
	if (rows)
		pr_info("vmlinux: .sframe kept after the boot (%u bytes): the decoded rows leave %u rows to it\n",
			size, sframe_rows_core(rows));
	else
		pr_info("vmlinux: .sframe kept after the boot (%u bytes): no decoded rows\n",
			size);
}

/**
 * sframe_vmlinux_drop_section() - the init memory is about to be freed
 *
 * For sframe_free_init_mem(), after the initcalls, before free_initmem():
 * vmlinux's .sframe lies in the init data and goes with it.  From now on
 * vmlinux's lookups read its decoded rows alone, which keep the function
 * starts too; where they cannot answer alone the section is copied first.
 * The init text goes as well: lookups there find nothing any more.
 * Every reader of the section does so under rcu_read_lock() after it
 * checked these flags; the grace period below waits for them.
 */
void __init sframe_vmlinux_drop_section(void)
{
	const struct sframe_rows *rows;
	struct sframe_vmlinux_bytes b;

	if (!sframe_vmlinux_ready)
		return;
	rows = sframe_vmlinux_rows_wait() ? sframe_vmlinux_rows() : NULL;
	if (rows && rows->func && !sframe_rows_core(rows)) {
		sframe_vmlinux_bytes(&b);
		sframe_vmlinux_freed_bytes = b.section + b.index;
		WRITE_ONCE(sframe_vmlinux_sec_freed, true);
	} else {
		sframe_vmlinux_keep(rows);
	}
	WRITE_ONCE(sframe_vmlinux_init_freed, true);
	/* What a lookup finds changed: the caches forget the init text. */
	sframe_kernel_gen_next();
	synchronize_rcu();
	if (sframe_vmlinux_sec_freed) {
		kvfree(sframe_vmlinux_index);
		sframe_vmlinux_index = NULL;
		sframe_vmlinux.blocks = NULL;
		sframe_vmlinux.order = NULL;
		pr_info("vmlinux: .sframe and its index (%zu bytes) go with the init memory: its decoded rows answer every lookup\n",
			sframe_vmlinux_freed_bytes);
	}
}

/* The registered module holding @pc; under rcu_read_lock(). */
static struct sframe_module_table *sframe_module_table_of(unsigned long pc)
{
	struct sframe_module_table *t;

	list_for_each_entry_rcu(t, &sframe_modules, list)
		if (within_module(pc, t->mod))
			return t;
	return NULL;
}

/*
 * The rule for @pc from the first part with an FDE covering it.  The
 * parts' address ranges overlap (each object has core and init text), so
 * a range only tells which parts to search.  @rows: from the parts' decoded
 * rows where they have any (recovery fields only).  Under rcu_read_lock().
 */
static int sframe_module_find(const struct sframe_module_table *t,
			      unsigned long pc, struct sframe_rule *rule,
			      bool rows)
{
	const struct sframe_part *p;
	int err;

	for (p = t->parts; p < t->parts + t->nparts; p++) {
		if (pc < p->lo || pc >= p->hi)
			continue;
		err = rows ? sframe_part_rows_or_find(p, pc, rule) :
			     sframe_find(&p->sec, pc, rule);
		if (err != -SFRAME_E_NO_FDE)
			return err;
	}
	return -SFRAME_E_NO_FDE;
}

/**
 * sframe_module_veneer() - is @pc in a branch veneer of a module?
 * @pc: text address
 *
 * Out of a branch's range, the arm64 module loader sends a module's calls
 * and tail calls through veneers it writes into the module's .plt and
 * .init.plt (adrp, add, br x16): code no compiler described, that only
 * branches, leaving the registers of a function's entry behind it (the
 * return address in the link register, SP and FP the caller's).  A KASAN
 * module far from vmlinux calls its checks through them in every loop.
 * Lock-free: safe in any context.
 *
 * Return: true if @pc is in a registered module's veneers.
 */
bool sframe_module_veneer(unsigned long pc)
{
	const struct sframe_module_table *t;
	bool found = false;
	unsigned int i;

	rcu_read_lock();
	t = sframe_module_table_of(pc);
	for (i = 0; t && i < ARRAY_SIZE(t->veneers); i++)
		if (pc >= t->veneers[i].lo && pc < t->veneers[i].hi)
			found = true;
	rcu_read_unlock();
	return found;
}
EXPORT_SYMBOL_GPL(sframe_module_veneer);

/* A source annotation wins over a verifier fixup. */
static const struct sframe_annot *
sframe_module_annot_search(const struct sframe_module_table *t,
			   unsigned long pc)
{
	const struct sframe_annot *a = sframe_annot_search(&t->annot, pc);

	return a ? a : sframe_annot_search(&t->fixups, pc);
}

/**
 * sframe_annot_find() - the annotation covering a kernel or module address
 * @pc: text address
 *
 * Lock-free: safe in any context, NMI included.  A module's entry is
 * freed with the module: a caller that may race with its unloading reads
 * it under the rcu_read_lock() it called this in.
 *
 * Return: the entry whose range contains @pc, or NULL.
 */
const struct sframe_annot *sframe_annot_find(unsigned long pc)
{
	const struct sframe_annot *a = NULL;
	struct sframe_module_table *t;

	if (sframe_in_vmlinux(pc))
		return sframe_annot_search(&sframe_vmlinux_annot, pc);

	rcu_read_lock();
	t = sframe_module_table_of(pc);
	if (t)
		a = sframe_module_annot_search(t, pc);
	rcu_read_unlock();
	return a;
}
EXPORT_SYMBOL_GPL(sframe_annot_find);

/**
 * sframe_module_part() - one SFrame section of a loaded module
 * @mod: the module
 * @i: index of the section: a module's .sframe holds one per object file
 *     linked into it, in link order (see sframe_open_part())
 *
 * Call while holding a reference to @mod (or from @mod itself); the
 * section stays valid until @mod is freed, or until the check after the
 * load (sframe_module_check_fn()) rejects the module's .sframe and frees
 * it: for tests, of modules whose .sframe that check passes.
 *
 * Return: the registered section, or NULL if @mod has no registered
 * .sframe or fewer than @i + 1 sections.
 */
const struct sframe_section *sframe_module_part(struct module *mod,
						unsigned int i)
{
	const struct sframe_section *sec = NULL;
	struct sframe_module_table *t;

	rcu_read_lock();
	list_for_each_entry_rcu(t, &sframe_modules, list) {
		if (t->mod == mod) {
			if (i < t->nparts)
				sec = &t->parts[i].sec;
			break;
		}
	}
	rcu_read_unlock();
	return sec;
}
EXPORT_SYMBOL_GPL(sframe_module_part);

/*
 * vmlinux's rule for @pc (sframe_vmlinux_text()): from its rows if they
 * are built and @rows_first, else from the section; once the section went
 * with the init memory, from the rows alone (their recovery fields and
 * function start).  Under rcu_read_lock(), taken before @pc was checked:
 * sframe_vmlinux_drop_section() waits for that before the section goes.
 */
static int sframe_vmlinux_find(unsigned long pc, struct sframe_rule *rule,
			       bool rows_first)
{
	const struct sframe_rows *rows = sframe_vmlinux_rows();

	if (rows && (rows_first || READ_ONCE(sframe_vmlinux_sec_freed)))
		return sframe_rows_find(rows, pc, rule);
	return sframe_find(&sframe_vmlinux, pc, rule);
}

/**
 * sframe_kernel_find() - the SFrame rule for a kernel or module address
 * @pc: text address
 * @rule: result
 *
 * Lock-free: safe in any context where RCU is watching, NMI included.
 * Once vmlinux's section went with the init memory
 * (sframe_vmlinux_drop_section()), a vmlinux rule has its recovery fields
 * and func_start only (from its rows); vmlinux's freed init text, or its
 * data, finds no rule and no module's.
 *
 * Return: 0, or a negative SFRAME_E_* code (-SFRAME_E_NO_FDE when no
 * registered section covers @pc).
 */
int sframe_kernel_find(unsigned long pc, struct sframe_rule *rule)
{
	struct sframe_module_table *t;
	int err = -SFRAME_E_NO_FDE;

	rcu_read_lock();
	if (sframe_in_vmlinux(pc)) {
		if (sframe_vmlinux_text(pc))
			err = sframe_vmlinux_find(pc, rule, false);
	} else {
		t = sframe_module_table_of(pc);
		if (t)
			err = sframe_module_find(t, pc, rule, false);
	}
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_GPL(sframe_kernel_find);

/**
 * sframe_kernel_find_all() - annotation and SFrame rule of a text address
 * @pc: text address
 * @annot: result: the annotation covering @pc, or NULL
 * @rule: result: its rule, valid when 0 is returned; from decoded rows
 *        where there are any (then only its recovery fields)
 *
 * sframe_annot_find() and sframe_kernel_find() with one walk of the module
 * list (none for vmlinux), uncached.  Lock-free: safe in any context.
 *
 * Return: 0, or a negative SFRAME_E_* code as sframe_kernel_find().
 */
int sframe_kernel_find_all(unsigned long pc, const struct sframe_annot **annot,
			   struct sframe_rule *rule)
{
	struct sframe_module_table *t;
	int err = -SFRAME_E_NO_FDE;

	*annot = NULL;
	rcu_read_lock();
	if (sframe_in_vmlinux(pc)) {
		*annot = sframe_annot_search(&sframe_vmlinux_annot, pc);
		if (sframe_vmlinux_text(pc))
			err = sframe_vmlinux_find(pc, rule, true);
	} else {
		t = sframe_module_table_of(pc);
		if (t) {
			*annot = sframe_module_annot_search(t, pc);
			err = sframe_module_find(t, pc, rule, true);
		}
	}
	rcu_read_unlock();
	return err;
}

/*
 * Every function the FDEs of a module's part describe must lie in the
 * module; also note the part's address range.  GNU ld 2.40 `ld -r` merges
 * the .sframe of several objects but leaves .rela.sframe at pre-merge
 * offsets, so some start fields are never relocated (and FRE bytes get
 * patched instead).  The module build avoids that merge (the objects'
 * sections are concatenated, one part each: scripts/sframe-concat.lds),
 * but a module built without it, or with another linker that merges
 * wrongly, must not be trusted.
 */
static int sframe_module_check_starts(struct module *mod,
				      struct sframe_part *p)
{
	struct sframe_fde fde;
	u32 i;
	int err;

	p->lo = ULONG_MAX;
	p->hi = 0;
	for (i = 0; i < p->sec.num_fdes; i++) {
		err = sframe_get_fde(&p->sec, i, &fde);
		if (err)
			return err;
		if (!within_module(fde.start, mod) ||
		    (fde.size && !within_module(fde.start + fde.size - 1, mod)))
			return -SFRAME_E_FUNC_RANGE;
		p->lo = min_t(unsigned long, p->lo, fde.start);
		p->hi = max_t(unsigned long, p->hi, fde.start + fde.size);
	}
	return 0;
}

/* FDE @index of a module: part 0's FDEs first, then part 1's, ... */
static int sframe_module_get_fde(const struct sframe_module_table *t,
				 u32 index, struct sframe_fde *fde)
{
	const struct sframe_part *p;

	for (p = t->parts; p < t->parts + t->nparts; p++) {
		if (index < p->sec.num_fdes)
			return sframe_get_fde(&p->sec, index, fde);
		index -= p->sec.num_fdes;
	}
	return -SFRAME_E_INVAL;
}

static bool sframe_within_module(unsigned long addr, void *arg)
{
	return within_module(addr, arg);
}

/*
 * Turn a module's verifier fixups (.sframe_fixup: FDE-relative, see
 * struct sframe_annot_fixup) into UNRELIABLE annotations, in place: the
 * section lies in the module's memory, so the PC-relative offsets fit.
 * Return the number of entries or a negative SFRAME_E_* code.
 */
static int sframe_fixups_convert(const struct sframe_module_table *t,
				 void *data, size_t size)
{
	struct sframe_annot_fixup *f = data;
	size_t i, n = size / sizeof(*f);

	if (size % sizeof(*f) || !IS_ALIGNED((unsigned long)data, 4))
		return -SFRAME_E_INVAL;
	for (i = 0; i < n; i++) {
		struct sframe_annot *a = (struct sframe_annot *)&f[i];
		struct sframe_annot_fixup x = f[i];
		struct sframe_fde fde;
		long delta;

		if (x.type != SFRAME_ANNOT_UNRELIABLE || !x.len ||
		    sframe_module_get_fde(t, x.fde, &fde) || x.off >= fde.size ||
		    fde.size - x.off < x.len)
			return -SFRAME_E_INVAL;
		delta = (long)(fde.start + x.off) - (long)&a->pc;
		if (delta != (s32)delta)
			return -SFRAME_E_INVAL;
		memset(a, 0, sizeof(*a));
		a->pc = delta;
		a->len = x.len;
		a->type = SFRAME_ANNOT_UNRELIABLE;
	}
	return n;
}

/* Check and sort an annotation table of module memory; NULL is empty. */
static int sframe_module_annot(struct module *mod, const Elf_Shdr *s,
			       struct sframe_annot_table *t)
{
	int used;

	if (!s)
		return 0;
	used = sframe_annot_prepare((void *)s->sh_addr,
				    s->sh_size / sizeof(struct sframe_annot),
				    sframe_within_module, mod);
	if (used < 0)
		return used;
	t->entries = (void *)s->sh_addr;
	t->count = used;
	return 0;
}

/* Number of SFrame sections in a module's .sframe @s, in @n. */
static int sframe_module_nparts(const Elf_Shdr *s, unsigned int *n)
{
	struct sframe_section sec;
	u64 off = 0, next;
	int err;

	*n = 0;
	do {
		err = sframe_open_part(&sec, (void *)s->sh_addr, s->sh_size,
				       s->sh_addr, off, 0, &next);
		if (err)
			return err;
		(*n)++;
		off = next;
	} while (off < s->sh_size);
	return 0;
}

/*
 * A lookup in a module's section reads at most %SFRAME_MODULE_SCAN_FRES
 * rows of the function's FDE, whatever the module holds (a module is
 * loaded once and looked up in NMI context for as long as it stays).  A
 * function with more rows is answered by the decoded rows' binary search:
 * where the part's text was not compact enough for rows, they are built
 * anyway (memory in proportion to the part's rows).  A part where that
 * cannot hold is rejected, and with it the module's SFrame (its frames are
 * then unknown, walks through them unreliable): no memory for the rows, a
 * PCMASK function with more rows (the rows table leaves those to the
 * scan), or more distinct rules than a rows table holds.
 */
#define SFRAME_MODULE_SCAN_FRES	256

/* Does no function of @p have more rows than a lookup may scan? */
static bool sframe_module_scan_bounded(const struct sframe_part *p)
{
	struct sframe_fde fde;
	u32 i;

	for (i = 0; i < p->sec.num_fdes; i++)
		if (sframe_get_fde(&p->sec, i, &fde) ||
		    fde.num_fres > SFRAME_MODULE_SCAN_FRES)
			return false;
	return true;
}

static int sframe_module_bounded(struct sframe_part *p)
{
	struct sframe_fde fde;
	bool again = true;
	u32 i;
	int err;

	for (i = 0; i < p->sec.num_fdes; i++) {
		err = sframe_get_fde(&p->sec, i, &fde);
		if (err)
			return err;
		if (fde.num_fres <= SFRAME_MODULE_SCAN_FRES)
			continue;
		if (sframe_fde_pcmask(&fde))
			return -SFRAME_E_COST;
		if (!p->rows.nrows && again) {
			again = false;
			sframe_rows_init(&p->sec, SFRAME_ROWS_ALL, &p->rows, 0,
					 false);
		}
		if (!p->rows.nrows || p->rows.nrules >= SFRAME_ROWS_MAX_RULES)
			return -SFRAME_E_COST;
	}
	return 0;
}

/*
 * Validate part @p and build its rows in one pass; 0 bytes of rows: none
 * (a module's text far from its init text makes too many blocks).
 */
static size_t sframe_part_validate(struct sframe_part *p, int *err)
{
	return sframe_rows_init_validate(&p->sec, SFRAME_ROWS_ALL, &p->rows,
					 64 + 8 * p->sec.num_fdes, false, err);
}

/*
 * Open, index, validate and check every part of @t from .sframe @s.  The
 * index comes first (opened, a section keeps every read in bounds): its
 * order lets one pass validate a part and build its rows, where the part's
 * text is compact (see the index).  With @defer, a part whose lookups stay
 * bounded without rows is validated off the load path instead (@pending,
 * see %SFRAME_CHECKED_BY_BUILD).  What must hold before the module runs
 * is checked here: the functions lie in the module (its init text is
 * gone later), and no lookup scans more than %SFRAME_MODULE_SCAN_FRES rows.
 */
static int sframe_module_parts_init(struct module *mod,
				    struct sframe_module_table *t,
				    const Elf_Shdr *s, bool defer)
{
	const u8 *data = (const u8 *)s->sh_addr;
	struct sframe_part *p;
	u64 off = 0, next;
	int err;

	for (p = t->parts; p < t->parts + t->nparts; p++, off = next) {
		err = sframe_open_part(&p->sec, data, s->sh_size, s->sh_addr,
				       off, 0, &next);
		if (!err)
			err = sframe_table_init(&p->sec, &p->index, data + off,
						next - off, s->sh_addr + off,
						true, false);
		/* (relocated, it is not sorted: unindexed, it is refused) */
		if (!err)
			err = sframe_module_check_starts(mod, p);
		if (err)
			return err;
		p->pending = defer && sframe_module_scan_bounded(p);
		if (p->pending)
			continue;
		sframe_part_validate(p, &err);
		if (!err)
			err = sframe_module_bounded(p);
		if (err)
			return err;
		sframe_part_publish(p);
	}
	return 0;
}

static void sframe_module_table_free(struct sframe_module_table *t)
{
	unsigned int i;

	for (i = 0; i < t->nparts; i++) {
		kvfree(t->parts[i].index);
		sframe_rows_free(&t->parts[i].rows);
	}
	kvfree(t);
}

/*
 * The check of the parts sframe_module_parts_init() left pending, off the
 * load path: validation and rows in one pass, each part's rows published
 * as they are done.  A part the check rejects withdraws the module's
 * table, as if the load had refused it, and every answer cached from it.
 * If the module is going meanwhile, sframe_module_free() has taken the
 * table off the list and waits for this work before it frees the table.
 */
static void sframe_module_check_fn(struct work_struct *work)
{
	struct sframe_module_table *t =
		container_of(work, struct sframe_module_table, check);
	u64 t0 = local_clock();
	struct sframe_part *p;
	bool listed;
	int err = 0;

	for (p = t->parts; p < t->parts + t->nparts && !err; p++) {
		if (!p->pending)
			continue;
		sframe_part_validate(p, &err);
		if (!err)
			sframe_part_publish(p);
	}
	mutex_lock(&sframe_modules_lock);
	sframe_module_check_ns += local_clock() - t0;
	listed = t->listed;
	if (err && listed) {
		list_del_rcu(&t->list);
		t->listed = false;
		sframe_kernel_gen_next();
		/* Under the lock: the module may go once it is unlisted. */
		pr_warn("%s: .sframe rejected: %s (%s)\n", module_name(t->mod),
			sframe_errname(err), sframe_strerror(err));
	}
	mutex_unlock(&sframe_modules_lock);
	if (!err || !listed)
		return;
	synchronize_rcu();
	sframe_module_table_free(t);
}

/**
 * sframe_module_init() - register a module's .sframe (module loader hook)
 * @mod: the module, relocated but not yet running
 * @hdr: its ELF header
 * @sechdrs: its section headers (sh_addr: address in module memory)
 * @secstrings: section names
 *
 * A module's .sframe holds one SFrame section per object file linked into
 * it (see sframe_open_part()); each is validated and indexed on its own.
 * Besides .sframe, a module may carry .sframe_annot (annotations of its
 * assembly) and .sframe_fixup (ranges the build-time verifier found
 * SFrame wrong in).  A module without .sframe, or with any of the three
 * malformed, is simply not registered: its frames are then unknown to the
 * unwinder, so walks through them are not reliable.
 */
void sframe_module_init(struct module *mod, const Elf_Ehdr *hdr,
			const Elf_Shdr *sechdrs, const char *secstrings)
{
	const Elf_Shdr *s, *annot = NULL, *sframe = NULL, *fixup = NULL;
	const Elf_Shdr *veneers[2] = { NULL, NULL };
	struct sframe_module_table *t = NULL;
	const char *what = ".sframe";
	u64 t0 = local_clock();
	unsigned int n, i;
	bool pending = false;
	u32 fdes = 0;
	int err;

	for (s = sechdrs; s < sechdrs + hdr->e_shnum; s++) {
		const char *name = secstrings + s->sh_name;

		if (!(s->sh_flags & SHF_ALLOC))
			continue;
		if (!strcmp(name, ".sframe"))
			sframe = s;
		else if (!strcmp(name, ".sframe_annot"))
			annot = s;
		else if (!strcmp(name, SFRAME_FIXUP_SECTION))
			fixup = s;
		else if (s->sh_flags & SHF_EXECINSTR && !strcmp(name, ".plt"))
			veneers[0] = s;
		else if (s->sh_flags & SHF_EXECINSTR && !strcmp(name, ".init.plt"))
			veneers[1] = s;
	}
	if (!sframe)
		return;

	err = sframe_module_nparts(sframe, &n);
	if (!err) {
		t = kvzalloc(struct_size(t, parts, n), GFP_KERNEL);
		if (!t)
			return;
		t->mod = mod;
		t->nparts = n;
		INIT_WORK(&t->check, sframe_module_check_fn);
		for (i = 0; i < ARRAY_SIZE(veneers); i++) {
			if (!veneers[i])
				continue;
			t->veneers[i].lo = veneers[i]->sh_addr;
			t->veneers[i].hi = veneers[i]->sh_addr + veneers[i]->sh_size;
		}
		err = sframe_module_parts_init(mod, t, sframe,
					       SFRAME_CHECKED_BY_BUILD);
	}
	if (!err) {
		what = ".sframe_annot";
		err = sframe_module_annot(mod, annot, &t->annot);
	}
	if (!err && fixup) {
		what = SFRAME_FIXUP_SECTION;
		err = sframe_fixups_convert(t, (void *)fixup->sh_addr,
					    fixup->sh_size);
		if (err >= 0)
			err = sframe_module_annot(mod, fixup, &t->fixups);
	}
	if (err) {
		pr_warn("%s: %s rejected: %s (%s)\n", module_name(mod), what,
			sframe_errname(err), sframe_strerror(err));
		if (t)
			sframe_module_table_free(t);
		return;
	}
	for (i = 0; i < n; i++) {
		fdes += t->parts[i].sec.num_fdes;
		pending |= t->parts[i].pending;
	}
	mutex_lock(&sframe_modules_lock);
	list_add_rcu(&t->list, &sframe_modules);
	t->listed = true;
	sframe_kernel_gen_next();
	sframe_module_load_ns += local_clock() - t0;
	mutex_unlock(&sframe_modules_lock);
	pr_debug("%s: SFrame v%u, %u sections, %u FDEs, %zu annotations, %zu fixups registered%s\n",
		 module_name(mod), t->parts[0].sec.version, n, fdes, t->annot.count,
		 t->fixups.count, pending ? ", validated off the load path" : "");
	/*
	 * Last: the check may unlist and free the table (it must be listed
	 * for that), so nothing here reads it afterwards.
	 */
	if (pending)
		queue_work(system_unbound_wq, &t->check);
}

/**
 * sframe_module_free() - drop a module's .sframe (module loader hook)
 * @mod: the module being freed
 */
void sframe_module_free(struct module *mod)
{
	struct sframe_module_table *t, *found = NULL;

	mutex_lock(&sframe_modules_lock);
	list_for_each_entry(t, &sframe_modules, list) {
		if (t->mod == mod) {
			list_del_rcu(&t->list);
			t->listed = false;
			found = t;
			break;
		}
	}
	/* Also without a table: new text may reuse the addresses. */
	sframe_kernel_gen_next();
	mutex_unlock(&sframe_modules_lock);
	if (!found)
		return;
	/* A check not started is not needed; one running reads the module. */
	cancel_work_sync(&found->check);
	synchronize_rcu();
	sframe_module_table_free(found);
}

/**
 * sframe_module_init_freed() - a module's init text is going (loader hook)
 * @mod: the module; its init layout was just emptied, the memory is freed
 *       after an RCU grace period
 *
 * Lookups no longer find the init text (within_module() is false for it
 * now); answers cached for it before must not outlive it, as its
 * addresses will hold other code.
 */
void sframe_module_init_freed(struct module *mod)
{
	sframe_kernel_gen_next();
}

/**
 * sframe_kernel_text_changed() - text was patched (ftrace, kprobes, static calls)
 *
 * Whether a return address follows a call is read from the text
 * (sframe_arch_after_call()) and cached with the answer: ftrace turns
 * function-entry NOPs into calls and back, kprobes put breakpoints over
 * instructions, an inline static call site is a NOP without a target.
 * Called after they patch text, in any context (ftrace may call it from
 * stop_machine()).
 */
void sframe_kernel_text_changed(void)
{
	sframe_kernel_gen_next();
}

/**
 * sframe_debugfs_dir() - debugfs "sframe/", created on first use
 *
 * The statistics of the user unwinder ("user"), of reliable walks
 * ("reliable") and of module registration ("module_load_ns") live there,
 * and the test modules' files.  Called from
 * initcalls and module init functions (after the initcalls: the directory
 * exists by then).
 *
 * Return: the directory (an error pointer if debugfs is unavailable,
 * which the debugfs_create_*() calls accept).
 */
struct dentry *sframe_debugfs_dir(void)
{
	static struct dentry *dir;

	if (!dir)
		dir = debugfs_create_dir("sframe", NULL);
	return dir;
}
EXPORT_SYMBOL_GPL(sframe_debugfs_dir);

/*
 * debugfs sframe/module_load_ns: the time sframe_module_init() took over
 * every module it registered (what SFrame adds to loading a module; the
 * boot tests' module-load benchmark reads it around its loads), and
 * sframe/module_check_ns: the time the checks off the load path took
 * (sframe_module_check_fn()).
 */
static int __init sframe_sections_debugfs_init(void)
{
	debugfs_create_u64("module_load_ns", 0400, sframe_debugfs_dir(),
			   &sframe_module_load_ns);
	debugfs_create_u64("module_check_ns", 0400, sframe_debugfs_dir(),
			   &sframe_module_check_ns);
	return 0;
}
late_initcall(sframe_sections_debugfs_init);
