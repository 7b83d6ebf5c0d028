// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit, built as a module: the SFrame core on this module's own .sframe,
 * registered by the module loader after relocation.  The noinline chain
 * below gives functions whose FDEs and rows are known.  With the unwinder
 * built in, a kthread parked in a chain of this module's functions is
 * unwound through the module's .sframe, before and after another module
 * (loaded and unloaded with the usermode helper) changes the module list.
 */
#include <kunit/test.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/task_stack.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/umh.h>
#ifdef CONFIG_ARM64
#include <asm/insn.h>
#endif
#include <sframe/compat.h>
#include <sframe/kernel.h>
#include <sframe/unwind.h>
#include "sframe_kunit.h"
#include "sframe_park.h"

/*
 * Whether @pc is in sfm_no_sframe() (below), by its name: taking the
 * address of an assembly function without ENDBR upsets objtool with IBT.
 */
static __maybe_unused bool sfm_no_sframe_at(unsigned long pc)
{
	char name[KSYM_SYMBOL_LEN];

	/* "sfm_no_sframe [sframe_module_kunit]" */
	sprint_symbol_no_offset(name, pc);
	return !strncmp(name, "sfm_no_sframe ", 14);
}

static noinline int sframe_mod_leaf(int x)
{
	return x * 3 + 1;
}

/* A frame with a local array, so the function has a real stack frame. */
static noinline int sframe_mod_middle(int x)
{
	int buf[16];
	int i;

	for (i = 0; i < 16; i++)
		buf[i] = sframe_mod_leaf(x + i);
	barrier_data(buf);
	return buf[3] + buf[15];
}

static noinline int sframe_mod_top(int x)
{
	return sframe_mod_middle(x) + sframe_mod_leaf(x);
}

/*
 * x86_64: local_irq_save() is "pushf; pop", which the assembler's SFrame
 * gets wrong at the pop (it does not track the push).  The build-time
 * verifier finds it against ORC and puts it into this module's
 * .sframe_fixup; the loader makes it an UNRELIABLE annotation.
 */
static noinline unsigned long sframe_mod_irqsave(void)
{
	unsigned long flags;

	local_irq_save(flags);
	barrier();
	local_irq_restore(flags);
	return flags;
}

static unsigned int sframe_mod_unreliable(unsigned long start,
					  unsigned long size)
{
	unsigned int n = 0;
	unsigned long pc;

	for (pc = start; pc < start + size; pc++)
		n += sframe_kunit_flagged(pc);
	return n;
}

static void sframe_module_fixups(struct kunit *test)
{
	unsigned long sym, size;
	unsigned int n;

	if (!IS_ENABLED(CONFIG_X86_64) || !IS_ENABLED(CONFIG_SFRAME_UNWIND_VERIFY))
		kunit_skip(test, "module fixups come from the ORC comparison (x86_64)");
	sframe_mod_irqsave();
	KUNIT_ASSERT_TRUE(test, sframe_kunit_symbol((unsigned long)sframe_mod_irqsave,
						    &sym, &size));
	n = sframe_mod_unreliable(sym, size);
	kunit_info(test, "%pS: %u bytes UNRELIABLE (verifier fixup)\n",
		   (void *)sym, n);
	KUNIT_EXPECT_GT(test, n, 0U);
	/* Only there: the other functions' SFrame is right. */
	KUNIT_ASSERT_TRUE(test, sframe_kunit_symbol((unsigned long)sframe_mod_middle,
						    &sym, &size));
	KUNIT_EXPECT_EQ(test, sframe_mod_unreliable(sym, size), 0U);
}

/* Every part of this module's .sframe: one per object file linked. */
static void sframe_module_registered(struct kunit *test)
{
	const struct sframe_section *sec;
	unsigned int i;
	u32 fdes = 0;
	int err;

	for (i = 0; (sec = sframe_module_part(THIS_MODULE, i)); i++) {
		err = sframe_validate(sec, NULL, NULL);
		KUNIT_EXPECT_EQ_MSG(test, err, 0, "part %u: %s", i,
				    sframe_errname(err));
		fdes += sec->num_fdes;
		kunit_info(test, "module part %u: SFrame v%u, %u FDEs, %u FREs, %s\n",
			   i, sec->version, sec->num_fdes, sec->num_fres,
			   sec->blocks ? "indexed" : "unindexed");
		/* Every part, whatever text lies between its functions. */
		KUNIT_EXPECT_NOT_NULL_MSG(test, sec->blocks, "part %u", i);
	}
	KUNIT_ASSERT_GT_MSG(test, i, 0U, "module .sframe not registered");
	KUNIT_EXPECT_GT(test, fdes, 3U);
}

