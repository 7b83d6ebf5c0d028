// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-hostile: hostile input for the kernel's SFrame user unwinder.
 *
 * The program samples itself with perf_event_open() (user callchains) and,
 * while the samples are taken, feeds the unwinder
 *   - section variants: its own .sframe (PT_GNU_SFRAME), made writable,
 *     forged in place one way at a time (header fields, FDEs, FREs, byte
 *     flips, truncation, bytes flapping between two states during the
 *     walk), unmapped, or made PROT_NONE;
 *   - stack variants: a spinning leaf function overwrites its callers'
 *     return addresses, saved frame pointers and other slots with garbage
 *     (0, -1, kernel addresses, loops, unaligned values, values below the
 *     stack pointer), sets SP/FP/LR to garbage, or runs on a small mmap'ed
 *     stack (sigaltstack, makecontext) that the walk must leave.
 * Everything is restored before the leaf returns. Each variant runs the
 * chain run_chain -> h_outer -> h_a -> h_b -> h_c -> h_leaf until a few
 * samples were taken (the ring buffer's data_head moved), then the ring
 * buffer is drained and every record checked: a well-formed sample record,
 * our pid/tid, PERF_CONTEXT_USER then the sample IP first, at most
 * perf_event_max_stack + 1 entries. A wrong or short chain is expected;
 * a malformed record, a failed self-check or a crash is a failure.
 *
 * The work runs in a forked child so that a crash is reported (with the
 * variant it happened in) rather than lost. See qemu/user/README.md.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <sframe/sframe.h>
#include "perfring.h"

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

static const char *prog = "sframe-hostile";

struct options {
	unsigned long n, period_ns, min_ms, max_ms, timeout, want;
	unsigned long threads, mutators, seconds;	/* -t, -j, -d */
	u64 seed;
	bool quiet, verbose, no_perf, expect, user_only;
};

static struct options opt = {
	.n = 1000, .period_ns = 100000, .min_ms = 1, .max_ms = 25, .timeout = 600,
	.want = 2, .seconds = 20,
};

/* ---- state shared with the parent (survives a crash) --------------------- */

enum phase { P_SETUP, P_BASE, P_SECTION, P_MAP, P_STACK, P_CONC, P_DONE, NPHASE };

static const char *const phase_names[NPHASE] = {
	"setup", "baseline", "section variant", "unmap/PROT_NONE section variant",
	"stack variant", "concurrent run", "done",
};

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

static struct shared *sh;

/* ---- PRNG: splitmix64, one stream per variant ---------------------------- */

/* per thread: the concurrent mode's mutators draw their own streams */
static __thread u64 rs;

static u64 rnd(void)
{
	u64 z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u64 rndn(u64 n)
{
	return n ? rnd() % n : 0;
}

static void seed_variant(unsigned int kind, unsigned long i)
{
	rs = opt.seed ^ ((u64)kind << 56) ^ (i * 0xd1b54a32d192ed03ULL);
	rnd();
}

static u64 pick_u64(const u64 *v, size_t n)
{
	return v[rndn(n)];
}

#define PICK(...)							\
	pick_u64((const u64[]){ __VA_ARGS__ },			\
		 sizeof((const u64[]){ __VA_ARGS__ }) / sizeof(u64))

/* ---- failures and descriptions ------------------------------------------ */

static bool failed;
static unsigned long nreported;

/* the description being written: sh->desc, or a thread's own (-t) */
static __thread char *desc_tls;

static char *desc_buf(void)
{
	return desc_tls ? desc_tls : sh->desc;
}

static void describe(const char *fmt, ...)
{
	char *d = desc_buf();
	size_t len = strlen(d);
	va_list ap;

	if (len >= sizeof(sh->desc) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(d + len, sizeof(sh->desc) - len, fmt, ap);
	va_end(ap);
}

/* the thread failing, in the concurrent mode: "worker 1", "mutator 0" */
static __thread const char *who;

static void fail(const char *fmt, ...)
{
	va_list ap;

	__atomic_store_n(&failed, true, __ATOMIC_RELAXED);
	if (__atomic_fetch_add(&nreported, 1, __ATOMIC_RELAXED) >= 20)
		return;
	flockfile(stdout);
	if (who)
		printf("%s: FAIL: %s (%s): ", prog, who, desc_buf());
	else if (sh->phase == P_DONE)
		printf("%s: FAIL: ", prog);
	else
		printf("%s: FAIL: %s %lu (%s): ", prog, phase_names[sh->phase],
		       sh->variant, sh->desc);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	funlockfile(stdout);
}

static void __attribute__((noreturn)) die(int status, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", prog);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(status);
}

/* ---- the chain and the spinning leaf ------------------------------------- */

/* levels: a function's return address points into the next level's function */
enum { LV_LEAF, LV_C, LV_B, LV_A, LV_OUTER, LV_RUN, NLEVELS };

static const char *const level_names[NLEVELS] = {
	"h_leaf", "h_c", "h_b", "h_a", "h_outer", "run_chain",
};

HFN unsigned long h_leaf(unsigned long x);
HFN unsigned long h_c(unsigned long x);
HFN unsigned long h_b(unsigned long x);
HFN unsigned long h_a(unsigned long x);
HFN unsigned long h_outer(unsigned long x);
HFN unsigned long run_chain(unsigned long x);

static unsigned long (*const level_fn[NLEVELS])(unsigned long) = {
	h_leaf, h_c, h_b, h_a, h_outer, run_chain,
};

/* per thread (the chain runs in several threads with -t) */
static __thread void *volatile ra_of[NLEVELS];	/* each function's return address */
static __thread uintptr_t chain_top;	/* slots below it may be overwritten */
static uintptr_t stack_limit = UINTPTR_MAX;	/* end of a small stack */
static __thread volatile unsigned long chain_sink;

static __thread volatile u64 *ring_head;	/* perf's data_head (or a dummy) */
static u64 ring_dummy;
static u64 spin_min, spin_max;	/* loop iterations */
static u64 regs_min, regs_max;	/* ... of regs_loop() */
static unsigned int spin_want;		/* data_head moves to wait for */
static u64 iters_per_ms, regs_per_ms;

/* one stack slot overwritten by the leaf */
struct slot_write {
	volatile u64 *addr;
	u64 val, saved;
	bool rel;			/* val is added to the slot's value */
	bool done;
};

enum kclass {
	K_RA, K_BELOW, K_ABOVE, K_ALL_RA, K_ALL, K_SWAP, K_RANDOM, K_REGS,
	K_ALTSTACK, K_CONTEXT, NKCLASS
};

static const char *const kclass_names[NKCLASS] = {
	"return-address", "slot-below-ra", "slot-above-ra", "all-return-addresses",
	"all-ra-and-saved-fp", "ra-of-another-frame", "random-slots",
	"sp/fp/lr-registers", "sigaltstack", "makecontext",
};

enum vkind {
	V_ZERO, V_ONES, V_KERNEL, V_SELF, V_LEAF, V_UNALIGNED, V_BELOW_SP,
	V_NONCANON, V_RANDOM, NVKIND
};

static const char *const vkind_names[NVKIND] = {
	"0", "-1", "kernel address", "the slot's address", "h_leaf",
	"unaligned (+3)", "below SP", "first non-user address", "random",
};

static struct {
	bool active;
	enum kclass cls;		/* K_RA .. K_REGS */
	int level;			/* target frame, -1: chosen in plan_stack */
	int chosen, other;		/* the frames plan_stack chose */
	enum vkind val;
	u64 sp, fp, lr;		/* K_REGS */
} plan;

static struct slot_write wr[MAX_WR];
static __thread int nwr;
static unsigned long slots_written, slots_skipped, slots_not_restored;

/* flapping bytes of the section (S_FLAP) */
static struct {
	u32 off;
	u8 orig, mut;
} flap[FLAP_MAX];
static int nflap;
static volatile u8 *flap_base;

static __always_inline void flap_toggle(u64 t)
{
	int k;

	for (k = 0; k < nflap; k++)
		flap_base[flap[k].off] = (t & 1) ? flap[k].orig : flap[k].mut;
}

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
static u64 mstate;

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

static __thread struct watch *watch;	/* NULL: not a -t worker */

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

/*
 * The spin: until spin_want samples were written (data_head moved) and
 * spin_min iterations ran, at most spin_max iterations. No calls.
 */
static __always_inline unsigned long spin(unsigned long r)
{
	u64 i, last = *ring_head, head;
	unsigned int seen = 0;

	for (i = 0; i < spin_max; i++) {
		r = r * 6364136223846793005UL + 1442695040888963407UL;
		asm volatile("" : "+r"(r));
		if (i % 64)
			continue;
		if (nflap)
			flap_toggle(i / 64);
		head = watch ? observe(watch) : *ring_head;
		if (head != last) {
			last = head;
			seen++;
		}
		if (seen >= spin_want && i >= spin_min)
			break;
	}
	if (nflap)
		flap_toggle(1);		/* pristine */
	return r;
}

/* n iterations of an empty loop with SP, FP (and LR) set to garbage */
static __always_inline void regs_loop(u64 n, u64 sp, u64 fp, u64 lr)
{
#if defined(__x86_64__)
	register u64 rn asm("rcx") = n;
	register u64 rsp asm("rsi") = sp;
	register u64 rfp asm("rdi") = fp;

	(void)lr;
	asm volatile("mov %%rsp, %%r10\n\t"
		     "mov %%rbp, %%r11\n\t"
		     "mov %[sp], %%rsp\n\t"
		     "mov %[fp], %%rbp\n"
		     "1:\tdec %[n]\n\t"
		     "jnz 1b\n\t"
		     "mov %%r11, %%rbp\n\t"
		     "mov %%r10, %%rsp"
		     : [n] "+r" (rn)
		     : [sp] "r" (rsp), [fp] "r" (rfp)
		     : "r10", "r11", "cc", "memory");
#elif defined(__aarch64__)
	register u64 rn asm("x12") = n;
	register u64 rsp asm("x13") = sp;
	register u64 rfp asm("x14") = fp;
	register u64 rlr asm("x15") = lr;

	asm volatile("mov x9, sp\n\t"
		     "mov x10, x29\n\t"
		     "mov x11, x30\n\t"
		     "mov sp, %[sp]\n\t"
		     "mov x29, %[fp]\n\t"
		     "mov x30, %[lr]\n"
		     "1:\tsubs %[n], %[n], #1\n\t"
		     "b.ne 1b\n\t"
		     "mov x30, x11\n\t"
		     "mov x29, x10\n\t"
		     "mov sp, x9"
		     : [n] "+r" (rn)
		     : [sp] "r" (rsp), [fp] "r" (rfp), [lr] "r" (rlr)
		     : "x9", "x10", "x11", "cc", "memory");
#endif
}

/* The spin with garbage registers, in chunks: data_head is read between. */
static __always_inline void regs_spin(void)
{
	u64 i, chunk = regs_per_ms / 16 + 1, last = *ring_head, head;
	unsigned int seen = 0;

	for (i = 0; i < regs_max; i += chunk) {
		regs_loop(chunk, plan.sp, plan.fp, plan.lr);
		head = *ring_head;
		if (head != last) {
			last = head;
			seen++;
		}
		if (seen >= spin_want && i + chunk >= regs_min)
			break;
	}
}

/*
 * The leaf: overwrites the planned slots (callers' frames only: at or
 * above its CFA, or its own return address slot), spins while samples are
 * taken, restores the slots. No calls in between.
 */
HFN unsigned long h_leaf(unsigned long x)
{
	uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa();
	u64 ra = (uintptr_t)__builtin_return_address(0);
	unsigned long r = x;
	int k, j;

	ra_of[LV_LEAF] = (void *)(uintptr_t)ra;
	for (k = 0; k < nwr; k++) {
		volatile u64 *a = wr[k].addr;
		uintptr_t ua = (uintptr_t)a;

		wr[k].done = (ua >= cfa && ua + 8 <= chain_top && ua % 8 == 0) ||
			     (LEAF_RA_SLOT && ua == cfa - 8 && *a == ra);
		if (!wr[k].done) {
			slots_skipped++;
			continue;
		}
		wr[k].saved = *a;
		*a = wr[k].rel ? wr[k].saved + wr[k].val : wr[k].val;
		slots_written++;
	}
	if (plan.active && plan.cls == K_REGS)
		regs_spin();
	else
		r = spin(r);
	for (k = nwr; k-- > 0;)
		if (wr[k].done)
			*wr[k].addr = wr[k].saved;
	/* self-check: every slot has its value back (first write per slot) */
	for (k = 0; k < nwr; k++) {
		if (!wr[k].done)
			continue;
		for (j = 0; j < k; j++)
			if (wr[j].done && wr[j].addr == wr[k].addr)
				break;
		if (j == k && *wr[k].addr != wr[k].saved)
			slots_not_restored++;
	}
	return r;
}

/* the bad value of kind v for write w (sp: h_c's stack pointer) */
static void slot_value(struct slot_write *w, enum vkind v, uintptr_t sp)
{
	w->rel = false;
	switch (v) {
	case V_ZERO:
		w->val = 0;
		break;
	case V_ONES:
		w->val = ~0ULL;
		break;
	case V_KERNEL:
		w->val = KERNEL_ADDR;
		break;
	case V_SELF:
		w->val = (uintptr_t)w->addr;
		break;
	case V_LEAF:
		w->val = (uintptr_t)h_leaf;
		break;
	case V_UNALIGNED:
		w->val = 3;
		w->rel = true;
		break;
	case V_BELOW_SP:
		w->val = sp - 512 - 8 * rndn(4096);
		break;
	case V_NONCANON:
		w->val = USER_END;
		break;
	default:
		w->val = rnd();
		break;
	}
}

/* plans a write at addr if it is in a caller's frame (at or above base) */
static void add_write(uintptr_t addr, enum vkind v, uintptr_t base)
{
	if (nwr >= MAX_WR || addr < base || addr + 8 > chain_top)
		return;
	wr[nwr].addr = (volatile u64 *)addr;
	wr[nwr].done = false;
	slot_value(&wr[nwr], v, base);
	nwr++;
}

/* the leaf's own return address slot (x86_64), checked by the leaf */
static void add_leaf_ra_write(uintptr_t addr, enum vkind v, uintptr_t base)
{
	if (nwr >= MAX_WR)
		return;
	wr[nwr].addr = (volatile u64 *)addr;
	wr[nwr].done = false;
	slot_value(&wr[nwr], v, base);
	nwr++;
}

/*
 * Called by h_c right before it calls h_leaf: finds the return addresses
 * of h_c and its callers on the stack between h_c's SP (this function's
 * CFA) and chain_top, and plans the leaf's writes.
 */
HFN static void plan_stack(void)
{
	uintptr_t base = (uintptr_t)__builtin_dwarf_cfa(), pos = base, a;
	uintptr_t slot[NLEVELS] = { 0 };
	int lv, found[NLEVELS], nfound = 0, k, n;

	nwr = 0;
	if (!plan.active || plan.cls == K_REGS)
		return;
	if (LEAF_RA_SLOT) {		/* checked by the leaf */
		slot[LV_LEAF] = base - 8;
		found[nfound++] = LV_LEAF;
	}
	for (lv = LV_C; lv < NLEVELS; lv++) {
		u64 want = (uintptr_t)ra_of[lv];

		for (a = pos; a + 8 <= chain_top; a += 8)
			if (*(volatile u64 *)a == want)
				break;
		if (a + 8 > chain_top)
			continue;
		slot[lv] = a;
		found[nfound++] = lv;
		pos = a + 8;
	}
	if (!nfound)
		return;
	lv = plan.level >= 0 && slot[plan.level] ? plan.level : found[rndn(nfound)];
	plan.chosen = lv;
	switch (plan.cls) {
	case K_RA:
		if (lv == LV_LEAF)
			add_leaf_ra_write(slot[lv], plan.val, base);
		else
			add_write(slot[lv], plan.val, base);
		break;
	case K_BELOW:			/* x86_64: the callee's first push */
		if (lv == LV_LEAF) {
			if (nfound < 2)
				break;
			lv = found[1 + rndn(nfound - 1)];
			plan.chosen = lv;
		}
		add_write(slot[lv] - 8, plan.val, base);
		break;
	case K_ABOVE:
		add_write(slot[lv] + 8, plan.val, base);
		break;
	case K_ALL_RA:
	case K_ALL:
		for (k = 0; k < nfound; k++) {
			if (found[k] == LV_LEAF) {
				add_leaf_ra_write(slot[LV_LEAF], plan.val, base);
				continue;
			}
			add_write(slot[found[k]], plan.val, base);
			if (plan.cls == K_ALL)
				add_write(slot[found[k]] - 8, plan.val, base);
		}
		break;
	case K_SWAP:
		/* the return address of another frame: back down (a loop) or up */
		if (lv == LV_LEAF)
			lv = found[nfound - 1];
		plan.chosen = lv;
		if (nwr < MAX_WR && slot[lv]) {
			int other = LV_C + rndn(NLEVELS - LV_C);

			if (other == lv)
				other = other == LV_C ? LV_RUN : LV_C;
			plan.other = other;
			wr[nwr].addr = (volatile u64 *)slot[lv];
			wr[nwr].val = (uintptr_t)ra_of[other];
			wr[nwr].rel = false;
			nwr++;
		}
		break;
	case K_RANDOM:
		n = 1 + rndn(8);
		for (k = 0; k < n && chain_top > base + 8; k++)
			add_write(base + 8 * rndn((chain_top - base) / 8),
				  (enum vkind)rndn(NVKIND), base);
		break;
	default:
		break;
	}
}

/* A VLA: h_c's CFA is based on its frame register (rbp / x29). */
HFN unsigned long h_c(unsigned long x)
{
	unsigned long n = 2 + (x & 3), v[n], r, i;

	ra_of[LV_C] = __builtin_return_address(0);
	for (i = 0; i < n; i++)
		v[i] = x + i;
	asm volatile("" : : "r"(v) : "memory");
	plan_stack();
	NO_TAIL();
	r = h_leaf(v[0] ^ v[n - 1]);
	NO_TAIL();
	return r + v[1];
}

/* Values live across the call: callee-saved registers saved. */
HFN unsigned long h_b(unsigned long x)
{
	unsigned long a = x * 3, b = x ^ 0x55, c = x + 7, d = x >> 1, e = x * 5 + 1;
	unsigned long r;

	ra_of[LV_B] = __builtin_return_address(0);
	r = h_c(a + b);
	NO_TAIL();
	return r ^ a ^ (b + c) ^ (d * e);
}

/* A 1 KB frame. */
HFN unsigned long h_a(unsigned long x)
{
	unsigned long buf[128], r;

	ra_of[LV_A] = __builtin_return_address(0);
	buf[x & 127] = x;
	asm volatile("" : : "r"(buf) : "memory");
	r = h_b(x + 1);
	NO_TAIL();
	return r + buf[(x + 1) & 127];
}

HFN unsigned long h_outer(unsigned long x)
{
	unsigned long r;

	ra_of[LV_OUTER] = __builtin_return_address(0);
	r = h_a(x ^ 0x1234);
	NO_TAIL();
	return r;
}

/* The chain's root: slots up to 64 bytes above its CFA may be overwritten. */
HFN unsigned long run_chain(unsigned long x)
{
	uintptr_t cfa = (uintptr_t)__builtin_dwarf_cfa();
	unsigned long r;

	ra_of[LV_RUN] = __builtin_return_address(0);
	chain_top = cfa + 64 < stack_limit ? cfa + 64 : stack_limit;
	r = h_outer(x);
	NO_TAIL();
	return r;
}

/* ---- the section ---------------------------------------------------------- */

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

static struct {
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
} sf;

static int exe_fd = -1;
static long page_size;

/* n bytes at section offset off of the pristine copy, sign-extended */
static s64 get_orig(u32 off, unsigned int n)
{
	unsigned int shift = 64 - 8 * n;
	u64 v = 0;

	memcpy(&v, sf.orig + off, n);
	return (s64)(v << shift) >> shift;
}

/* writes n bytes of v at section offset off (if inside the segment) */
static void put(u64 off, u64 v, unsigned int n)
{
	if (off > sf.len || n > sf.len - off)
		return;
	memcpy(sf.live + off, &v, n);
}

/* the FDE index entry i (the core's stride) */
static u32 fde_entry(u32 i)
{
	return sf.sec.fde_base + i * sf.sec.fde_size;
}

/* where a field of FDE i lies; len 0: none in this version */
static struct sframe_field fde_field(u32 i, enum sframe_field_id id)
{
	struct sframe_field f;

	if (sframe_fde_field(&sf.sec, &sf.fdes[i].d, id, &f))
		f.len = 0;
	return f;
}

/* where a field of an FRE of FDE i lies; len 0: the row has none */
static struct sframe_field fre_field(u32 i, const struct sframe_fre *fr,
				     enum sframe_field_id id)
{
	struct sframe_field f;

	if (sframe_fre_field(&sf.sec, &sf.fdes[i].d, fr, id, &f))
		f.len = 0;
	return f;
}

static void put_field(struct sframe_field f, u64 v)
{
	put(f.off, v, f.len);
}

static int find_fde(u64 pc)
{
	u32 i;

	for (i = 0; i < sf.sec.num_fdes; i++)
		if (pc >= sf.fdes[i].d.start &&
		    pc - sf.fdes[i].d.start < sf.fdes[i].d.size)
			return i;
	return -1;
}

struct phdr_search {
	uintptr_t sframe, sframe_len;
	uintptr_t load_vaddr, load_off, load_len;	/* the PT_LOAD holding it */
	bool found, in_text;
	uintptr_t text_lo[16], text_hi[16];
	int ntext;
	uintptr_t x_lo, x_hi, x_off;	/* the first executable PT_LOAD */
};

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct phdr_search *ps = arg;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_GNU_SFRAME) {
			ps->sframe = info->dlpi_addr + ph->p_vaddr;
			ps->sframe_len = ph->p_memsz;
			ps->found = true;
		}
	}
	if (!ps->found)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if ((ph->p_flags & PF_X) && !ps->x_hi &&
		    ph->p_filesz == ph->p_memsz &&
		    (lo & (page_size - 1)) == (ph->p_offset & (page_size - 1))) {
			ps->x_lo = lo & ~(page_size - 1);
			ps->x_hi = (lo + ph->p_filesz + page_size - 1) & ~(page_size - 1);
			ps->x_off = ph->p_offset & ~(page_size - 1);
		}
		if ((ph->p_flags & PF_X) && ps->ntext < 16) {
			ps->text_lo[ps->ntext] = lo & ~(page_size - 1);
			ps->text_hi[ps->ntext++] = (lo + ph->p_memsz + page_size - 1) &
						   ~(page_size - 1);
		}
		if (ps->sframe >= lo && ps->sframe + ps->sframe_len <= lo + ph->p_filesz) {
			ps->load_vaddr = lo;
			ps->load_off = ph->p_offset;
			ps->load_len = ph->p_filesz;
			ps->in_text = ph->p_flags & PF_X;
		}
	}
	return 1;			/* the executable only */
}

