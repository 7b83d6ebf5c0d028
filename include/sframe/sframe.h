/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SFrame core: validate an SFrame section and find the stack-unwinding rule
 * for a program counter.
 *
 * The core is freestanding and allocation-free: every function works on a
 * caller-owned struct sframe_section and caller-owned result structures, so
 * it can run in any context (NMI included) and builds unchanged into the
 * kernel and into userspace tools.  Every read of section bytes goes through
 * the accessor layer (sframe/access.h) and is bounds-checked: lookups stay
 * inside the section on any input, validated or not.
 *
 * Typical use:
 *
 *	struct sframe_section sec;
 *	struct sframe_rule rule;
 *
 *	err = sframe_open(&sec, data, size, addr, 0);
 *	if (!err)
 *		err = sframe_validate(&sec, NULL, NULL);	(untrusted input)
 *	if (!err)
 *		err = sframe_find(&sec, pc, &rule);
 *
 * A relocatable object's (or a module's) .sframe may be a sequence of
 * sections, one per object file linked into it: sframe_open_part() opens
 * them one by one.
 */
#ifndef _SFRAME_SFRAME_H
#define _SFRAME_SFRAME_H

#include "types.h"
#include "format.h"

/*
 * Error codes.  Functions return 0 or the negated value of one of these;
 * sframe_strerror() names them.
 */
enum sframe_error {
	SFRAME_E_INVAL = 1,	/* bad argument */
	SFRAME_E_TRUNCATED,	/* shorter than the header it announces */
	SFRAME_E_MAGIC,		/* no SFrame magic in either byte order */
	SFRAME_E_VERSION,	/* version other than 1, 2 or 3 */
	SFRAME_E_FLAGS,		/* flag bits invalid for the version */
	SFRAME_E_ABI,		/* unknown ABI, or ABI byte order != magic's */
	SFRAME_E_LAYOUT,	/* FDE/FRE sub-sections out of bounds or overlapping */
	SFRAME_E_FUNC_RANGE,	/* function range wraps, or starts on both sides of the wrap */
	SFRAME_E_FRE_BOUNDS,	/* FRE data outside the FRE sub-section */
	SFRAME_E_FRE_TYPE,	/* FRE start-address type 3..15 */
	SFRAME_E_FDE_TYPE,	/* v3 FDE type other than DEFAULT or FLEX */
	SFRAME_E_REP_SIZE,	/* PCMASK FDE with a zero repetition size */
	SFRAME_E_FRE_ORDER,	/* FRE start offsets not strictly increasing */
	SFRAME_E_FRE_START,	/* FRE starts at or beyond the function end */
	SFRAME_E_WORD_SIZE,	/* FRE data-word size 3 */
	SFRAME_E_WORD_COUNT,	/* data-word count invalid for ABI/FDE type */
	SFRAME_E_FLEX_CTRL,	/* malformed FLEX control word */
	SFRAME_E_REGNUM,	/* register number out of range */
	SFRAME_E_OFFSET,	/* decoded offset does not fit 32 bits */
	SFRAME_E_NUM_FRES,	/* FRE count disagrees with sfh_num_fres */
	SFRAME_E_FRE_LEN,	/* FRE bytes disagree with sfh_fre_len */
	SFRAME_E_UNSORTED,	/* SORTED flag set but FDEs are not sorted */
	SFRAME_E_NO_FDE,	/* no function covers the PC */
	SFRAME_E_NO_FRE,	/* function has no row for the PC */
	SFRAME_E_SIGNAL,	/* signal trampoline without rows: use the OS frame */
	SFRAME_E_FAULT,		/* the accessor could not read the bytes */
	SFRAME_E_INDEX,		/* caller-provided index too small or stale */
	SFRAME_E_PADDING,	/* after a section: neither padding nor a section */
	SFRAME_E_COST,		/* a lookup would read more than its caller allows */
	SFRAME_E_MAX
};

/* sframe_open() options. */
/* Starts are PC-relative whatever the flags say. */
#define SFRAME_OPEN_PCREL	0x1
/*
 * The section of a relocatable object (a module, an `ld -r` output) after
 * its relocations were applied.  gas writes every start field with a
 * PC-relative relocation, so starts are PC-relative whatever the version
 * and flags say (binutils 2.40's v1 says nothing); and the "sorted" flag,
 * which describes the object's own text sections before the loader or
 * linker placed them apart (.text, .init.text), is ignored.  The one
 * place these quirks are known: the kernel's module loader and
 * sframe-verify both open such sections with this option.
 */