/* FDEs of one part that match no function of @mod (10 logged). */
static unsigned long sfm_bad_fdes(struct kunit *test, struct module *mod,
				  const struct sframe_section *sec,
				  unsigned int part, unsigned long bad)
{
	unsigned long sym, size;
	struct sframe_fde fde;
	u32 i;

	for (i = 0; i < sec->num_fdes; i++) {
		KUNIT_ASSERT_EQ(test, sframe_get_fde(sec, i, &fde), 0);
		/*
		 * Outside a live module: its init text, freed after init (the
		 * loader checked every FDE lay inside the module when it
		 * registered the section).
		 */
		if (!within_module(fde.start, mod) &&
		    mod->state == MODULE_STATE_LIVE)
			continue;
		if (within_module(fde.start, mod) &&
		    sframe_kunit_symbol(fde.start, &sym, &size) &&
		    sframe_kunit_fde_at_symbol(fde.start, sym) &&
		    fde.start + fde.size <= sym + size)
			continue;
		if (bad++ < 10)
			kunit_err(test, "part %u FDE %u at %pS (%u bytes) does not match a function\n",
				  part, i, (void *)(unsigned long)fde.start,
				  fde.size);
	}
	return bad;
}

static void sframe_module_fdes_match_kallsyms(struct kunit *test)
{
	const struct sframe_section *sec;
	unsigned long bad = 0;
	unsigned int part;

	KUNIT_ASSERT_NOT_NULL(test, sframe_module_part(THIS_MODULE, 0));
	for (part = 0; (sec = sframe_module_part(THIS_MODULE, part)); part++)
		bad = sfm_bad_fdes(test, THIS_MODULE, sec, part, bad);
	KUNIT_EXPECT_EQ(test, bad, 0);
}

static void sframe_module_lookups(struct kunit *test)
{
	unsigned long fns[] = {
		(unsigned long)sframe_mod_leaf,
		(unsigned long)sframe_mod_middle,
		(unsigned long)sframe_mod_top,
	};
	unsigned long sym, size, pc, entry;
	struct sframe_rule r;
	int i, err;

	KUNIT_EXPECT_EQ(test, sframe_mod_top(1), 66);
	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		KUNIT_ASSERT_TRUE(test, sframe_kunit_symbol(fns[i], &sym, &size));
		KUNIT_ASSERT_EQ(test, sym, fns[i]);
		/*
		 * Where the function's FDE starts: at the symbol, or after
		 * arm64's ftrace NOPs; the symbol's size may include the
		 * alignment padding after the function (-O2), which no FDE
		 * covers.
		 */
		for (pc = sym; pc < sym + size; pc++) {
			err = sframe_kernel_find(pc, &r);
			if (err != -SFRAME_E_NO_FDE)
				break;
		}
		KUNIT_ASSERT_EQ_MSG(test, err, 0, "%pS: %s", (void *)fns[i],
				    sframe_errname(err));
		KUNIT_ASSERT_TRUE(test, sframe_kunit_fde_at_symbol(r.func_start, sym));
		entry = r.func_start;
		for (pc = entry; pc < r.func_start + r.func_size; pc++) {
			err = sframe_kernel_find(pc, &r);
			KUNIT_ASSERT_EQ_MSG(test, err, 0, "%pS: %s", (void *)pc,
					    sframe_errname(err));
			KUNIT_EXPECT_EQ(test, r.func_start, entry);
		}
		/* At entry the CFA is the SP at the call (+8 for x86's RA). */
		err = sframe_kernel_find(entry, &r);
		KUNIT_ASSERT_EQ(test, err, 0);
		KUNIT_EXPECT_TRUE(test, r.flags & SFRAME_RULE_CFA_BASE_SP);
		KUNIT_EXPECT_EQ(test, r.cfa.offset,
				IS_ENABLED(CONFIG_X86_64) ? 8 : 0);
		KUNIT_EXPECT_EQ(test, r.ra.kind,
				IS_ENABLED(CONFIG_X86_64) ? SFRAME_LOC_CFA :
							    SFRAME_LOC_SAME);
	}
	/* Addresses outside any registered section. */
	KUNIT_EXPECT_EQ(test, sframe_kernel_find(0, &r), -SFRAME_E_NO_FDE);
}

#ifdef CONFIG_ARM64
/*
 * Out of a branch's range (a module far from vmlinux, or another module),
 * the loader routes this module's calls through veneers it writes into
 * .plt: every branch of the module's described code lands on a function
 * with SFrame or on a registered veneer (adrp x16, ...), never between.
 */
static bool sfm_described(unsigned long pc)
{
	struct sframe_rule r;
	unsigned long off;

	if (!sframe_kernel_find(pc, &r))
		return true;
	/* A function's entry: its FDE starts after the ftrace NOPs. */
	for (off = AARCH64_INSN_SIZE; off <= 2 * AARCH64_INSN_SIZE;
	     off += AARCH64_INSN_SIZE)
		if (!sframe_kernel_find(pc + off, &r) && r.func_start == pc + off)
			return true;
	return false;
}

