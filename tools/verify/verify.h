/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sframe-verify, the parts of one program (see sframe-verify.c):
 *
 *   sframe-verify.c  driver: options, the work on each input
 *   input.c          reading an input: symbols, SFrame, annotations
 *   coverage.c       check: every code byte described, annotation spans
 *   x86.c            check, x86_64: SFrame against ORC, instruction patterns
 *   arm64.c          check, arm64: FDEs against symbols, AAPCS64 frame records
 *   fixups.c         fixup writers: --write-fixups, --module-fixups
 *   report.c         findings as lines, the summary
 *   ivals.c          interval sets
 *   exceptions.c     the exceptions file
 */
#ifndef _SFRAME_TOOLS_VERIFY_H
#define _SFRAME_TOOLS_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include <sframe/sframe.h>
#include <sframe/annot.h>
#include "../lib/sframe-elf.h"

extern const char *prog;

/* Finding classes. */
enum cls {
	CLS_NONE,
	CLS_UNKNOWN,
	CLS_STACK_SWITCH,
	CLS_PUSHF_POP,
	CLS_IRET_TO_SELF,
	CLS_ALT_PUSHF,
	CLS_LATE_PUSH,
	CLS_LATE_ADD,
	CLS_FTRACE_NOP,
	CLS_DRAP,
	CLS_CALL_PADDING,
	CLS_FDE_MISMATCH,
	CLS_ORPHAN_FDE,
	CLS_FRAME_RECORD,
	CLS_STALE_RULE,
	CLS_MAX
};

extern const char * const cls_names[CLS_MAX];

/* Exceptions file. */
enum exc_kind { EXC_MISSING, EXC_WRONG };
enum exc_pat { PAT_GLOB, PAT_SECTION, PAT_RANGE, PAT_CLASS };

struct exception {
	unsigned int machine;	/* 0: any */
	enum exc_kind kind;
	enum exc_pat pat;
	char *arg;		/* glob, section, first range symbol */
	char *arg2;		/* second range symbol, or class glob */
	enum cls cls;
	char *reason;
	int line;
	uint64_t lo, hi;	/* PAT_RANGE resolved in the current file */
	int resolved;
	uint64_t hits, bytes;
};

/* A half-open address interval. */
struct ival {
	uint64_t lo, hi;
};

struct ivals {
	struct ival *v;
	size_t n, cap;
};

/* A code symbol's bytes after overlaps are resolved. */
struct region {
	uint64_t lo, hi;
	uint64_t sym;		/* symbol start (for sym+off) */
	const char *name;
	uint64_t shndx;
	int wrong;		/* has wrong bytes (function count) */
	const struct region *alias;	/* symbols with the same bytes */
	size_t nalias;
};

struct orc {
	uint64_t ip;
	int16_t sp_off, bp_off;
	uint8_t sp_reg, bp_reg, type, end;
};

struct annot {
	uint64_t lo, hi;
	uint8_t type;
};

struct stats {
	uint64_t text, sframe, annot, exc, unknown;
	uint64_t compared, agree, bp_unchanged, orc_only, wrong, wrong_funcs;
	uint64_t cls_bytes[CLS_MAX], ss_annotated, wrong_unknown;
	uint64_t fdes, fde_bad, fde_orphan, frame_bad, stale_bad, arm_unknown;
	uint64_t nfix, fix_free, fix_total, fix_written;
	uint64_t known[2];	/* known findings: uncovered, wrong */
	int has_orc, has_annot, has_fixarea;
};

/* What the parts of an input's .sframe share: the ABI's registers. */
struct abi_regs {
	u8 sp_reg, fp_reg;
};

/* One SFrame section of the input's .sframe (see sframe_open_part()). */
struct part {
	struct sframe_section sec;
	u32 *index;
	u32 first;		/* index of its first FDE in the sequence */
};

/* The options of a run (sframe-verify.c), as the parts read them. */
struct verify_opts {
	int verbose;		/* --verbose: every finding, known ones too */
	int quiet;		/* --quiet: unknown findings and the summary */
	int warn;		/* --policy warn: unknown findings exit 0 */
	int fixups;		/* --write-fixups */
	int count;		/* --count-fixups: print only their number */
	const char *modfix;	/* --module-fixups FILE, or NULL */
};