#define SFRAME_OPEN_RELOCATED	0x2

/*
 * Alignment of the sections of a sequence (sframe_open_part()): the
 * sh_addralign of gas's .sframe, at which `ld -r` concatenates them.
 */
#define SFRAME_PART_ALIGN	8

/* Largest register number a rule may name (DWARF numbering). */
#define SFRAME_MAX_REGNUM	127

/**
 * struct sframe_section - an opened SFrame section
 * @data: first byte of the section, as readable by the accessor
 * @addr: run-time address of the first byte (anchor of start addresses)
 * @size: bytes up to the end of the FRE sub-section (padding excluded)
 * @num_fdes: number of function descriptors
 * @num_fres: total number of FREs announced by the header
 * @fde_base: section offset of the FDE index
 * @fre_base: section offset of the FRE sub-section
 * @fre_end: section offset just past the FRE sub-section
 * @version: SFrame version (1, 2 or 3)
 * @flags: preamble flags
 * @abi: ABI/arch identifier
 * @fde_size: stride of the FDE index
 * @fixed_fp: header's fixed FP offset from the CFA (0: none)
 * @fixed_ra: header's fixed RA offset from the CFA (0: none)
 * @big_endian: multi-byte fields are big-endian
 * @pcrel: start fields are relative to the field's own address
 * @sp_reg: DWARF number of the stack pointer for @abi
 * @fp_reg: DWARF number of the frame pointer for @abi
 * @ra_reg: DWARF number of the return-address register (0: none, AMD64)
 * @order: optional lookup index: FDE indices sorted by start address
 * @blocks: optional lookup index: per text block, sorted FDEs starting at
 *          or before the block (see sframe_index_build())
 * @idx_base: lookup index: address of block 0
 * @idx_shift: lookup index: log2 of the block size
 * @idx_nblocks: lookup index: number of blocks
 *
 * Filled by sframe_open() and sframe_index_build(); read-only afterwards.
 * Nothing in it points to memory the core owns.
 */
struct sframe_section {
	const u8 *data;
	u64 addr;
	u32 size;
	u32 num_fdes;
	u32 num_fres;
	u32 fde_base;
	u32 fre_base;
	u32 fre_end;
	u8 version;
	u8 flags;
	u8 abi;
	u8 fde_size;
	s8 fixed_fp;
	s8 fixed_ra;
	bool big_endian;
	bool pcrel;
	u8 sp_reg;
	u8 fp_reg;
	u8 ra_reg;
	const u32 *order;
	const u32 *blocks;
	u64 idx_base;
	u32 idx_shift;
	u32 idx_nblocks;
};

/**
 * struct sframe_fde - a decoded function descriptor
 * @start: resolved run-time address of the function's first byte
 * @size: function size in bytes
 * @index: position in the FDE index
 * @num_fres: number of FREs
 * @fres: section offset of the first FRE
 * @info: FDE info byte (FRE type, PC type, pauth key, signal)
 * @info2: v3 info byte 2 (FDE type); 0 before v3
 * @rep_size: PCMASK repetition block size (v2, v3)
 */
struct sframe_fde {
	u64 start;
	u32 size;
	u32 index;
	u32 num_fres;
	u32 fres;
	u8 info;
	u8 info2;
	u8 rep_size;
};

/**
 * struct sframe_fre - one frame row entry, located but not interpreted
 * @start: start offset from the function (PCMASK: from the block) start
 * @off: section offset of the FRE
 * @next: section offset just past the FRE
 * @end: from sframe_find_fre() of a function without PCMASK: the start of
 *       the next row, or 0 after the last row; else 0
 * @info: FRE info byte
 */
struct sframe_fre {
	u32 start;
	u32 off;
	u32 next;
	u32 end;
	u8 info;
};

/* How a value of the caller's frame is recovered (struct sframe_loc.kind). */
enum sframe_loc_kind {
	SFRAME_LOC_SAME,	/* unchanged: still in its register */
	SFRAME_LOC_CFA,		/* CFA + offset, loaded if deref */
	SFRAME_LOC_REG,		/* REG[reg] + offset, loaded if deref */
	SFRAME_LOC_UNDEFINED,	/* not recoverable */
};