static void sframe_module_veneers(struct kunit *test)
{
	unsigned long base, end;
	unsigned int direct = 0, veneered = 0;
	unsigned long pc, to;
	struct sframe_rule r;
	u32 insn;

	sframe_module_core_text(THIS_MODULE, &base, &end);
	end += base;
	for (pc = base; pc < end; pc += AARCH64_INSN_SIZE) {
		insn = le32_to_cpu(*(__le32 *)pc);
		if (!aarch64_insn_is_b(insn) && !aarch64_insn_is_bl(insn))
			continue;
		if (sframe_kernel_find(pc, &r))
			continue;	/* not code the compiler described */
		to = pc + (sign_extend32(insn & 0x3ffffff, 25) << 2);
		if (to < base || to >= end)
			continue;	/* vmlinux or another module, directly */
		if (sfm_described(to)) {
			KUNIT_EXPECT_FALSE_MSG(test, sframe_module_veneer(to),
					       "%pS", (void *)to);
			direct++;
			continue;
		}
		if (sfm_no_sframe_at(to))
			continue;	/* test code without SFrame, on purpose */
		insn = le32_to_cpu(*(__le32 *)to);
		KUNIT_EXPECT_TRUE_MSG(test, sframe_module_veneer(to),
				      "branch at %pS to %pS: no SFrame, no veneer",
				      (void *)pc, (void *)to);
		KUNIT_EXPECT_EQ_MSG(test, insn & 0x9f00001f, 0x90000010U,
				    "%pS: not adrp x16", (void *)to);
		veneered++;
	}
	kunit_info(test, "%u branches within described code, %u through veneers\n",
		   direct, veneered);
	KUNIT_EXPECT_GT(test, direct, 0U);
	KUNIT_EXPECT_FALSE(test, sframe_module_veneer((unsigned long)sframe_mod_leaf));
}
#endif

#ifdef CONFIG_SFRAME_UNWINDER
/* ---- unwinding through the module's .sframe --------------------------- */

static char *peer_ko = "/lib/modules-test/sframe_unwind_demo.ko";
module_param(peer_ko, charp, 0444);
MODULE_PARM_DESC(peer_ko, "another module to load and unload around the walks");

#define SFM_MAX	48

/* The parked chain and the trace of its last walk. */
struct sfm_park {
	struct sframe_park park;
	unsigned long e[SFM_MAX];
	unsigned int n;
};

static bool sfm_store(void *cookie, unsigned long addr)
{
	struct sfm_park *p = cookie;

	if (p->n >= SFM_MAX)
		return false;
	p->e[p->n++] = addr;
	return true;
}

struct sfm_walk {
	struct sfm_park *p;
	struct sframe_unwind_state st;
	int ret;
};

#if defined(CONFIG_ARM64) && defined(CONFIG_KPROBES)
/* A call out to vmlinux: through a veneer when the module lies far away. */
static noinline unsigned int sfm_call_out(unsigned long j)
{
	unsigned int ms = jiffies_to_msecs(j);

	barrier_data(&ms);
	return ms + 1;
}

struct sfm_probe {
	struct kprobe kp;
	struct sfm_park t;
	struct sframe_unwind_state st;
	struct task_struct *task;
	int ret;
	bool hit;
};

static int sfm_probe_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct sfm_probe *sp = container_of(p, struct sfm_probe, kp);

	if (sp->hit || current != sp->task)
		return 0;
	sp->hit = true;
	sp->ret = sframe_stack_walk_state(sfm_store, &sp->t, current, NULL,
					  &sp->st);
	return 0;
}

/* A post handler keeps the probe a BRK trap (no optimisation). */
static void sfm_probe_post(struct kprobe *p, struct pt_regs *regs,
			   unsigned long flags)
{
}

/*
 * A trap inside a veneer (a kprobe on its first instruction): the walk
 * from the trap's pt_regs gives the veneer's PC, then the caller, reliably.
 */
