/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User-space unwinding with the SFrame sections of user ELF files.
 *
 * The memory-management hooks keep, per mm, a small table of the
 * executable file mappings whose ELF file has a PT_GNU_SFRAME segment and
 * where that section lies at run time; perf_callchain_user() then walks a
 * user stack with it (kernel/unwind_user.c).
 * See Documentation/user-unwind.rst.
 */
#ifndef _SFRAME_USER_H
#define _SFRAME_USER_H

#include <linux/log2.h>
#include <linux/types.h>
#include <sframe/format.h>		/* PT_GNU_SFRAME */

struct mm_struct;
struct task_struct;
struct vm_area_struct;
struct perf_callchain_entry_ctx;
struct pt_regs;
struct sframe_section;
struct sframe_rule;

/* Sections known per mm; more mappings with SFrame are not unwound. */
#define SFRAME_USER_MAX_SECTIONS	32

/* A walk stops after this many frames whatever perf's limit. */
#define SFRAME_USER_MAX_FRAMES		256

/*
 * The cost bound of a walk, in copies from a user section (each at most
 * 128 bytes, kernel/core_uaccess.h), whatever the section holds: one
 * lookup makes at most %SFRAME_USER_LOOKUP_COPIES (8 KiB), one sample at
 * most %SFRAME_USER_SAMPLE_COPIES (32 KiB) over all its lookups.  A
 * linker-made section needs a header, a binary search (about 12 copies
 * for 4,000 functions, 23 at the 64 MiB size limit) and the function's
 * rows (one or two copies for all but the largest functions).  A lookup
 * that runs out ends its walk and the section is not looked up in for
 * %SFRAME_USER_REFUSE_MS (a forged or pathological section, or one being
 * rewritten); a sample that runs out ends there.
 */
#define SFRAME_USER_LOOKUP_COPIES	64
#define SFRAME_USER_SAMPLE_COPIES	256
#define SFRAME_USER_REFUSE_MS		20

/*
 * A sample that finds a page of a section missing asks for the section's
 * pages (faulted in at the task's return to user space) once per section
 * and this many ms (sframe_user_want_pages()).
 */
#define SFRAME_USER_ASK_MS		1000

#ifdef CONFIG_SFRAME_USER_UNWIND

/*
 * The SFrame core built for sections in user memory (kernel/core_uaccess.c:
 * sframe_open() and sframe_find() of lib/sframe/, same code).
 */
int sframe_user_open(struct sframe_section *sec, const void *data, u64 size,
		     u64 addr, unsigned int opts);
int sframe_user_find(const struct sframe_section *sec, u64 pc,
		     struct sframe_rule *rule);

void sframe_user_mmap(struct vm_area_struct *vma);
void sframe_user_munmap(struct mm_struct *mm, unsigned long start,
			unsigned long end);
void sframe_user_mprotect(struct mm_struct *mm, unsigned long start,
			  unsigned long end, unsigned long oldflags,
			  unsigned long newflags);
void sframe_user_dup(struct mm_struct *mm, struct mm_struct *oldmm);
void sframe_user_fork(struct task_struct *p, u64 clone_flags);
void sframe_user_mm_free(struct mm_struct *mm);
bool sframe_user_callchain(struct perf_callchain_entry_ctx *entry,
			   struct pt_regs *regs);
size_t sframe_user_cache_bytes(void);

/*
 * The user caches of a CPU, in units of four answers and one row
 * (sframe_user_cache_units_for(): by vmlinux's rows and the CPU count)
 */
#define SFRAME_USER_CACHE_UNITS_MIN	2
#define SFRAME_USER_CACHE_UNITS_MAX	64
unsigned int sframe_user_cache_units_for(u32 nrows, unsigned int cpus);
size_t sframe_user_cache_unit_bytes(void);

/*
 * The hash bits of caches of @units units (a power of two, at least 2):
 * 2 << set_bits answers in sets of two, 1 << row_bits rows
 */
static inline unsigned int sframe_user_cache_set_bits(unsigned int units)
{
	return ilog2(units) + 1;
}

static inline unsigned int sframe_user_cache_row_bits(unsigned int units)
{
	return ilog2(units);
}

#else

static inline void sframe_user_mmap(struct vm_area_struct *vma) { }
static inline void sframe_user_munmap(struct mm_struct *mm,
				      unsigned long start, unsigned long end) { }
static inline void sframe_user_mprotect(struct mm_struct *mm,
					unsigned long start,
					unsigned long end,
					unsigned long oldflags,
					unsigned long newflags) { }
static inline void sframe_user_dup(struct mm_struct *mm,
				   struct mm_struct *oldmm) { }
static inline void sframe_user_fork(struct task_struct *p,
				    u64 clone_flags) { }
static inline void sframe_user_mm_free(struct mm_struct *mm) { }
static inline bool sframe_user_callchain(struct perf_callchain_entry_ctx *entry,
					 struct pt_regs *regs)
{
	return false;
}

static inline size_t sframe_user_cache_bytes(void)
{
	return 0;
}
#endif /* CONFIG_SFRAME_USER_UNWIND */

#endif /* _SFRAME_USER_H */