/* FDEs and FREs of the section as opened with opts; 0 or a core error */
static int decode_section(unsigned int opts)
{
	u32 i, j, p, cap = 0;
	int err;

	err = sframe_open(&sf.sec, sf.orig, sf.len, sf.addr, opts);
	if (!err)
		err = sframe_validate(&sf.sec, NULL, NULL);
	if (err)
		return err;
	free(sf.fdes);
	sf.fdes = calloc(sf.sec.num_fdes + 1, sizeof(*sf.fdes));
	if (!sf.fdes)
		die(2, "out of memory");
	sf.nfres = 0;
	for (i = 0; i < sf.sec.num_fdes; i++) {
		struct fde *f = &sf.fdes[i];
		struct sframe_field start;

		err = sframe_get_fde(&sf.sec, i, &f->d);
		if (err)
			return err;
		start = fde_field(i, SFRAME_FIELD_FDE_START);
		f->anchor = f->d.start - get_orig(start.off, start.len);
		f->first = sf.nfres;
		for (j = 0, p = f->d.fres; j < f->d.num_fres; j++) {
			if (sf.nfres == cap) {
				cap = cap ? 2 * cap : 256;
				sf.fres = realloc(sf.fres, cap * sizeof(*sf.fres));
				if (!sf.fres)
					die(2, "out of memory");
			}
			err = sframe_read_fre(&sf.sec, &f->d, p,
					      &sf.fres[sf.nfres]);
			if (err)
				return err;
			p = sf.fres[sf.nfres++].next;
		}
		f->nfres = sf.nfres - f->first;
	}
	return 0;
}

/*
 * Opens the pristine copy with the core; exits 2 when it is not the SFrame
 * we expect.  Start addresses: as the header says, else PC-relative,
 * whichever puts an FDE at h_leaf.
 */
