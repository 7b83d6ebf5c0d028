/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Types of the fixture tables generated into sframe_fixtures.h and a
 * helper shared by the KUnit suites.
 */
#ifndef _SFRAME_KUNIT_H
#define _SFRAME_KUNIT_H

#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/sched/task_stack.h>
#include <linux/types.h>
#include <sframe/compat.h>
#include <sframe/kernel.h>
#include <sframe/sframe.h>

struct sframe_kunit_loc {
	u8 kind;		/* enum sframe_loc_kind */
	u8 deref;
	u16 reg;
	s32 offset;
};

#define SFRAME_KUNIT_MANGLED	0x1	/* row's RA is signed */
#define SFRAME_KUNIT_PADDING	0x2	/* row has RA padding */

/* Expected rule of one row, from an independent reference. */
struct sframe_kunit_row {
	u32 fde;		/* index of the FDE it belongs to */
	u32 start;		/* start offset (PCMASK: within the block) */
	u8 outermost;
	u8 flags;		/* SFRAME_KUNIT_* */
	struct sframe_kunit_loc cfa, ra, fp;
};

struct sframe_kunit_fde {
	u64 pc;
	u32 size;
	u32 nrows;
	u8 pc_type;
	u8 rep;
	u8 signal;
};

struct sframe_kunit_fixture {
	const char *name;
	const u8 *data;
	size_t size;
	u64 addr;		/* address the section was linked at */
	const struct sframe_kunit_fde *fdes;
	u32 nfdes;
	const struct sframe_kunit_row *rows;
	u32 nrows;
};

/*
 * vmlinux's init text, for the module suite (which runs after it is
 * freed): [start, end), exported by the built-in suite.
 */
extern const unsigned long sframe_kunit_inittext[2];

/*
 * vmlinux's section for a built-in suite, which runs at boot: a run
 * again after the boot (debugfs kunit/SUITE/run) is skipped, since the
 * section went with the init memory.
 */
static inline const struct sframe_section *
sframe_kunit_vmlinux_section(struct kunit *test)
{
	const struct sframe_section *sec = sframe_vmlinux_section();

	if (!sec && system_state >= SYSTEM_FREEING_INITMEM)
		kunit_skip(test, "vmlinux's .sframe went with the init memory");
	KUNIT_ASSERT_NOT_NULL_MSG(test, sec, "vmlinux has no usable .sframe");
	return sec;
}

/* vmlinux's annotation table (the linker script brackets it). */
extern struct sframe_annot __start_sframe_annot[], __stop_sframe_annot[];

/**
 * sframe_kunit_symbol() - the symbol containing an address
 * @addr: kernel or module address
 * @start: result: the symbol's address
 * @size: result: its size, as kallsyms computes it (up to the next symbol)
 *
 * Through sprint_symbol(), which modules can use ("name+0xoff/0xsize").
 *
 * Return: true if kallsyms knows a symbol there.
 */
static inline bool sframe_kunit_symbol(unsigned long addr, unsigned long *start,
				       unsigned long *size)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long off;
	char *p;

	sprint_symbol(buf, addr);
	p = strrchr(buf, '+');
	if (!p || sscanf(p, "+%lx/%lx", &off, size) != 2 || off > addr)
		return false;
	*start = addr - off;
	return true;
}

/**
 * sframe_kunit_ra_slot() - where a blocked task saved a return address
 * @task: a task blocked in a known chain (sframe_park.h), stack pinned
 * @func: the function the return address lies in (not at its start)
 *
 * For tests that corrupt the slot.  On arm64 the address may be signed.
 *
 * Return: the first slot above the task's switch frame holding one, or
 * NULL.
 */
static inline unsigned long *sframe_kunit_ra_slot(struct task_struct *task,
						  void *func)
{
	unsigned long *stack, end, ra, start, size;

#ifdef CONFIG_X86_64
	stack = (unsigned long *)task->thread.sp;
#else
	stack = (unsigned long *)thread_saved_sp(task);
#endif
	end = (unsigned long)task_stack_page(task) + THREAD_SIZE;
	for (; (unsigned long)stack < end; stack++) {
		/* another task's stack: past its frames' KASAN redzones */
		ra = READ_ONCE_NOCHECK(*stack);
#ifdef CONFIG_ARM64
		ra = sframe_strip_pac(ra);
#endif
		if (ra != (unsigned long)func &&
		    sframe_kunit_symbol(ra, &start, &size) &&
		    start == (unsigned long)func)
			return stack;
	}
	return NULL;
}

/*
 * Does an FDE starting at @fde_start belong to the symbol at @sym?  On
 * arm64 with ftrace, functions that can be traced start with two NOPs
 * that their FDE leaves out (it starts at +8); notrace functions do not.
 */
static inline bool sframe_kunit_fde_at_symbol(unsigned long fde_start,
					      unsigned long sym)
{
	return fde_start == sym ||
	       (IS_ENABLED(CONFIG_ARM64) && IS_ENABLED(CONFIG_FUNCTION_TRACER) &&
		fde_start == sym + 8);
}

/**
 * sframe_kunit_flagged() - is an address in a range the verifier flagged?
 * @pc: kernel or module text address
 *
 * Return: true if a fixup of the build-time verifier (an UNRELIABLE
 * annotation) covers @pc: SFrame is known wrong there.
 */
static inline bool sframe_kunit_flagged(unsigned long pc)
{
	const struct sframe_annot *a = sframe_annot_find(pc);

	return a && a->type == SFRAME_ANNOT_UNRELIABLE;
}

/* sframe_module_kunit.c: code without SFrame (asm) and its C callback */
void sfm_no_sframe(void);
void sfm_no_sframe_cb(void);

#endif /* _SFRAME_KUNIT_H */
