/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sframe-hostile: what its files share (main.c: the driver, section.c: the
 * section and its mutations, stack.c: the chain, the spinning leaf and the
 * stack variants, perf.c: the perf event and the records, conc.c: the
 * concurrent mode).  Each file includes this one after defining
 * _GNU_SOURCE.
 */
#ifndef HOSTILE_H
#define HOSTILE_H

#include <pthread.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <sframe/sframe.h>
#include "../perfring.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "little-endian targets only (x86_64, aarch64)"
#endif

#if defined(__x86_64__)
#define KERNEL_ADDR	0xffffffff81000000ULL
#define USER_END	(1ULL << 47)
#define SFRAME_ABI	SFRAME_ABI_AMD64_ENDIAN_LITTLE
#define LEAF_RA_SLOT	1	/* the leaf's return address is on the stack */
#elif defined(__aarch64__)
#define KERNEL_ADDR	0xffff800008000000ULL
#define USER_END	(1ULL << 48)
#define SFRAME_ABI	SFRAME_ABI_AARCH64_ENDIAN_LITTLE
#define LEAF_RA_SLOT	0	/* in x30 */
#else
#error "x86_64 or aarch64 only"
#endif

#define HFN		__attribute__((noinline, noipa))
#define NO_TAIL()	asm volatile("" ::: "memory")
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define RING_PAGES	64
#define MAX_WR		48	/* stack slots overwritten at once */
#define FLAP_MAX	64	/* bytes flapping */
#define ALT_SIZE	(128 << 10)
#define CTX_SIZE	(64 << 10)
#define BASE_RUNS	10	/* chain runs per baseline */
#define MAX_REPORT	5

/* ---- options and the state shared with the parent (main.c) -------------- */

extern const char *prog;

struct options {
	unsigned long n, period_ns, min_ms, max_ms, timeout, want;
	unsigned long threads, mutators, seconds;	/* -t, -j, -d */
	u64 seed;
	bool quiet, verbose, no_perf, expect, user_only;
};

extern struct options opt;

enum phase { P_SETUP, P_BASE, P_SECTION, P_MAP, P_STACK, P_CONC, P_DONE, NPHASE };

extern const char *const phase_names[NPHASE];

/* ---- the concurrent mode's numbers (-t), also shared -------------------- */

#define CONC_MAX	16	/* workers, mutators */

/* a worker's runs: before the mutators start, while they run, after */
enum { CB_BEFORE, CB_MUT, CB_AFTER, NCPHASE };

enum mclass {
	M_REWRITE, M_FLAP, M_UNMAP, M_PROTNONE, M_FILE_PAGE, M_ANON,
	M_TEXT_REMAP, M_TEXT_MPROTECT, M_TEXT_PAGE, NMCLASS
};

/* per worker and phase; [1]: on a pristine section, [0]: not known to be */
struct cstats {
	unsigned long samples[2], chain[2], complete[2], prefix[2], wrong[2];
	unsigned long unbracketed, runs;
};

struct conc_shared {
	struct cstats st[CONC_MAX][NCPHASE];
	unsigned long mut[CONC_MAX][NMCLASS];
	unsigned long lost, throttled, records, overflow;
	double seconds;
	int workers, mutators;
};

struct shared {
	int phase;
	unsigned long variant;
	char desc[200];
	unsigned long nsection, nstack, samples, chained;
	struct conc_shared conc;
};

/* survives a crash of the child */
extern struct shared *sh;

/* ---- PRNG: splitmix64, one stream per variant ---------------------------- */

/*
 * per thread: the concurrent mode's mutators draw their own streams
 * (defined in stack.c, whose chain draws from it)
 */
extern __thread u64 rs;