static void parse_section(void)
{
	unsigned int mode;
	int lv, f, err = 0;

	for (mode = 0; mode < 2; mode++) {
		err = decode_section(mode ? SFRAME_OPEN_PCREL : 0);
		if (err)
			die(2, ".sframe: %s (%s)", sframe_strerror(err),
			    sframe_errname(err));
		f = find_fde((uintptr_t)h_leaf);
		if (f >= 0 && sf.fdes[f].d.start == (uintptr_t)h_leaf)
			break;
	}
	if (mode == 2)
		die(2, ".sframe: no FDE starts at h_leaf %p", (void *)h_leaf);
	if (sf.sec.abi != SFRAME_ABI)
		die(2, ".sframe: ABI %u, expected %u", sf.sec.abi, SFRAME_ABI);
	sf.used = sf.sec.size;
	sf.hdr_end = SFRAME_HDR_SIZE + sf.orig[SFRAME_HDR_AUXHDR_LEN];
	sf.fdeoff = sf.sec.fde_base - sf.hdr_end;
	sf.freoff = sf.sec.fre_base - sf.hdr_end;
	sf.fre_len = sf.sec.fre_end - sf.sec.fre_base;
	for (lv = 0; lv < NLEVELS; lv++) {
		int k;

		f = find_fde((uintptr_t)level_fn[lv]);
		sf.level_fde[lv] = f;
		if (f < 0)
			die(2, ".sframe: no FDE covers %s", level_names[lv]);
		for (k = 0; k < sf.nchain; k++)
			if (sf.chain_fdes[k] == (u32)f)
				break;
		if (k == sf.nchain)
			sf.chain_fdes[sf.nchain++] = f;
	}
}

/* Finds the section, keeps the pristine bytes, makes its pages writable. */
static void setup_section(void)
{
	struct phdr_search ps = { 0 };
	int i;

	page_size = sysconf(_SC_PAGESIZE);
	dl_iterate_phdr(phdr_cb, &ps);
	if (!ps.found)
		die(2, "no PT_GNU_SFRAME in the executable: built without -Wa,--gsframe?");
	if (!ps.load_len || ps.in_text)
		die(2, ".sframe at %#lx is %s: link with -z separate-code", ps.sframe,
		    ps.in_text ? "in the text segment" : "in no PT_LOAD");
	sf.addr = ps.sframe;
	sf.len = ps.sframe_len;
	sf.live = (u8 *)sf.addr;
	sf.page = sf.addr & ~(page_size - 1);
	sf.page_len = ((sf.addr + sf.len + page_size - 1) & ~(page_size - 1)) - sf.page;
	for (i = 0; i < ps.ntext; i++)
		if (sf.page < ps.text_hi[i] && sf.page + sf.page_len > ps.text_lo[i])
			die(2, ".sframe pages %#lx-%#lx share a page with text",
			    sf.page, sf.page + sf.page_len);
	sf.text_lo = ps.x_lo;
	sf.text_hi = ps.x_hi;
	sf.text_off = ps.x_off;
	sf.file_off = ps.load_off + (sf.page - ps.load_vaddr);
	if (sf.page < ps.load_vaddr && ps.load_vaddr - sf.page > ps.load_off)
		sf.file_off = -1;
	sf.orig = malloc(sf.len);
	sf.orig_pages = malloc(sf.page_len);
	if (!sf.orig || !sf.orig_pages)
		die(2, "out of memory");
	memcpy(sf.orig, sf.live, sf.len);
	memcpy(sf.orig_pages, (void *)sf.page, sf.page_len);
	parse_section();
	exe_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (mprotect((void *)sf.page, sf.page_len, PROT_READ | PROT_WRITE))
		die(2, "mprotect of the .sframe pages: %s", strerror(errno));
	flap_base = sf.live;
}

/* Maps the section's pages back (from the file, else anonymous) and refills. */
static void remap_section(void)
{
	void *p = MAP_FAILED;

	if (exe_fd >= 0 && sf.file_off >= 0)
		p = mmap((void *)sf.page, sf.page_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_FIXED, exe_fd, sf.file_off);
	if (p == MAP_FAILED)
		p = mmap((void *)sf.page, sf.page_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0);
	if (p != (void *)sf.page)
		die(1, "FAIL: cannot map the .sframe pages back: %s", strerror(errno));
	if (memcmp(p, sf.orig_pages, sf.page_len))
		memcpy(p, sf.orig_pages, sf.page_len);
}

/* ---- section variants ------------------------------------------------------ */

enum sclass {
	S_FLIP, S_NUM_FDES, S_NUM_FRES, S_FRE_LEN, S_FDEOFF, S_FREOFF, S_IDENT,
	S_ABI_FLAGS, S_AUX_FIXED, S_UNSORTED, S_FDE_START, S_FDE_SIZE, S_FDE_FREOFF,
	S_FDE_NFRES, S_PCMASK, S_FDE_INFO, S_FRE_CFA, S_FRE_RA_FP, S_FRE_INFO,
	S_FRE_START, S_TRUNCATE, S_RANDOM, S_FLAP, S_UNMAP, S_PROTNONE, NSCLASS
};

static const char *const sclass_names[NSCLASS] = {
	"byte-flips", "num_fdes", "num_fres", "fre_len", "fdeoff", "freoff",
	"magic/version", "abi/flags", "auxhdr_len/fixed-offsets",
	"sorted-flag-on-unsorted-fdes", "fde-start", "fde-size", "fde-fre-offset",
	"fde-num-fres", "pcmask-type", "fde-info", "fre-cfa-offset",
	"fre-ra/fp-offset", "fre-info", "fre-start", "truncation", "random-fill",
	"flapping", "munmap", "prot-none",
};

/* in-place classes, weighted */
static const enum sclass sched_section[] = {
	S_FLIP, S_FLIP, S_FLIP, S_NUM_FDES, S_NUM_FRES, S_FRE_LEN, S_FDEOFF,
	S_FREOFF, S_IDENT, S_ABI_FLAGS, S_AUX_FIXED, S_UNSORTED, S_FDE_START,
	S_FDE_START, S_FDE_SIZE, S_FDE_FREOFF, S_FDE_NFRES, S_PCMASK, S_FDE_INFO,
	S_FRE_CFA, S_FRE_CFA, S_FRE_RA_FP, S_FRE_RA_FP, S_FRE_INFO, S_FRE_START,
	S_TRUNCATE, S_RANDOM, S_FLAP, S_FLAP,
};

static unsigned long sclass_count[NSCLASS], kclass_count[NKCLASS];

/* an FDE: a chain function's 3 times out of 4 */
static u32 pick_fde(void)
{
	if (rndn(4) && sf.nchain)
		return sf.chain_fdes[rndn(sf.nchain)];
	return rndn(sf.sec.num_fdes);
}

static const char *fde_name(u32 i)
{
	int lv;

	for (lv = 0; lv < NLEVELS; lv++)
		if (sf.level_fde[lv] == (int)i)
			return level_names[lv];
	return "other";
}

/* an FRE of FDE i, NULL if it has none */
static const struct sframe_fre *pick_fre(u32 i)
{
	const struct fde *f = &sf.fdes[i];

	if (!f->nfres)
		return NULL;
	return &sf.fres[f->first + rndn(f->nfres)];
}

/* the largest signed value of a field of n bytes */
static u64 smax(unsigned int n)
{
	return (1ULL << (8 * n - 1)) - 1;
}

/* FDE entry i's start field set to addr (from entry i's anchor) */
static void set_fde_start(u32 i, u64 addr)
{
	struct sframe_field f = fde_field(i, SFRAME_FIELD_FDE_START);
	s64 raw = (s64)(addr - sf.fdes[i].anchor), min = -(s64)smax(f.len) - 1;

	if (raw < min || raw > (s64)smax(f.len)) {
		raw = min;
		describe(" (out of reach: %#" PRIx64 ")",
			 sf.fdes[i].anchor + (u64)raw);
	}
	put_field(f, raw);
}

/* extreme values of a signed word of n bytes */
static u64 word_extreme(unsigned int n)
{
	u64 max = smax(n);

	return PICK(max, max + 1, 0, (u64)-8, (u64)-1, 1, max - 7, rnd());
}

static void flip_bytes(void)
{
	unsigned int k, n = 1 + rndn(16);

	describe(" %u bytes:", n);
	for (k = 0; k < n; k++) {
		u32 off = rndn(sf.used);
		u8 x = 1 + rndn(255);

		sf.live[off] ^= x;
		if (k < 4)
			describe(" [%u]^=%#x", off, x);
	}
}

/*
 * A 32-bit field of the header (S_NUM_FDES to S_FREOFF: counts, the FRE
 * sub-section's length, the offsets): 0, 1, around its own value and its
 * neighbours', past the end, the sign bit, all ones, random.
 */
static void mut_header_word(enum sclass c)
{
	const struct sframe_section *sec = &sf.sec;
	u32 end = sf.len - sf.hdr_end;	/* offsets past the segment */
	unsigned int off;
	u64 v;

	switch (c) {
	case S_NUM_FDES:
		off = SFRAME_HDR_NUM_FDES;
		v = PICK(0, 1, sec->num_fdes - 1, sec->num_fdes + 1,
			 2 * sec->num_fdes,
			 (sec->fre_base - sec->fde_base) / sec->fde_size + 1,
			 (sf.len - sec->fde_base) / sec->fde_size + 1, 0x7fffffff,
			 0x80000000, 0xffffffff, (u32)rnd());
		break;
	case S_NUM_FRES:
		off = SFRAME_HDR_NUM_FRES;
		v = PICK(0, 1, sec->num_fres - 1, sec->num_fres + 1, 0x80000000,
			 0xffffffff, (u32)rnd());
		break;
	case S_FRE_LEN:
		off = SFRAME_HDR_FRE_LEN;
		v = PICK(0, 1, sf.fre_len - 1, sf.fre_len + 1,
			 sf.len - sec->fre_base + 1, sf.len - sec->fre_base + 4096,
			 0x7fffffff, 0xffffffff, (u32)rnd());
		break;
	case S_FDEOFF:
		off = SFRAME_HDR_FDEOFF;
		v = PICK(sf.fdeoff ? 0 : 1, 1, sf.freoff, sf.freoff + 1,
			 sf.fdeoff + sec->fde_size, end, end + 1, 0x80000000,
			 0xffffffff, (u32)rnd());
		break;
	default:
		off = SFRAME_HDR_FREOFF;
		v = PICK(0, 1, sf.fdeoff, sf.fdeoff + sec->fde_size,
			 sf.freoff - 1, sf.freoff + 1, end - sf.fre_len + 1, end,
			 0x80000000, 0xffffffff, (u32)rnd());
		break;
	}
	put(off, v, 4);
	describe(" = %#" PRIx64, v);
}

/* magic and version (or a consistent foreign identity) */
static void mut_ident(void)
{
	const struct sframe_section *sec = &sf.sec;
	u64 v;

	if (!rndn(4)) {
		/* consistent but foreign: big-endian, or PC-relative */
		if (rndn(2)) {
			put(SFRAME_HDR_MAGIC, 0xe2de, 2);
			put(SFRAME_HDR_ABI, PICK(SFRAME_ABI_AARCH64_ENDIAN_BIG,
						 SFRAME_ABI_S390X_ENDIAN_BIG), 1);
			describe(" big-endian magic and abi %u", sf.live[SFRAME_HDR_ABI]);
		} else {
			/* v3 data read as v2: FDEs of another size */
			v = sec->version == SFRAME_VERSION_2 ?
			    SFRAME_VERSION_3 : SFRAME_VERSION_2;
			put(SFRAME_HDR_VERSION, v, 1);
			sf.live[SFRAME_HDR_FLAGS] |= SFRAME_F_FDE_FUNC_START_PCREL;
			describe(" version %" PRIu64 " with PC-relative starts",
				 v);
		}
	} else if (rndn(2)) {
		v = PICK(0, 0xe2de /* big-endian magic */, 0xdee3, 0xffff,
			 (u16)rnd());
		put(SFRAME_HDR_MAGIC, v, 2);
		describe(" magic = %#" PRIx64, v);
	} else {
		v = PICK(0, sec->version == 1 ? 2 : 1, 3, 4, 0x7f, 0xff);
		put(SFRAME_HDR_VERSION, v, 1);
		describe(" version = %" PRIu64, v);
	}
}

/* ABI or flags */
static void mut_abi_flags(void)
{
	const struct sframe_section *sec = &sf.sec;
	u64 v;

	if (rndn(2)) {
		do {
			v = PICK(0, 1, 2, 3, 4, 5, 0x7f, 0xff);
		} while (v == SFRAME_ABI);
		put(SFRAME_HDR_ABI, v, 1);
		describe(" abi = %" PRIu64, v);
	} else {
		v = PICK(0, SFRAME_F_FRAME_POINTER,
			 SFRAME_F_FDE_FUNC_START_PCREL | sec->flags, 0x7, 0x80,
			 0xff);
		put(SFRAME_HDR_FLAGS, v, 1);
		describe(" flags = %#" PRIx64, v);
	}
}

