// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-hostile: the chain run_chain -> h_outer -> h_a -> h_b -> h_c ->
 * h_leaf, the leaf that spins while perf samples it (and flaps the
 * section's bytes), the stack and register corruption it applies to its
 * callers' frames, and the stack variants (small stacks included).
 *
 * The chain's code is what the kernel unwinds: the state it reads stays
 * static here, in one translation unit with it, so that the compiler
 * generates the code it generated when the program was one file (on
 * aarch64 that state's offsets from its section anchor may differ); the
 * other files reach that state through the functions at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "hostile.h"

/* the PRNG's state (hostile.h), defined with the chain that draws from it */
__thread u64 rs;

/* ---- the chain and the spinning leaf ------------------------------------- */

const char *const level_names[NLEVELS] = {
	"h_leaf", "h_c", "h_b", "h_a", "h_outer", "run_chain",
};

/* per thread (the chain runs in several threads with -t) */
__thread void *volatile ra_of[NLEVELS];	/* each function's return address */
static __thread uintptr_t chain_top;	/* slots below it may be overwritten */
static uintptr_t stack_limit = UINTPTR_MAX;	/* end of a small stack */
__thread volatile unsigned long chain_sink;

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

const char *const kclass_names[NKCLASS] = {
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

/* the concurrent mode's mutation counter (hostile.h: observe()) */
u64 mstate;

static __thread struct watch *watch;	/* NULL: not a -t worker */

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

/**
 * h_leaf() - the chain's leaf
 * @x: a value to compute on while spinning
 *
 * Overwrites the planned slots (callers' frames only: at or above its CFA,
 * or its own return address slot), spins while samples are taken, restores
 * the slots. No calls in between.
 *
 * Return: the computed value.
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

/**
 * h_c() - the chain's level above the leaf, with a VLA
 * @x: a value to compute on
 *
 * The VLA bases h_c's CFA on its frame register (rbp / x29).  Plans the
 * leaf's writes (plan_stack()) right before it calls h_leaf().
 *
 * Return: the computed value.
 */
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

/**
 * h_b() - the chain's level with values live across the call
 * @x: a value to compute on
 *
 * Values live across the call: callee-saved registers saved.
 *
 * Return: the computed value.
 */
HFN unsigned long h_b(unsigned long x)
{
	unsigned long a = x * 3, b = x ^ 0x55, c = x + 7, d = x >> 1, e = x * 5 + 1;
	unsigned long r;

	ra_of[LV_B] = __builtin_return_address(0);
	r = h_c(a + b);
	NO_TAIL();
	return r ^ a ^ (b + c) ^ (d * e);
}

/**
 * h_a() - the chain's level with a 1 KB frame
 * @x: a value to compute on
 *
 * Return: the computed value.
 */
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

/**
 * h_outer() - the chain's level below run_chain()
 * @x: a value to compute on
 *
 * Return: the computed value.
 */
HFN unsigned long h_outer(unsigned long x)
{
	unsigned long r;

	ra_of[LV_OUTER] = __builtin_return_address(0);
	r = h_a(x ^ 0x1234);
	NO_TAIL();
	return r;
}

/**
 * run_chain() - the chain's root
 * @x: a value to compute on
 *
 * Slots up to 64 bytes above its CFA may be overwritten.
 *
 * Return: the computed value.
 */
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

/**
 * calibrate() - measures the leaf's loops
 * @want: the data_head moves the leaf's spin waits for from then on
 *
 * Iterations of spin() and regs_loop() per millisecond of CPU time.
 */
void calibrate(unsigned int want)
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
	spin_want = want;
}

/* ---- stack variants ---------------------------------------------------------- */

static const enum kclass sched_stack[] = {
	K_RA, K_RA, K_RA, K_BELOW, K_BELOW, K_ABOVE, K_ALL_RA, K_ALL, K_SWAP,
	K_RANDOM, K_RANDOM, K_REGS, K_REGS, K_ALTSTACK, K_CONTEXT,
};

unsigned long kclass_count[NKCLASS];

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

/**
 * setup_stacks() - the small stacks of the stack variants
 *
 * Maps the signal and context stacks (between guard pages) and a page
 * followed by a PROT_NONE page, installs the signal stack and the SIGUSR1
 * handler that runs the chain on it.  Exits 2 on failure.
 */
void setup_stacks(void)
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

/**
 * run_stack_variants() - the stack variants, in their schedule's order
 * @n: how many (numbered from 0)
 */
void run_stack_variants(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		stack_variant(i, sched_stack[i % ARRAY_SIZE(sched_stack)]);
}

/* ---- the leaf's state, for the other files ------------------------------- */

/**
 * leaf_set_ring() - the ring buffer head the leaf's spin watches
 * @head: perf's data_head of the calling thread, NULL: a dummy that stays
 */
void leaf_set_ring(volatile u64 *head)
{
	ring_head = head ? head : &ring_dummy;
}

/**
 * leaf_set_watch() - the observation log of the calling thread (-t)
 * @w: where the leaf's spin logs its observations, NULL: none
 */
void leaf_set_watch(struct watch *w)
{
	watch = w;
}

/**
 * leaf_reset() - a new variant: no stack plan, no flapping bytes
 */
void leaf_reset(void)
{
	plan.active = false;
	nflap = 0;
}

/**
 * flap_set_base() - the live section whose bytes the leaf's spin flaps
 * @base: its first byte
 */
void flap_set_base(u8 *base)
{
	flap_base = base;
}

/**
 * flap_reset() - no byte flaps from now on
 */
void flap_reset(void)
{
	nflap = 0;
}

/**
 * flap_add() - one more byte for the leaf's spin to flap
 * @off: its offset in the section
 * @orig: its pristine value
 * @mut: its mutated value
 *
 * The caller stops at FLAP_MAX bytes (flap_count()).
 */
void flap_add(u32 off, u8 orig, u8 mut)
{
	flap[nflap].off = off;
	flap[nflap].orig = orig;
	flap[nflap].mut = mut;
	nflap++;
}

/**
 * flap_count() - the bytes flapping
 *
 * Return: how many bytes the leaf's spin flaps.
 */
int flap_count(void)
{
	return nflap;
}

/**
 * leaf_check_restored() - fails when the leaf did not restore a slot
 *
 * A failure for the stack slots that did not get their value back since
 * the last call.
 */
void leaf_check_restored(void)
{
	if (slots_not_restored) {
		fail("%lu stack slots did not get their value back", slots_not_restored);
		slots_not_restored = 0;
	}
}

/**
 * leaf_slots_written() - the stack slots the leaf overwrote
 *
 * Return: how many, over the whole run.
 */
unsigned long leaf_slots_written(void)
{
	return slots_written;
}

/**
 * leaf_slots_skipped() - the planned slots outside the callers' frames
 *
 * Return: how many the leaf did not write, over the whole run.
 */
unsigned long leaf_slots_skipped(void)
{
	return slots_skipped;
}

/**
 * leaf_iters_per_ms() - the spin's speed, as calibrate() measured it
 *
 * Return: iterations of spin() per millisecond of CPU time.
 */
u64 leaf_iters_per_ms(void)
{
	return iters_per_ms;
}