/**
 * struct sframe_loc - recovery rule for one value
 * @kind: enum sframe_loc_kind
 * @deref: the value is loaded from the computed address
 * @reg: DWARF register number for %SFRAME_LOC_REG
 * @offset: offset added to the base
 */
struct sframe_loc {
	u8 kind;
	u8 deref;
	u16 reg;
	s32 offset;
};

/* struct sframe_rule.flags */
#define SFRAME_RULE_OUTERMOST	0x001	/* RA undefined: the trace ends here */
#define SFRAME_RULE_RA_MANGLED	0x002	/* RA is signed (AArch64 PAC) */
#define SFRAME_RULE_PAUTH_B	0x004	/* signed with key B, else key A */
#define SFRAME_RULE_SIGNAL	0x008	/* function is a signal trampoline */
#define SFRAME_RULE_RA_FIXED	0x010	/* RA rule from the header's fixed offset */
#define SFRAME_RULE_FP_FIXED	0x020	/* FP rule from the header's fixed offset */
#define SFRAME_RULE_RA_PADDING	0x040	/* RA slot present but marked unsaved */
#define SFRAME_RULE_FLEX	0x080	/* FDE of type FLEX */
#define SFRAME_RULE_PCMASK	0x100	/* FDE of PC type MASK */
#define SFRAME_RULE_CFA_BASE_SP	0x200	/* DEFAULT FDE: CFA based on SP */

/**
 * struct sframe_rule - how to recover the caller's frame at one PC
 * @cfa: CFA rule; always %SFRAME_LOC_REG
 * @ra: return-address rule
 * @fp: frame-pointer rule
 * @sp_from_cfa: caller's SP = CFA + @sp_from_cfa (-160 on s390x)
 * @flags: %SFRAME_RULE_* flags
 * @func_start: start address of the function
 * @func_size: size of the function
 * @fde_index: index of the FDE
 * @fre_start: start offset of the FRE within the function (or block)
 * @fre_end: from sframe_find() of a function without PCMASK: the end of
 *           the FRE's range within the function (the next FRE's start, or
 *           the function's size after the last FRE), so that the rule
 *           holds from @func_start + @fre_start to @func_start + @fre_end;
 *           else 0
 *
 * For an outermost frame (%SFRAME_RULE_OUTERMOST) only @flags and the
 * function fields are meaningful.
 */
struct sframe_rule {
	struct sframe_loc cfa;
	struct sframe_loc ra;
	struct sframe_loc fp;
	s16 sp_from_cfa;
	u16 flags;
	u64 func_start;
	u32 func_size;
	u32 fde_index;
	u32 fre_start;
	u32 fre_end;
};

/**
 * struct sframe_rows_rule - the recovery part of a rule, as rows keep it
 * @cfa: CFA rule
 * @ra: RA rule
 * @fp: FP rule
 * @sp_from_cfa: as struct sframe_rule
 * @flags: as struct sframe_rule
 * @step_low: set by sframe_step_prepare() for a rule it finds simple: the
 *            offset from the CFA of the lowest slot the step loads; else 0
 *
 * Also what the frame step takes (sframe_step(), sframe/step.h) and what
 * the kernel's and the user unwinder's lookup caches keep.  No padding:
 * the kernel's cache check compares rules with memcmp().
 */
struct sframe_rows_rule {
	struct sframe_loc cfa;
	struct sframe_loc ra;
	struct sframe_loc fp;
	s16 sp_from_cfa;
	u16 flags;
	s32 step_low;
};

/* The recovery part of @rule, as struct sframe_rows_rule keeps it. */
static inline void sframe_rule_recovery(struct sframe_rows_rule *r,
					const struct sframe_rule *rule)
{
	r->cfa = rule->cfa;
	r->ra = rule->ra;
	r->fp = rule->fp;
	r->sp_from_cfa = rule->sp_from_cfa;
	r->flags = rule->flags;
	r->step_low = 0;
}

/* Set the recovery part of @rule from @r; its other fields stay. */
static inline void sframe_rule_set_recovery(struct sframe_rule *rule,
					    const struct sframe_rows_rule *r)
{
	rule->cfa = r->cfa;
	rule->ra = r->ra;
	rule->fp = r->fp;
	rule->sp_from_cfa = r->sp_from_cfa;
	rule->flags = r->flags;
}