static void sframe_module_veneer_walk(struct kunit *test)
{
	unsigned long base, end;
	unsigned long sym, size, pc, to = 0, vsym, vsize;
	struct sfm_probe *sp;
	unsigned int i;
	u32 insn;

	sframe_module_core_text(THIS_MODULE, &base, &end);
	end += base;
	KUNIT_ASSERT_TRUE(test, sframe_kunit_symbol((unsigned long)sfm_call_out,
						    &sym, &size));
	for (pc = sym; pc < sym + size && !to; pc += AARCH64_INSN_SIZE) {
		insn = le32_to_cpu(*(__le32 *)pc);
		if (aarch64_insn_is_bl(insn))
			to = pc + (sign_extend32(insn & 0x3ffffff, 25) << 2);
	}
	KUNIT_ASSERT_NE_MSG(test, to, 0UL, "no call in %pS", (void *)sym);
	if (to < base || to >= end)
		kunit_skip(test, "this load reaches vmlinux directly: no veneer");
	KUNIT_ASSERT_TRUE(test, sframe_module_veneer(to));
	/*
	 * ld.lld places .plt before .text, so the veneers come before every
	 * symbol of the module, and kprobes refuses an address kallsyms
	 * names no symbol for (-ENOENT).
	 */
	if (!sframe_kunit_symbol(to, &vsym, &vsize))
		kunit_skip(test, "veneer %pS precedes every symbol (.plt first): no kprobe there",
			   (void *)to);

	sp = kunit_kzalloc(test, sizeof(*sp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sp);
	sp->kp.addr = (kprobe_opcode_t *)to;
	sp->kp.pre_handler = sfm_probe_pre;
	sp->kp.post_handler = sfm_probe_post;
	sp->task = current;
	KUNIT_ASSERT_EQ(test, register_kprobe(&sp->kp), 0);
	KUNIT_EXPECT_EQ(test, sfm_call_out(HZ), 1001U);
	unregister_kprobe(&sp->kp);

	KUNIT_ASSERT_TRUE(test, sp->hit);
	KUNIT_EXPECT_EQ_MSG(test, sp->ret, 0, "%s at %pS",
			    sframe_unwind_strerror(sp->st.error),
			    (void *)sp->st.error_pc);
	for (i = 0; i + 1 < sp->t.n && sp->t.e[i] != to; i++)
		;
	KUNIT_ASSERT_LT_MSG(test, i + 1, sp->t.n, "veneer %pS not in the trace",
			    (void *)to);
	KUNIT_EXPECT_TRUE_MSG(test, sp->t.e[i + 1] > sym &&
			      sp->t.e[i + 1] <= sym + size,
			      "after the veneer: %pS", (void *)sp->t.e[i + 1]);
	kunit_info(test, "trap in the veneer at %pS: reliable, then %pS\n",
		   (void *)to, (void *)sp->t.e[i + 1]);
}
#endif

/*
 * sfm_no_sframe() calls sfm_no_sframe_cb() from assembly without CFI, so
 * without SFrame: reliable walks of current from the callback fail at the
 * same PC, its return address in sfm_no_sframe() (the verifier's
 * exceptions name it).  x86_64: the nops before it are the padding that
 * call-depth tracking expects before a called function.  Both are
 * declared in sframe_kunit.h.
 */
#define SFM_OWN_WALKS	64

static bool sfm_noop(void *cookie, unsigned long addr)
{
	return true;
}

static struct sfm_own {
	unsigned int failed, no_rule;
	unsigned long pc;
} sfm_own;

__visible noinline void sfm_no_sframe_cb(void)
{
	struct sframe_unwind_state st;
	unsigned int i;

	for (i = 0; i < SFM_OWN_WALKS; i++)
		if (sframe_stack_walk_reliable(sfm_noop, NULL, current))
			sfm_own.failed++;
	sframe_stack_walk_state(sfm_noop, NULL, current, NULL, &st);
	sfm_own.no_rule = st.error == SFRAME_UW_NO_RULE;
	sfm_own.pc = st.error_pc;
}

#ifdef CONFIG_X86_64
#ifdef CONFIG_FUNCTION_PADDING_BYTES
#define SFM_PAD	".skip " __stringify(CONFIG_FUNCTION_PADDING_BYTES) ", 0x90\n"
#else
#define SFM_PAD
#endif
asm(".pushsection .text, \"ax\"\n"
	SFM_PAD
	".type sfm_no_sframe, @function\n"
	"sfm_no_sframe:\n"
	"	push %rbx\n"
	"	call sfm_no_sframe_cb\n"
	"	pop %rbx\n"
	"	" ASM_RET
	".size sfm_no_sframe, . - sfm_no_sframe\n"
	".popsection\n");
#else
asm(".pushsection .text, \"ax\"\n"
	".type sfm_no_sframe, %function\n"
	"sfm_no_sframe:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, sp\n"
	"	bl sfm_no_sframe_cb\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	".size sfm_no_sframe, . - sfm_no_sframe\n"
	".popsection\n");
#endif

/*
 * A task that walks its own stack over and over through the same defect
 * (livepatch's cond_resched() hook does, at every call during a
 * transition): every walk fails, and the warning is logged once for that
 * PC (the boot tests count the lines).
 */
static void sframe_module_own_stack_failure(struct kunit *test)
{
	memset(&sfm_own, 0, sizeof(sfm_own));
	sfm_no_sframe();
	KUNIT_EXPECT_EQ(test, sfm_own.failed, SFM_OWN_WALKS);
	KUNIT_EXPECT_TRUE_MSG(test, sfm_own.no_rule, "not for want of a rule");
	KUNIT_EXPECT_TRUE_MSG(test, sfm_no_sframe_at(sfm_own.pc),
			      "failed at %pS", (void *)sfm_own.pc);
	kunit_info(test, "%u walks failed at %pS\n", sfm_own.failed,
		   (void *)sfm_own.pc);
}

/* The walk, with @task kept off the CPU; -EAGAIN until it sleeps. */
static int sfm_walk_pinned(struct task_struct *task, void *arg)
{
	struct sfm_walk *w = arg;

	if (READ_ONCE(task->__state) != TASK_UNINTERRUPTIBLE)
		return -EAGAIN;
	w->p->n = 0;
	w->ret = sframe_stack_walk_state(sfm_store, w->p, task, NULL, &w->st);
	return 0;
}

/* Walk @task reliably; expect leaf, mid, top, thread in order. */
static void sfm_walk(struct kunit *test, struct sfm_park *p,
		     struct task_struct *task, const char *when)
{
	void *const chain[] = { sframe_park_leaf, sframe_park_fn3,
				sframe_park_fn2, sframe_park_fn1,
				sframe_park_thread };
	struct sfm_walk w = { .p = p };
	unsigned long sym, size;
	unsigned int i, k;
	struct sframe_rule r;
	int ret, tries;

	for (tries = 0; tries < 1000; tries++) {
		ret = sframe_unwind_call_blocked(task, sfm_walk_pinned, &w);
		if (ret != -EBUSY && ret != -EAGAIN)
			break;
		usleep_range(1000, 2000);
	}
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%s: task not caught asleep", when);
	kunit_info(test, "%s: %u frames, %s\n", when, p->n,
		   w.ret ? sframe_unwind_strerror(w.st.error) : "reliable");
	for (i = 0; i < p->n; i++)
		kunit_info(test, "  %pS\n", (void *)p->e[i]);
	KUNIT_EXPECT_EQ_MSG(test, w.ret, 0, "%s: %s", when,
			    sframe_unwind_strerror(w.st.error));
	KUNIT_EXPECT_TRUE(test, w.st.done);
	for (i = 0; i < p->n; i++)
		if (sframe_kunit_symbol(p->e[i], &sym, &size) &&
		    sym == (unsigned long)chain[0])
			break;
	KUNIT_ASSERT_LE_MSG(test, i + ARRAY_SIZE(chain), p->n,
			    "%s: module chain not found", when);
	for (k = 0; k < ARRAY_SIZE(chain); k++) {
		unsigned long pc = p->e[i + k];

		KUNIT_EXPECT_TRUE(test, sframe_kunit_symbol(pc, &sym, &size) &&
				  sym == (unsigned long)chain[k]);
		/* Found through this module's own .sframe. */
		KUNIT_EXPECT_TRUE(test, within_module(pc, THIS_MODULE));
		KUNIT_EXPECT_EQ(test, sframe_kernel_find(k ? pc - 1 : pc, &r), 0);
		KUNIT_EXPECT_TRUE(test, within_module(r.func_start, THIS_MODULE));
	}
}

static int sfm_umh(const char *prog, const char *arg)
{
	static char *envp[] = { "HOME=/", "PATH=/sbin:/bin:/usr/sbin:/usr/bin",
				NULL };
	char *argv[] = { (char *)prog, (char *)arg, NULL };

	return call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC);
}