/* auxiliary header length or a fixed offset */
static void mut_aux_fixed(void)
{
	u64 v;

	switch (rndn(3)) {
	case 0:
		v = PICK(1, 3, 8, 0xff, rndn(256));
		put(SFRAME_HDR_AUXHDR_LEN, v, 1);
		describe(" auxhdr_len = %" PRIu64, v);
		break;
	case 1:
		v = PICK(0, 0x7f, 0x80, 0xf0, 0x10, rndn(256));
		put(SFRAME_HDR_FIXED_FP, v, 1);
		describe(" fixed_fp = %d", (s8)v);
		break;
	default:
		v = PICK(0, 0x7f, 0x80, 0xf0, 0x10, rndn(256));
		put(SFRAME_HDR_FIXED_RA, v, 1);
		describe(" fixed_ra = %d", (s8)v);
		break;
	}
}

/* FDE entries reordered, flagged sorted */
static void mut_unsorted(void)
{
	const struct sframe_section *sec = &sf.sec;
	u32 i;
	static const char *const unsorted_names[] = {
		"reversed", "rotated", "two swapped", "shuffled",
	};
	/* FDE entries moved (start fields kept pointing at their function) */
	u32 n = sec->num_fdes, *perm = calloc(n, sizeof(*perm));
	unsigned int how = rndn(4);

	if (!perm)
		die(1, "out of memory");
	for (i = 0; i < n; i++)
		perm[i] = how == 0 ? n - 1 - i : how == 1 ? (i + 1) % n : i;
	if (how == 2 && n > 1) {	/* a chain FDE swapped with another */
		u32 a = pick_fde(), b = rndn(n);

		if (a == b)
			b = (a + 1) % n;
		perm[a] = b;
		perm[b] = a;
	}
	if (how == 3)
		for (i = n - 1; i > 0; i--) {
			u32 j = rndn(i + 1), t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
	for (i = 0; i < n; i++) {	/* entry i gets old entry perm[i] */
		memcpy(sf.live + fde_entry(i), sf.orig + fde_entry(perm[i]),
		       sec->fde_size);
		set_fde_start(i, sf.fdes[perm[i]].d.start);
	}
	sf.live[SFRAME_HDR_FLAGS] |= SFRAME_F_FDE_SORTED;
	describe(" (%s)", unsorted_names[how]);
	free(perm);
}

/* an FDE's start: itself, the kernel, another function, extremes */
static void mut_fde_start(void)
{
	const struct sframe_section *sec = &sf.sec;
	u32 i;
	struct sframe_field f;
	u64 v;
	u32 prev, next;

	i = pick_fde();
	prev = i ? i - 1 : sec->num_fdes - 1;
	next = (i + 1) % sec->num_fdes;
	describe(" fde %u (%s)", i, fde_name(i));
	switch (rndn(8)) {
	case 0:
		describe(" -> itself");
		set_fde_start(i, sf.addr + fde_entry(i));
		break;
	case 1:
		describe(" -> kernel %#llx", KERNEL_ADDR);
		set_fde_start(i, KERNEL_ADDR);
		break;
	case 2:
		describe(" -> fde %u's start (overlap)", prev);
		set_fde_start(i, sf.fdes[prev].d.start);
		break;
	case 3:
		describe(" -> fde %u's start (overlap)", next);
		set_fde_start(i, sf.fdes[next].d.start);
		break;
	case 4:
		describe(" -> fde %u's start, size 0xffffffff", prev);
		set_fde_start(i, sf.fdes[prev].d.start);
		put_field(fde_field(i, SFRAME_FIELD_FDE_SIZE), 0xffffffff);
		break;
	case 5:
		/* the field's extremes: 0, max, min, -1 */
		f = fde_field(i, SFRAME_FIELD_FDE_START);
		v = PICK(0, smax(f.len), smax(f.len) + 1, ~0ULL);
		describe(" raw = %#" PRIx64,
			 f.len < 8 ? v & ((1ULL << 8 * f.len) - 1) : v);
		put_field(f, v);
		break;
	case 6:
		v = PICK(1, (u64)-1, 4, (u64)-4, 16);
		describe(" += %" PRId64, (s64)v);
		set_fde_start(i, sf.fdes[i].d.start + v);
		break;
	default:
		describe(" -> the section's start");
		set_fde_start(i, sf.addr);
		break;
	}
}

/* an FDE's size */
static void mut_fde_size(void)
{
	u32 i;
	u64 v;

	i = pick_fde();
	v = PICK(0, 1, 0xffffffff, 0x80000000, sf.fdes[i].d.size + 1,
		 2 * sf.fdes[i].d.size, (u32)rnd());
	put_field(fde_field(i, SFRAME_FIELD_FDE_SIZE), v);
	describe(" fde %u (%s) = %#" PRIx64, i, fde_name(i), v);
}

/* an FDE's FRE offset */
static void mut_fde_freoff(void)
{
	u32 i;
	struct sframe_field f;
	u64 v;
	u32 fre_off;

	i = pick_fde();
	f = fde_field(i, SFRAME_FIELD_FDE_FRE_OFF);
	fre_off = get_orig(f.off, f.len);
	/* back to earlier FREs (another FDE's, its own +-1), past the end */
	v = PICK(i ? get_orig(fde_field(rndn(i), SFRAME_FIELD_FDE_FRE_OFF).off,
			      f.len) : 0,
		 0, fre_off + 1, fre_off ? fre_off - 1 : 1, sf.fre_len,
		 sf.fre_len - 1, 0x80000000, 0xffffffff, (u32)rnd());
	put_field(f, v);
	describe(" fde %u (%s) = %#" PRIx64, i, fde_name(i), v);
}

/* an FDE's FRE count */
static void mut_fde_nfres(void)
{
	u32 i;
	struct sframe_field f;
	u64 v;
	u32 fre_off;

	i = pick_fde();
	f = fde_field(i, SFRAME_FIELD_FDE_FRE_OFF);
	fre_off = get_orig(f.off, f.len);
	f = fde_field(i, SFRAME_FIELD_FDE_NUM_FRES);
	v = PICK(0, sf.fdes[i].d.num_fres + 1, sf.fre_len - fre_off + 1,
		 0xff, 0xffff, 0x10000, 0x7fffffff, 0xffffffff,
		 (u32)rnd());
	put_field(f, v);
	describe(" fde %u (%s) = %#" PRIx64, i, fde_name(i),
		 v & ((1ULL << 8 * f.len) - 1));
}

/* PCMASK FDEs */
static void mut_pcmask(void)
{
	const struct sframe_section *sec = &sf.sec;
	u32 i;
	struct sframe_field f;
	u64 v;

	if (rndn(4)) {
		i = pick_fde();
		sf.live[fde_field(i, SFRAME_FIELD_FDE_INFO).off] |=
			SFRAME_PC_TYPE_MASK << 4;
		describe(" fde %u (%s)", i, fde_name(i));
		f = fde_field(i, SFRAME_FIELD_FDE_REP_SIZE);
		if (f.len) {		/* not in v1 */
			v = PICK(0, 1, 16, 0xff);
			put_field(f, v);
			describe(" rep_size %" PRIu64, v);
		}
	} else {
		for (i = 0; i < sec->num_fdes; i++)
			sf.live[fde_field(i, SFRAME_FIELD_FDE_INFO).off] |=
				SFRAME_PC_TYPE_MASK << 4;
		describe(" every fde");
	}
}

/* an FDE's info byte (v3: its type too) */
static void mut_fde_info(void)
{
	u32 i;
	struct sframe_field f;
	u64 v;

	i = pick_fde();
	v = sf.fdes[i].d.info;
	switch (rndn(4)) {
	case 0:				/* start-address type 3..15 */
		v = (v & ~0xfULL) | (3 + rndn(13));
		break;
	case 1:				/* another valid type */
		v = (v & ~0xfULL) | ((SFRAME_FUNC_FRE_TYPE(v) + 1 + rndn(2)) % 3);
		break;
	case 2:
		v = PICK(v | 0x20, 0xff, 0);
		break;
	default:
		v = rndn(256);
		break;
	}
	put_field(fde_field(i, SFRAME_FIELD_FDE_INFO), v);
	describe(" fde %u (%s) = %#" PRIx64, i, fde_name(i), v);
	f = fde_field(i, SFRAME_FIELD_FDE_INFO2);
	if (f.len && !rndn(4)) {	/* v3: the FDE type too */
		v = PICK(SFRAME_FDE_TYPE_DEFAULT, SFRAME_FDE_TYPE_FLEX,
			 2, 0x1f, 0xff, rndn(256));
		put_field(f, v);
		describe(" info2 = %#" PRIx64, v);
	}
}

/* a CFA word, or (@ra_fp) an RA or FP word, of one or every row of an FDE */
static void mut_fre_word(bool ra_fp)
{
	u32 i;
	const struct sframe_fre *fr;
	struct sframe_field f;
	u64 v;
	enum sframe_field_id id = SFRAME_FIELD_FRE_CFA;
	bool all = !rndn(4);
	u32 k;

	i = pick_fde();
	fr = pick_fre(i);
	if (!fr) {
		flip_bytes();
		return;
	}
	if (ra_fp) {
		bool ra = rndn(2);

		/* no word in the row: the header's fixed offset */
		id = ra ? SFRAME_FIELD_FRE_RA : SFRAME_FIELD_FRE_FP;
		if (ra && !fre_field(i, fr, id).len) {
			v = PICK(0 /* RA at the CFA */, 8, 0xf0, 0x7f, 0x80);
			put(SFRAME_HDR_FIXED_RA, v, 1);
			describe(" fixed_ra = %d", (s8)v);
			return;
		}
		if (!fre_field(i, fr, id).len) {
			v = PICK(0, 8, 0x80);
			put(SFRAME_HDR_FIXED_FP, v, 1);
			describe(" fixed_fp = %d", (s8)v);
			return;
		}
	}
	f = fre_field(i, fr, id);
	if (!f.len) {			/* a row without words */
		flip_bytes();
		return;
	}
	describe(" fde %u (%s) %s %s word", i, fde_name(i),
		 all ? "every fre" : "one fre",
		 id == SFRAME_FIELD_FRE_CFA ? "CFA" :
		 id == SFRAME_FIELD_FRE_RA ? "RA" : "FP");
	/* RA/FP: at the CFA itself half of the time */
	v = ra_fp && rndn(2) ? 0 : word_extreme(f.len);
	describe(" = %#" PRIx64, v & ((1ULL << (8 * f.len - 1) << 1) - 1));
	if (!all) {
		put_field(f, v);
		return;
	}
	for (k = 0; k < sf.fdes[i].nfres; k++)
		put_field(fre_field(i, &sf.fres[sf.fdes[i].first + k], id),
			  v);
}

/* an FRE's info byte */
static void mut_fre_info(void)
{
	u32 i;
	const struct sframe_fre *fr;
	u64 v;

	i = pick_fde();
	fr = pick_fre(i);
	if (!fr) {
		flip_bytes();
		return;
	}
	v = fr->info;
	switch (rndn(6)) {
	case 0:
		v &= ~0x1eULL;			/* no words */
		break;
	case 1:
		v |= 0x1e;			/* 15 words */
		break;
	case 2:				/* one more */
		v = (v & ~0x1eULL) | ((sframe_fre_words(fr) + 1) << 1);
		break;
	case 3:
		v |= 0x60;			/* word size 3 */
		break;
	case 4:
		v ^= 1 | 0x80;			/* base register, mangled RA */
		break;
	default:
		v = rndn(256);
		break;
	}
	put_field(fre_field(i, fr, SFRAME_FIELD_FRE_INFO), v);
	describe(" fde %u (%s) fre at %u info = %#" PRIx64, i, fde_name(i),
		 fr->off, v);
}

/* an FRE's start */
static void mut_fre_start(void)
{
	u32 i;
	const struct sframe_fre *fr;
	struct sframe_field f;
	u64 v;
	u64 max;

	i = pick_fde();
	fr = pick_fre(i);
	if (!fr) {
		flip_bytes();
		return;
	}
	f = fre_field(i, fr, SFRAME_FIELD_FRE_START);
	max = f.len == 4 ? 0xffffffffULL : (1ULL << (8 * f.len)) - 1;
	if (fr == &sf.fres[sf.fdes[i].first]) {
		v = PICK(1, sf.fdes[i].d.size, max);	/* nothing covers the entry */
	} else {
		u64 prev = fr[-1].start;

		v = PICK(prev, prev ? prev - 1 : 0, 0, sf.fdes[i].d.size, max,
			 rnd() & max);
	}
	put_field(f, v);
	describe(" fde %u (%s) fre at %u start = %#" PRIx64, i, fde_name(i),
		 fr->off, v);
}

/* the section zeroed from some offset on */
static void mut_truncate(void)
{
	const struct sframe_section *sec = &sf.sec;
	u64 v;

	v = PICK(rndn(sf.used), sec->fre_base, sec->fde_base, sf.used - 1,
		 sf.hdr_end, SFRAME_HDR_SIZE,
		 sec->fre_base + rndn(sf.fre_len + 1));
	if (v > sf.used)
		v = sf.used;
	memset(sf.live + v, 0, sf.used - v);
	describe(" zeroed from %" PRIu64 " of %zu", v, sf.used);
}

/* random bytes over an FDE, an FRE, the header or anywhere */
static void mut_random(void)
{
	const struct sframe_section *sec = &sf.sec;
	u32 i;
	const struct sframe_fre *fr;
	u32 from, len, k;

	switch (rndn(4)) {
	case 0:
		i = pick_fde();
		from = fde_entry(i);
		len = sec->fde_size;
		describe(" fde %u (%s)", i, fde_name(i));
		break;
	case 1:
		fr = pick_fre(pick_fde());
		from = fr ? fr->off : sec->fre_base;
		len = fr ? fr->next - fr->off : 4;
		describe(" fre at %u", from);
		break;
	case 2:
		from = 0;
		len = SFRAME_HDR_SIZE;
		describe(" header");
		break;
	default:
		from = rndn(sf.used);
		len = 1 + rndn(64);
		describe(" %u at %u", len, from);
		break;
	}
	for (k = 0; k < len && from + k < sf.used; k++)
		sf.live[from + k] = rnd();
}

/* a CFA word of one or every row */
static void mut_fre_cfa(void)
{
	mut_fre_word(false);
}

/* an RA or FP word (or the fixed offset in its place) */
static void mut_fre_ra_fp(void)
{
	mut_fre_word(true);
}

/*
 * The in-place mutations, one per class (the header's 32-bit fields:
 * mut_header_word()); the others (flapping, munmap, PROT_NONE) act on the
 * mapping, not on the bytes.
 */
static void (*const section_mutations[NSCLASS])(void) = {
	[S_FLIP]		= flip_bytes,
	[S_IDENT]		= mut_ident,
	[S_ABI_FLAGS]		= mut_abi_flags,
	[S_AUX_FIXED]		= mut_aux_fixed,
	[S_UNSORTED]		= mut_unsorted,
	[S_FDE_START]		= mut_fde_start,
	[S_FDE_SIZE]		= mut_fde_size,
	[S_FDE_FREOFF]		= mut_fde_freoff,
	[S_FDE_NFRES]		= mut_fde_nfres,
	[S_PCMASK]		= mut_pcmask,
	[S_FDE_INFO]		= mut_fde_info,
	[S_FRE_CFA]		= mut_fre_cfa,
	[S_FRE_RA_FP]		= mut_fre_ra_fp,
	[S_FRE_INFO]		= mut_fre_info,
	[S_FRE_START]		= mut_fre_start,
	[S_TRUNCATE]		= mut_truncate,
	[S_RANDOM]		= mut_random,
};

/* Applies one in-place mutation of class c to the live section. */
static void mutate(enum sclass c)
{
	describe("%s", sclass_names[c]);
	if (c >= S_NUM_FDES && c <= S_FREOFF)
		mut_header_word(c);
	else if (section_mutations[c])
		section_mutations[c]();
}

/* flap: a mutation whose bytes the leaf flips back and forth while spinning */
static const enum sclass flap_classes[] = {
	S_FLIP, S_NUM_FDES, S_NUM_FRES, S_FRE_LEN, S_FDEOFF, S_FREOFF, S_IDENT,
	S_ABI_FLAGS, S_FDE_START, S_FDE_SIZE, S_FDE_FREOFF, S_FDE_NFRES,
	S_FDE_INFO, S_FRE_CFA, S_FRE_RA_FP, S_FRE_INFO, S_FRE_START,
};

static void setup_flap(void)
{
	u32 off;

	mutate(flap_classes[rndn(ARRAY_SIZE(flap_classes))]);
	nflap = 0;
	for (off = 0; off < sf.len && nflap < FLAP_MAX; off++) {
		if (sf.live[off] == sf.orig[off])
			continue;
		flap[nflap].off = off;
		flap[nflap].orig = sf.orig[off];
		flap[nflap].mut = sf.live[off];
		nflap++;
	}
	memcpy(sf.live, sf.orig, sf.len);	/* the leaf flips the bytes */
	describe(" (%d bytes flapping)", nflap);
}

/* ---- perf and the records ---------------------------------------------------- */

struct counts {
	unsigned long samples, chained, empty, nonuser, maxnr, lost, throttled;
	unsigned long records;
};

static struct counts cnt[NPHASE];
static struct perf_ring ring;
static int perf_fd = -1;
static u64 max_entries;		/* perf_event_max_stack + 1 */
static pid_t my_pid;

/* baselines: leaf samples, and those unwound through run_chain */
#define NBASE	4
static const char *const base_names[NBASE] = {
	"start", "after in-place section variants", "after unmap/PROT_NONE",
	"after stack variants",
};

static unsigned long base_leaf[NBASE], base_ok[NBASE];
static int base_cur = -1;

static bool in_level(u64 a, int lv)
{
	const struct sframe_fde *f = &sf.fdes[sf.level_fde[lv]].d;

	return a >= f->start && a - f->start < f->size;
}

static void baseline_sample(const u64 *ips, u64 nr, u64 ip)
{
	int lv;

	if (base_cur < 0 || !in_level(ip, LV_LEAF))
		return;
	base_leaf[base_cur]++;
	for (lv = LV_C; lv < NLEVELS; lv++)
		if (nr < (u64)lv + 2 || !in_level(ips[lv + 1], lv))
			return;
	base_ok[base_cur]++;
}

struct sample {
	u64 ip, nr;
	const u64 *ips;			/* nr entries */
};

/*
 * Checks one record of the ring of thread tid and counts it in c: 1 when
 * it is a well-formed sample with a callchain (s filled), else 0.
 */
static int check_record(const struct perf_event_header *hdr,
			const unsigned char *p, pid_t tid, struct counts *c,
			struct sample *s)
{
	struct {
		u64 ip;
		u32 pid, tid;
		u64 nr;
	} h;
	const size_t fixed = sizeof(*hdr) + sizeof(h);
	const u64 *ips;
	u64 j, lost[2];

	c->records++;
	if (hdr->size % 8) {
		fail("record type %u of %u bytes: not a multiple of 8", hdr->type,
		     hdr->size);
		return 0;
	}
	switch (hdr->type) {
	case PERF_RECORD_LOST:
		if (hdr->size >= sizeof(*hdr) + sizeof(lost)) {
			memcpy(lost, p + sizeof(*hdr), sizeof(lost));
			c->lost += lost[1];
		}
		return 0;
	case PERF_RECORD_THROTTLE:
		c->throttled++;
		return 0;
	case PERF_RECORD_SAMPLE:
		break;
	default:
		return 0;
	}
	if (hdr->size < fixed) {
		fail("sample record of %u bytes", hdr->size);
		return 0;
	}
	memcpy(&h, p + sizeof(*hdr), sizeof(h));
	ips = (const u64 *)(p + fixed);
	c->samples++;
	if (h.nr > max_entries) {
		fail("callchain of %" PRIu64 " entries, more than %" PRIu64, h.nr,
		     max_entries);
		return 0;
	}
	if (hdr->size != fixed + 8 * h.nr) {
		fail("sample record of %u bytes for %" PRIu64 " callchain entries",
		     hdr->size, h.nr);
		return 0;
	}
	if ((pid_t)h.pid != my_pid || (pid_t)h.tid != tid)
		fail("sample of pid %u tid %u, expected %d/%d", h.pid, h.tid,
		     (int)my_pid, (int)tid);
	if (!h.nr) {
		c->empty++;
		return 0;
	}
	if (ips[0] != PERF_CONTEXT_USER) {
		fail("callchain entry 0 is %#" PRIx64 ", not PERF_CONTEXT_USER", ips[0]);
		return 0;
	}
	if (h.nr >= 2 && ips[1] != h.ip)
		fail("callchain entry 1 %#" PRIx64 " is not the sample ip %#" PRIx64,
		     ips[1], h.ip);
	for (j = 2; j < h.nr; j++)
		if (ips[j] >= USER_END) {
			c->nonuser++;
			if (opt.user_only)
				fail("callchain entry %" PRIu64 " of %" PRIu64 " is %#" PRIx64
				     ", outside user space", j, h.nr, ips[j]);
			break;
		}
	if (h.nr > c->maxnr)
		c->maxnr = h.nr;
	if (h.nr > 2)
		c->chained++;
	s->ip = h.ip;
	s->nr = h.nr;
	s->ips = ips;
	return 1;
}

static void handle_record(void *arg, const struct perf_event_header *hdr,
			  const unsigned char *p)
{
	struct counts *c = &cnt[sh->phase];
	unsigned long samples = c->samples, chained = c->chained;
	struct sample s;
	int r;

	(void)arg;
	r = check_record(hdr, p, my_pid, c, &s);
	sh->samples += c->samples - samples;
	sh->chained += c->chained - chained;
	if (r)
		baseline_sample(s.ips, s.nr, s.ip);
}

static void drain(void)
{
	if (perf_fd < 0)
		return;
	if (perf_ring_drain(&ring, handle_record, NULL)) {
		fail("corrupt ring buffer record (size %u)", ring.bad_size);
		exit(1);
	}
}

static u64 read_sysctl(const char *path, u64 def)
{
	FILE *f = fopen(path, "re");
	unsigned long long v;

	if (!f)
		return def;
	if (fscanf(f, "%llu", &v) != 1)
		v = def;
	fclose(f);
	return v;
}

/* a task-clock event of the calling thread, its ring buffer mapped */
static int open_event(struct perf_ring *r)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = opt.period_ns;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.exclude_callchain_kernel = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		die(2, "perf_event_open: %s: cannot sample (-N runs without perf)",
		    strerror(errno));
	if (perf_ring_map(r, fd, RING_PAGES))
		die(2, "mmap of the ring buffer: %s", strerror(errno));
	return fd;
}