/* struct sframe_rows.id values that are not rule numbers */
#define SFRAME_ROWS_GAP		0xffff	/* no function here */
#define SFRAME_ROWS_CORE	0xfffe	/* ask sframe_find() (PCMASK FDEs...) */
/* Most distinct rules a rows table holds (more: SFRAME_ROWS_CORE rows) */
#define SFRAME_ROWS_MAX_RULES	2048
/* In a rule row's id: the row is marked (sframe_rows_mark()) */
#define SFRAME_ROWS_MARK	0x8000
/* A rows table's limit when it has rows for every function */
#define SFRAME_ROWS_ALL		(~0ULL)
/* Largest block of a rows table: a row keeps its start in a block in 16 bits */
#define SFRAME_ROWS_MAX_SHIFT	16
/* Slots of the builder's scratch hash table (u16 each) */
#define SFRAME_ROWS_HASH_SLOTS	4096

/**
 * struct sframe_rows - a validated section decoded into a flat table
 * @sec: the section (for %SFRAME_ROWS_CORE rows)
 * @base: start of the text the rows describe: the lowest function start
 *        below @limit (the first row starts there, unless a function
 *        without size begins the text)
 * @end: end of the last function, at most @limit
 * @limit: rows describe the functions that start below it, up to it; a
 *         lookup at or above it is the core's: sframe_rows_rule_of() says
 *         so (%SFRAME_ROWS_ALL: none is)
 * @shift: log2 of the block size of @block
 * @nrows: entries of @start and @id
 * @nrules: entries of @rules in use
 * @nblocks: blocks in @block (it has @nblocks + 1 entries)
 * @start: per row, its start address minus @base, minus 1, within its
 *         block (the low @shift bits): rows start in ascending order, and
 *         the rows the block index gives for a block (sframe_block_bounds())
 *         start above its beginning and at or below its end, so this key
 *         orders them as their starts, and an address of the block lies
 *         at or above a row's start if its own offset within the block is
 *         above the row's key
 * @id: each row's rule number, %SFRAME_ROWS_GAP or %SFRAME_ROWS_CORE
 * @rules: the distinct rules
 * @block: block index of @start (sframe_block_bounds()), @nblocks + 1
 *         entries
 * @func: optional, set before the build: room for one entry per FDE of
 *        the section; the build keeps there the start of each function
 *        it gives rows (a sized one below @limit), minus @base, in
 *        ascending order, so that sframe_rows_find() answers a rule's
 *        function start too and the section is no longer needed for it.
 *        NULL: function starts are not kept
 * @nfuncs: entries of @func in use
 *
 * Built once by sframe_rows_build() from a section that passed
 * sframe_validate() and cannot change afterwards (vmlinux, a module):
 * a lookup is then one block read and a short binary search over 2-byte
 * keys, with no decoding and no bounds checks on the section (the rows
 * are our own memory).  Rows answer the recovery fields of a rule, and
 * its function start where they keep @func; sframe_find() answers every
 * function field.
 */
struct sframe_rows {
	const struct sframe_section *sec;
	u64 base, end, limit;
	u32 shift, nrows, nrules, nblocks;
	u16 *start;
	u16 *id;
	struct sframe_rows_rule *rules;
	u32 *block;
	u32 *func;
	u32 nfuncs;
};

/**
 * typedef sframe_report_fn - validator callback, called once per problem
 * @arg: caller's cookie
 * @err: negative error code
 * @fde: FDE index, or U32_MAX (~0U) for section-level problems
 * @fre: FRE index within the FDE, or ~0U
 */
typedef void (*sframe_report_fn)(void *arg, int err, u32 fde, u32 fre);

#define SFRAME_NO_INDEX		(~0U)

int sframe_open(struct sframe_section *sec, const void *data, u64 size,
		u64 addr, unsigned int opts);
int sframe_open_part(struct sframe_section *sec, const void *data, u64 size,
		     u64 addr, u64 off, unsigned int opts, u64 *next);
int sframe_validate(const struct sframe_section *sec,
		    sframe_report_fn report, void *arg);
int sframe_index_size(const struct sframe_section *sec, unsigned int shift,
		      u32 *nwords);
int sframe_index_build(struct sframe_section *sec, unsigned int shift,
		       u32 *mem, u32 nwords);
int sframe_get_fde(const struct sframe_section *sec, u32 index,
		   struct sframe_fde *fde);
