// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the one frame step (include/sframe/step.h), the code the
 * kernel and user-space unwinders share:
 *
 *  - rules: each rule kind on a simulated stack (CFA from SP or FP, loaded
 *    CFA, RA on the stack or in the link register, FP saved or not, the
 *    caller's SP adjustment), and each way a step must refuse: outermost,
 *    another base register, misaligned CFA, CFA at or below SP, a failed
 *    read, RA in a link register that is not known, SP only a bound;
 *  - the frame-record rule on both ABIs (AArch64: SP only a bound after it);
 *  - self: this program's own stack, from the SFrame section gas wrote for
 *    it (built with -Wa,--gsframe), stepped from a leaf function up to
 *    main(): every return address must be the one the call pushed.
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sframe/sframe.h>
#include <sframe/step.h>
#include "harness.h"

/* the frames of the self test stay apart */
#define noinline_walk	__attribute__((__noinline__, __noipa__))

/* ---- a simulated stack --------------------------------------------------- */

#define STACK_WORDS	64
#define STACK_BASE	0x7000UL

struct sim {
	unsigned long word[STACK_WORDS];
	unsigned long bad;	/* a read of this address fails */
	bool allow_below;
	unsigned int reads;
	unsigned int loads;	/* by the fast path (sim_fast_mem) */
};

static bool sim_read(void *ctx, unsigned long addr, unsigned long *val)
{
	struct sim *s = ctx;

	s->reads++;
	if (addr & 7 || addr < STACK_BASE || addr == s->bad ||
	    addr >= STACK_BASE + 8 * STACK_WORDS)
		return false;
	*val = s->word[(addr - STACK_BASE) / 8];
	return true;
}

static bool sim_below(void *ctx, unsigned long cfa)
{
	(void)cfa;
	return ((struct sim *)ctx)->allow_below;
}

static const struct sframe_step_mem sim_mem = {
	.read	= sim_read,
	.below	= sim_below,
};

/* The kernel walker's kind: ranges checked once, words loaded directly. */
static bool sim_span(void *ctx, unsigned long lo, unsigned long hi)
{
	struct sim *s = ctx;

	return lo < hi && lo >= STACK_BASE &&
	       hi <= STACK_BASE + 8 * STACK_WORDS &&
	       !(s->bad >= lo && s->bad < hi);
}

static unsigned long sim_load(void *ctx, unsigned long addr)
{
	struct sim *s = ctx;

	s->loads++;
	return s->word[(addr - STACK_BASE) / 8];
}

static const struct sframe_step_mem sim_fast_mem = {
	.read	= sim_read,
	.below	= sim_below,
	.span	= sim_span,
	.load	= sim_load,
};

static unsigned long strip_top(unsigned long ra)
{
	return ra & 0x0000ffffffffffffUL;
}

static const struct sframe_step_arch amd64 = {
	.sp_reg = SFRAME_DWARF_AMD64_SP, .fp_reg = SFRAME_DWARF_AMD64_FP,
};

static const struct sframe_step_arch aarch64 = {
	.sp_reg = SFRAME_DWARF_AARCH64_SP, .fp_reg = SFRAME_DWARF_AARCH64_FP,
	.has_lr = true, .strip = strip_top,
};

static void sim_set(struct sim *s, unsigned long addr, unsigned long val)
{
	s->word[(addr - STACK_BASE) / 8] = val;
}

static struct sframe_rows_rule rule_of(int cfa_reg, int cfa_off, int ra_off,
				       int fp_off)
{
	struct sframe_rows_rule r = { 0 };

	r.cfa.kind = SFRAME_LOC_REG;
	r.cfa.reg = cfa_reg;
	r.cfa.offset = cfa_off;
	if (ra_off) {
		r.ra.kind = SFRAME_LOC_CFA;
		r.ra.deref = 1;
		r.ra.offset = ra_off;
	} else {
		r.ra.kind = SFRAME_LOC_SAME;
	}
	if (fp_off) {
		r.fp.kind = SFRAME_LOC_CFA;
		r.fp.deref = 1;
		r.fp.offset = fp_off;
	} else {
		r.fp.kind = SFRAME_LOC_SAME;
	}
	return r;
}

struct step_case {
	const char *name;
	const struct sframe_step_arch *arch;
	struct sframe_rows_rule rule;
	struct sframe_frame in;
	int want;			/* enum sframe_step_status */
	unsigned long sp, fp, ra, slot;	/* expected on success */
	unsigned int flags;
	bool fast;			/* sframe_step_simple() takes it */
};

static void test_rules(void)
{
	const unsigned long sp = STACK_BASE + 0x80, fp = STACK_BASE + 0xc0;
	struct sframe_rows_rule r;
	struct step_case cases[] = {
		{ "amd64: CFA = SP + 16, RA at CFA - 8, FP at CFA - 16", &amd64,
		  rule_of(7, 16, -8, -16), { .pc = 1, .sp = sp, .fp = fp },
		  SFRAME_STEP_OK, sp + 16, 0xf00d, 0xaaaa, sp + 8, .fast = true },
		{ "amd64: CFA = FP + 16, FP unchanged", &amd64,
		  rule_of(6, 16, -8, 0), { .pc = 1, .sp = sp, .fp = fp },
		  SFRAME_STEP_OK, fp + 16, fp, 0xbbbb, fp + 8, .fast = true },
		{ "amd64: entry, CFA = SP + 8 (RA just pushed)", &amd64,
		  rule_of(7, 8, -8, 0), { .pc = 1, .sp = sp, .fp = fp,
		  .flags = SFRAME_FRAME_EXACT },
		  SFRAME_STEP_OK, sp + 8, fp, 0xf00d, sp, .fast = true },
		{ "aarch64: interrupted at entry: CFA = SP, RA in LR", &aarch64,
		  rule_of(31, 0, 0, 0), { .pc = 1, .sp = sp, .fp = fp,
		  .lr = 0xabcd000000001234UL,
		  .flags = SFRAME_FRAME_EXACT | SFRAME_FRAME_LR },
		  SFRAME_STEP_OK, sp, fp, 0x1234, 0 },
		{ "aarch64: signed RA on the stack is stripped", &aarch64,
		  rule_of(29, 16, -8, -16), { .pc = 1, .sp = sp, .fp = fp },
		  SFRAME_STEP_OK, fp + 16, 0xd00d, 0x5678, fp + 8, .fast = true },
		{ "aarch64: RA in LR, LR not known (a caller's frame)", &aarch64,
		  rule_of(31, 16, 0, 0), { .pc = 1, .sp = sp, .fp = fp },
		  SFRAME_STEP_LR },
		{ "amd64: RA neither saved nor in a register", &amd64,
		  rule_of(7, 16, 0, 0), { .pc = 1, .sp = sp, .fp = fp },
		  SFRAME_STEP_RA },
		{ "amd64: CFA at SP in a caller's frame", &amd64,
		  rule_of(7, 0, -8, 0), { .pc = 1, .sp = sp, .fp = fp },
		  SFRAME_STEP_DIRECTION },
		{ "amd64: CFA below SP", &amd64,
		  rule_of(6, 16, -8, 0), { .pc = 1, .sp = fp + 0x20, .fp = fp },
		  SFRAME_STEP_DIRECTION },
		{ "amd64: misaligned CFA", &amd64,
		  rule_of(7, 12, -8, 0), { .pc = 1, .sp = sp, .fp = fp },
		  SFRAME_STEP_DIRECTION },
		{ "amd64: CFA based on another register", &amd64,
		  rule_of(3, 16, -8, 0), { .pc = 1, .sp = sp, .fp = fp },
		  SFRAME_STEP_CFA_REG },
		{ "amd64: RA slot unreadable", &amd64,
		  rule_of(7, 0x400, -8, 0), { .pc = 1, .sp = sp, .fp = fp },
		  SFRAME_STEP_READ },
		{ "aarch64: CFA from SP after a frame-record step", &aarch64,
		  rule_of(31, 16, -8, -16), { .pc = 1, .sp = sp, .fp = fp,
		  .flags = SFRAME_FRAME_SP_LOW },
		  SFRAME_STEP_SP_LOW },
		{ "aarch64: CFA from FP after a frame-record step", &aarch64,
		  rule_of(29, 16, -8, -16), { .pc = 1, .sp = sp, .fp = fp,
		  .flags = SFRAME_FRAME_SP_LOW },
		  SFRAME_STEP_OK, fp + 16, 0xd00d, 0x5678, fp + 8 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct step_case *c = &cases[i];
		struct sframe_frame f = c->in;
		unsigned long ra = 0, slot = 1;
		struct sim s = { .bad = 0 };
		int st;

		sim_set(&s, sp + 8, 0xaaaa);
		sim_set(&s, sp, 0xf00d);
		sim_set(&s, fp, 0xd00d);
		sim_set(&s, fp + 8, 0xffff000000005678UL);
		if (c->arch == &amd64)
			sim_set(&s, fp + 8, 0xbbbb);
		t_begin("step: %s", c->name);
		st = sframe_step(c->arch, &sim_mem, &s, &c->rule, &f, &ra, &slot);
		T_CHECK(st == c->want, "status %d, want %d", st, c->want);
		if (st == SFRAME_STEP_OK && c->want == SFRAME_STEP_OK) {
			T_CHECK(f.sp == c->sp, "sp %#lx, want %#lx", f.sp, c->sp);
			T_CHECK(f.fp == c->fp, "fp %#lx, want %#lx", f.fp, c->fp);
			T_CHECK(ra == c->ra, "ra %#lx, want %#lx", ra, c->ra);
			T_CHECK(slot == c->slot, "slot %#lx, want %#lx", slot,
				c->slot);
			T_CHECK(f.flags == c->flags, "flags %#x", f.flags);
		}
		if (st != SFRAME_STEP_OK)
			T_CHECK(!memcmp(&f, &c->in, sizeof(f)),
				"frame changed by a failed step");
		t_end();

		/*
		 * The same case classified (sframe_step_prepare()) on a
		 * walker with range checks: the fast path where it applies,
		 * and the same result either way.
		 */
		t_begin("step, fast path: %s", c->name);
		{
			struct sframe_rows_rule pr = c->rule;
			struct sframe_frame f2 = c->in;
			unsigned long ra2 = 0, slot2 = 1;
			int st2;

			sframe_step_prepare(c->arch, &pr);
			s.loads = 0;
			st2 = sframe_step(c->arch, &sim_fast_mem, &s, &pr, &f2,
					  &ra2, &slot2);
			T_CHECK(st2 == st, "status %d, general path %d", st2, st);
			T_CHECK(!memcmp(&f2, &f, sizeof(f)) && ra2 == ra &&
				slot2 == slot, "result differs from the general path");
			T_CHECK(!!s.loads == c->fast, "fast path %s",
				s.loads ? "taken" : "not taken");
		}
		t_end();
	}

	/*
	 * AMD64's realigned frame (DRAP, a v3 FLEX row): CFA = load(FP - 24),
	 * RA at the fixed CFA - 8, FP = load(FP + 0); a rule based on any
	 * other register is refused.
	 */
	t_begin("step: realigned frame: CFA and FP loaded through FP");
	{
		const unsigned long cfa = STACK_BASE + 0x100;
		struct sframe_frame f = { .pc = 1, .sp = sp, .fp = fp };
		struct sim s = { .bad = 0 };
		unsigned long ra = 0, slot = 0;
		int st;

		r = rule_of(6, -24, -8, 0);
		r.cfa.deref = 1;
		r.fp = (struct sframe_loc){ .kind = SFRAME_LOC_REG, .reg = 6,
					    .deref = 1 };
		sim_set(&s, fp - 24, cfa);
		sim_set(&s, fp, 0xd00d);
		sim_set(&s, cfa - 8, 0xcccc);
		st = sframe_step(&amd64, &sim_mem, &s, &r, &f, &ra, &slot);
		T_CHECK(st == SFRAME_STEP_OK && f.sp == cfa && f.fp == 0xd00d &&
			ra == 0xcccc && slot == cfa - 8,
			"status %d sp %#lx fp %#lx ra %#lx", st, f.sp, f.fp, ra);

		f = (struct sframe_frame){ .pc = 1, .sp = sp, .fp = fp };
		r.fp.reg = 10;
		st = sframe_step(&amd64, &sim_mem, &s, &r, &f, &ra, &slot);
		T_CHECK(st == SFRAME_STEP_FP && f.fp == fp,
			"FP from r10: status %d", st);

		/* RA = load(FP + 8), FP unloaded (value FP + 16). */
		f = (struct sframe_frame){ .pc = 1, .sp = sp, .fp = fp };
		r = rule_of(6, 16, 0, 0);
		r.ra = (struct sframe_loc){ .kind = SFRAME_LOC_REG, .reg = 6,
					    .deref = 1, .offset = 8 };
		r.fp = (struct sframe_loc){ .kind = SFRAME_LOC_REG, .reg = 6,
					    .offset = 16 };
		sim_set(&s, fp + 8, 0xbbbb);
		st = sframe_step(&amd64, &sim_mem, &s, &r, &f, &ra, &slot);
		T_CHECK(st == SFRAME_STEP_OK && ra == 0xbbbb &&
			f.fp == fp + 16 && slot == fp + 8,
			"register-based RA and FP: status %d", st);
	}
	t_end();

	/* A loaded CFA (stack switch), below SP only where allowed. */
	t_begin("step: loaded CFA below SP only on another stack");
	{
		struct sim s = { .allow_below = false };
		struct sframe_frame f = { .sp = fp + 0x40, .fp = fp };
		unsigned long ra, slot;

		r = rule_of(7, 0, 8, 0);
		r.cfa.deref = 1;
		sim_set(&s, fp + 0x40, sp);	/* saved SP of the other stack */
		sim_set(&s, sp + 8, 0xaaaa);
		T_CHECK(sframe_step(&amd64, &sim_mem, &s, &r, &f, &ra, &slot) ==
			SFRAME_STEP_DIRECTION, "below SP accepted");
		s.allow_below = true;
		T_CHECK(sframe_step(&amd64, &sim_mem, &s, &r, &f, &ra, &slot) ==
			SFRAME_STEP_OK && f.sp == sp && ra == 0xaaaa,
			"switch refused");
	}
	t_end();

	t_begin("step: outermost frame ends the walk without a read");
	{
		struct sim s = { 0 };
		struct sframe_frame f = { .sp = sp, .fp = fp };
		unsigned long ra, slot;

		r = rule_of(7, 16, -8, 0);
		r.flags = SFRAME_RULE_OUTERMOST;
		T_CHECK(sframe_step(&amd64, &sim_mem, &s, &r, &f, &ra, &slot) ==
			SFRAME_STEP_END && !s.reads, "not the end");
	}
	t_end();

	t_begin("step: s390x-style SP adjustment (caller's SP = CFA - 160)");
	{
		struct sim s = { 0 };
		struct sframe_frame f = { .sp = sp, .fp = fp };
		unsigned long ra, slot;

		r = rule_of(7, 176, -168, 0);
		r.sp_from_cfa = -160;
		sim_set(&s, sp + 8, 0xaaaa);
		T_CHECK(sframe_step(&amd64, &sim_mem, &s, &r, &f, &ra, &slot) ==
			SFRAME_STEP_OK && f.sp == sp + 16 && ra == 0xaaaa,
			"sp %#lx", f.sp);
	}
	t_end();

	t_begin("step: frame-record rule, amd64: caller's SP known");
	{
		struct sim s = { 0 };
		struct sframe_frame f = { .sp = sp, .fp = fp };
		unsigned long ra, slot;

		sim_set(&s, fp, 0xd00d);
		sim_set(&s, fp + 8, 0xbbbb);
		sframe_fp_record_rule(&amd64, false, &r);
		T_CHECK(sframe_step(&amd64, &sim_mem, &s, &r, &f, &ra, &slot) ==
			SFRAME_STEP_OK && f.sp == fp + 16 && f.fp == 0xd00d &&
			ra == 0xbbbb && !f.flags, "wrong step");
	}
	t_end();

	t_begin("step: frame-record rule, aarch64: caller's SP only a bound");
	{
		struct sim s = { 0 };
		struct sframe_frame f = { .sp = sp, .fp = fp };
		unsigned long ra, slot;

		sim_set(&s, fp, 0xd00d);
		sim_set(&s, fp + 8, 0x8000000000005678UL);
		sframe_fp_record_rule(&aarch64, true, &r);
		T_CHECK(sframe_step(&aarch64, &sim_mem, &s, &r, &f, &ra, &slot) ==
			SFRAME_STEP_OK && f.sp == fp + 16 && f.fp == 0xd00d &&
			ra == 0x5678 && f.flags == SFRAME_FRAME_SP_LOW,
			"wrong step");
	}
	t_end();
}

/* ---- this program's own stack ------------------------------------------- */

struct self {
	struct sframe_section sec;
	unsigned long lo, hi;		/* the thread's stack */
	bool found;
};

static struct self self;

static int find_sframe(struct dl_phdr_info *info, size_t size, void *arg)
{
	int i;

	(void)size;
	(void)arg;
	if (self.found)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const Elf64_Phdr *ph = &info->dlpi_phdr[i];
		unsigned long addr = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_GNU_SFRAME)
			continue;
		/* Only the main program was assembled with --gsframe here. */
		if (info->dlpi_name && info->dlpi_name[0])
			continue;
		if (!sframe_open(&self.sec, (const void *)addr, ph->p_memsz,
				 addr, 0) &&
		    !sframe_validate(&self.sec, NULL, NULL))
			self.found = true;
	}
	return 0;
}