/* Everything known about the current input. */
struct input {
	const char *path;
	const struct verify_opts *opt;
	struct elf_file f;
	const char *arch;
	struct abi_regs sec;	/* register numbers, the same in every part */
	struct part *parts;	/* .sframe: a module's has one per object */
	size_t nparts;
	int has_sframe;
	struct region *regs;
	size_t nregs;
	struct region *syms;	/* every code symbol, sorted (aliases) */
	struct ival *allsyms;	/* every sized code symbol, sorted */
	size_t nallsyms;
	struct ivals rows;	/* bytes with an SFrame row, merged */
	struct ivals symset;	/* bytes inside code symbols, merged */
	uint64_t *bounds;	/* SFrame row boundaries, sorted */
	size_t nbounds;
	struct orc *orc;
	size_t norc;
	struct ival *alts;	/* .altinstructions: original instructions */
	struct ival *alt_repl;	/* ... and their replacements */
	size_t nalts;
	struct annot *annots;
	size_t nannots;
	struct ivals annot_all, annot_ssi;
	struct ivals fix;	/* wrong and unannotated: fixup candidates */
	int annot_sec;
	struct stats st;
};

/* The first byte an annotation entry at @addr describes. */
static inline uint64_t annot_start(uint64_t addr, const struct sframe_annot *a)
{
	return addr + offsetof(struct sframe_annot, pc) + (int64_t)a->pc;
}

/* Make the annotation entry at @addr describe the bytes from @start. */
static inline void annot_set_start(struct sframe_annot *a, uint64_t addr,
				   uint64_t start)
{
	a->pc = (s32)(start - addr - offsetof(struct sframe_annot, pc));
}

/* input.c */
void die(const char *path, const char *fmt, ...);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
void load_symbols(struct input *in);
void load_sframe(struct input *in);
void load_annots(struct input *in);
void input_free(struct input *in);
struct region *region_at(const struct input *in, uint64_t a);
const struct region *region_or_fake(const struct input *in, uint64_t a,
				    struct region *fake);
const uint8_t *text_bytes(const struct input *in, uint64_t a, uint64_t len);
const struct part *part_at(const struct input *in, uint64_t pc,
			   struct sframe_fde *fde);
int sframe_rule_at(const struct input *in, uint64_t pc,
		   struct sframe_rule *r);
void annot_get(const struct input *in, const uint8_t *p,
	       struct sframe_annot *a);
void annot_put(const struct input *in, uint8_t *p,
	       const struct sframe_annot *a);

/* coverage.c */
void check_coverage(struct input *in);
void check_annot_spans(struct input *in);

/* report.c */
void fmt_sframe(const struct input *in, int err, const struct sframe_rule *r,
		char *buf, size_t n);
void sym_range(const struct region *r, uint64_t lo, uint64_t hi, char *buf,
	       size_t n);
int finding(struct input *in, const char *what, const struct region *r,
	    uint64_t lo, uint64_t hi, const struct exception *e,
	    const char *known, const char *detail);
void print_summary(const struct input *in);

/* x86.c */
int is_drap_gap(const struct input *in, const struct region *r, uint64_t lo,
		uint64_t hi);
int is_call_padding(const struct input *in, const struct region *r,
		    uint64_t lo, uint64_t hi);
void load_orc(struct input *in);
void load_alts(struct input *in);
void check_orc(struct input *in);

/* arm64.c */
int is_ftrace_nops(const struct input *in, const struct region *r,
		   uint64_t lo, uint64_t hi);
void check_arm64(struct input *in);

/* fixups.c */
int do_fixups(struct input *in, int write);
void do_module_fixups(struct input *in, const char *path);

/* ivals.c */
void iv_add(struct ivals *s, uint64_t lo, uint64_t hi);
void iv_merge(struct ivals *s);
uint64_t iv_overlap(const struct ivals *s, uint64_t lo, uint64_t hi);
void iv_subtract(const struct ivals *s, uint64_t lo, uint64_t hi,
		 struct ivals *out);

/* exceptions.c */
void exc_load(const char *path);
void exc_resolve(struct input *in);
struct exception *exc_match(const struct input *in, enum exc_kind kind,
			    const struct region *r, uint64_t lo, uint64_t hi,
			    enum cls cls);
void exc_reset(void);
void exc_print_hits(const char *path);

#endif