int sframe_find_fde(const struct sframe_section *sec, u64 pc,
		    struct sframe_fde *fde);
int sframe_read_fre(const struct sframe_section *sec,
		    const struct sframe_fde *fde, u32 off,
		    struct sframe_fre *fre);
int sframe_find_fre(const struct sframe_section *sec,
		    const struct sframe_fde *fde, u64 pc,
		    struct sframe_fre *fre);
int sframe_fre_rule(const struct sframe_section *sec,
		    const struct sframe_fde *fde, const struct sframe_fre *fre,
		    struct sframe_rule *rule);
int sframe_find(const struct sframe_section *sec, u64 pc,
		struct sframe_rule *rule);
int sframe_rows_size(const struct sframe_section *sec, unsigned int shift,
		     u64 limit, u32 *nrows, u32 *nblocks);
void sframe_rows_scratch(const struct sframe_section *sec, u32 *nrules,
			 u32 *nslots);
int sframe_rows_build(const struct sframe_section *sec, unsigned int shift,
		      u64 limit, struct sframe_rows *rows, u16 *hash);
const struct sframe_rows_rule *sframe_rows_rule_of(const struct sframe_rows *rows,
						   u64 pc, int *err);
void sframe_rows_mark(struct sframe_rows *rows, u32 n,
		      void (*range)(void *ctx, u32 i, u64 *lo, u64 *hi),
		      void *ctx);
int sframe_rows_find(const struct sframe_rows *rows, u64 pc,
		     struct sframe_rule *rule);
int sframe_validate_rows(const struct sframe_section *sec, unsigned int shift,
			 u64 limit, struct sframe_rows *rows, u16 *hash);
const char *sframe_errname(int err);
const char *sframe_strerror(int err);

#ifndef __KERNEL__
/* Fields of an FDE and of an FRE (sframe_fde_field(), sframe_fre_field()). */
enum sframe_field_id {
	SFRAME_FIELD_FDE_START,		/* function start (signed) */
	SFRAME_FIELD_FDE_SIZE,		/* function size */
	SFRAME_FIELD_FDE_FRE_OFF,	/* offset of the FREs (v3: attribute) */
	SFRAME_FIELD_FDE_NUM_FRES,	/* number of FREs */
	SFRAME_FIELD_FDE_INFO,		/* info byte */
	SFRAME_FIELD_FDE_INFO2,		/* info byte 2 (v3) */
	SFRAME_FIELD_FDE_REP_SIZE,	/* PCMASK repetition size (v2, v3) */
	SFRAME_FIELD_FRE_START,		/* start offset */
	SFRAME_FIELD_FRE_INFO,		/* info byte */
	SFRAME_FIELD_FRE_CFA,		/* data word: CFA offset */
	SFRAME_FIELD_FRE_RA,		/* data word: RA offset or register */
	SFRAME_FIELD_FRE_FP,		/* data word: FP offset or register */
};

/**
 * struct sframe_field - where a field lies in a section
 * @off: section offset of its first byte
 * @len: its size in bytes, 0 if there is no such field
 */
struct sframe_field {
	u32 off;
	u32 len;
};

/* For programs that patch sections in place; not in the kernel. */
int sframe_fde_field(const struct sframe_section *sec,
		     const struct sframe_fde *fde, enum sframe_field_id field,
		     struct sframe_field *loc);
int sframe_fre_field(const struct sframe_section *sec,
		     const struct sframe_fde *fde, const struct sframe_fre *fre,
		     enum sframe_field_id field, struct sframe_field *loc);
#endif

/*
 * A block index, ORC's lookup table in one form for every sorted table of
 * ours (a section's FDEs, decoded rows, the kernel's annotations): a text
 * range cut into blocks of 1 << shift bytes and, for each block boundary b
 * (0 to the number of blocks), first[b]: how many of the table's entries,
 * in start order, start at or below the range's start + (b << shift).
 * Built by sframe_block_fill(), read by sframe_block_bounds().
 */

/**
 * typedef sframe_start_fn - the start of a table's entry, for its index
 * @ctx: the table
 * @i: entry number, in start order
 * @start: result: the entry's start address
 *
 * Return: 0, or a negative SFRAME_E_* code (sframe_block_fill() fails).
 */
typedef int (*sframe_start_fn)(const void *ctx, u32 i, u64 *start);