static bool self_read(void *ctx, unsigned long addr, unsigned long *val)
{
	(void)ctx;
	if (addr & 7 || addr < self.lo || addr + 8 > self.hi)
		return false;
	*val = *(const unsigned long *)addr;
	return true;
}

static const struct sframe_step_mem self_mem = { .read = self_read };

#if defined(__x86_64__)
static const struct sframe_step_arch self_arch = {
	.sp_reg = SFRAME_DWARF_AMD64_SP, .fp_reg = SFRAME_DWARF_AMD64_FP,
};

#define SELF_AARCH64 false
#elif defined(__aarch64__)
static unsigned long self_strip(unsigned long ra)
{
	asm("xpaclri" : "+r" (ra));	/* hint space: a NOP without PAC */
	return ra;
}

static const struct sframe_step_arch self_arch = {
	.sp_reg = SFRAME_DWARF_AARCH64_SP, .fp_reg = SFRAME_DWARF_AARCH64_FP,
	.has_lr = true, .strip = self_strip,
};

#define SELF_AARCH64 true
#endif

#define SELF_DEPTH	4
static unsigned long self_want[SELF_DEPTH + 1];
static unsigned long self_got[SELF_DEPTH + 1];
static unsigned int self_n, self_fp_steps;
static int self_err;