static void sframe_module_unwind(struct kunit *test)
{
	const char *name = kbasename(peer_ko);
	char peer[MODULE_NAME_LEN];
	struct task_struct *task;
	struct sfm_park *p;
	int loaded, ret;

	strscpy(peer, name, sizeof(peer));
	if (strchr(peer, '.'))
		*strchr(peer, '.') = '\0';
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	task = sframe_park_start(&p->park, "sfm_parked");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	sfm_walk(test, p, task, "alone");
	loaded = sfm_umh("/bin/insmod", peer_ko);
	kunit_info(test, "insmod %s: %d\n", peer_ko, loaded);
	if (!loaded) {
		sfm_walk(test, p, task, "with another module loaded after us");
		ret = sfm_umh("/bin/rmmod", peer);
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "rmmod %s", peer);
		sfm_walk(test, p, task, "after that module's unload");
	}
	sframe_park_stop(&p->park, task);
	if (loaded)
		kunit_skip(test, "no peer module %s (usermode helper: %d)",
			   peer_ko, loaded);
}

#ifdef CONFIG_SFRAME_UNWIND_KUNIT_TEST
/*
 * vmlinux's init text is freed at the end of the boot (this suite runs at
 * insmod, after it), and vmlinux's section with it: no lookup finds a
 * rule there any more, and a return address into it is not text, so the
 * walk stops at it.  The init text's bounds come from the built-in suite.
 */