/**
 * sframe_block_fill() - build a block index (see sframe_block_bounds())
 * @first: the index, @nblocks + 1 entries
 * @nblocks: blocks from @base on
 * @shift: log2 of the block size, at most 32
 * @base: start of the indexed range
 * @n: entries of the table
 * @start: the start address of an entry, entries in ascending start order
 * @ctx: the table, for @start
 *
 * One pass over the table: first[b] counts the entries starting at or
 * below @base + (b << @shift).  Where the end of the last block lies past
 * the address space, that boundary counts every entry.
 *
 * Inline, so that each builder's @start (a constant) is inlined too: no
 * indirect call per entry, on the boot path for vmlinux.
 *
 * Return: 0, or what @start returned.
 */
static __always_inline int sframe_block_fill(u32 *first, u64 nblocks,
					     unsigned int shift, u64 base,
					     u32 n, sframe_start_fn start,
					     const void *ctx)
{
	u64 b, bstart, s;
	u32 c = 0;
	int err;

	for (b = 0; b <= nblocks; b++) {
		bstart = base + (b << shift);
		if (b > (~0ULL >> shift) || bstart < base)
			bstart = ~0ULL;
		while (c < n) {
			err = start(ctx, c, &s);
			if (err)
				return err;
			if (s > bstart)
				break;
			c++;
		}
		first[b] = c;
	}
	return 0;
}

/**
 * sframe_block_bounds() - how far a block index narrows a search
 * @first: the index (sframe_block_fill()), @nblocks + 1 entries
 * @nblocks: blocks in the indexed range
 * @shift: log2 of the block size
 * @off: an address minus the start of the range
 * @lo: result: at least this many entries start at or below the address
 * @hi: result: at most this many do
 *
 * The entry covering the address, if any, is the last one starting at or
 * below it: number @lo - 1 to @hi - 1, usually one or two candidates.
 *
 * Return: false if @off lies past the range (no entry covers it).
 */
static __always_inline bool sframe_block_bounds(const u32 *first, u64 nblocks,
						unsigned int shift, u64 off,
						u32 *lo, u32 *hi)
{
	u64 b = off >> shift;

	if (b >= nblocks)
		return false;
	*lo = first[b];
	*hi = first[b + 1];
	return true;
}

/* The largest power of two not above @n; @n must not be 0. */
static __always_inline u32 sframe_pow2_floor(u32 n)
{
	return 1U << (31 - __builtin_clz(n));
}

/*
 * sframe_rows_lookup()'s search: the id of the row covering @pc (with
 * %SFRAME_ROWS_MARK if marked); %SFRAME_ROWS_GAP where no function lies
 * (or outside the rows, below their limit); %SFRAME_ROWS_CORE where the
 * core is to be asked (such a row, or at or above the rows' limit).
 */
static __always_inline u32 sframe_rows_lookup_id(const struct sframe_rows *rows,
						 u64 pc)
{
	u32 off, key, first, hi, m, step, p;
	const u16 *s;

	if (pc < rows->base || pc >= rows->end || !rows->nrows)
		return pc >= rows->limit ? SFRAME_ROWS_CORE : SFRAME_ROWS_GAP;
	off = pc - rows->base;
	if (!sframe_block_bounds(rows->block, rows->nblocks, rows->shift, off,
				 &first, &hi))
		return SFRAME_ROWS_GAP;
	/*
	 * Rows @first to @hi - 1 start in the block, above its beginning;
	 * row @first - 1 covers the beginning.  A row in the block starts at
	 * or below @off if its key is below @off's.
	 */
	key = off & ((1U << rows->shift) - 1);
	/*
	 * No row starts at or before the block's beginning: the block lies
	 * at or before the first row, which a function without size put
	 * above the base.  Before row 0, no function lies; from it on, row
	 * 0 is the one before the block's others.
	 */
	if (unlikely(!first)) {
		if (!hi || rows->start[0] >= key)
			return SFRAME_ROWS_GAP;
		first = 1;
	}
	/*
	 * The last row at or before @off is s[@p], where @p counts the
	 * block's @m rows s[1] to s[@m] that start at or before @off (a
	 * prefix: rows ascend).  s[0], row @first - 1, is not compared.
	 * @p is found a bit at a time from the largest power of two @step
	 * not above @m: the first comparison leaves @step candidates, from
	 * 0 or from @m - @step + 1 (the two ranges cover 0 to @m), and each
	 * next one halves them.  One comparison and a conditional move per
	 * bit, with no branch on the data.
	 */
	s = rows->start + first - 1;
	m = hi - first;
	p = 0;
	if (m) {
		step = sframe_pow2_floor(m);
		p = s[step] < key ? m - step + 1 : 0;
		while (step > 1) {
			step /= 2;
			p = s[p + step] < key ? p + step : p;
		}
	}
	return rows->id[first - 1 + p];
}