static inline u64 rnd(void)
{
	u64 z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline u64 rndn(u64 n)
{
	return n ? rnd() % n : 0;
}

static inline void seed_variant(unsigned int kind, unsigned long i)
{
	rs = opt.seed ^ ((u64)kind << 56) ^ (i * 0xd1b54a32d192ed03ULL);
	rnd();
}

static inline u64 pick_u64(const u64 *v, size_t n)
{
	return v[rndn(n)];
}

#define PICK(...)							\
	pick_u64((const u64[]){ __VA_ARGS__ },			\
		 sizeof((const u64[]){ __VA_ARGS__ }) / sizeof(u64))

/* ---- failures, descriptions, time (main.c) -------------------------------- */

extern bool failed;

/* the description being written: sh->desc, or a thread's own (-t) */
extern __thread char *desc_tls;

/* the thread failing, in the concurrent mode: "worker 1", "mutator 0" */
extern __thread const char *who;

void describe(const char *fmt, ...);
void fail(const char *fmt, ...);
void __attribute__((noreturn)) die(int status, const char *fmt, ...);
double cpu_ms(void);
double wall_s(void);
void start_variant(enum phase ph, unsigned long i);
void end_variant(void);

/* ---- the chain and the spinning leaf (stack.c) ---------------------------- */

/* levels: a function's return address points into the next level's function */
enum { LV_LEAF, LV_C, LV_B, LV_A, LV_OUTER, LV_RUN, NLEVELS };

extern const char *const level_names[NLEVELS];

HFN unsigned long h_leaf(unsigned long x);
HFN unsigned long h_c(unsigned long x);
HFN unsigned long h_b(unsigned long x);
HFN unsigned long h_a(unsigned long x);
HFN unsigned long h_outer(unsigned long x);
HFN unsigned long run_chain(unsigned long x);

/* per thread (the chain runs in several threads with -t) */
extern __thread void *volatile ra_of[NLEVELS];	/* each function's return address */
extern __thread volatile unsigned long chain_sink;

enum kclass {
	K_RA, K_BELOW, K_ABOVE, K_ALL_RA, K_ALL, K_SWAP, K_RANDOM, K_REGS,
	K_ALTSTACK, K_CONTEXT, NKCLASS
};

extern const char *const kclass_names[NKCLASS];
extern unsigned long kclass_count[NKCLASS];

/*
 * The concurrent mode (-t): which samples were taken while the section was
 * pristine.  Mutators count every mutation's begin (before its first
 * change) and end (after its last undo) in mstate; a worker observes
 * (mstate, data_head, mstate) at points of its run, also inside the leaf's
 * spin, and logs each interval between two observations in which data_head
 * moved.  A sample record's walk ran in the interrupt that wrote it, which
 * came between the last observation that did not see the record and the
 * first that did: if no mutation was under way at the first and none began
 * until the second, the walk read only the pristine section
 * (conc_valid(), and qemu/user/README.md).
 */
#define SPAN_MAX	64

/* mutations begun (high 32 bits) and ended (low 32 bits) */
extern u64 mstate;

struct span {
	u64 from, to;			/* data_head before and after */
	u64 g0, g1;			/* mstate at the two observations */
};

struct watch {
	volatile u64 *head;
	u64 last_h, last_g;
	struct span log[SPAN_MAX];
	unsigned int n;
	unsigned long overflow;
};

/* one observation (no calls: the leaf's spin uses it); data_head */
static __always_inline u64 observe(struct watch *w)
{
	u64 g0, h, g1;

	/* the loads of a walk in an interrupt before this point come first */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	g0 = __atomic_load_n(&mstate, __ATOMIC_ACQUIRE);
	h = __atomic_load_n(w->head, __ATOMIC_ACQUIRE);
	g1 = __atomic_load_n(&mstate, __ATOMIC_ACQUIRE);
	if (h != w->last_h) {
		if (w->n < SPAN_MAX) {
			w->log[w->n].from = w->last_h;
			w->log[w->n].to = h;
			w->log[w->n].g0 = w->last_g;
			w->log[w->n].g1 = g1;
			w->n++;
		} else {
			w->overflow++;
		}
	}
	w->last_h = h;
	w->last_g = g0;
	return h;
}

void leaf_set_ring(volatile u64 *head);
void leaf_set_watch(struct watch *w);
void leaf_reset(void);
void flap_set_base(u8 *base);
void flap_reset(void);
void flap_add(u32 off, u8 orig, u8 mut);
int flap_count(void);
void leaf_check_restored(void);
unsigned long leaf_slots_written(void);
unsigned long leaf_slots_skipped(void);
u64 leaf_iters_per_ms(void);
void calibrate(unsigned int want);
void setup_stacks(void);
void run_stack_variants(unsigned long n);

/* ---- the section (section.c) ---------------------------------------------- */

/*
 * The section as the SFrame core (lib/sframe/, compiled in) opens
 * it: every FDE, FRE and field this program forges is located through the
 * core, for any SFrame version; nothing here decodes the format.
 */
struct fde {
	struct sframe_fde d;		/* decoded from the pristine copy */
	u64 anchor;			/* start = anchor + the start field */
	u32 first, nfres;		/* its FREs in sf.fres[] */
};

struct section {
	u8 *live;			/* the section in memory */
	u8 *orig;			/* pristine copy of [live, live + len) */
	uintptr_t addr;
	size_t len;			/* PT_GNU_SFRAME p_memsz */
	size_t used;			/* header, FDEs and FREs */
	uintptr_t page;			/* the pages holding it */
	size_t page_len;
	u8 *orig_pages;
	off_t file_off;			/* of page in the executable, -1 */
	uintptr_t text_lo, text_hi;	/* the text mapping (-t), 0: unknown */
	off_t text_off;			/* its offset in the executable */
	struct sframe_section sec;	/* the pristine copy, opened */
	u32 hdr_end, fdeoff, freoff, fre_len;	/* raw header values */
	struct fde *fdes;
	struct sframe_fre *fres;
	u32 nfres;
	int level_fde[NLEVELS];		/* FDE of each chain function, -1 */
	u32 chain_fdes[NLEVELS];	/* distinct ones */
	int nchain;
};

extern struct section sf;
extern int exe_fd;
extern long page_size;

enum sclass {
	S_FLIP, S_NUM_FDES, S_NUM_FRES, S_FRE_LEN, S_FDEOFF, S_FREOFF, S_IDENT,
	S_ABI_FLAGS, S_AUX_FIXED, S_UNSORTED, S_FDE_START, S_FDE_SIZE, S_FDE_FREOFF,
	S_FDE_NFRES, S_PCMASK, S_FDE_INFO, S_FRE_CFA, S_FRE_RA_FP, S_FRE_INFO,
	S_FRE_START, S_TRUNCATE, S_RANDOM, S_FLAP, S_UNMAP, S_PROTNONE, NSCLASS
};

extern const char *const sclass_names[NSCLASS];
extern unsigned long sclass_count[NSCLASS];

void setup_section(void);
void remap_section(void);
void mutate(enum sclass c);
void mutate_flappable(void);
enum sclass pick_inplace(void);
void check_pristine(void);
void run_section_variants(unsigned long n);
void run_map_variants(unsigned long first, unsigned long nmap);

/* ---- perf and the records (perf.c) ---------------------------------------- */

struct counts {
	unsigned long samples, chained, empty, nonuser, maxnr, lost, throttled;
	unsigned long records;
};

struct sample {
	u64 ip, nr;
	const u64 *ips;			/* nr entries */
};

extern struct counts cnt[NPHASE];
extern u64 max_entries;		/* perf_event_max_stack + 1 */
extern pid_t my_pid;

/* baselines: leaf samples, and those unwound through run_chain */
#define NBASE	4
extern const char *const base_names[NBASE];
extern unsigned long base_leaf[NBASE], base_ok[NBASE];
extern int base_cur;

bool in_level(u64 a, int lv);
int check_record(const struct perf_event_header *hdr, const unsigned char *p,
		 pid_t tid, struct counts *c, struct sample *s);
void drain(void);
u64 read_sysctl(const char *path, u64 def);
int open_event(struct perf_ring *r);
void open_perf(void);

/* ---- the concurrent mode (conc.c) ----------------------------------------- */

int conc_main(void);
void conc_summary(int crashes);

#endif /* HOSTILE_H */
