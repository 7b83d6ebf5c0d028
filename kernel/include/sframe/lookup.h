/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the kernel unwinder asks of a text address, answered fast: the
 * per-CPU cache of recent answers (kernel/answer.c) and, where every call
 * has one size (arm64), vmlinux's return-site table (kernel/ra_table.c).
 * Both are built on the section registry (sframe/kernel.h) and forget
 * nothing it does not: an answer is valid for one generation of it.
 */
#ifndef _SFRAME_LOOKUP_H
#define _SFRAME_LOOKUP_H

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <sframe/kernel.h>

/*
 * vmlinux's return-site table, built from its rows and their rules in the
 * step's shape (kernel/ra_table.c; by answer.c's worker).  Return: the
 * bytes of the table built and published, 0 if none was.
 */
#ifdef CONFIG_ARM64
#define SFRAME_ARCH_CALL_SIZE	4
size_t sframe_vmlinux_ra_build(const struct sframe_rows *rows,
			       const struct sframe_rows_rule *step);
#else
static inline size_t sframe_vmlinux_ra_build(const struct sframe_rows *rows,
					     const struct sframe_rows_rule *step)
{
	return 0;
}
#endif

int sframe_kernel_lookup(unsigned long pc, const struct sframe_annot **annot,
			 struct sframe_rule *rule);
void sframe_kernel_cache_flush(void);
bool sframe_unwind_tables_wait(void);

/**
 * struct sframe_answer - what an unwinder step asks of a text address
 * @annot: the annotation covering the address, or NULL
 * @rule: the recovery fields of its SFrame rule, with saves below SP
 *        dropped (sframe_rule_no_red_zone()): vmlinux's table of them,
 *        or @own; all zero unless @err is 0
 * @own: the rule when it is not in vmlinux's table (modules)
 * @err: 0, or the negative SFRAME_E_* code of sframe_kernel_find()
 * @after_call: the instruction before the address + 1 is a call
 *              (sframe_arch_after_call(): for a return address - 1)
 * @plain: no annotation, no error, after a call: a return address the
 *         step takes with @rule and nothing else to check
 */
struct sframe_answer {
	const struct sframe_annot *annot;
	const struct sframe_rows_rule *rule;
	struct sframe_rows_rule own;
	s16 err;
	bool after_call;
	bool plain;
};

/*
 * The lookup cache: per CPU, two-way set-associative by address (two
 * entries per set, so that the return addresses of one deep stack rarely
 * evict each other), one answer per entry.  An entry is valid for the
 * generation of the section registry it was filled in
 * (&sframe_kernel_gen): loading or freeing a module, or patching text,
 * starts a new generation, which empties every cache at once.  See
 * sframe_kernel_answer().
 *
 * Its size follows the kernel: once vmlinux's rows are built, the caches
 * of all CPUs together get one entry per %SFRAME_CACHE_ROWS rows, at most
 * %SFRAME_CACHE_MAX entries per CPU (sframe_kernel_cache_size()).  Until
 * then, and where that leaves less than two sets, each CPU has one set.
 */
#define SFRAME_CACHE_MAX	256
#define SFRAME_CACHE_ROWS	256
#define SFRAME_CACHE_WAYS	2

struct sframe_cache_entry {
	unsigned long pc;
	unsigned long gen;		/* 0: being filled or empty */
	struct sframe_answer ans;
};

/**
 * struct sframe_cache - where the lookup caches are
 * @sets: the entries of every CPU: (@mask + 1) sets of %SFRAME_CACHE_WAYS
 * @mask: the number of sets - 1; published after @sets (release)
 *
 * Set once, when the caches are allocated; the first caches (one set per
 * CPU) are never freed, so a fill still under way in one is harmless.
 */
struct sframe_cache {
	struct sframe_cache_entry __percpu *sets;
	unsigned long mask;
};

extern struct sframe_cache sframe_cache;
DECLARE_PER_CPU(struct sframe_cache_entry [SFRAME_CACHE_WAYS],
		sframe_cache_first);
DECLARE_PER_CPU(unsigned int, sframe_cache_users);

/**
 * sframe_kernel_answers_begin() - start using this CPU's lookup cache
 *
 * Disables preemption and counts this user of the cache: between it and
 * sframe_kernel_answers_end(), answers of sframe_kernel_answer() may be
 * used where they lie.  Users nest: a walk can start in the middle of
 * another on this CPU, in any context (a tracer's callback; on arm64 with
 * TRACE_IRQFLAGS, return_address() at an exception's entry), and only
 * the outermost may fill the cache: a nested fill could replace an answer
 * the one it interrupted is using, or is writing.
 */