/*
 * sframe_rows_rule_of() inline, for the kernel's lookup cache fill: one
 * block read and a short binary search, not worth a call.  @marked (may
 * be NULL): result with a rule, whether its row is marked.
 */
static __always_inline const struct sframe_rows_rule *
sframe_rows_lookup(const struct sframe_rows *rows, u64 pc, int *err,
		   bool *marked)
{
	u32 id = sframe_rows_lookup_id(rows, pc);

	if (id == SFRAME_ROWS_GAP) {
		*err = -SFRAME_E_NO_FDE;
		return NULL;
	}
	if (id == SFRAME_ROWS_CORE) {
		*err = 1;
		return NULL;
	}
	*err = 0;
	if (marked)
		*marked = id & SFRAME_ROWS_MARK;
	return &rows->rules[id & ~SFRAME_ROWS_MARK];
}

/* AArch64 (either byte order): signed return addresses, PAC keys. */
static inline bool sframe_abi_is_aarch64(unsigned int abi)
{
	return abi == SFRAME_ABI_AARCH64_ENDIAN_BIG ||
	       abi == SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
}

static inline bool sframe_abi_aarch64(const struct sframe_section *sec)
{
	return sframe_abi_is_aarch64(sec->abi);
}

/* FDE attribute helpers. */
static inline bool sframe_fde_pcmask(const struct sframe_fde *fde)
{
	return SFRAME_FUNC_PC_TYPE(fde->info) == SFRAME_PC_TYPE_MASK;
}

static inline bool sframe_fde_flex(const struct sframe_fde *fde)
{
	return SFRAME_V3_FUNC_FDE_TYPE(fde->info2) == SFRAME_FDE_TYPE_FLEX;
}

static inline bool sframe_fde_signal(const struct sframe_section *sec,
				     const struct sframe_fde *fde)
{
	return sec->version >= SFRAME_VERSION_3 &&
	       SFRAME_V3_FUNC_SIGNAL_P(fde->info);
}

/* sframe_rule_no_red_zone() on a rule's three locations. */
static inline void sframe_locs_no_red_zone(const struct sframe_loc *cfa,
					   struct sframe_loc *ra,
					   struct sframe_loc *fp,
					   unsigned int sp_reg)
{
	if (cfa->kind != SFRAME_LOC_REG || cfa->reg != sp_reg || cfa->deref)
		return;
	if (fp->kind == SFRAME_LOC_CFA && (s64)cfa->offset + fp->offset < 0)
		fp->kind = SFRAME_LOC_SAME;
	if (ra->kind == SFRAME_LOC_CFA && (s64)cfa->offset + ra->offset < 0)
		ra->kind = SFRAME_LOC_SAME;
}

/**
 * sframe_rule_no_red_zone() - drop saves that lie below the stack pointer
 * @rule: a decoded rule whose CFA is SP + offset (else left alone)
 * @sp_reg: DWARF number of the stack pointer
 *
 * Code without a red zone (the kernel: -mno-red-zone on x86_64, none on
 * AArch64) never reads below its stack pointer, and an interrupt may
 * overwrite anything there.  A register whose save slot lies below SP
 * has therefore been restored already: gcc leaves the FP (or LR) rule of
 * an epilogue stale after the "pop" in a .cold partition, and the
 * assembler copies it into SFrame.  Such a rule becomes "unchanged".
 * The kernel unwinder and the build-time verifier both apply this, so
 * the verifier judges the rules the unwinder uses.
 */
static inline void sframe_rule_no_red_zone(struct sframe_rule *rule,
					   unsigned int sp_reg)
{
	sframe_locs_no_red_zone(&rule->cfa, &rule->ra, &rule->fp, sp_reg);
}

/* Number of data words of an FRE. */
static inline unsigned int sframe_fre_words(const struct sframe_fre *fre)
{
	return SFRAME_FRE_WORD_COUNT(fre->info);
}

#endif /* _SFRAME_SFRAME_H */