static void sframe_module_freed_init_ra(struct kunit *test)
{
	unsigned long *slot, saved, ra, init_ra;
	struct sfm_walk w = { };
	struct task_struct *task;
	struct sframe_rule r;
	int ret, tries;

	KUNIT_ASSERT_EQ(test, system_state, SYSTEM_RUNNING);
	KUNIT_ASSERT_LT(test, sframe_kunit_inittext[0], sframe_kunit_inittext[1]);
	for (ra = sframe_kunit_inittext[0]; ra < sframe_kunit_inittext[1]; ra += 4)
		if (!sframe_kernel_find(ra, &r))
			break;
	KUNIT_EXPECT_GE_MSG(test, ra, sframe_kunit_inittext[1],
			    "a rule at %pS in the freed init text", (void *)ra);
	init_ra = ALIGN(sframe_kunit_inittext[0] +
			(sframe_kunit_inittext[1] - sframe_kunit_inittext[0]) / 2,
			4);

	w.p = kunit_kzalloc(test, sizeof(*w.p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w.p);
	task = sframe_park_start(&w.p->park, "sfm_init_ra");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	/* The slot holding fn2's return address into fn1. */
	slot = sframe_kunit_ra_slot(task, sframe_park_fn1);
	if (!slot) {
		sframe_park_stop(&w.p->park, task);
		KUNIT_FAIL(test, "return address into the parked chain not found");
		return;
	}
	saved = *slot;
	*slot = init_ra;
	for (tries = 0; tries < 1000; tries++) {
		ret = sframe_unwind_call_blocked(task, sfm_walk_pinned, &w);
		if (ret != -EBUSY && ret != -EAGAIN)
			break;
		usleep_range(1000, 2000);
	}
	*slot = saved;
	sframe_park_stop(&w.p->park, task);
	KUNIT_ASSERT_EQ(test, ret, 0);
	kunit_info(test, "%pS as a return address: %s after %u frames\n",
		   (void *)init_ra, sframe_unwind_strerror(w.st.error), w.p->n);
	KUNIT_EXPECT_NE(test, w.ret, 0);
	KUNIT_EXPECT_EQ(test, w.st.error, SFRAME_UW_NOT_TEXT);
}
#endif

/*
 * ---- a kthread blocked inside a real multi-object module --------------
 *
 * zram.ko (zram_drv.o + zcomp.o, linked with `ld -r`): its sysfs
 * reset_store() takes the disk's open_mutex.  With the mutex held here, a
 * kthread writing /sys/block/zram0/reset sleeps inside zram; its walk must
 * be reliable, pass through zram's own .sframe and end at the final frame.
 * Then every FDE of zram's registered sections must start at a symbol of
 * zram.  Skipped when zram is not loaded (the boot test modprobes it).
 */
struct sfm_zram {
	struct completion done;
	ssize_t ret;
};

static int sfm_zram_reset(void *arg)
{
	struct sfm_zram *z = arg;
	struct file *f;
	loff_t pos = 0;

	f = filp_open("/sys/block/zram0/reset", O_WRONLY, 0);
	if (IS_ERR(f)) {
		z->ret = PTR_ERR(f);
	} else {
		z->ret = kernel_write(f, "1", 1, &pos);
		filp_close(f, NULL);
	}
	complete(&z->done);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/* Walk @task until it sleeps inside module @mod; true if it did. */
static bool sfm_walk_in(struct sfm_park *p, struct task_struct *task,
			struct sfm_walk *w, struct module *mod)
{
	unsigned int i;
	int tries;

	int ret = 0;

	for (tries = 0; tries < 500; tries++) {
		ret = sframe_unwind_call_blocked(task, sfm_walk_pinned, w);
		if (!ret)
			for (i = 0; i < p->n; i++)
				if (within_module(p->e[i], mod))
					return true;
		usleep_range(10000, 20000);
	}
	/* What the last try saw, for the failure message. */
	pr_info("sfm: last try: %d, state %#x, walk %s, %u frames\n", ret,
		READ_ONCE(task->__state),
		w->ret ? sframe_unwind_strerror(w->st.error) : "reliable", p->n);
	for (i = 0; i < p->n; i++)
		pr_info("sfm:   %pS\n", (void *)p->e[i]);
	return false;
}

static void sframe_module_blocked_in_zram(struct kunit *test)
{
	struct sfm_walk w = { };
	struct block_device *bdev;
	void *bdev_handle;
	struct task_struct *task;
	struct module *zram = NULL;
	const struct sframe_section *sec;
	unsigned long bad = 0;
	unsigned int i, part;
	struct sfm_zram *z;
	struct sfm_park *p;
	bool found;

	bdev_handle = sframe_bdev_open("/dev/zram0", test, &bdev);
	if (IS_ERR(bdev_handle))
		kunit_skip(test, "no /dev/zram0 (zram not loaded): %ld",
			   PTR_ERR(bdev_handle));
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	z = kunit_kzalloc(test, sizeof(*z), GFP_KERNEL);
	if (!p || !z) {
		sframe_bdev_close(bdev_handle);
		KUNIT_FAIL(test, "no memory");
		return;
	}
	w.p = p;
	/* zram.ko itself: the open device holds a reference to it */
	zram = bdev->bd_disk->fops->owner;
	init_completion(&z->done);
	mutex_lock(&bdev->bd_disk->open_mutex);
	task = kthread_run(sfm_zram_reset, z, "sfm_zram_reset");
	if (IS_ERR(task)) {
		mutex_unlock(&bdev->bd_disk->open_mutex);
		sframe_bdev_close(bdev_handle);
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(task));
		return;
	}
	get_task_struct(task);
	found = sfm_walk_in(p, task, &w, zram);
	mutex_unlock(&bdev->bd_disk->open_mutex);
	wait_for_completion(&z->done);
	kthread_stop(task);
	put_task_struct(task);

	if (!found) {
		sframe_bdev_close(bdev_handle);
		KUNIT_FAIL(test, "kthread never seen asleep inside zram");
		return;
	}
	kunit_info(test, "blocked in zram reset_store: %u frames, %s\n", p->n,
		   w.ret ? sframe_unwind_strerror(w.st.error) : "reliable");
	for (i = 0; i < p->n; i++)
		kunit_info(test, "  %pS\n", (void *)p->e[i]);
	KUNIT_EXPECT_EQ_MSG(test, w.ret, 0, "%s",
			    sframe_unwind_strerror(w.st.error));
	KUNIT_EXPECT_TRUE(test, w.st.done);
	/*
	 * zram.ko is two objects: its .sframe a sequence of two parts, one
	 * per object from the assembler, or one for the whole module from
	 * sframe-gen (CONFIG_SFRAME_UNWIND_GEN).
	 */
	KUNIT_EXPECT_NOT_NULL(test, sframe_module_part(zram, 0));
	for (part = 0; (sec = sframe_module_part(zram, part)); part++)
		bad = sfm_bad_fdes(test, zram, sec, part, bad);
	kunit_info(test, "zram: %u .sframe parts registered\n", part);
	KUNIT_EXPECT_GE(test, part,
			IS_ENABLED(CONFIG_SFRAME_UNWIND_GEN) ? 1U : 2U);
	KUNIT_EXPECT_EQ(test, bad, 0);
	sframe_bdev_close(bdev_handle);
	KUNIT_EXPECT_EQ(test, z->ret, -EBUSY);
}
#endif

/*
 * After the boot vmlinux's section is gone (it went with the init memory)
 * and its decoded rows answer alone: a lookup in a function still gives
 * the function's start, which the unwinder's entry checks need (x86: an
 * INT3 over a call; arm64: the patchable NOPs ahead of a function).
 */
static void sframe_module_vmlinux_func_start(struct kunit *test)
{
	static void * const fns[] = { msleep, kfree, kernel_read, schedule };
	unsigned long sym, size, pc;
	struct sframe_rule r, at;
	unsigned int i;

	KUNIT_EXPECT_NULL(test, sframe_vmlinux_section());
	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		KUNIT_ASSERT_TRUE(test, sframe_kunit_symbol((unsigned long)fns[i],
							    &sym, &size));
		pc = sym + size / 2;
		KUNIT_ASSERT_EQ_MSG(test, sframe_kernel_find(pc, &r), 0, "%pS",
				    (void *)pc);
		KUNIT_EXPECT_TRUE_MSG(test,
				      sframe_kunit_fde_at_symbol(r.func_start, sym),
				      "%pS: function start %pS", (void *)pc,
				      (void *)r.func_start);
		KUNIT_ASSERT_EQ(test, sframe_kernel_find(r.func_start, &at), 0);
		KUNIT_EXPECT_EQ(test, at.func_start, r.func_start);
	}
}