static __always_inline void sframe_kernel_answers_begin(void)
{
	preempt_disable_notrace();
	/*
	 * Not atomic: whatever nests in the increment (or the decrement)
	 * undoes its own before this one goes on.
	 */
	__this_cpu_inc(sframe_cache_users);
	barrier();
}

/* The end of sframe_kernel_answers_begin(): no answer is used after it. */
static __always_inline void sframe_kernel_answers_end(void)
{
	barrier();
	__this_cpu_dec(sframe_cache_users);
	preempt_enable_notrace();
}

/* The first entry of @pc's set, in this CPU's cache. */
static __always_inline struct sframe_cache_entry *
sframe_kernel_cache_set(unsigned long pc)
{
	unsigned long set = hash_long(pc, ilog2(SFRAME_CACHE_MAX) - 1);

	/*
	 * The mask first: a mask read with its release is one of @sets'
	 * (an old mask, 0, fits any of them).
	 */
	set &= smp_load_acquire(&sframe_cache.mask);
	return this_cpu_ptr(READ_ONCE(sframe_cache.sets)) +
	       set * SFRAME_CACHE_WAYS;
}

unsigned int sframe_kernel_cache_check(struct sframe_cache_entry *bad,
				       unsigned int max);

const struct sframe_answer *
sframe_kernel_answer_fill(unsigned long pc, struct sframe_cache_entry *e,
			  unsigned long gen, struct sframe_answer *scratch);

/**
 * sframe_kernel_answer() - the answer of a text address, usually cached
 * @pc: text address (a return address - 1, or an interrupted PC)
 * @scratch: where to put an answer that is not cached
 *
 * The same answers as sframe_annot_find(), sframe_kernel_find() and
 * sframe_arch_after_call(), from this CPU's cache when @pc was asked
 * recently (inline: the common case of a walk is a few loads, and the
 * answer is used where it lies).  Call between
 * sframe_kernel_answers_begin() and sframe_kernel_answers_end(), and use
 * the answer before the end.
 *
 * Only the outermost user of this CPU's cache fills it, in task context:
 * nothing else writes to it until that user ends, so an answer in it
 * stays as it is until then.  A walk nested in it (an interrupt's, an
 * exception's, an NMI's, a tracer's) that lands during a fill finds the
 * entry empty (generation 0, whatever PC is asked, 0 too) and looks up
 * directly, into @scratch; it reads the cache but never writes it.  Safe
 * in any context.
 *
 * Return: the answer: in this CPU's cache, or @scratch.
 */
static __always_inline const struct sframe_answer *
sframe_kernel_answer(unsigned long pc, struct sframe_answer *scratch)
{
	struct sframe_cache_entry *e;
	unsigned long gen;

	/*
	 * A hit needs no ordering: an entry of this generation was filled
	 * after it began.  A fill orders its reads of the module list
	 * after this one (sframe_kernel_answer_fill()).
	 */
	gen = atomic_long_read(&sframe_kernel_gen);
	e = sframe_kernel_cache_set(pc);
	if (likely(READ_ONCE(e->pc) == pc && READ_ONCE(e->gen) == gen))
		return &e->ans;
	if (READ_ONCE(e[1].pc) == pc && READ_ONCE(e[1].gen) == gen)
		return &e[1].ans;
	return sframe_kernel_answer_fill(pc, e, gen, scratch);
}

/*
 * Where every call instruction has one size and alignment (arm64: 4), the
 * return sites of vmlinux can be listed by scanning its text.
 */
/* vmlinux's return sites are listed (sframe_ra_slot() finds them) */
#ifdef SFRAME_ARCH_CALL_SIZE
#define SFRAME_RA_LISTED	1
#else
#define SFRAME_RA_LISTED	0
#endif

/* Slots per bucket (sframe_ra_entry() reads them one by one) */
#define SFRAME_RA_WAYS		2

