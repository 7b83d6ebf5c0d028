/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel APIs that differ between the supported kernel lines, 6.1
 * and 6.12, in one place: everything else in the unwinder and its test
 * modules is written once, against these helpers.  Adding a line means
 * adding its branch here (and its patch series).
 */
#ifndef _SFRAME_COMPAT_H
#define _SFRAME_COMPAT_H

#include <linux/version.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/ftrace.h>

/* 6.12 or later (the 6.12 line), else 6.1 */
#define SFRAME_LINUX_6_12	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0))

/* The kernel is Linux 6.@v.x (LINUX_VERSION_CODE: major, minor, patch bytes) */
#define SFRAME_LINUX_LINE(v)	((LINUX_VERSION_CODE >> 8) == (6 << 8 | (v)))
#if !SFRAME_LINUX_LINE(1) && !SFRAME_LINUX_LINE(12)
#error "sframe-unwind supports the Linux 6.1 and 6.12 lines only (see compat.h)"
#endif

#include <linux/blkdev.h>
#if SFRAME_LINUX_6_12
#include <linux/file.h>
#else
#include <linux/start_kernel.h>
#endif

#ifdef CONFIG_ARM64
#include <asm/pointer_auth.h>

/*
 * A return address without its pointer authentication code, kernel or
 * user (bit 55 tells which half of the address space).
 */
static __always_inline unsigned long sframe_strip_pac(unsigned long ra)
{
#if SFRAME_LINUX_6_12
	return ra & BIT_ULL(55) ? ptrauth_strip_kernel_insn_pac(ra) :
				  ptrauth_strip_user_insn_pac(ra);
#else
	return ptrauth_strip_insn_pac(ra);
#endif
}
#endif /* CONFIG_ARM64 */

#ifdef CONFIG_X86_64
#include <asm/current.h>
#include <asm/processor.h>
#include <asm/switch_to.h>

/* The topmost word of this CPU's hardirq stack. */
static __always_inline unsigned long sframe_hardirq_stack_ptr(void)
{
#if SFRAME_LINUX_6_12
	return (unsigned long)this_cpu_read(pcpu_hot.hardirq_stack_ptr);
#else
	return (unsigned long)this_cpu_read(hardirq_stack_ptr);
#endif
}
#endif /* CONFIG_X86_64 */

/*
 * Where a new task first runs (the assembly entry: the first frame of a
 * task that never ran, with its pt_regs at the stack pointer).  On x86_64
 * 6.12 ret_from_fork() is C, called from ret_from_fork_asm.
 */
#if defined(CONFIG_X86_64) && SFRAME_LINUX_6_12
#define sframe_fork_entry	ret_from_fork_asm
#else
asmlinkage void ret_from_fork(void);
#define sframe_fork_entry	ret_from_fork
#endif

/*
 * rest_init(), where init_task's walk ends: global on 6.1, static on 6.12
 * (found by name; built-in code only).  Return: its address, or 0.
 */
static inline unsigned long sframe_rest_init(void)
{
#if SFRAME_LINUX_6_12
	return kallsyms_lookup_name("rest_init");
#else
	return (unsigned long)rest_init;
#endif
}

#ifdef CONFIG_MODULES
/* A module's core text: where it starts and how many bytes. */
static inline void sframe_module_core_text(const struct module *mod,
					   unsigned long *base,
					   unsigned long *size)
{
#if SFRAME_LINUX_6_12
	*base = (unsigned long)mod->mem[MOD_TEXT].base;
	*size = mod->mem[MOD_TEXT].size;
#else
	*base = (unsigned long)mod->core_layout.base;
	*size = mod->core_layout.text_size;
#endif
}
#endif

/*
 * A block device opened for reading: sframe_bdev_open() returns a handle
 * for sframe_bdev_close() (an ERR_PTR on failure) and sets *@bdev.
 */
static inline void *sframe_bdev_open(const char *path, void *holder,
				     struct block_device **bdev)
{
#if SFRAME_LINUX_6_12
	struct file *f = bdev_file_open_by_path(path, BLK_OPEN_READ, holder,
						NULL);

	if (!IS_ERR(f))
		*bdev = file_bdev(f);
	return f;
#else
	struct block_device *b = blkdev_get_by_path(path, FMODE_READ, holder);

	if (!IS_ERR(b))
		*bdev = b;
	return b;
#endif
}

static inline void sframe_bdev_close(void *handle)
{
#if SFRAME_LINUX_6_12
	fput(handle);
#else
	blkdev_put(handle, FMODE_READ);
#endif
}

/*
 * The parameters of a kallsyms_on_each_symbol() callback, named data,
 * name and addr.
 */
#if SFRAME_LINUX_6_12
#define SFRAME_KALLSYMS_CB_ARGS \
	void *data, const char *name, unsigned long addr
#else
#define SFRAME_KALLSYMS_CB_ARGS \
	void *data, const char *name, struct module *mod, unsigned long addr
#endif

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
/* fgraph_ops' entryfunc and retfunc parameters, the first named trace */
#if SFRAME_LINUX_6_12
#define SFRAME_FGRAPH_ENT_ARGS \
	struct ftrace_graph_ent *trace, struct fgraph_ops *gops
#define SFRAME_FGRAPH_RET_ARGS \
	struct ftrace_graph_ret *trace, struct fgraph_ops *gops
#else
#define SFRAME_FGRAPH_ENT_ARGS	struct ftrace_graph_ent *trace
#define SFRAME_FGRAPH_RET_ARGS	struct ftrace_graph_ret *trace
#endif

#ifdef CONFIG_DYNAMIC_FTRACE
/*
 * Limit @gops to the functions matching @buf (added to the filter, or
 * replacing it if @reset; @buf NULL and @reset lift it).  On 6.1 the
 * graph tracer follows the global filter; on 6.12 each fgraph_ops has
 * its own.
 */
static inline void sframe_fgraph_filter(struct fgraph_ops *gops,
					unsigned char *buf, int len, int reset)
{
#if SFRAME_LINUX_6_12
	ftrace_set_filter(&gops->ops, buf, len, reset);
#else
	ftrace_set_global_filter(buf, len, reset);
#endif
}
#endif /* CONFIG_DYNAMIC_FTRACE */
#endif /* CONFIG_FUNCTION_GRAPH_TRACER */

/*
 * Since 6.4 livepatch also switches a task from its own cond_resched()
 * (klp_sched_try_switch()), walking current's stack: what lets a kthread
 * that never sleeps be patched.  6.1 switches it only while it is off the
 * CPU.
 */
#define SFRAME_KLP_COND_RESCHED	SFRAME_LINUX_6_12

/* A task's patch_state outside a transition (KLP_UNDEFINED until 6.7) */
#if SFRAME_LINUX_6_12
#define SFRAME_KLP_IDLE		KLP_TRANSITION_IDLE
#else
#define SFRAME_KLP_IDLE		KLP_UNDEFINED
#endif

/* Redirect a traced function: set the PC it resumes at (renamed in 6.7) */
#if SFRAME_LINUX_6_12
#define sframe_ftrace_set_pc(fregs, ip) \
	ftrace_regs_set_instruction_pointer(fregs, ip)
#else
#define sframe_ftrace_set_pc(fregs, ip) \
	ftrace_instruction_pointer_set(fregs, ip)
#endif

#endif /* _SFRAME_COMPAT_H */