/* Store @v in the @n bytes at @p, little-endian (both test arches). */
static void sfm_put(u8 *p, u64 v, unsigned int n)
{
	while (n--) {
		*p++ = v;
		v >>= 8;
	}
}

/* sfm_span_section()'s two functions, 4 MiB apart, from the section */
static const u64 sfm_span_func[2] = { 0x1000, 0x1000 + SZ_4M };

/*
 * A section of two one-row functions (sfm_span_func), laid out as gas
 * writes it for the running arch, PC-relative starts relocated as the
 * loader leaves them; flagged sorted with @sorted.  *@size: its size.
 */
static u8 *sfm_span_section(struct kunit *test, bool sorted, size_t *size)
{
	enum { FDES = SFRAME_HDR_SIZE, FRES = FDES + 2 * SFRAME_V2_FDE_SIZE,
	       FRE_SIZE = 3, SIZE = FRES + 2 * FRE_SIZE };
	const bool arm64 = IS_ENABLED(CONFIG_ARM64);
	u8 *buf, *f;
	int i;

	buf = kunit_kzalloc(test, SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	sfm_put(buf + SFRAME_HDR_MAGIC, SFRAME_MAGIC, 2);
	buf[SFRAME_HDR_VERSION] = SFRAME_VERSION_2;
	buf[SFRAME_HDR_FLAGS] = SFRAME_F_FDE_FUNC_START_PCREL |
				(sorted ? SFRAME_F_FDE_SORTED : 0);
	buf[SFRAME_HDR_ABI] = arm64 ? SFRAME_ABI_AARCH64_ENDIAN_LITTLE :
				      SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	buf[SFRAME_HDR_FIXED_RA] = arm64 ? 0 : (u8)-8;
	sfm_put(buf + SFRAME_HDR_NUM_FDES, 2, 4);
	sfm_put(buf + SFRAME_HDR_NUM_FRES, 2, 4);
	sfm_put(buf + SFRAME_HDR_FRE_LEN, 2 * FRE_SIZE, 4);
	sfm_put(buf + SFRAME_HDR_FREOFF, 2 * SFRAME_V2_FDE_SIZE, 4);
	for (i = 0; i < 2; i++) {
		f = buf + FDES + i * SFRAME_V2_FDE_SIZE;
		/* PC-relative: from the start field's own address */
		sfm_put(f + SFRAME_V1_FDE_START, sfm_span_func[i] - (f - buf), 4);
		sfm_put(f + SFRAME_V1_FDE_FUNC_SIZE, 16, 4);
		sfm_put(f + SFRAME_V1_FDE_FRE_OFF, i * FRE_SIZE, 4);
		sfm_put(f + SFRAME_V1_FDE_NUM_FRES, 1, 4);
		f[SFRAME_V1_FDE_INFO] =
			SFRAME_FUNC_INFO(SFRAME_FRE_TYPE_ADDR1, 0, 0);
		/* at offset 0: CFA = SP (+8 on x86_64) */
		f = buf + FRES + i * FRE_SIZE;
		f[1] = SFRAME_FRE_INFO(1, 1, SFRAME_FRE_WORD_1B, 0);
		f[2] = arm64 ? 0 : 8;
	}
	*size = SIZE;
	return buf;
}

/* Both of sfm_span_func found in @sec at @addr, and nothing between them. */
static void sfm_span_lookups(struct kunit *test,
			     const struct sframe_section *sec,
			     unsigned long addr)
{
	struct sframe_fde fde;
	int i, err;

	for (i = 0; i < 2; i++) {
		err = sframe_find_fde(sec, addr + sfm_span_func[i] + 8, &fde);
		KUNIT_EXPECT_EQ_MSG(test, err, 0, "%s", sframe_errname(err));
		KUNIT_EXPECT_EQ(test, fde.start, addr + sfm_span_func[i]);
	}
	err = sframe_find_fde(sec, addr + sfm_span_func[0] + SZ_2M, &fde);
	KUNIT_EXPECT_EQ_MSG(test, err, -SFRAME_E_NO_FDE, "%s",
			    sframe_errname(err));
}

/*
 * An object linked into a module with core and init functions spans the
 * text between the loader's allocations, far more of it than it has
 * functions: its part is indexed all the same, in larger blocks (left
 * unindexed, it would be scanned FDE by FDE at every lookup and could
 * get no rows).
 */
static void sframe_module_part_span(struct kunit *test)
{
	struct sframe_section sec;
	unsigned long addr;
	size_t size;
	u32 *index;
	u8 *buf;
	int err;

	buf = sfm_span_section(test, false, &size);
	addr = (unsigned long)buf;
	err = sframe_table_init(&sec, &index, buf, size, addr, true, true);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "%s", sframe_errname(err));
	KUNIT_EXPECT_NOT_NULL(test, index);
	KUNIT_EXPECT_NOT_NULL(test, sec.blocks);
	sfm_span_lookups(test, &sec, addr);
	kvfree(index);
}