/**
 * struct sframe_ra_table - vmlinux's return sites and their rules
 * @slot: @buckets buckets of %SFRAME_RA_WAYS slots; per slot (see
 *        %SFRAME_RA_KEY): the key (return address - _stext) / 4, or
 *        %SFRAME_RA_EMPTY for an empty slot; the number of its rule in
 *        @rules, with the rule's frame record where it has one; or with
 *        %SFRAME_RA_ANNOT the number of its annotation in @annots.  NULL
 *        until published
 * @rules: vmlinux's rules as the step uses them (sframe_kernel_answer())
 * @annots: vmlinux's annotation table
 * @base: the first byte of vmlinux's text (_stext)
 * @size: its size (the table holds return addresses below _etext)
 * @buckets: the number of buckets
 *
 * Where every call has one size (arm64), a walk need not look up or cache
 * anything for a return address: every return site of vmlinux's text that
 * follows a call, has an SFrame rule and no annotation (the answer a step
 * would find plain, &sframe_answer.plain), or lies in a pt_regs or END
 * annotation (the end of most walks) is listed once at boot, in a cuckoo
 * hash table: each key lies in one of its two buckets, so a lookup reads
 * at most four slots, whichever addresses a walk meets.  Built off the
 * boot path after vmlinux's rows, published complete (@slot last), never
 * changed.
 */
struct sframe_ra_table {
	const u64 *slot;
	const struct sframe_rows_rule *rules;
	const struct sframe_annot *annots;
	unsigned long base, size;
	u32 buckets;
};

extern struct sframe_ra_table sframe_vmlinux_ra;

/*
 * A slot.  The key is in the low bits, so that one compare of the slot
 * shifted left checks the key and that the address is aligned.  The
 * frame record (%SFRAME_RA_REC) lets a walk step without reading the
 * rule: the rule is simple (sframe_step_prepare()), its CFA is SP (or FP
 * with %SFRAME_RA_REC_FP) plus %SFRAME_RA_REC_CFA words, and it restores
 * FP and RA from the frame record {FP, RA} %SFRAME_RA_REC_LOW words below
 * the CFA (arm64's "stp x29, x30, [sp, #-N]!" saves one N bytes below).
 * %SFRAME_RA_REC_SP marks the usual case, the record at SP (the CFA SP
 * plus as many words as the record lies below it).
 */
#define SFRAME_RA_KEY_SHIFT	2	/* log2(SFRAME_ARCH_CALL_SIZE) */
#define SFRAME_RA_KEY_BITS	24
#define SFRAME_RA_KEY		GENMASK_ULL(SFRAME_RA_KEY_BITS - 1, 0)
#define SFRAME_RA_EMPTY		SFRAME_RA_KEY
#define SFRAME_RA_INDEX		GENMASK_ULL(43, 24)
#define SFRAME_RA_REC_SP	BIT_ULL(44)
#define SFRAME_RA_REC_LOW	GENMASK_ULL(52, 45)
#define SFRAME_RA_REC_CFA	GENMASK_ULL(60, 53)
#define SFRAME_RA_REC_FP	BIT_ULL(61)
#define SFRAME_RA_REC		BIT_ULL(62)
#define SFRAME_RA_ANNOT		BIT_ULL(63)

/*
 * The two buckets of offset @k: the high bits of two hashes, scaled to the
 * number of buckets (a multiply and a shift, any table size).  The second
 * hash is taken of the first, mixed: two plain multiplicative hashes of
 * the evenly spaced keys of return sites are too alike for a cuckoo table
 * (its builds failed where independent hashes would not).
 */
#define SFRAME_RA_MUL1		0x61c88647U	/* GOLDEN_RATIO_32 */
#define SFRAME_RA_MUL2		0x85ebca6bU

static __always_inline u32 sframe_ra_scale(const struct sframe_ra_table *t,
					   u32 h)
{
	return ((u64)h * t->buckets) >> 32;
}

static __always_inline u32 sframe_ra_hash1(u32 k)
{
	return k * SFRAME_RA_MUL1;
}

static __always_inline u32 sframe_ra_hash2(u32 h1)
{
	return (h1 ^ h1 >> 16) * SFRAME_RA_MUL2;
}

/* A slot's key, shifted to its top bits */
static __always_inline u64 sframe_ra_key_at(u64 e)
{
	return e << (64 - SFRAME_RA_KEY_BITS);
}

/**
 * sframe_ra_entry() - the slot of a return address of vmlinux
 * @t: the table, or a walk's copy of it
 * @slot: @t->slot as published (not NULL)
 * @ra: a return address
 *
 * The table never changes once published: plain loads read it.
 *
 * Return: the slot's entry (sframe_ra_decode()), or 0 when @ra is not
 * listed (no entry is 0: key 0 is _stext, which follows no call).
 */