static void open_perf(void)
{
	max_entries = read_sysctl("/proc/sys/kernel/perf_event_max_stack", 127) + 1;
	perf_fd = open_event(&ring);
	ring_head = (volatile u64 *)&ring.meta->data_head;
}

/* ---- running variants ------------------------------------------------------ */

static double cpu_ms(void)
{
	struct timespec ts;

	/* Without CONFIG_POSIX_TIMERS there are no CPU-time clocks. */
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* iterations of spin() and regs_loop() per millisecond of CPU time */
static void calibrate(void)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0) - 4096;
	u64 n = 100000;
	double t;

	for (;;) {
		t = cpu_ms();
		regs_loop(n, sp, sp, sp);
		t = cpu_ms() - t;
		if (t >= 20 || n >= (1ULL << 40))
			break;
		n *= t < 1 ? 16 : 2;
	}
	regs_per_ms = t > 0 ? n / t : n;
	if (!regs_per_ms)
		regs_per_ms = 1;
	regs_min = opt.min_ms * regs_per_ms;
	regs_max = opt.max_ms * regs_per_ms;
	n = 100000;

	spin_want = 0;
	for (;;) {
		spin_min = n;
		spin_max = n;
		t = cpu_ms();
		chain_sink = run_chain(n);
		t = cpu_ms() - t;
		if (t >= 20 || n >= (1ULL << 40))
			break;
		n *= t < 1 ? 16 : 2;
	}
	iters_per_ms = t > 0 ? n / t : n;
	if (!iters_per_ms)
		iters_per_ms = 1;
	spin_min = opt.min_ms * iters_per_ms;
	spin_max = opt.max_ms * iters_per_ms;
	spin_want = opt.no_perf ? 0 : opt.want;
}

static void start_variant(enum phase ph, unsigned long i)
{
	sh->phase = ph;
	sh->variant = i;
	sh->desc[0] = 0;
	plan.active = false;
	nflap = 0;
}

static void end_variant(void)
{
	if (opt.verbose)
		printf("%s: %s %lu: %s\n", prog, phase_names[sh->phase], sh->variant,
		       sh->desc);
	if (slots_not_restored) {
		fail("%lu stack slots did not get their value back", slots_not_restored);
		slots_not_restored = 0;
	}
	drain();
}

static void baseline(int b)
{
	int k;

	start_variant(P_BASE, b);
	describe("pristine, %s", base_names[b]);
	base_cur = b;
	for (k = 0; k < BASE_RUNS; k++) {
		chain_sink = run_chain(k);
		drain();
	}
	base_cur = -1;
}

static void check_pristine(void)
{
	if (memcmp(sf.live, sf.orig, sf.len))
		fail(".sframe not restored");
}