/* Walk from here (a frame whose PC is exact) to main(). */
static noinline_walk void self_walk(void)
{
	struct sframe_frame f = { .flags = SFRAME_FRAME_EXACT };
	struct sframe_rows_rule step_rule;
	struct sframe_rule rule;
	unsigned long ra, slot;

#if defined(__x86_64__)
	asm volatile("lea (%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
		     : "=r" (f.pc), "=r" (f.sp), "=r" (f.fp));
#elif defined(__aarch64__)
	asm volatile("adr %0, .\n\tmov %1, sp\n\tmov %2, x29"
		     : "=r" (f.pc), "=r" (f.sp), "=r" (f.fp));
#endif
	for (self_n = 0; self_n <= SELF_DEPTH; self_n++) {
		unsigned long lookup = f.flags & SFRAME_FRAME_EXACT ? f.pc :
								     f.pc - 1;

		self_err = sframe_find(&self.sec, lookup, &rule);
		if (self_err && self_err != -SFRAME_E_NO_FDE)
			return;
		if (self_err) {
			self_fp_steps++;
			sframe_fp_record_rule(&self_arch, SELF_AARCH64,
					      &step_rule);
		} else {
			sframe_rule_recovery(&step_rule, &rule);
		}
		self_err = sframe_step(&self_arch, &self_mem, NULL, &step_rule, &f,
				       &ra, &slot);
		if (self_err)
			return;
		self_got[self_n] = ra;
		f.pc = ra;
	}
}