static __always_inline u64 sframe_ra_entry(const struct sframe_ra_table *t,
					   const u64 *slot, unsigned long ra)
{
	unsigned long off = ra - t->base, key;
	const u64 *b;
	u32 h;

	/*
	 * Only vmlinux's text is listed.  Any other address must not reach
	 * the compare: the one whose key is SFRAME_RA_EMPTY (64 MiB - 4
	 * past _stext, where a module or BPF program may lie) would match
	 * an empty slot.  Within the text (@t->size is below that address),
	 * @off shifted to where a slot's key lies loses no bits: a
	 * misaligned @ra keeps bits there that no slot has.
	 */
	if (off >= t->size)
		return 0;
	key = off << (64 - SFRAME_RA_KEY_BITS - SFRAME_RA_KEY_SHIFT);
	h = sframe_ra_hash1(off);
	b = &slot[SFRAME_RA_WAYS * (unsigned long)sframe_ra_scale(t, h)];
	if (sframe_ra_key_at(b[0]) == key)
		return b[0];
	if (sframe_ra_key_at(b[1]) == key)
		return b[1];
	b = &slot[SFRAME_RA_WAYS *
		  (unsigned long)sframe_ra_scale(t, sframe_ra_hash2(h))];
	if (sframe_ra_key_at(b[0]) == key)
		return b[0];
	if (sframe_ra_key_at(b[1]) == key)
		return b[1];
	return 0;
}

/*
 * What entry @e of sframe_ra_entry() says: the rule of a listed return
 * site; or NULL with *@annot its pt_regs or END annotation, or NULL (0:
 * not listed).
 */
static __always_inline const struct sframe_rows_rule *
sframe_ra_decode(const struct sframe_ra_table *t, u64 e,
		 const struct sframe_annot **annot)
{
	if (likely(e && !(e & SFRAME_RA_ANNOT)))
		return &t->rules[FIELD_GET(SFRAME_RA_INDEX, e)];
	*annot = e ? &t->annots[FIELD_GET(SFRAME_RA_INDEX, e)] : NULL;
	return NULL;
}

/* Entry @e of sframe_ra_entry() gives a rule (not 0, no annotation). */
static __always_inline bool sframe_ra_slot_plain(u64 e)
{
	return e && !(e & SFRAME_RA_ANNOT);
}

/**
 * sframe_ra_slot() - the slot of a return address of vmlinux
 * @ra: a return address
 *
 * Return: @ra's entry in the published table (sframe_ra_slot_rule() says
 * what it means), or 0 when @ra is not listed or there is no table.
 * Lock-free, any context.
 */
static __always_inline u64 sframe_ra_slot(unsigned long ra)
{
#ifdef SFRAME_ARCH_CALL_SIZE
	const struct sframe_ra_table *t = &sframe_vmlinux_ra;
	/* Published last: pairs with the builder's release store. */
	const u64 *slot = smp_load_acquire(&t->slot);

	return slot ? sframe_ra_entry(t, slot, ra) : 0;
#else
	return 0;
#endif
}

/*
 * sframe_ra_decode() of an entry of the published table (from
 * sframe_ra_slot() or sframe_ra_entry(), which read it after its
 * publication).
 */
static __always_inline const struct sframe_rows_rule *
sframe_ra_slot_rule(u64 e, const struct sframe_annot **annot)
{
#ifdef SFRAME_ARCH_CALL_SIZE
	return sframe_ra_decode(&sframe_vmlinux_ra, e, annot);
#else
	*annot = NULL;
	return NULL;
#endif
}

/**
 * sframe_ra_rule() - the rule of a return address of vmlinux, if plain
 * @ra: a return address (the PC of a frame that is not exact)
 * @annot: when NULL is returned: the pt_regs or END annotation covering
 *         @ra - 1 if @ra is a listed return site, else NULL (left alone
 *         when a rule is returned)
 *
 * Return: the rule for @ra - 1 when the instruction before @ra is a call
 * and the answer for @ra - 1 is plain (sframe_kernel_answer()); else NULL
 * (not in vmlinux's text, not a return site, another annotation, no
 * rule, or no table on this architecture): ask sframe_kernel_answer()
 * unless *@annot says all.  Lock-free, any context.
 */
static __always_inline const struct sframe_rows_rule *
sframe_ra_rule(unsigned long ra, const struct sframe_annot **annot)
{
	return sframe_ra_slot_rule(sframe_ra_slot(ra), annot);
}

#endif /* _SFRAME_LOOKUP_H */