#if defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS) || defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
/*
 * No memory for a section's lookup index: sframe_index_alloc() of the
 * test's task redirected, as livepatch redirects a function, to one that
 * fails.
 */
static struct task_struct *sfm_nomem_task;

static u32 *sfm_index_nomem(u32 nwords)
{
	return NULL;
}

static notrace void sfm_nomem_redirect(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	if (current == READ_ONCE(sfm_nomem_task))
		sframe_ftrace_set_pc(fregs, (unsigned long)sfm_index_nomem);
}

/*
 * sframe_table_init() of a span section (sfm_span_section()) with its
 * index memory refused: a sorted one, as vmlinux's, is kept and
 * binary-searched (-SFRAME_E_INDEX); a module's, never sorted once
 * relocated, would be scanned FDE by FDE at every lookup, in NMI context
 * too, and is refused (-SFRAME_E_COST).
 */
static void sframe_module_index_nomem(struct kunit *test)
{
	static const char func[] = "sframe_index_alloc";
	struct ftrace_ops *ops;
	struct sframe_section sec;
	unsigned long addr;
	int err[2], ret, sorted;
	size_t size;
	u32 *index;
	u8 *buf;

	ops = kunit_kzalloc(test, sizeof(*ops), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ops);
	ops->func = sfm_nomem_redirect;
	ops->flags = FTRACE_OPS_FL_IPMODIFY;
#ifndef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
	ops->flags |= FTRACE_OPS_FL_SAVE_REGS;
#endif
	ret = ftrace_set_filter(ops, (unsigned char *)func, strlen(func), 1);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%s cannot be traced", func);
	ret = register_ftrace_function(ops);
	if (ret)
		ftrace_free_filter(ops);
	KUNIT_ASSERT_EQ(test, ret, 0);

	for (sorted = 0; sorted < 2; sorted++) {
		buf = sfm_span_section(test, sorted, &size);
		addr = (unsigned long)buf;
		WRITE_ONCE(sfm_nomem_task, current);
		err[sorted] = sframe_table_init(&sec, &index, buf, size, addr,
						!sorted, true);
		WRITE_ONCE(sfm_nomem_task, NULL);
		KUNIT_EXPECT_NULL(test, index);
		kvfree(index);
		if (sorted && err[sorted] == -SFRAME_E_INDEX)
			sfm_span_lookups(test, &sec, addr);
	}
	unregister_ftrace_function(ops);
	ftrace_free_filter(ops);
	KUNIT_EXPECT_EQ_MSG(test, err[0], -SFRAME_E_COST, "module: %s",
			    sframe_errname(err[0]));
	KUNIT_EXPECT_EQ_MSG(test, err[1], -SFRAME_E_INDEX, "sorted, not a module: %s",
			    sframe_errname(err[1]));
}
#endif

static struct kunit_case sframe_module_cases[] = {
	KUNIT_CASE(sframe_module_registered),
	KUNIT_CASE(sframe_module_part_span),
#if defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS) || defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
	KUNIT_CASE(sframe_module_index_nomem),
#endif
	KUNIT_CASE(sframe_module_vmlinux_func_start),
	KUNIT_CASE(sframe_module_fdes_match_kallsyms),
	KUNIT_CASE(sframe_module_lookups),
	KUNIT_CASE(sframe_module_fixups),
#ifdef CONFIG_ARM64
	KUNIT_CASE(sframe_module_veneers),
#endif
#ifdef CONFIG_SFRAME_UNWINDER
	KUNIT_CASE(sframe_module_unwind),
#if defined(CONFIG_ARM64) && defined(CONFIG_KPROBES)
	KUNIT_CASE(sframe_module_veneer_walk),
#endif
	KUNIT_CASE(sframe_module_blocked_in_zram),
	KUNIT_CASE(sframe_module_own_stack_failure),
#ifdef CONFIG_SFRAME_UNWIND_KUNIT_TEST
	KUNIT_CASE(sframe_module_freed_init_ra),
#endif
#endif
	{}
};

static struct kunit_suite sframe_module_suite = {
	.name = "sframe_module",
	.test_cases = sframe_module_cases,
};

kunit_test_suite(sframe_module_suite);

MODULE_DESCRIPTION("KUnit tests of the SFrame core on a module's .sframe");
MODULE_LICENSE("GPL");