static void section_variant(unsigned long i, enum sclass c)
{
	start_variant(c == S_UNMAP || c == S_PROTNONE ? P_MAP : P_SECTION, i);
	seed_variant(1, i);
	sclass_count[c]++;
	if (c == S_UNMAP) {
		describe("%s pages %#lx-%#lx", sclass_names[c], sf.page,
			 sf.page + sf.page_len);
		if (munmap((void *)sf.page, sf.page_len))
			fail("munmap: %s", strerror(errno));
		chain_sink = run_chain(i);
		remap_section();
	} else if (c == S_PROTNONE) {
		describe("%s pages %#lx-%#lx", sclass_names[c], sf.page,
			 sf.page + sf.page_len);
		if (mprotect((void *)sf.page, sf.page_len, PROT_NONE))
			fail("mprotect PROT_NONE: %s", strerror(errno));
		chain_sink = run_chain(i);
		if (mprotect((void *)sf.page, sf.page_len, PROT_READ | PROT_WRITE))
			die(1, "FAIL: mprotect of the .sframe pages: %s", strerror(errno));
	} else {
		if (c == S_FLAP) {
			describe("flapping: ");
			setup_flap();
		} else {
			mutate(c);
		}
		chain_sink = run_chain(i);
		nflap = 0;
		memcpy(sf.live, sf.orig, sf.len);
	}
	check_pristine();
	sh->nsection++;
	end_variant();
}

/* ---- stack variants ---------------------------------------------------------- */

static const enum kclass sched_stack[] = {
	K_RA, K_RA, K_RA, K_BELOW, K_BELOW, K_ABOVE, K_ALL_RA, K_ALL, K_SWAP,
	K_RANDOM, K_RANDOM, K_REGS, K_REGS, K_ALTSTACK, K_CONTEXT,
};

struct small_stack {
	u8 *base;			/* usable: [base, top) */
	uintptr_t top;
};

static struct small_stack alt_stack, ctx_stack;
static u8 *edge_page;		/* a page followed by a PROT_NONE page */
static ucontext_t ctx_main, ctx_chain;
static unsigned long small_arg;