#define SELF_LEVEL(name, next, i)					\
static noinline_walk void name(void)			\
{									\
	self_want[i] = (unsigned long)__builtin_return_address(0);	\
	next();								\
	asm volatile("" ::: "memory");	/* no tail call */		\
}

SELF_LEVEL(self_d, self_walk, 3)
SELF_LEVEL(self_c, self_d, 2)
SELF_LEVEL(self_b, self_c, 1)
SELF_LEVEL(self_a, self_b, 0)

static void test_self(void)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;
	unsigned int i;

	t_begin("self: this program's stack, stepped with its own .sframe");
	pthread_getattr_np(pthread_self(), &attr);
	pthread_attr_getstack(&attr, &addr, &size);
	pthread_attr_destroy(&attr);
	self.lo = (unsigned long)addr;
	self.hi = self.lo + size;
	dl_iterate_phdr(find_sframe, NULL);
	T_CHECK(self.found, "no valid PT_GNU_SFRAME in the program");
	if (self.found) {
		self_a();
		/*
		 * self_walk returns into self_d (got[0]); self_d into self_c
		 * (got[1], what self_d saw as want[3]) ... self_a into main
		 * (got[4], want[0]).
		 */
		T_CHECK(self_n == SELF_DEPTH + 1, "walk stopped after %u frames: %s %d",
			self_n, self_err > 0 ? "step status" : "lookup", self_err);
		for (i = 1; i <= SELF_DEPTH && i < self_n; i++)
			T_CHECK(self_got[i] == self_want[SELF_DEPTH - i],
				"frame %u: %#lx, want %#lx", i, self_got[i],
				self_want[SELF_DEPTH - i]);
		T_CHECK(!self_fp_steps, "%u frames without SFrame", self_fp_steps);
	}
	t_end();
}

int main(void)
{
	test_rules();
	test_self();
	fprintf(stderr, "test-step: %d passed, %d failed\n", t_pass, t_fail);
	return t_fail != 0;
}
