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
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/task_stack.h>
#include <linux/umh.h>
#include <sframe/kernel.h>
#include <sframe/unwind.h>
#include "sframe_kunit.h"

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
	const struct sframe_annot *a;
	unsigned int n = 0;
	unsigned long pc;

	for (pc = start; pc < start + size; pc++) {
		a = sframe_annot_find(pc);
		n += a && a->type == SFRAME_ANNOT_UNRELIABLE;
	}
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

static void sframe_module_registered(struct kunit *test)
{
	const struct sframe_section *sec = sframe_module_section(THIS_MODULE);
	int err;

	KUNIT_ASSERT_NOT_NULL_MSG(test, sec, "module .sframe not registered");
	err = sframe_validate(sec, NULL, NULL);
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "%s", sframe_errname(err));
	KUNIT_EXPECT_GT(test, sec->num_fdes, 3U);
	kunit_info(test, "module: SFrame v%u, %u FDEs, %u FREs, %s\n",
		   sec->version, sec->num_fdes, sec->num_fres,
		   sec->blocks ? "indexed" : "unindexed (small)");
}

static void sframe_module_fdes_match_kallsyms(struct kunit *test)
{
	const struct sframe_section *sec = sframe_module_section(THIS_MODULE);
	unsigned long bad = 0;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, sec);
	for (i = 0; i < sec->num_fdes; i++) {
		unsigned long sym, size;
		struct sframe_fde fde;

		KUNIT_ASSERT_EQ(test, sframe_get_fde(sec, i, &fde), 0);
		if (!within_module(fde.start, THIS_MODULE) ||
		    !sframe_kunit_symbol(fde.start, &sym, &size) ||
		    !sframe_kunit_fde_at_symbol(fde.start, sym) ||
		    fde.start + fde.size > sym + size) {
			if (bad++ < 10)
				kunit_err(test, "FDE %u at %pS (%u bytes) does not match a function\n",
					  i, (void *)(unsigned long)fde.start,
					  fde.size);
		}
	}
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
		/* Where the function's FDE starts (arm64: maybe after NOPs). */
		err = sframe_kernel_find(fns[i] + size - 1, &r);
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

#ifdef CONFIG_SFRAME_UNWINDER
/* ---- unwinding through the module's .sframe --------------------------- */

static char *peer_ko = "/lib/modules-test/sframe_unwind_demo.ko";
module_param(peer_ko, charp, 0444);
MODULE_PARM_DESC(peer_ko, "another module to load and unload around the walks");

#define SFM_MAX	48

struct sfm_park {
	struct completion ready, release;
	unsigned long e[SFM_MAX];
	unsigned int n;
};

static noinline int sfm_park_leaf(struct sfm_park *p)
{
	complete(&p->ready);
	wait_for_completion(&p->release);
	return READ_ONCE(p->n);
}

static noinline int sfm_park_mid(struct sfm_park *p)
{
	int r = sfm_park_leaf(p);

	barrier_data(&r);
	return r + 1;
}

static noinline int sfm_park_top(struct sfm_park *p)
{
	int r = sfm_park_mid(p);

	barrier_data(&r);
	return r * 3;
}

static int sfm_thread(void *arg)
{
	sfm_park_top(arg);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

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
	void *const chain[] = { sfm_park_leaf, sfm_park_mid, sfm_park_top,
				sfm_thread };
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
	init_completion(&p->ready);
	init_completion(&p->release);
	task = kthread_run(sfm_thread, p, "sfm_parked");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	wait_for_completion(&p->ready);
	sfm_walk(test, p, task, "alone");
	loaded = sfm_umh("/bin/insmod", peer_ko);
	kunit_info(test, "insmod %s: %d\n", peer_ko, loaded);
	if (!loaded) {
		sfm_walk(test, p, task, "with another module loaded after us");
		ret = sfm_umh("/bin/rmmod", peer);
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "rmmod %s", peer);
		sfm_walk(test, p, task, "after that module's unload");
	}
	complete(&p->release);
	kthread_stop(task);
	put_task_struct(task);
	if (loaded)
		kunit_skip(test, "no peer module %s (usermode helper: %d)",
			   peer_ko, loaded);
}
#endif

static struct kunit_case sframe_module_cases[] = {
	KUNIT_CASE(sframe_module_registered),
	KUNIT_CASE(sframe_module_fdes_match_kallsyms),
	KUNIT_CASE(sframe_module_lookups),
	KUNIT_CASE(sframe_module_fixups),
#ifdef CONFIG_SFRAME_UNWINDER
	KUNIT_CASE(sframe_module_unwind),
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