/* [guard][size bytes][guard] */
static void map_small_stack(struct small_stack *s, size_t size)
{
	u8 *m = mmap(NULL, size + 2 * page_size, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (m == MAP_FAILED || mprotect(m + page_size, size, PROT_READ | PROT_WRITE))
		die(2, "mmap of a stack: %s", strerror(errno));
	s->base = m + page_size;
	s->top = (uintptr_t)s->base + size;
}

static void alt_handler(int sig)
{
	(void)sig;
	chain_sink = run_chain(small_arg);
}

static void ctx_fn(void)
{
	chain_sink = run_chain(small_arg);
}

static void setup_stacks(void)
{
	stack_t ss = { 0 };
	struct sigaction sa;

	map_small_stack(&alt_stack, ALT_SIZE);
	map_small_stack(&ctx_stack, CTX_SIZE);
	edge_page = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (edge_page == MAP_FAILED || mprotect(edge_page + page_size, page_size, PROT_NONE))
		die(2, "mmap: %s", strerror(errno));
	ss.ss_sp = alt_stack.base;
	ss.ss_size = ALT_SIZE;
	if (sigaltstack(&ss, NULL))
		die(2, "sigaltstack: %s", strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = alt_handler;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		die(2, "sigaction: %s", strerror(errno));
}

/* garbage for SP, FP, LR while the leaf spins */
static void plan_regs(void)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	unsigned int k = rndn(9);

	plan.sp = here;
	switch (k) {
	case 0:
		plan.sp = 0;
		break;
	case 1:
		plan.sp = ~0xfULL;
		break;
	case 2:
		plan.sp = KERNEL_ADDR;
		break;
	case 3:
		plan.sp = here - (1 << 20) - 4096 * rndn(256);	/* far below */
		break;
	case 4:
		plan.sp = here - 61;				/* unaligned */
		break;
	case 5:
		/* at the end of a mapping */
		plan.sp = (uintptr_t)edge_page + page_size - 8 * rndn(3);
		break;
	case 6:
		plan.sp = USER_END - 16;
		break;
	case 7:
		plan.sp = sf.addr;				/* in .sframe */
		break;
	default:
		break;						/* SP right, FP/LR not */
	}
	plan.fp = PICK(0, ~0ULL, KERNEL_ADDR, plan.sp, plan.sp + 16, here - 4096,
		       (uintptr_t)edge_page + page_size - 16, rnd());
	plan.lr = PICK(0, ~0ULL, KERNEL_ADDR, (uintptr_t)h_leaf, plan.sp, rnd());
	describe(" sp %#" PRIx64 " fp %#" PRIx64, plan.sp, plan.fp);
	if (!LEAF_RA_SLOT)
		describe(" lr %#" PRIx64, plan.lr);
}

/* a slot-overwriting plan of class c (K_RA .. K_RANDOM) */
static void plan_slots(enum kclass c)
{
	plan.active = true;
	plan.cls = c;
	plan.val = rndn(NVKIND);
	plan.level = rndn(3) ? -1 : (int)rndn(NLEVELS);
	plan.chosen = -1;
	plan.other = -1;
	if (LEAF_RA_SLOT == 0 && plan.level == LV_LEAF)
		plan.level = -1;
	if (c != K_RANDOM && c != K_SWAP)
		describe(" <- %s", vkind_names[plan.val]);
}

/* what plan_stack and the leaf did */
static void describe_slots(unsigned long written)
{
	if (!plan.active || plan.cls == K_REGS)
		return;
	if (plan.chosen >= 0 && plan.cls != K_ALL_RA && plan.cls != K_ALL &&
	    plan.cls != K_RANDOM)
		describe(", frame %s", level_names[plan.chosen]);
	if (plan.cls == K_SWAP && plan.other >= 0)
		describe(" <- %s's return address", level_names[plan.other]);
	describe(": %lu slot%s", written, written == 1 ? "" : "s");
}

static void stack_variant(unsigned long i, enum kclass c)
{
	unsigned long written = slots_written;

	start_variant(P_STACK, i);
	seed_variant(2, i);
	kclass_count[c]++;
	describe("%s", kclass_names[c]);
	small_arg = i;
	switch (c) {
	case K_REGS:
		plan.active = true;
		plan.cls = K_REGS;
		plan_regs();
		chain_sink = run_chain(i);
		break;
	case K_ALTSTACK:
	case K_CONTEXT:
		describe(" (%s stack %#lx-%#lx)", c == K_ALTSTACK ? "signal" : "context",
			 c == K_ALTSTACK ? (unsigned long)alt_stack.base :
			 (unsigned long)ctx_stack.base,
			 c == K_ALTSTACK ? alt_stack.top : ctx_stack.top);
		if (rndn(2)) {
			enum kclass inner = PICK(K_RA, K_ALL_RA, K_ALL, K_RANDOM);

			describe(" + %s", kclass_names[inner]);
			plan_slots(inner);
		}
		if (c == K_ALTSTACK) {
			stack_limit = alt_stack.top;
			if (raise(SIGUSR1))
				fail("raise: %s", strerror(errno));
		} else {
			stack_limit = ctx_stack.top;
			if (getcontext(&ctx_chain)) {
				fail("getcontext: %s", strerror(errno));
				break;
			}
			ctx_chain.uc_stack.ss_sp = ctx_stack.base;
			ctx_chain.uc_stack.ss_size = CTX_SIZE;
			ctx_chain.uc_link = &ctx_main;
			makecontext(&ctx_chain, ctx_fn, 0);
			if (swapcontext(&ctx_main, &ctx_chain))
				fail("swapcontext: %s", strerror(errno));
		}
		stack_limit = UINTPTR_MAX;
		break;
	default:
		plan_slots(c);
		chain_sink = run_chain(i);
		break;
	}
	describe_slots(slots_written - written);
	plan.active = false;
	nwr = 0;
	sh->nstack++;
	end_variant();
}

/* ---- concurrent mode (-t) ---------------------------------------------------- */

/*
 * Worker threads run the chain under their own perf event (each samples
 * itself) while mutator threads change the section and the text mapping
 * the kernel finds it by.  A sample is checked against the chain when the
 * section was pristine during its walk (observe() above); its chain must
 * then be right, or stop early, never name a wrong frame.
 */
static const char *const mclass_names[NMCLASS] = {
	"rewrite", "flapping", "munmap", "prot-none", "other-file-page",
	"anonymous-page", "text-remap", "text-mprotect", "text-page-remap",
};

/* drawn from at random */
static const enum mclass sched_mut[] = {
	M_REWRITE, M_REWRITE, M_REWRITE, M_REWRITE, M_FLAP, M_FLAP, M_UNMAP,
	M_PROTNONE, M_FILE_PAGE, M_ANON, M_TEXT_REMAP, M_TEXT_MPROTECT,
	M_TEXT_PAGE,
};

static const char *const cphase_names[NCPHASE] = {
	"before the mutators", "while mutating", "after the mutators",
};

struct worker {
	int idx;
	pthread_t th;
	pid_t tid;
	int fd;
	struct perf_ring ring;
	struct watch w;
	u64 expect[NLEVELS];		/* each level's return address */
	struct counts c;
	int phase;			/* of the current run */
	u64 pos;			/* ring position of the record handled */
	char name[16], desc[200];
};

struct mutator {
	int idx;
	pthread_t th;
	char name[16], desc[200];
};

static struct worker workers[CONC_MAX];
static struct mutator mutators[CONC_MAX];
static int conc_phase;			/* CB_*, NCPHASE: stop */
static int mut_stop, nready;
static unsigned long nwrong_reported;
static pthread_rwlock_t sec_lock;	/* in place: shared; mappings: exclusive */
static off_t exe_size;
static double conc_deadline;		/* workers stop by then whatever happens */

/*
 * 1: the record at ring position pos was written while the section was
 * pristine (see observe()); 0: a mutation may have been under way; -1: not
 * written between two observations.
 */
static int conc_valid(const struct watch *w, u64 pos)
{
	unsigned int k;

	for (k = 0; k < w->n; k++) {
		const struct span *s = &w->log[k];

		if (pos - s->from < s->to - s->from)
			return (u32)(s->g0 >> 32) == (u32)s->g0 &&
			       s->g1 >> 32 == s->g0 >> 32;
	}
	return -1;
}

static void report_wrong(struct worker *wk, const struct sample *s, int lv,
			 int bad, int valid)
{
	char buf[512];
	size_t len;
	u64 j;

	if (opt.quiet ||
	    __atomic_fetch_add(&nwrong_reported, 1, __ATOMIC_RELAXED) >= MAX_REPORT)
		return;
	len = snprintf(buf, sizeof(buf), "%s: %s: wrong chain %s: ip %#" PRIx64
		       " in %s, entry %d is not %s's return address %#" PRIx64 ":",
		       prog, wk->name, valid ? "on a pristine section" :
		       "in a mutation window", s->ip, level_names[lv], bad,
		       level_names[lv + bad - 2], wk->expect[lv + bad - 2]);
	for (j = 1; j < s->nr && j < 10 && len < sizeof(buf) - 24; j++)
		len += snprintf(buf + len, sizeof(buf) - len, " %#" PRIx64, s->ips[j]);
	printf("%s\n", buf);
}

static void conc_record(void *arg, const struct perf_event_header *hdr,
			const unsigned char *p)
{
	struct worker *wk = arg;
	struct cstats *st = &sh->conc.st[wk->idx][wk->phase];
	u64 pos = wk->pos;
	struct sample s;
	int valid, lv, depth, j;

	wk->pos += hdr->size;
	if (!check_record(hdr, p, wk->tid, &wk->c, &s))
		return;
	valid = conc_valid(&wk->w, pos);
	if (valid < 0) {
		st->unbracketed++;
		valid = 0;
	}
	st->samples[valid]++;
	for (lv = 0; lv < NLEVELS; lv++)
		if (in_level(s.ip, lv))
			break;
	if (lv == NLEVELS)
		return;				/* outside the chain */
	st->chain[valid]++;
	/* ips[1] is the ip, ips[1 + j] the return address into level lv + j */
	depth = NLEVELS - lv;
	for (j = 1; j <= depth && (u64)j + 1 < s.nr; j++)
		if (s.ips[1 + j] != wk->expect[lv + j - 1])
			break;
	if (j <= depth && (u64)j + 1 < s.nr) {
		st->wrong[valid]++;
		if (valid)
			report_wrong(wk, &s, lv, j + 1, valid);
	} else if (j > depth) {
		st->complete[valid]++;
	} else {
		st->prefix[valid]++;
	}
}

static void conc_drain(struct worker *wk)
{
	wk->pos = wk->ring.meta->data_tail;
	if (perf_ring_drain(&wk->ring, conc_record, wk)) {
		fail("corrupt ring buffer record (size %u)", wk->ring.bad_size);
		exit(1);
	}
}

/* the first observation of a run: nothing logged yet */
static void watch_start(struct watch *w)
{
	w->n = 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	w->last_g = __atomic_load_n(&mstate, __ATOMIC_ACQUIRE);
	w->last_h = __atomic_load_n(w->head, __ATOMIC_ACQUIRE);
}

/* run_chain from one call site: its return address is the same each run */
HFN static unsigned long worker_run(unsigned long k)
{
	unsigned long r = run_chain(k);

	NO_TAIL();
	return r;
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	unsigned long k;
	int lv, ph;

	wk->tid = gettid();
	who = wk->name;
	desc_tls = wk->desc;
	wk->fd = open_event(&wk->ring);
	ring_head = (volatile u64 *)&wk->ring.meta->data_head;
	wk->w.head = ring_head;
	/* a first run: the return addresses (the same in every run) */
	chain_sink = worker_run(0);
	for (lv = 0; lv < NLEVELS; lv++)
		wk->expect[lv] = (uintptr_t)ra_of[lv];
	wk->phase = CB_BEFORE;
	conc_drain(wk);
	__atomic_fetch_add(&nready, 1, __ATOMIC_SEQ_CST);
	watch = &wk->w;
	for (k = 1; wall_s() < conc_deadline; k++) {
		ph = __atomic_load_n(&conc_phase, __ATOMIC_ACQUIRE);
		if (ph >= NCPHASE)
			break;
		wk->phase = ph;
		watch_start(&wk->w);
		chain_sink = worker_run(k);
		observe(&wk->w);
		conc_drain(wk);
		sh->conc.st[wk->idx][ph].runs++;
	}
	watch = NULL;
	wk->w.n = 0;
	conc_drain(wk);
	return NULL;
}

/* a mutation's window: no change before mut_begin() or after mut_end() */
static void mut_begin(void)
{
	__atomic_fetch_add(&mstate, 1ULL << 32, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void mut_end(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_fetch_add(&mstate, 1, __ATOMIC_SEQ_CST);
}

/* waits (busy) until wall time t; flips n bytes at off[] meanwhile */
static void hold_until(double t, const u32 *off, const u8 *val, int n)
{
	unsigned long i;
	int k;

	for (i = 0; i < 100000000 && wall_s() < t; i++)
		for (k = 0; k < n; k++)
			sf.live[off[k]] = (i & 1) ? sf.orig[off[k]] : val[k];
}

/* the text mapping back from the file, as the ELF loader made it */
static void remap_text(void)
{
	void *p = mmap((void *)sf.text_lo, sf.text_hi - sf.text_lo,
		       PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, exe_fd,
		       sf.text_off);

	if (p != (void *)sf.text_lo)
		die(1, "FAIL: cannot map the text back: %s", strerror(errno));
}

/* an in-place class for mutate() (not flapping, which is the leaf's) */
static enum sclass pick_inplace(void)
{
	enum sclass c;
	int k;

	for (k = 0; k < 8; k++) {
		c = sched_section[rndn(ARRAY_SIZE(sched_section))];
		if (c != S_FLAP)
			return c;
	}
	return S_FLIP;
}

static void check_pages(const char *after)
{
	if (memcmp((void *)sf.page, sf.orig_pages, sf.page_len))
		fail("the .sframe pages differ after %s", after);
}

/* one mutation of class c held until t (a wall time) */
static void mutate_one(enum mclass c, double t)
{
	u32 off[FLAP_MAX];
	u8 val[FLAP_MAX];
	u32 o;
	int n = 0;
	void *p;

	describe("%s", mclass_names[c]);
	switch (c) {
	case M_REWRITE:
	case M_FLAP:
		pthread_rwlock_rdlock(&sec_lock);
		mut_begin();
		describe(": ");
		if (c == M_REWRITE) {
			mutate(pick_inplace());
		} else {
			mutate(flap_classes[rndn(ARRAY_SIZE(flap_classes))]);
			/* (also bytes another rewriter changed: all in windows) */
			for (o = 0; o < sf.len && n < FLAP_MAX; o++) {
				if (sf.live[o] == sf.orig[o])
					continue;
				off[n] = o;
				val[n++] = sf.live[o];
			}
		}
		hold_until(t, off, val, n);
		memcpy(sf.live, sf.orig, sf.len);
		mut_end();
		pthread_rwlock_unlock(&sec_lock);
		break;
	case M_UNMAP:
	case M_PROTNONE:
	case M_FILE_PAGE:
	case M_ANON:
		pthread_rwlock_wrlock(&sec_lock);
		mut_begin();
		if (c == M_UNMAP) {
			if (munmap((void *)sf.page, sf.page_len))
				fail("munmap: %s", strerror(errno));
		} else if (c == M_PROTNONE) {
			if (mprotect((void *)sf.page, sf.page_len, PROT_NONE))
				fail("mprotect PROT_NONE: %s", strerror(errno));
		} else if (c == M_FILE_PAGE) {
			off_t fo = PICK(0, sf.text_off, sf.text_off + page_size,
					exe_size > (off_t)sf.page_len ?
					rndn(exe_size - sf.page_len) & ~(page_size - 1) : 0);

			describe(" at file offset %#lx", (unsigned long)fo);
			p = mmap((void *)sf.page, sf.page_len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_FIXED, exe_fd, fo);
			if (p != (void *)sf.page)
				fail("mmap of file offset %#lx: %s", (unsigned long)fo,
				     strerror(errno));
		} else {
			p = mmap((void *)sf.page, sf.page_len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0);
			if (p != (void *)sf.page) {
				fail("mmap anonymous: %s", strerror(errno));
			} else if (rndn(2)) {
				describe(", a copy: ");
				memcpy(p, sf.orig_pages, sf.page_len);
				mutate(pick_inplace());
			} else {
				describe(", zeros");
			}
		}
		hold_until(t, NULL, NULL, 0);
		if (c == M_PROTNONE) {
			if (mprotect((void *)sf.page, sf.page_len, PROT_READ | PROT_WRITE))
				die(1, "FAIL: mprotect of the .sframe pages: %s",
				    strerror(errno));
		} else {
			remap_section();
		}
		check_pages(mclass_names[c]);
		mut_end();
		pthread_rwlock_unlock(&sec_lock);
		break;
	case M_TEXT_REMAP:
		mut_begin();
		remap_text();
		mut_end();
		break;
	case M_TEXT_MPROTECT:
		/* the kernel forgets the text's section (nothing changes) */
		mut_begin();
		if (mprotect((void *)sf.text_lo, sf.text_hi - sf.text_lo,
			     PROT_READ | PROT_EXEC))
			fail("mprotect of the text: %s", strerror(errno));
		hold_until(t, NULL, NULL, 0);
		remap_text();
		mut_end();
		break;
	case M_TEXT_PAGE:
		/* one page of the text mapped again: the entry covers only it */
		mut_begin();
		o = rndn((sf.text_hi - sf.text_lo) / page_size);
		describe(" page %u", o);
		p = mmap((void *)(sf.text_lo + o * page_size), page_size,
			 PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, exe_fd,
			 sf.text_off + o * page_size);
		if (p != (void *)(sf.text_lo + o * page_size))
			die(1, "FAIL: cannot map a text page back: %s", strerror(errno));
		hold_until(t, NULL, NULL, 0);
		remap_text();
		mut_end();
		break;
	default:
		break;
	}
}

static void *mutator_main(void *arg)
{
	struct mutator *m = arg;
	struct timespec ts;
	unsigned long k;
	enum mclass c;
	double gap;

	who = m->name;
	desc_tls = m->desc;
	for (k = 0; !__atomic_load_n(&mut_stop, __ATOMIC_ACQUIRE) &&
	     wall_s() < conc_deadline; k++) {
		seed_variant(3 + m->idx, k);
		c = sched_mut[rndn(ARRAY_SIZE(sched_mut))];
		m->desc[0] = 0;
		/* held 0.05-2 ms, then 0.2-3 ms pristine */
		mutate_one(c, wall_s() + (50 + rndn(1950)) / 1e6);
		sh->conc.mut[m->idx][c]++;
		gap = (200 + rndn(2800)) / 1e6;
		if (rndn(4)) {
			hold_until(wall_s() + gap, NULL, NULL, 0);
		} else {
			ts.tv_sec = 0;
			ts.tv_nsec = gap * 1e9;
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

static void sleep_s(double s)
{
	struct timespec ts;
	int k;

	ts.tv_sec = s;
	ts.tv_nsec = (s - ts.tv_sec) * 1e9;

	for (k = 0; k < 1000 && nanosleep(&ts, &ts) && errno == EINTR; k++)
		;
}

/* the numbers of phase ph (NCPHASE: all) summed over the workers */
static struct cstats conc_sum(int ph)
{
	struct cstats t = { 0 };
	int w, p, v;

	for (w = 0; w < sh->conc.workers; w++)
		for (p = 0; p < NCPHASE; p++) {
			const struct cstats *s = &sh->conc.st[w][p];

			if (ph < NCPHASE && p != ph)
				continue;
			for (v = 0; v < 2; v++) {
				t.samples[v] += s->samples[v];
				t.chain[v] += s->chain[v];
				t.complete[v] += s->complete[v];
				t.prefix[v] += s->prefix[v];
				t.wrong[v] += s->wrong[v];
			}
			t.unbracketed += s->unbracketed;
			t.runs += s->runs;
		}
	return t;
}

static unsigned long conc_mutations(int cls)
{
	unsigned long n = 0;
	int m, c;

	for (m = 0; m < sh->conc.mutators; m++)
		for (c = 0; c < NMCLASS; c++)
			if (cls < 0 || c == cls)
				n += sh->conc.mut[m][c];
	return n;
}

static int conc_main(void)
{
	int nw = opt.threads, nm = opt.mutators, k, ph;
	double base_s = opt.seconds >= 10 ? 1.0 : opt.seconds / 10.0, t0;
	pthread_rwlockattr_t ra;
	bool sframe_kernel;
	struct cstats t;
	struct stat st;

	my_pid = getpid();
	sh->phase = P_CONC;
	setup_section();
	if (!sf.text_hi || exe_fd < 0 || sf.file_off < 0 || fstat(exe_fd, &st))
		die(2, "the text segment or the executable file cannot be remapped");
	exe_size = st.st_size;
	ring_head = &ring_dummy;
	calibrate();
	spin_want = opt.want;
	max_entries = read_sysctl("/proc/sys/kernel/perf_event_max_stack", 127) + 1;
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&sec_lock, &ra);
	sh->conc.workers = nw;
	sh->conc.mutators = nm;
	if (!opt.quiet)
		printf("%s: concurrent: .sframe at %#lx (pages %#lx-%#lx), text %#lx-%#lx; "
		       "%d sampled workers, %d mutators, %lu s (+%.1f s before and after), "
		       "period %lu ns\n", prog, sf.addr, sf.page, sf.page + sf.page_len,
		       sf.text_lo, sf.text_hi, nw, nm, opt.seconds, base_s,
		       opt.period_ns);

	conc_deadline = wall_s() + opt.seconds + 2 * base_s + 60;
	__atomic_store_n(&conc_phase, CB_BEFORE, __ATOMIC_RELEASE);
	for (k = 0; k < nw; k++) {
		workers[k].idx = k;
		snprintf(workers[k].name, sizeof(workers[k].name), "worker %d", k);
		if (pthread_create(&workers[k].th, NULL, worker_main, &workers[k]))
			die(2, "pthread_create: %s", strerror(errno));
	}
	for (k = 0; k < 30000 && __atomic_load_n(&nready, __ATOMIC_ACQUIRE) < nw; k++)
		sleep_s(0.001);
	sleep_s(base_s);

	__atomic_store_n(&conc_phase, CB_MUT, __ATOMIC_RELEASE);
	t0 = wall_s();
	for (k = 0; k < nm; k++) {
		mutators[k].idx = k;
		snprintf(mutators[k].name, sizeof(mutators[k].name), "mutator %d", k);
		if (pthread_create(&mutators[k].th, NULL, mutator_main, &mutators[k]))
			die(2, "pthread_create: %s", strerror(errno));
	}
	sleep_s(opt.seconds);
	__atomic_store_n(&mut_stop, 1, __ATOMIC_RELEASE);
	for (k = 0; k < nm; k++)
		pthread_join(mutators[k].th, NULL);
	sh->conc.seconds = wall_s() - t0;

	__atomic_store_n(&conc_phase, CB_AFTER, __ATOMIC_RELEASE);
	sleep_s(base_s);
	__atomic_store_n(&conc_phase, NCPHASE, __ATOMIC_RELEASE);
	for (k = 0; k < nw; k++) {
		pthread_join(workers[k].th, NULL);
		sh->conc.lost += workers[k].c.lost;
		sh->conc.throttled += workers[k].c.throttled;
		sh->conc.records += workers[k].c.records;
		sh->conc.overflow += workers[k].w.overflow;
	}
	sh->phase = P_DONE;
	check_pristine();
	if (mprotect((void *)sf.page, sf.page_len, PROT_READ))
		fail("mprotect back to read-only: %s", strerror(errno));

	t = conc_sum(CB_BEFORE);
	/* a kernel that unwinds with frame pointers gets this chain wrong */
	sframe_kernel = t.chain[1] && t.complete[1] * 2 >= t.chain[1];
	if (!opt.quiet) {
		printf("%s: concurrent: mutations:", prog);
		for (k = 0; k < NMCLASS; k++)
			printf(" %s %lu", mclass_names[k], conc_mutations(k));
		printf("\n");
		for (ph = 0; ph < NCPHASE; ph++) {
			t = conc_sum(ph);
			printf("%s: concurrent: %s: %lu runs, %lu samples: %lu on a pristine "
			       "section (%lu in the chain: %lu complete, %lu prefix, %lu "
			       "wrong), %lu not (%lu in the chain: %lu complete, %lu short, "
			       "%lu wrong; %lu not between two observations)\n", prog,
			       cphase_names[ph], t.runs, t.samples[0] + t.samples[1],
			       t.samples[1], t.chain[1], t.complete[1], t.prefix[1],
			       t.wrong[1], t.samples[0], t.chain[0], t.complete[0],
			       t.prefix[0], t.wrong[0], t.unbracketed);
		}
		printf("%s: concurrent: %lu records, lost %lu, throttled %lu, "
		       "observation log overflows %lu\n", prog, sh->conc.records,
		       sh->conc.lost, sh->conc.throttled, sh->conc.overflow);
	}
	t = conc_sum(NCPHASE);
	if (!t.samples[0] && !t.samples[1])
		fail("no samples: nothing was tested");
	if (!conc_sum(CB_MUT).chain[1])
		fail("no sample in the chain on a pristine section while mutating: "
		     "nothing was tested");
	if (t.wrong[1] && (sframe_kernel || opt.expect))
		fail("%lu samples on a pristine section with a wrong frame", t.wrong[1]);
	else if (t.wrong[1] && !opt.quiet)
		printf("%s: concurrent: the kernel does not unwind this program with "
		       "SFrame (baseline: %lu of %lu chains complete): %lu wrong chains "
		       "on a pristine section not counted as failures\n", prog,
		       conc_sum(CB_BEFORE).complete[1], conc_sum(CB_BEFORE).chain[1],
		       t.wrong[1]);
	if (opt.expect) {
		for (ph = CB_BEFORE; ph <= CB_AFTER; ph += CB_AFTER - CB_BEFORE) {
			t = conc_sum(ph);
			if (!t.chain[1] || t.complete[1] * 10 < t.chain[1] * 9)
				fail("%s: %lu of %lu chains on a pristine section complete, "
				     "expected >= 90%%", cphase_names[ph], t.complete[1],
				     t.chain[1]);
		}
	}
	return failed ? 1 : 0;
}

/* ---- main -------------------------------------------------------------------- */

static void print_counts(const char *what, enum phase ph)
{
	const struct counts *c = &cnt[ph];

	printf("%s: %s: %lu samples, %lu with a chain > 1 frame, %lu empty, deepest %lu "
	       "entries, %lu with an entry outside user space; lost %lu, throttled %lu\n",
	       prog, what, c->samples, c->chained, c->empty, c->maxnr, c->nonuser,
	       c->lost, c->throttled);
}

static int child_main(void)
{
	unsigned long i, nmap, ninplace;
	double t0, t1, t2, c0, c1, c2;
	int b;

	my_pid = getpid();
	setup_section();
	setup_stacks();
	ring_head = &ring_dummy;
	calibrate();
	if (!opt.no_perf)
		open_perf();
	if (!opt.quiet) {
		printf("%s: .sframe at %#lx, %zu bytes (%zu used), v%u, %u FDEs, %u FREs, "
		       "start addresses %s; pages %#lx-%#lx made writable\n", prog,
		       sf.addr, sf.len, sf.used, sf.sec.version, sf.sec.num_fdes,
		       sf.sec.num_fres, sf.sec.pcrel ? "PC-relative" : "section-relative", sf.page,
		       sf.page + sf.page_len);
		if (opt.no_perf)
			printf("%s: no perf (-N): %lu ms per variant (%" PRIu64
			       " iterations/ms)\n", prog, opt.min_ms, iters_per_ms);
		else
			printf("%s: perf task-clock sampling, period %lu ns, %lu-%lu ms per "
			       "variant until %lu samples (%" PRIu64 " iterations/ms)\n",
			       prog, opt.period_ns, opt.min_ms, opt.max_ms, opt.want,
			       iters_per_ms);
	}

	nmap = opt.n >= 50 ? opt.n / 50 : opt.n >= 4 ? 1 : 0;	/* of each */
	ninplace = opt.n - 2 * nmap;
	t0 = wall_s();
	c0 = cpu_ms();
	baseline(0);
	for (i = 0; i < ninplace; i++)
		section_variant(i, sched_section[i % ARRAY_SIZE(sched_section)]);
	baseline(1);
	for (i = 0; i < 2 * nmap; i++)
		section_variant(ninplace + i, i % 2 ? S_PROTNONE : S_UNMAP);
	baseline(2);
	t1 = wall_s();
	c1 = cpu_ms();
	for (i = 0; i < opt.n; i++)
		stack_variant(i, sched_stack[i % ARRAY_SIZE(sched_stack)]);
	baseline(3);
	t2 = wall_s();
	c2 = cpu_ms();
	sh->phase = P_DONE;
	sh->desc[0] = 0;

	check_pristine();
	if (mprotect((void *)sf.page, sf.page_len, PROT_READ))
		fail("mprotect back to read-only: %s", strerror(errno));
	if (slots_skipped)
		fail("%lu planned stack slots outside the callers' frames", slots_skipped);
	if (!opt.no_perf && !sh->samples)
		fail("no samples: nothing was tested");
	if (!opt.quiet) {
		printf("%s: section variants:", prog);
		for (i = 0; i < NSCLASS; i++)
			printf(" %s %lu", sclass_names[i], sclass_count[i]);
		printf("\n%s: stack variants:", prog);
		for (i = 0; i < NKCLASS; i++)
			printf(" %s %lu", kclass_names[i], kclass_count[i]);
		printf(" (%lu slots overwritten)\n", slots_written);
		print_counts("section variants", P_SECTION);
		print_counts("unmap/PROT_NONE variants", P_MAP);
		print_counts("stack variants", P_STACK);
		print_counts("baselines", P_BASE);
		printf("%s: baseline leaf samples unwound through run_chain:", prog);
		for (b = 0; b < NBASE; b++)
			printf("%s %s %lu/%lu", b ? "," : "", base_names[b], base_ok[b],
			       base_leaf[b]);
		printf("\n%s: time: section variants %.2f s (%.2f s CPU), stack variants "
		       "%.2f s (%.2f s CPU)\n", prog, t1 - t0, (c1 - c0) / 1e3, t2 - t1,
		       (c2 - c1) / 1e3);
	}
	if (opt.expect && !opt.no_perf) {
		for (b = 0; b < NBASE; b++)
			if (!base_leaf[b] || base_ok[b] * 10 < base_leaf[b] * 9)
				fail("baseline %s: %lu of %lu leaf samples unwound through "
				     "run_chain, expected >= 90%%", base_names[b], base_ok[b],
				     base_leaf[b]);
	}
	return failed ? 1 : 0;
}

/* the concurrent mode's summary line (in the parent) */
static void conc_summary(int crashes)
{
	struct cstats t = conc_sum(NCPHASE);
	unsigned long n = conc_mutations(-1);

	printf("%s: concurrent: %d workers, %d mutators, %.1f s: %lu samples, %lu on a "
	       "pristine section (%lu in the chain: %lu complete, %lu prefix, %lu wrong), "
	       "%lu in mutation windows (%lu in the chain: %lu complete, %lu short, %lu "
	       "wrong); %lu mutations (%.0f/s), %d crashes\n", prog, sh->conc.workers,
	       sh->conc.mutators, sh->conc.seconds, t.samples[0] + t.samples[1],
	       t.samples[1], t.chain[1], t.complete[1], t.prefix[1], t.wrong[1],
	       t.samples[0], t.chain[0], t.complete[0], t.prefix[0], t.wrong[0], n,
	       sh->conc.seconds > 0 ? n / sh->conc.seconds : 0.0, crashes);
}

static pid_t child;
static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
	kill(child, SIGKILL);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-n N] [-s SEED] [-q|-v] [-p NS] [-w SAMPLES] [-m MS] [-M MS]\n"
		"          [-T SECONDS] [-e] [-u] [-N] [-t THREADS [-j MUTATORS] [-d SECONDS]]\n"
		"  -n  variants of each kind, section and stack (default 1000)\n"
		"  -s  seed (default: from the time; printed)\n"
		"  -q  the summary line only; -v every variant\n"
		"  -p  sample period in ns of task clock (default 100000)\n"
		"  -w  samples to wait for per variant (default 2), -m at least\n"
		"      MS ms (default 1), -M at most MS ms (default 25) of CPU\n"
		"  -T  give up after SECONDS (default 600)\n"
		"  -e  expect >= 90%% of the leaf samples of the pristine baselines\n"
		"      unwound through run_chain (an SFrame kernel)\n"
		"  -u  fail on a callchain entry outside user space (a kernel address\n"
		"      or a value perf tools take for a context marker)\n"
		"  -N  no perf: run the variants only (tests this program, e.g. under\n"
		"      qemu-user)\n"
		"  -t  concurrent mode: THREADS sampled workers run the chain while\n"
		"      -j mutator threads (default THREADS) rewrite, unmap, remap the\n"
		"      section and remap the text, for -d SECONDS (default 20)\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	int c, status;
	bool seeded = false;

	while ((c = getopt(argc, argv, "n:s:qvp:w:m:M:T:euNt:j:d:")) != -1) {
		switch (c) {
		case 'n':
			opt.n = strtoul(optarg, NULL, 0);
			break;
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			seeded = true;
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'p':
			opt.period_ns = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			opt.want = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			opt.min_ms = strtoul(optarg, NULL, 0);
			break;
		case 'M':
			opt.max_ms = strtoul(optarg, NULL, 0);
			break;
		case 'T':
			opt.timeout = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			opt.expect = true;
			break;
		case 'u':
			opt.user_only = true;
			break;
		case 'N':
			opt.no_perf = true;
			break;
		case 't':
			opt.threads = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			opt.mutators = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			opt.seconds = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !opt.period_ns || !opt.max_ms || opt.min_ms > opt.max_ms)
		usage();
	if (opt.threads && !opt.mutators)
		opt.mutators = opt.threads;
	if (opt.threads > CONC_MAX || opt.mutators > CONC_MAX ||
	    (opt.threads && (opt.no_perf || !opt.seconds)))
		usage();
	if (!seeded) {
		struct timespec ts;

		/* (the arm64 VM has no RTC: its time starts at 0) */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		opt.seed = ((u64)time(NULL) << 20) ^ (u64)getpid() ^
			   (((u64)ts.tv_sec * 1000000000 + ts.tv_nsec) << 24);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!opt.quiet && opt.threads)
		printf("%s: seed %#" PRIx64 " (-s to repeat), concurrent: %lu workers, "
		       "%lu mutators, %lu s\n", prog, opt.seed, opt.threads,
		       opt.mutators, opt.seconds);
	else if (!opt.quiet)
		printf("%s: seed %#" PRIx64 " (-s to repeat), %lu variants of each kind\n",
		       prog, opt.seed, opt.n);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		  -1, 0);
	if (sh == MAP_FAILED)
		die(2, "mmap: %s", strerror(errno));
	fflush(stdout);
	child = fork();
	if (child < 0)
		die(2, "fork: %s", strerror(errno));
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(opt.threads ? conc_main() : child_main());
	}
	signal(SIGALRM, on_alarm);
	alarm(opt.timeout);
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			die(2, "waitpid: %s", strerror(errno));
	alarm(0);

	if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		return 2;			/* setup: already said why */
	if (timed_out)
		printf("%s: FAIL: timeout after %lus in %s %lu (%s); seed %#" PRIx64 "\n",
		       prog, opt.timeout, phase_names[sh->phase], sh->variant, sh->desc,
		       opt.seed);
	else if (WIFSIGNALED(status))
		printf("%s: FAIL: crashed (%s) in %s %lu (%s); seed %#" PRIx64 "\n", prog,
		       strsignal(WTERMSIG(status)), phase_names[sh->phase], sh->variant,
		       sh->desc, opt.seed);
	else if (WEXITSTATUS(status))
		printf("%s: FAIL: seed %#" PRIx64 "\n", prog, opt.seed);
	if (opt.threads)
		conc_summary(WIFSIGNALED(status) && !timed_out);
	else
		printf("%s: %lu section variants, %lu stack variants, %lu samples (%lu "
		       "with a chain > 1 frame), %d crashes\n", prog, sh->nsection,
		       sh->nstack, sh->samples, sh->chained,
		       WIFSIGNALED(status) && !timed_out);
	return WIFEXITED(status) && !WEXITSTATUS(status) && !timed_out ? 0 : 1;
}
