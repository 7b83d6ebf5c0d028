// SPDX-License-Identifier: GPL-2.0-only
/*
 * User-space stack walks for perf from the SFrame sections of ELF files.
 *
 * Finding sections.  When an executable file mapping is created
 * (sframe_user_mmap(), called by mmap_region() with mmap_lock held for
 * writing), a task_work is queued; on the task's way back to user space,
 * before any code of the new mapping can run in it and with no lock held,
 * it reads the ELF header and program headers from the file, then takes
 * mmap_lock to enter the section if the mapping is still the same (file
 * I/O under mmap_lock would rank the filesystem's inode lock below it, the
 * wrong way round, and wait on whatever the filesystem waits on).  If
 * there is a PT_GNU_SFRAME segment, the mapping's text range and the
 * section's run-time address (load bias + p_vaddr) and size bound
 * (p_memsz: the segment may be zero-padded, the SFrame header gives the
 * real size) go into the mm's table: a small array, replaced as a whole
 * (copy, update, rcu_assign_pointer(), kfree_rcu()) so that readers in any
 * context, perf's NMI handler included, only need rcu_read_lock().  It
 * holds at most %SFRAME_USER_MAX_SECTIONS entries.  munmap and mprotect of
 * a text range drop its entry; exec starts with a new, empty mm; fork
 * copies the table.
 *
 * Reading.  The section is user memory and the process may change it at
 * any time.  Every lookup opens it again through the user-memory build of
 * the core (kernel/core_uaccess.c: copy_from_user_nofault(), so a missing
 * page is a failed read, never a fault): the header is validated on every
 * use and every later read is bounds-checked; nothing read earlier is
 * trusted.  A hostile section can only make the chain wrong or short.
 * Nor can it make a sample cost more than a fixed amount of work: each
 * copy from a section spends a budget (%SFRAME_USER_LOOKUP_COPIES per
 * lookup, %SFRAME_USER_SAMPLE_COPIES per sample); a walk that runs out
 * ends there, and a section whose single lookup ran out, or whose FDEs are
 * not sorted (a search would be a scan), is not read again for
 * %SFRAME_USER_REFUSE_MS (%SFRAME_USER_REFUSED; counted in debugfs
 * sframe/user): the process may rewrite it, so a refusal must not last.
 *
 * Answer cache.  What a lookup found (a rule, or "no FDE here") is kept per
 * CPU, keyed by the PC and the id of the mm's table: a table is never
 * changed but replaced, and every new table gets an id never used before,
 * so an answer is only found again while the same mappings hold the same
 * sections (not after munmap(), exec or in another mm).  Only sections
 * whose bytes are all mapped read-only from their own ELF file are cached
 * (%SFRAME_USER_NO_CACHE); any mmap(), munmap() or mprotect() of their
 * bytes makes a new table.  A cached answer is used exactly as a fresh
 * one (the step still reads the stack fault-tolerantly), so even an answer
 * from bytes changed behind our back (the file rewritten on disk) can
 * only give a wrong or short chain, as a forged section can.  The caches
 * are allocated when the first process gets a section: until then (and
 * on a machine whose programs have none) they take no memory.
 *
 * Faulting in.  perf samples in NMI or interrupt context, where a section
 * page that is not mapped yet cannot be faulted in: such a sample would
 * lose its chain.  So the pages are mapped before user code can run: a
 * new mapping that covers (part of) a known section, and the mapping that
 * makes a section known, queue a task_work that touches those pages when
 * the task returns to user space (after the execve() or mmap() that made
 * them); a forked child, which gets no page table entries for file
 * mappings, does the same for all its sections before it first runs in
 * user space (sframe_user_fork()).  A sample that still finds a page
 * missing (reclaimed since) asks for the whole section in the same way.
 * sframe.user_prefault=0 leaves only that last path (to measure what
 * prefaulting buys); debugfs sframe/user counts the requests and pages.
 *
 * Unwinding.  From the user registers perf gives, frame by frame, with
 * the same step as the kernel unwinder (sframe_step(), sframe/step.h; only
 * the memory reads differ): the SFrame rule of the PC's mapping (CFA from
 * SP or FP, RA and FP saved at CFA + offset, or on arm64 RA still in LR in
 * the interrupted frame); a PC without SFrame is stepped with the constant
 * frame-record rule (FP, RA at FP + 8; on arm64 the caller's SP is then
 * unknown, and an SP-based rule after it takes the frame record too), and
 * on arm64 a PC inside an ELF with SFrame but outside any FDE (PLT stubs)
 * in the interrupted frame takes the entry rule (RA in LR).  The walk stops
 * cleanly at an outermost frame (RA undefined), a zero RA, or any
 * inconsistency: a CFA not above SP, a misaligned CFA, an RA outside user
 * space, a failed read, or %SFRAME_USER_MAX_FRAMES frames.
 */
#define pr_fmt(fmt) "sframe: " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/uio.h>
#include <linux/timex.h>
#include <linux/uaccess.h>
#include <asm/tlb.h>			/* nmi_uaccess_okay() */
#include <sframe/kernel.h>
#include <sframe/sframe.h>
#include <sframe/user.h>
#include "core_uaccess.h"
#include "unwind_arch.h"

/* Largest section we look at (a forged p_memsz is clamped to it). */
#define SFRAME_USER_MAX_SIZE	(64UL << 20)
/* Program headers read from an ELF file. */
#define SFRAME_USER_MAX_PHDRS	64

/**
 * struct sframe_user_sec - an executable mapping with an SFrame section
 * @start: first byte of the mapping's text
 * @end: one past its last byte
 * @sframe: run-time address of the section
 * @size: bytes at @sframe that may belong to it (PT_GNU_SFRAME p_memsz)
 * @bias: @sframe minus the section's offset in the ELF file
 * @inode: the ELF file's inode, as an identity (never dereferenced; the
 *         text mapping holds the file while the entry exists)
 * @flags: bit %SFRAME_USER_REFUSED (set by readers, atomically) and
 *         %SFRAME_USER_NO_CACHE
 * @retry: with %SFRAME_USER_REFUSED, the jiffies from which lookups read
 *         the section again (set by readers, WRITE_ONCE())
 * @asked: 0, or the jiffies until which a sample that finds a page of the
 *         section missing does not ask for its pages again (set by
 *         readers, cmpxchg(): sframe_user_want_pages())
 */
struct sframe_user_sec {
	unsigned long start, end;
	unsigned long sframe, size;
	unsigned long bias;
	const void *inode;
	unsigned long flags;
	unsigned long retry;
	unsigned long asked;
};

/*
 * struct sframe_user_sec.flags:
 * %SFRAME_USER_NO_CACHE: the section's bytes are not all mapped
 *	read-only from its own ELF file (not mapped yet, writable, another
 *	file or anonymous memory over them, or unmapped or made writable
 *	since): its answers are not cached (sframe_user_bytes_changed())
 * %SFRAME_USER_REFUSED: a lookup ran over its budget, or the FDEs are not
 *	sorted (set by readers): not read until @retry, walks end there
 *	(sframe_user_refuse())
 */
#define SFRAME_USER_NO_CACHE	1
#define SFRAME_USER_REFUSED	2

/**
 * struct sframe_user_mm - an mm's table of sections (replaced as a whole)
 * @rcu: for kfree_rcu()
 * @id: unique among all tables ever made (sframe_user_alloc()): the key
 *      of the answers cached from this table
 * @nr: entries in @secs
 * @secs: sorted by @start, non-overlapping
 */
struct sframe_user_mm {
	struct rcu_head rcu;
	u64 id;
	unsigned int nr;
	struct sframe_user_sec secs[];
};

/* The last table id handed out; 64 bits never wrap. */
static atomic64_t sframe_user_last_id = ATOMIC64_INIT(0);

/* ---- the per-mm table ----------------------------------------------------- */

static void sframe_user_prefault(struct vm_area_struct *vma);
static void sframe_user_caches_alloc(void);

static struct sframe_user_mm *sframe_user_table(struct mm_struct *mm)
{
	return rcu_dereference_protected(mm->sframe_user,
					 lockdep_is_held(&mm->mmap_lock) ||
					 !atomic_read(&mm->mm_users));
}

/*
 * Copy an entry of a published table, into a new table or out for a
 * lookup.  Readers write its @flags, @retry and @asked meanwhile (atomic
 * bit operations, WRITE_ONCE(), cmpxchg()): each is read once, whole; a
 * value written after that is lost, which costs one lookup or one
 * request.  The other fields never change.
 */
static void sframe_user_sec_copy(struct sframe_user_sec *to,
				 const struct sframe_user_sec *from)
{
	to->start = from->start;
	to->end = from->end;
	to->sframe = from->sframe;
	to->size = from->size;
	to->bias = from->bias;
	to->inode = from->inode;
	to->flags = READ_ONCE(from->flags);
	to->retry = READ_ONCE(from->retry);
	to->asked = READ_ONCE(from->asked);
}

/* Every table is new: a new id, so that no cached answer applies to it. */
static struct sframe_user_mm *sframe_user_alloc(unsigned int nr)
{
	struct sframe_user_mm *t;

	t = kzalloc(struct_size(t, secs, nr), GFP_KERNEL);
	if (t)
		t->id = atomic64_inc_return(&sframe_user_last_id);
	return t;
}

static void sframe_user_publish(struct mm_struct *mm, struct sframe_user_mm *new)
{
	struct sframe_user_mm *old = sframe_user_table(mm);

	rcu_assign_pointer(mm->sframe_user, new);
	if (old)
		kfree_rcu(old, rcu);
}

/* Replace the table without the entries overlapping [start, end). */
static void sframe_user_remove(struct mm_struct *mm, unsigned long start,
			       unsigned long end)
{
	struct sframe_user_mm *old = sframe_user_table(mm), *new;
	unsigned int i, keep = 0;

	if (!old)
		return;
	for (i = 0; i < old->nr; i++)
		keep += old->secs[i].end <= start || old->secs[i].start >= end;
	if (keep == old->nr)
		return;
	new = keep ? sframe_user_alloc(keep) : NULL;
	if (new) {
		for (i = 0; i < old->nr; i++)
			if (old->secs[i].end <= start || old->secs[i].start >= end)
				sframe_user_sec_copy(&new->secs[new->nr++],
						     &old->secs[i]);
	}
	/* Without memory for the copy, forget them all: never stale. */
	sframe_user_publish(mm, new);
}

static void sframe_user_insert(struct mm_struct *mm,
			       const struct sframe_user_sec *sec)
{
	struct sframe_user_mm *old, *new;
	unsigned int i, n;

	sframe_user_remove(mm, sec->start, sec->end);
	old = sframe_user_table(mm);
	n = old ? old->nr : 0;
	if (n >= SFRAME_USER_MAX_SECTIONS) {
		pr_debug("%s: more than %d mappings with SFrame\n",
			 current->comm, SFRAME_USER_MAX_SECTIONS);
		return;
	}
	new = sframe_user_alloc(n + 1);
	if (!new)
		return;
	for (i = 0; i < n && old->secs[i].start < sec->start; i++)
		sframe_user_sec_copy(&new->secs[new->nr++], &old->secs[i]);
	new->secs[new->nr++] = *sec;
	for (; i < n; i++)
		sframe_user_sec_copy(&new->secs[new->nr++], &old->secs[i]);
	sframe_user_publish(mm, new);
}

/*
 * __kernel_read() through the page cache: a mapping's descriptor may have
 * been opened with O_DIRECT, whose reads need aligned user buffers (and
 * would fail on ours), while the ELF headers are a few hundred bytes that
 * the loader, or the next exec of the file, reads through the cache
 * anyway.  Like __kernel_read() it skips the permission hooks: the file is
 * mapped, security_mmap_file() has allowed that.  @pos comes from the file
 * (e_phoff): one that rw_verify_area() would refuse is refused.
 */
static ssize_t sframe_user_file_read(struct file *file, void *buf, size_t len,
				     loff_t pos)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;
	struct kiocb kiocb;

	if (!(file->f_mode & FMODE_READ) || !(file->f_mode & FMODE_CAN_READ) ||
	    !file->f_op->read_iter || file->f_op->read || pos < 0 ||
	    pos > MAX_LFS_FILESIZE - (loff_t)len)
		return -EINVAL;
	init_sync_kiocb(&kiocb, file);
	kiocb.ki_flags &= ~IOCB_DIRECT;
	kiocb.ki_pos = pos;
	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, len);
	return file->f_op->read_iter(&kiocb, &iter);
}

/*
 * Read the program headers of ELF file @file (with no lock held: this is
 * file I/O, which may take the inode lock, wait on a network filesystem, a
 * FUSE server or fanotify).  Return: their number, 0 if @file is not an
 * ELF file of this architecture; *@php is then kmalloc()ed.
 */
static int sframe_user_read_phdrs(struct file *file, struct elf64_phdr **php)
{
	struct elf64_phdr *ph;
	struct elf64_hdr eh;
	size_t len;

	if (sframe_user_file_read(file, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != ELF_ARCH ||
	    eh.e_phentsize != sizeof(*ph) || !eh.e_phnum ||
	    eh.e_phnum > SFRAME_USER_MAX_PHDRS)
		return 0;
	len = eh.e_phnum * sizeof(*ph);
	ph = kmalloc(len, GFP_KERNEL);
	if (!ph)
		return 0;
	if (sframe_user_file_read(file, ph, len, eh.e_phoff) != len) {
		kfree(ph);
		return 0;
	}
	*php = ph;
	return eh.e_phnum;
}

/* From @vma's ELF file's program headers @ph: where its .sframe lies. */
static bool sframe_user_place(struct vm_area_struct *vma,
			      const struct elf64_phdr *ph, int phnum,
			      struct sframe_user_sec *sec)
{
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	const struct elf64_phdr *sframe = NULL, *load = NULL;
	unsigned long bias;
	int i;

	for (i = 0; i < phnum; i++) {
		u64 fstart = ph[i].p_offset & PAGE_MASK;

		if (ph[i].p_type == PT_GNU_SFRAME)
			sframe = &ph[i];
		else if (ph[i].p_type == PT_LOAD && !load && fstart <= off &&
			 off < ph[i].p_offset + ph[i].p_filesz &&
			 (ph[i].p_vaddr & ~PAGE_MASK) == (ph[i].p_offset & ~PAGE_MASK))
			load = &ph[i];
	}
	if (!sframe || !load || !sframe->p_memsz)
		return false;
	/* vm_start maps file offset @off, which the segment puts at vaddr: */
	bias = vma->vm_start - ((load->p_vaddr & PAGE_MASK) +
				(off - (load->p_offset & PAGE_MASK)));
	/*
	 * Only the segment's own pages: the dynamic loader (and the ELF
	 * loader for PIE) first map a whole file with the first segment's
	 * protection, then unmap or mprotect what lies beyond it, which must
	 * not drop the entry.
	 */
	sec->start = max(vma->vm_start, bias + (load->p_vaddr & PAGE_MASK));
	sec->end = min(vma->vm_end,
		       PAGE_ALIGN(bias + load->p_vaddr + load->p_memsz));
	if (sec->start >= sec->end)
		return false;
	sec->sframe = bias + sframe->p_vaddr;
	sec->size = min_t(u64, sframe->p_memsz, SFRAME_USER_MAX_SIZE);
	sec->bias = sec->sframe - sframe->p_offset;
	sec->inode = file_inode(vma->vm_file);
	return true;
}

/* Do [@start, @end) and the bytes of @s's section overlap? */
static bool sframe_user_bytes_in(const struct sframe_user_sec *s,
				 unsigned long start, unsigned long end)
{
	return s->sframe < end && start < s->sframe + s->size;
}

/*
 * Is all of [@start, @end) mapped read-only from @sec's ELF file: as
 * executable text (@text), else at the offsets its program headers give?
 * An empty or wrapping range is not.
 */
static bool sframe_user_file_ro(struct mm_struct *mm,
				const struct sframe_user_sec *sec,
				unsigned long start, unsigned long end, bool text)
{
	VMA_ITERATOR(vmi, mm, start);
	unsigned long at = start;
	struct vm_area_struct *vma;

	if (end <= start)
		return false;
	for_each_vma_range(vmi, vma, end) {
		if (vma->vm_start > at || (vma->vm_flags & VM_WRITE) ||
		    !vma->vm_file || file_inode(vma->vm_file) != sec->inode)
			return false;
		if (text ? !(vma->vm_flags & VM_EXEC) :
			   vma->vm_start - (vma->vm_pgoff << PAGE_SHIFT) != sec->bias)
			return false;
		at = vma->vm_end;
		if (at >= end)
			return true;
	}
	return false;
}

/*
 * Are all bytes of @sec's section mapped, read-only, from its own ELF file
 * at the offsets the program headers give?  Then they can only change
 * through a later mmap(), munmap() or mprotect() of them, which the hooks
 * see.  (A forged size that wraps: never cached.)
 */
static bool sframe_user_bytes_sealed(struct mm_struct *mm,
				     const struct sframe_user_sec *sec)
{
	return sframe_user_file_ro(mm, sec, sec->sframe,
				   sec->sframe + sec->size, false);
}

/* sframe_user_bytes_changed() @how */
enum sframe_user_change {
	SFRAME_USER_REMAPPED,	/* after an mmap(): seal again if sealed */
	SFRAME_USER_UNMAPPED,	/* before an munmap(): no longer sealed */
	SFRAME_USER_WRITABLE,	/* before an mprotect() adding write */
	SFRAME_USER_PROTECTED,	/* before another mprotect(): as it was */
};

/*
 * A mapping change touches [@start, @end): the sections whose bytes lie
 * there (and are mapped, for an munmap()) go into a new table, whose new
 * id no answer cached before carries, with %SFRAME_USER_NO_CACHE as @how
 * says.
 */
static void sframe_user_bytes_changed(struct mm_struct *mm,
				      unsigned long start, unsigned long end,
				      enum sframe_user_change how)
{
	struct sframe_user_mm *old = sframe_user_table(mm), *new;
	bool hit = false;
	unsigned int i;

	for (i = 0; old && i < old->nr; i++)
		hit |= sframe_user_bytes_in(&old->secs[i], start, end);
	if (!hit)
		return;
	new = sframe_user_alloc(old->nr);
	if (!new) {
		/* Without memory for the copy, forget them all: never stale. */
		sframe_user_publish(mm, NULL);
		return;
	}
	for (i = 0; i < old->nr; i++)
		sframe_user_sec_copy(&new->secs[i], &old->secs[i]);
	new->nr = old->nr;
	for (i = 0; i < new->nr; i++) {
		struct sframe_user_sec *s = &new->secs[i];

		if (!sframe_user_bytes_in(s, start, end))
			continue;
		switch (how) {
		case SFRAME_USER_REMAPPED:
			if (sframe_user_bytes_sealed(mm, s))
				__clear_bit(SFRAME_USER_NO_CACHE, &s->flags);
			else
				__set_bit(SFRAME_USER_NO_CACHE, &s->flags);
			break;
		case SFRAME_USER_UNMAPPED:
			if (find_vma_intersection(mm, max(start, s->sframe),
						  min(end, s->sframe + s->size)))
				__set_bit(SFRAME_USER_NO_CACHE, &s->flags);
			break;
		case SFRAME_USER_WRITABLE:
			__set_bit(SFRAME_USER_NO_CACHE, &s->flags);
			break;
		case SFRAME_USER_PROTECTED:
			break;
		}
	}
	sframe_user_publish(mm, new);
}

/*
 * A new executable file mapping, to be looked at on the way back to user
 * space (sframe_user_elf_fn()): @file is held, @start, @pgoff and @mm say
 * which mapping it was.
 */
struct sframe_user_pending {
	struct callback_head work;
	struct file *file;
	const struct mm_struct *mm;	/* identity only */
	unsigned long start, pgoff;
};

static void sframe_user_prefault_sec(const struct sframe_user_sec *sec);

/*
 * task_work of sframe_user_mmap(): read the ELF headers of the new mapping's
 * file with no lock held, then, under mmap_lock, enter its section if the
 * mapping is still there as it was.  Runs before the task returns to user
 * space from the mmap() or execve() that made the mapping, so before any
 * of its code can run in this task; and at exit (no mm), where it only
 * drops its reference.
 */
static void sframe_user_elf_fn(struct callback_head *head)
{
	struct sframe_user_pending *p =
		container_of(head, struct sframe_user_pending, work);
	struct mm_struct *mm = current->mm;
	struct sframe_user_sec sec = { };
	struct vm_area_struct *vma;
	struct elf64_phdr *ph = NULL;
	bool known = false;
	int phnum;

	if (!mm || mm != p->mm || (current->flags & PF_EXITING))
		goto out;
	phnum = sframe_user_read_phdrs(p->file, &ph);
	if (!phnum || mmap_write_lock_killable(mm))
		goto out;
	/* The same file at the same offsets (merged or split since, maybe). */
	vma = vma_lookup(mm, p->start);
	if (vma && vma->vm_file == p->file && (vma->vm_flags & VM_EXEC) &&
	    !(vma->vm_flags & VM_WRITE) &&
	    vma->vm_pgoff + ((p->start - vma->vm_start) >> PAGE_SHIFT) ==
	    p->pgoff && sframe_user_place(vma, ph, phnum, &sec)) {
		if (!sframe_user_bytes_sealed(mm, &sec))
			__set_bit(SFRAME_USER_NO_CACHE, &sec.flags);
		sframe_user_insert(mm, &sec);
		known = true;
	}
	mmap_write_unlock(mm);
	/* Its pages, before user code runs: perf cannot fault them in. */
	if (known) {
		sframe_user_prefault_sec(&sec);
		sframe_user_caches_alloc();
	}
out:
	kfree(ph);
	fput(p->file);
	kfree(p);
}

/**
 * sframe_user_mmap() - note a new mapping (mmap hook)
 * @vma: the mapping, just inserted; mmap_lock is held for writing
 *
 * A mapping over a known section's bytes seals it again or stops the
 * caching of its answers, and gets them faulted in
 * (sframe_user_prefault()).  An executable file mapping is looked at
 * later, on the task's way back to user space (sframe_user_elf_fn()):
 * reading its ELF headers is file I/O, which must not happen under
 * mmap_lock (the filesystem may take the inode lock, which ranks above
 * mmap_lock, or wait on a server or another task).
 */
void sframe_user_mmap(struct vm_area_struct *vma)
{
	struct sframe_user_pending *p;

	if (!vma->vm_mm || vma->vm_mm != current->mm)
		return;
	sframe_user_bytes_changed(vma->vm_mm, vma->vm_start, vma->vm_end,
				  SFRAME_USER_REMAPPED);
	if ((vma->vm_flags & VM_EXEC) && vma->vm_file &&
	    !(current->flags & PF_KTHREAD)) {
		p = kmalloc(sizeof(*p), GFP_KERNEL);
		if (p) {
			init_task_work(&p->work, sframe_user_elf_fn);
			p->file = get_file(vma->vm_file);
			p->mm = vma->vm_mm;
			p->start = vma->vm_start;
			p->pgoff = vma->vm_pgoff;
			if (task_work_add(current, &p->work, TWA_RESUME)) {
				/* Exiting; the mapping holds the file too. */
				fput(p->file);
				kfree(p);
			}
		}
	}
	sframe_user_prefault(vma);
}

/**
 * sframe_user_munmap() - forget the sections of unmapped text (munmap hook)
 * @mm: the mm; mmap_lock is held for writing
 * @start: first unmapped byte
 * @end: one past the last
 *
 * Unmapped section bytes may come back with other contents: the section
 * (if its text stays) has its answers no longer cached.
 */
void sframe_user_munmap(struct mm_struct *mm, unsigned long start,
			unsigned long end)
{
	sframe_user_remove(mm, start, end);
	sframe_user_bytes_changed(mm, start, end, SFRAME_USER_UNMAPPED);
}

/**
 * sframe_user_mprotect() - a mapping's protection changes (mprotect hook)
 * @mm: the mm; mmap_lock is held for writing
 * @start: first byte
 * @end: one past the last
 * @oldflags: the mapping's vm_flags before
 * @newflags: after
 *
 * Text made writable is forgotten: it may be rewritten (a JIT, a
 * patcher), and its SFrame no longer describes it; so is text that is no
 * longer executable.  Text that stays executable and read-only keeps its
 * entry: mprotect() to the protection it has, or adding PROT_BTI, which
 * a BTI-enabled dynamic loader does to every BTI-marked object on arm64.
 * Data ranges (RELRO, the section itself) keep the entries, their
 * contents are never trusted anyway; but section bytes made writable
 * have their section's answers no longer cached.
 */
void sframe_user_mprotect(struct mm_struct *mm, unsigned long start,
			  unsigned long end, unsigned long oldflags,
			  unsigned long newflags)
{
	if ((newflags & VM_WRITE) || !(newflags & VM_EXEC))
		sframe_user_remove(mm, start, end);
	sframe_user_bytes_changed(mm, start, end,
				  newflags & VM_WRITE ? SFRAME_USER_WRITABLE :
							SFRAME_USER_PROTECTED);
}

/*
 * Is all of @sec's text mapped in @mm, executable and read-only, from its
 * own file?  Not in a forked child when the parent's text was
 * MADV_DONTFORK: the child has a hole there, which it may fill with other
 * code.
 */
static bool sframe_user_text_held(struct mm_struct *mm,
				  const struct sframe_user_sec *sec)
{
	return sframe_user_file_ro(mm, sec, sec->start, sec->end, true);
}

/**
 * sframe_user_dup() - copy the table at fork (dup_mmap hook)
 * @mm: the child's mm, a copy of @oldmm's mappings
 * @oldmm: the parent's; both mmap_locks are held for writing
 *
 * The child gets the entries whose text it got: mappings the parent made
 * MADV_DONTFORK are not copied, and an entry must not outlive its text
 * (the text's file keeps the entry's inode alive).
 */
void sframe_user_dup(struct mm_struct *mm, struct mm_struct *oldmm)
{
	struct sframe_user_mm *old = sframe_user_table(oldmm), *new;
	unsigned int i, keep = 0;

	RCU_INIT_POINTER(mm->sframe_user, NULL);
	for (i = 0; old && i < old->nr; i++)
		keep += sframe_user_text_held(mm, &old->secs[i]);
	if (!keep)
		return;
	new = sframe_user_alloc(keep);
	if (!new)
		return;
	for (i = 0; i < old->nr; i++) {
		if (!sframe_user_text_held(mm, &old->secs[i]))
			continue;
		sframe_user_sec_copy(&new->secs[new->nr++], &old->secs[i]);
	}
	rcu_assign_pointer(mm->sframe_user, new);
}

/**
 * sframe_user_mm_free() - free the table with its mm (__mmdrop hook)
 * @mm: the mm being freed
 */
void sframe_user_mm_free(struct mm_struct *mm)
{
	struct sframe_user_mm *t = rcu_dereference_protected(mm->sframe_user, 1);

	RCU_INIT_POINTER(mm->sframe_user, NULL);
	if (t)
		kfree_rcu(t, rcu);
}

/*
 * The entry of current's mm whose text holds @pc, and the table's id;
 * under rcu_read_lock().
 */
static struct sframe_user_sec *sframe_user_sec_of(unsigned long pc, u64 *id)
{
	struct mm_struct *mm = current->mm;
	struct sframe_user_mm *t;
	unsigned int lo = 0, hi;

	t = mm ? rcu_dereference(mm->sframe_user) : NULL;
	if (!t)
		return NULL;
	*id = t->id;
	hi = t->nr;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (t->secs[mid].end <= pc)
			lo = mid + 1;
		else if (t->secs[mid].start > pc)
			hi = mid;
		else
			return &t->secs[mid];
	}
	return NULL;
}

/*
 * The id of current's mm's table, if it has one.  The walk runs with
 * preemption disabled (sframe_user_callchain()): an RCU read-side
 * section, so the table is not freed meanwhile.
 */
static __always_inline bool sframe_user_table_id(u64 *id)
{
	struct mm_struct *mm = current->mm;
	struct sframe_user_mm *t;

	t = mm ? rcu_dereference_sched(mm->sframe_user) : NULL;
	if (!t)
		return false;
	*id = t->id;
	return true;
}

/* The section of @pc in current's mm and its table's id, copied out. */
static bool sframe_user_find_sec(unsigned long pc, struct sframe_user_sec *out,
				 u64 *id)
{
	struct sframe_user_sec *s;

	rcu_read_lock();
	s = sframe_user_sec_of(pc, id);
	if (s)
		sframe_user_sec_copy(out, s);
	rcu_read_unlock();
	return s;
}

/* ---- faulting the section in ---------------------------------------------- */

/*
 * Nothing in the process reads its .sframe, so its pages are usually not
 * mapped when perf samples, and perf's context (NMI, IRQ) cannot fault them
 * in.  A task_work touches the pages when the task returns to user space,
 * where faults are allowed.  It is queued ahead of need where mappings are
 * made (sframe_user_prefault(), sframe_user_fork()), and by a sample whose
 * read failed: an irq_work (NMI-safe) queues it then.  This is 6.1's
 * stand-in for deferred unwinding (Linux 6.17), which walks the whole stack
 * at that point instead and needs a perf tool that knows deferred
 * callchains.
 */
struct sframe_user_fault_in {
	struct callback_head work;
	unsigned long addr, size;
};

static bool sframe_user_prefault_on = true;

/* Requests and pages touched, for debugfs sframe/user. */
static atomic_long_t sframe_user_prefaults, sframe_user_lazy_faults;
static atomic_long_t sframe_user_fault_pages;

struct sframe_user_request {
	struct irq_work irq_work;
	struct task_struct *task;	/* NULL: slot free */
	unsigned long addr, size;
};

static DEFINE_PER_CPU(struct sframe_user_request, sframe_user_request);

static void sframe_user_fault_in_fn(struct callback_head *head)
{
	struct sframe_user_fault_in *f =
		container_of(head, struct sframe_user_fault_in, work);
	unsigned long a, end = f->addr + f->size;
	u8 b;

	for (a = f->addr & PAGE_MASK; a < end; a += PAGE_SIZE) {
		if (get_user(b, (const u8 __user *)a) || fatal_signal_pending(current))
			break;
		atomic_long_inc(&sframe_user_fault_pages);
	}
	kfree(f);
}

/*
 * Queue a fault-in of [@addr, @addr + @size) for @task at its return to
 * user space; count it in @count.
 */
static void sframe_user_queue_fault_in(struct task_struct *task,
				       unsigned long addr, unsigned long size,
				       gfp_t gfp, atomic_long_t *count)
{
	struct sframe_user_fault_in *f;

	f = kmalloc(sizeof(*f), gfp);
	if (!f)
		return;
	init_task_work(&f->work, sframe_user_fault_in_fn);
	f->addr = addr;
	f->size = size;
	if (task_work_add(task, &f->work, TWA_RESUME))
		kfree(f);
	else
		atomic_long_inc(count);
}

/*
 * @vma was just mapped in current's mm (mmap_lock held for writing): queue
 * a fault-in of every known section's bytes it maps.  The dynamic loader
 * maps a library's text, which makes its section known, before the
 * segment that holds the section: that later mmap() is the one whose
 * pages count.  Run at the return to user space of that system call.
 */
static void sframe_user_prefault(struct vm_area_struct *vma)
{
	struct sframe_user_mm *t;
	unsigned long lo, hi;
	unsigned int i;

	if (!READ_ONCE(sframe_user_prefault_on) || !(vma->vm_flags & VM_READ))
		return;
	t = sframe_user_table(vma->vm_mm);
	for (i = 0; t && i < t->nr; i++) {
		lo = max(vma->vm_start, t->secs[i].sframe);
		hi = min(vma->vm_end, t->secs[i].sframe + t->secs[i].size);
		if (lo < hi)
			sframe_user_queue_fault_in(current, lo, hi - lo,
						   GFP_KERNEL,
						   &sframe_user_prefaults);
	}
}

/* A section just made known: fault in its bytes before user code runs. */
static void sframe_user_prefault_sec(const struct sframe_user_sec *sec)
{
	if (READ_ONCE(sframe_user_prefault_on))
		sframe_user_queue_fault_in(current, sec->sframe, sec->size,
					   GFP_KERNEL, &sframe_user_prefaults);
}

/**
 * sframe_user_fork() - fault in a forked child's sections (copy_process())
 * @p: the new task, not running yet
 * @clone_flags: its clone flags
 *
 * fork() copies no page table entries of file mappings: the child would
 * find none of its sections' pages.  A task_work makes it touch them
 * before it first returns to user space.
 */
void sframe_user_fork(struct task_struct *p, u64 clone_flags)
{
	struct sframe_user_mm *t;
	unsigned int i;

	if ((clone_flags & CLONE_VM) || !p->mm ||
	    !READ_ONCE(sframe_user_prefault_on))
		return;
	mmap_read_lock(p->mm);
	t = sframe_user_table(p->mm);
	for (i = 0; t && i < t->nr; i++)
		sframe_user_queue_fault_in(p, t->secs[i].sframe,
					   t->secs[i].size, GFP_KERNEL,
					   &sframe_user_prefaults);
	mmap_read_unlock(p->mm);
}

/*
 * A request that this finds no longer applies (another task by now, or
 * one exiting), or that cannot be queued (no memory), is dropped: the
 * section's next sample that finds a page missing after
 * %SFRAME_USER_ASK_MS asks again (sframe_user_want_pages()).
 */
static void sframe_user_request_fn(struct irq_work *w)
{
	struct sframe_user_request *r =
		container_of(w, struct sframe_user_request, irq_work);

	/* Still the task that was sampled, and a user task. */
	if (r->task == current && current->mm &&
	    !(current->flags & (PF_KTHREAD | PF_EXITING)))
		sframe_user_queue_fault_in(current, r->addr, r->size,
					   GFP_ATOMIC, &sframe_user_lazy_faults);
	/* The slot's fields are read above before it is free again. */
	smp_store_release(&r->task, NULL);
}

/*
 * Ask for the pages of @pc's section, once per section and
 * %SFRAME_USER_ASK_MS (again on a table made meanwhile): a request can be
 * dropped (sframe_user_request_fn()), and a page can be reclaimed again,
 * so the question must not be asked only once; nor once per sample, as
 * every sample of a section whose pages cannot be read would ask.
 *
 * Not on PREEMPT_RT: there the irq_work runs in a kernel thread, not in
 * the sampled task, and a hard irq_work may not allocate.  The pages
 * requested where sections and their mappings are made still come in.
 */
static void sframe_user_want_pages(unsigned long pc)
{
	struct sframe_user_request *r;
	struct sframe_user_sec *s;
	unsigned long asked, until;
	u64 id;

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return;
	rcu_read_lock();
	s = sframe_user_sec_of(pc, &id);
	if (!s)
		goto out;
	asked = READ_ONCE(s->asked);
	if (asked && time_before(jiffies, asked))
		goto out;
	/* One sample (of all CPUs) per period asks; 0 is "never asked". */
	until = (jiffies + msecs_to_jiffies(SFRAME_USER_ASK_MS)) ?: 1;
	if (cmpxchg(&s->asked, asked, until) != asked)
		goto out;
	r = this_cpu_ptr(&sframe_user_request);
	/*
	 * Claimed before it is filled: a walk in an NMI may interrupt this
	 * one (in an interrupt) between the two.
	 */
	if (!cmpxchg(&r->task, NULL, current)) {
		r->addr = s->sframe;
		r->size = s->size;
		irq_work_queue(&r->irq_work);
	} else {
		/* Busy: let the next sample ask. */
		cmpxchg(&s->asked, until, asked);
	}
out:
	rcu_read_unlock();
}

/* ---- statistics (debugfs sframe/user) -------------------------------------- */

struct sframe_user_stats {
	u64 samples, frames, frames_sframe, frames_fp, errors, cycles;
	u64 cache_hits, cache_misses;
	u64 lookup_budget, sample_budget, unsorted, refused;
};

static DEFINE_PER_CPU(struct sframe_user_stats, sframe_user_stats);

/* ---- the walk ----------------------------------------------------------- */

/* One frame, and the section its PC was last found in. */
struct sframe_user_frame {
	struct sframe_frame regs;
	struct sframe_user_cursor cur;
	struct sframe_user_caches *caches;	/* this CPU's, or NULL */
};

/*
 * A stack slot: the walk runs with page faults disabled and has checked
 * nmi_uaccess_okay() (sframe_user_callchain()), so one __get_user() does
 * what copy_from_user_nofault() would, as perf's frame-pointer walk reads
 * its frames: a missing page fails the read, it is never faulted in.
 */
static __always_inline bool sframe_user_read(void *ctx, unsigned long addr,
					     unsigned long *val)
{
	const unsigned long __user *p = (const unsigned long __user *)addr;

	if (!IS_ALIGNED(addr, sizeof(long)) || !__access_ok(p, sizeof(*val)))
		return false;
	return !__get_user(*val, p);
}

/* User memory: fault-tolerant reads; a user stack is never left. */
static const struct sframe_step_mem sframe_user_mem = {
	.read	= sframe_user_read,
};

static const struct sframe_step_arch sframe_user_arch = SFRAME_ARCH_STEP;

enum sframe_user_step { SFU_NEXT, SFU_END, SFU_ERROR, SFU_STOP };

/*
 * The answer cache: per CPU, two-way set-associative by PC (a free entry
 * of the set is filled first, else the two in turn), the last answers of
 * sframe_user_find() (a rule, or "no FDE here"), keyed by the PC and the
 * id of the mm's table they came from.  Every change of a table makes a
 * new one with a new id, and ids are never reused: an answer can only be
 * found again for the same mm, the same mappings and the same sections
 * (not after munmap, exec or another process's table at the same
 * address), by construction.  Sections whose bytes may have changed since
 * they became known (%SFRAME_USER_NO_CACHE) are never cached.
 *
 * Walks run with preemption off, in task, IRQ or NMI context; only the
 * outermost walk on a CPU fills entries.  A walk that interrupts a fill
 * finds the entry empty (id 0, whatever PC it asks, 0 too) and looks up
 * directly, so it never sees a half-written entry.
 */
struct sframe_user_answer {
	unsigned long pc;
	u64 id;				/* 0: empty, or being filled */
	int err;			/* 0 or -SFRAME_E_NO_FDE */
	struct sframe_rows_rule rule;
};

static DEFINE_PER_CPU(unsigned int, sframe_user_nesting);

/*
 * The row cache: per CPU, by the 64-byte granule of the PC, rules with
 * the range [@lo, @hi) of the row they came from (sframe_find()'s
 * fre_end), under the same key and the same rules as the answer cache.
 * The answer cache keeps one entry per PC; a sampled PC (a leaf's) is any
 * instruction of a loop, and the rows of a loop are few.
 */
#define SFRAME_USER_ROW_SHIFT	6

struct sframe_user_row {
	unsigned long lo, hi;		/* hi 0: empty, or being filled */
	u64 id;
	struct sframe_rows_rule rule;
};

/*
 * The caches' size, in units of four answers (two sets) and one row, the
 * same for every CPU and a power of two: all CPUs together take one unit
 * per %SFRAME_USER_UNIT_ROWS rows of vmlinux (about what the kernel's
 * lookup caches take, 72 bytes per 256 rows), so that their memory
 * follows the kernel's size and not the CPU count; each CPU at most
 * %SFRAME_USER_CACHE_UNITS_MAX (256 answers, 64 rows), at least
 * %SFRAME_USER_CACHE_UNITS_MIN (both caches then hash with one bit or
 * more).
 */
#define SFRAME_USER_UNIT_ROWS	1024
#define SFRAME_USER_UNIT_BYTES	(4 * sizeof(struct sframe_user_answer) + \
				 sizeof(struct sframe_user_row))

/* A CPU's caches, as a walk finds them (sframe_user_caches_here()) */
struct sframe_user_caches {
	struct sframe_user_answer *answers;	/* 2 << @set_bits */
	struct sframe_user_row *rows;		/* 1 << @row_bits */
	unsigned int set_bits, row_bits;
};

/*
 * NULL until the first process has a section: a kernel whose programs
 * have none keeps no memory for them.  Each CPU's block holds its answers
 * then its rows, as the shape says (@units, @rows: the offset of the
 * rows, the hash bits of both).  Allocated zeroed (every entry empty) and
 * its shape set, then published once (release), never freed.
 */
static void __percpu *sframe_user_cache_mem __read_mostly;
static struct {
	unsigned long rows;
	unsigned int units, set_bits, row_bits;
} sframe_user_cache_shape __read_mostly;
static DEFINE_MUTEX(sframe_user_caches_lock);

/**
 * sframe_user_cache_units_for() - a CPU's share of the user caches
 * @nrows: the rows of vmlinux (0: none)
 * @cpus: the possible CPUs (at least 1)
 *
 * Return: the units of each CPU's caches (see %SFRAME_USER_UNIT_ROWS).
 */
unsigned int sframe_user_cache_units_for(u32 nrows, unsigned int cpus)
{
	unsigned long n = nrows / SFRAME_USER_UNIT_ROWS / cpus;

	/* whole sets and hash bits for both caches (sframe_user_caches_here()) */
	BUILD_BUG_ON(!is_power_of_2(SFRAME_USER_CACHE_UNITS_MIN) ||
		     !is_power_of_2(SFRAME_USER_CACHE_UNITS_MAX) ||
		     SFRAME_USER_CACHE_UNITS_MIN < 2);
	BUILD_BUG_ON(SFRAME_USER_CACHE_UNITS_MAX * SFRAME_USER_UNIT_BYTES >
		     PCPU_MIN_UNIT_SIZE);

	if (n < SFRAME_USER_CACHE_UNITS_MIN)
		return SFRAME_USER_CACHE_UNITS_MIN;
	return min_t(unsigned long, rounddown_pow_of_two(n),
		     SFRAME_USER_CACHE_UNITS_MAX);
}

/* The units of the caches, 0 until they are allocated */
static unsigned int sframe_user_cache_units_allocated(void)
{
	/* Pairs with sframe_user_caches_alloc(): sized before published. */
	return smp_load_acquire(&sframe_user_cache_mem) ?
	       sframe_user_cache_shape.units : 0;
}

/* The units the caches have, or will have once a process has a section */
static unsigned int sframe_user_cache_units_now(void)
{
	unsigned int units = sframe_user_cache_units_allocated();
	const struct sframe_rows *rows;

	if (units)
		return units;
	rows = sframe_vmlinux_rows();
	return sframe_user_cache_units_for(rows ? rows->nrows : 0,
					   num_possible_cpus());
}

/*
 * Give every CPU its caches, if not done yet.  Sleeps (waits for vmlinux's
 * rows if they are still being built); no lock held.
 */
static void sframe_user_caches_alloc(void)
{
	void __percpu *mem;
	unsigned int units;

	if (READ_ONCE(sframe_user_cache_mem))
		return;
	sframe_vmlinux_rows_wait();
	mutex_lock(&sframe_user_caches_lock);
	if (!sframe_user_cache_mem) {
		units = sframe_user_cache_units_now();
		mem = __alloc_percpu(units * SFRAME_USER_UNIT_BYTES,
				     __alignof__(struct sframe_user_answer));
		if (!mem) {
			pr_warn_once("no memory for the user answer caches: user lookups uncached\n");
		} else {
			sframe_user_cache_shape.units = units;
			sframe_user_cache_shape.rows =
				4 * units * sizeof(struct sframe_user_answer);
			sframe_user_cache_shape.set_bits =
				sframe_user_cache_set_bits(units);
			sframe_user_cache_shape.row_bits =
				sframe_user_cache_row_bits(units);
			/*
			 * Zeroed and shaped before: pairs with
			 * sframe_user_caches_here() and
			 * sframe_user_cache_units_now().
			 */
			smp_store_release(&sframe_user_cache_mem, mem);
		}
	}
	mutex_unlock(&sframe_user_caches_lock);
}

/**
 * sframe_user_cache_unit_bytes() - the memory of a unit of the user caches
 *
 * Return: the bytes of four answers and one row.
 */
size_t sframe_user_cache_unit_bytes(void)
{
	return SFRAME_USER_UNIT_BYTES;
}

/**
 * sframe_user_cache_bytes() - the memory of the user caches, per CPU
 *
 * Return: the bytes they take per CPU once allocated (when a process first
 * has a section, sized then by vmlinux's rows and the CPU count), for the
 * unwinder's memory record.
 */
size_t sframe_user_cache_bytes(void)
{
	return sframe_user_cache_units_now() * SFRAME_USER_UNIT_BYTES;
}

static bool sframe_user_cache_on = true;

/*
 * This CPU's caches into @c: false if there are none (none yet, or
 * sframe.user_cache=0).
 */
static __always_inline bool sframe_user_caches_here(struct sframe_user_caches *c)
{
	void __percpu *mem;

	if (!READ_ONCE(sframe_user_cache_on))
		return false;
	/* Pairs with sframe_user_caches_alloc(): zeroed, shaped, published. */
	mem = smp_load_acquire(&sframe_user_cache_mem);
	if (!mem)
		return false;
	c->answers = this_cpu_ptr(mem);
	c->rows = (void *)c->answers + sframe_user_cache_shape.rows;
	c->set_bits = sframe_user_cache_shape.set_bits;
	c->row_bits = sframe_user_cache_shape.row_bits;
	return true;
}

/* The first of the two entries of @pc's set. */
static __always_inline struct sframe_user_answer *
sframe_user_set_of(struct sframe_user_caches *c, unsigned long pc)
{
	return &c->answers[hash_long(pc, c->set_bits) * 2];
}

/* The cached answer for @pc from table @id, or NULL. */
static __always_inline const struct sframe_user_answer *
sframe_user_cache_get(struct sframe_user_caches *c, unsigned long pc, u64 id)
{
	const struct sframe_user_answer *a = sframe_user_set_of(c, pc);

	if (READ_ONCE(a->pc) != pc || READ_ONCE(a->id) != id)
		a++;
	if (READ_ONCE(a->pc) == pc && READ_ONCE(a->id) == id)
		return a;
	return NULL;
}

static __always_inline struct sframe_user_row *
sframe_user_row_of(struct sframe_user_caches *c, unsigned long pc)
{
	return &c->rows[hash_long(pc >> SFRAME_USER_ROW_SHIFT, c->row_bits)];
}

/* The cached row of table @id holding @pc, or NULL. */
static __always_inline const struct sframe_user_row *
sframe_user_row_get(struct sframe_user_caches *c, unsigned long pc, u64 id)
{
	const struct sframe_user_row *r = sframe_user_row_of(c, pc);

	if (pc < READ_ONCE(r->hi) && pc >= r->lo && r->id == id)
		return r;
	return NULL;
}

/*
 * Keep @found's row for the PCs of @pc's granule, as the answers are; the
 * row is @sec's, and covers no PC of another mapping's text.
 */
static void sframe_user_row_put(struct sframe_user_caches *c,
				unsigned long pc, u64 id,
				const struct sframe_user_sec *sec,
				const struct sframe_rule *found,
				const struct sframe_rows_rule *rule)
{
	struct sframe_user_row *r = sframe_user_row_of(c, pc);
	unsigned long lo = found->func_start + found->fre_start;
	unsigned long hi = found->func_start + found->fre_end;

	/*
	 * Only a row that holds @pc, inside its function (a forged end),
	 * clamped to the text of its section's mapping: a forged function
	 * may run on into the next mapping's, whose PCs must find their own
	 * section's rules.
	 */
	lo = max(lo, sec->start);
	hi = min(hi, sec->end);
	if (__this_cpu_read(sframe_user_nesting) != 1 || !found->fre_end ||
	    found->fre_end > found->func_size || pc < lo || pc >= hi)
		return;
	WRITE_ONCE(r->hi, 0);
	barrier();
	r->lo = lo;
	r->id = id;
	r->rule = *rule;
	barrier();
	WRITE_ONCE(r->hi, hi);
}

static void sframe_user_cache_put(struct sframe_user_caches *c,
				  unsigned long pc, u64 id, int err,
				  const struct sframe_rows_rule *rule)
{
	struct sframe_user_answer *a = sframe_user_set_of(c, pc);

	if (__this_cpu_read(sframe_user_nesting) != 1)
		return;
	if (READ_ONCE(a->id))
		a += !READ_ONCE(a[1].id) ||
		     (__this_cpu_read(sframe_user_stats.cache_misses) & 1);
	/* Empty meanwhile for every PC, 0 too (a walk from a NULL call). */
	WRITE_ONCE(a->id, 0);
	barrier();
	WRITE_ONCE(a->pc, pc);
	a->err = err;
	if (err)
		memset(&a->rule, 0, sizeof(a->rule));
	else
		a->rule = *rule;
	barrier();
	WRITE_ONCE(a->id, id);
}

/*
 * Do not look up in the section of @pc for %SFRAME_USER_REFUSE_MS: its
 * lookups cost more than the budget, or it cannot be searched (FDEs not
 * sorted).  The process may rewrite the section (or put it right), so the
 * refusal ends, and the next lookup pays one budget to find out again: at
 * most one refused lookup's work per section and %SFRAME_USER_REFUSE_MS,
 * per CPU.  Said once per entry.
 */
static void sframe_user_refuse(unsigned long pc, const char *why)
{
	struct sframe_user_sec *s;
	u64 id;

	rcu_read_lock();
	s = sframe_user_sec_of(pc, &id);
	if (!s)
		goto out;
	/* the time first: a reader seeing the bit with an old time retries */
	WRITE_ONCE(s->retry, jiffies + msecs_to_jiffies(SFRAME_USER_REFUSE_MS));
	if (!test_and_set_bit(SFRAME_USER_REFUSED, &s->flags))
		pr_info_ratelimited("%s[%d]: SFrame section at %#lx (%lu bytes) %s: user walks end there\n",
				    current->comm, task_pid_nr(current),
				    s->sframe, s->size, why);
out:
	rcu_read_unlock();
}

/* sframe_user_rule(): no known section holds the PC; the walk must end. */
#define SFRAME_USER_NO_SEC	1
#define SFRAME_USER_STOP	2

/*
 * The rule of @lookup from the SFrame section of its mapping: from the
 * answer cache, or opened (its header validated) once per walk and
 * section, every read after that bounds-checked again.  The lookup makes
 * at most %SFRAME_USER_LOOKUP_COPIES copies from the section and no more
 * than @left, the sample's remaining copies, which it decreases.
 *
 * FDEs that are not sorted are never searched: a linker sorts them
 * (relocatable objects, which have them in any order, are not mapped to
 * run), and a linear scan costs the whole section per lookup.
 *
 * Return: 0 with @rule filled, %SFRAME_USER_NO_SEC if no known section
 * holds @lookup, %SFRAME_USER_STOP if the section is refused or the budget
 * ran out, or a negative SFrame error (-SFRAME_E_NO_FDE: in the section,
 * not in an FDE).
 */
static int sframe_user_rule(struct sframe_user_cursor *cur,
			    struct sframe_user_caches *c,
			    unsigned long lookup, struct sframe_rows_rule *rule,
			    u32 *left)
{
	const struct sframe_user_answer *a;
	const struct sframe_user_row *row;
	struct sframe_rule found;
	struct sframe_user_sec us;
	u32 budget;
	u64 id;
	int err;

	/*
	 * The cache first: an answer is only stored under the id of the
	 * table it came from, for a section whose answers that table lets
	 * be cached (a change of %SFRAME_USER_NO_CACHE makes a new table),
	 * so a hit needs no search of the sections.  Answers cached before
	 * their section was refused are still given: they cost nothing.
	 */
	if (c && sframe_user_table_id(&id)) {
		a = sframe_user_cache_get(c, lookup, id);
		if (a) {
			*rule = a->rule;
			this_cpu_inc(sframe_user_stats.cache_hits);
			return a->err;
		}
		row = sframe_user_row_get(c, lookup, id);
		if (row) {
			*rule = row->rule;
			this_cpu_inc(sframe_user_stats.cache_hits);
			return 0;
		}
	}
	if (!sframe_user_find_sec(lookup, &us, &id))
		return SFRAME_USER_NO_SEC;	/* not an error */
	if (test_bit(SFRAME_USER_REFUSED, &us.flags) &&
	    time_before(jiffies, us.retry)) {
		this_cpu_inc(sframe_user_stats.refused);
		return SFRAME_USER_STOP;
	}
	if (test_bit(SFRAME_USER_NO_CACHE, &us.flags))
		c = NULL;
	budget = min_t(u32, SFRAME_USER_LOOKUP_COPIES, *left);
	cur->budget = budget;
	cur->spent = false;
	if (cur->base != us.sframe || cur->limit != us.size) {
		cur->base = us.sframe;
		cur->limit = us.size;
		cur->win_len = 0;
		err = sframe_user_open(&cur->sec, (const void *)us.sframe,
				       us.size, us.sframe, 0);
		if (!err && cur->sec.sp_reg != SFRAME_ARCH_SP_REG)
			err = -SFRAME_E_ABI;	/* another architecture's */
		if (!err && !(cur->sec.flags & SFRAME_F_FDE_SORTED)) {
			this_cpu_inc(sframe_user_stats.unsorted);
			sframe_user_refuse(lookup, "has FDEs not sorted");
			err = SFRAME_USER_STOP;
		}
		if (err)
			cur->base = 0;
	} else {
		err = 0;
	}
	if (!err) {
		err = sframe_user_find(&cur->sec, lookup, &found);
		if (!err)
			sframe_rule_recovery(rule, &found);
		this_cpu_inc(sframe_user_stats.cache_misses);
	}
	*left -= budget - cur->budget;
	if (cur->spent) {
		if (budget == SFRAME_USER_LOOKUP_COPIES) {
			this_cpu_inc(sframe_user_stats.lookup_budget);
			sframe_user_refuse(lookup, "costs more than the lookup budget");
		} else {
			this_cpu_inc(sframe_user_stats.sample_budget);
		}
		return SFRAME_USER_STOP;
	}
	if (err == -SFRAME_E_FAULT)
		sframe_user_want_pages(lookup);
	/* Answers of the section's bytes; not a failed read or a bad header. */
	if (c && (!err || err == -SFRAME_E_NO_FDE))
		sframe_user_cache_put(c, lookup, id, err, rule);
	if (c && !err)
		sframe_user_row_put(c, lookup, id, &us, &found, rule);
	return err;
}

/*
 * One step with the rule of the PC's section, else (no section, no FDE, or
 * SP unknown after an arm64 frame-record step) with the frame record.
 */
static enum sframe_user_step sframe_user_step(struct sframe_user_frame *f,
					      unsigned long *ra, bool *fp_used,
					      u32 *left)
{
	bool exact = f->regs.flags & SFRAME_FRAME_EXACT;
	unsigned long lookup = exact ? f->regs.pc : f->regs.pc - 1, slot;
	struct sframe_rows_rule rule;
	int err;

	*fp_used = false;
	err = sframe_user_rule(&f->cur, f->caches, lookup, &rule, left);
	if (err == SFRAME_USER_STOP)
		return SFU_STOP;
	/* arm64 PLT stubs, interrupted before any frame exists. */
	if (err == -SFRAME_E_NO_FDE && IS_ENABLED(CONFIG_ARM64) && exact) {
		sframe_lr_entry_rule(&sframe_user_arch, &rule);
		err = 0;
	}
	if (err == SFRAME_USER_NO_SEC || err == -SFRAME_E_NO_FDE) {
		*fp_used = true;
		sframe_fp_record_rule(&sframe_user_arch,
				      IS_ENABLED(CONFIG_ARM64), &rule);
	} else if (err) {
		return SFU_ERROR;
	}

	err = sframe_step(&sframe_user_arch, &sframe_user_mem, NULL, &rule,
			  &f->regs, ra, &slot);
	if (err == SFRAME_STEP_SP_LOW && !*fp_used) {
		*fp_used = true;
		sframe_fp_record_rule(&sframe_user_arch,
				      IS_ENABLED(CONFIG_ARM64), &rule);
		err = sframe_step(&sframe_user_arch, &sframe_user_mem, NULL,
				  &rule, &f->regs, ra, &slot);
	}
	if (err == SFRAME_STEP_END)
		return SFU_END;
	return err ? SFU_ERROR : SFU_NEXT;
}

/**
 * sframe_user_callchain() - perf user call chain from SFrame
 * @entry: perf's call chain; regs' PC is already stored
 * @regs: the user registers
 *
 * Called by perf_callchain_user() on x86_64 and arm64 (AArch64 tasks), in
 * any context (NMI included): it only reads user memory without faulting
 * and the mm's table under RCU.
 *
 * Return: true (the chain is complete as far as it can be unwound).
 */
bool sframe_user_callchain(struct perf_callchain_entry_ctx *entry,
			   struct pt_regs *regs)
{
	struct sframe_user_stats *st;
	struct sframe_user_caches caches;
	struct sframe_user_frame f = {
		.regs = {
			.pc = instruction_pointer(regs),
			.sp = user_stack_pointer(regs),
			.fp = frame_pointer(regs),
#ifdef CONFIG_ARM64
			.lr = regs->regs[30],
#endif
			.flags = SFRAME_FRAME_EXACT | SFRAME_FRAME_LR,
		},
	};
	unsigned int n, frames = 0, by_fp = 0;
	u32 left = SFRAME_USER_SAMPLE_COPIES;
	bool fp_used, error = false;
	u64 c0 = get_cycles();
	unsigned long ra;

	/*
	 * In an NMI the user page tables may not be the task's; as
	 * copy_from_user_nofault() would for every read, give up then.
	 */
	if (!nmi_uaccess_okay())
		return true;
	/* One CPU's cache throughout; fills only in the outermost walk. */
	preempt_disable_notrace();
	f.caches = sframe_user_caches_here(&caches) ? &caches : NULL;
	/* Stack reads fail rather than fault (sframe_user_read()). */
	pagefault_disable();
	__this_cpu_inc(sframe_user_nesting);
	for (n = 0; n < SFRAME_USER_MAX_FRAMES && entry->nr < entry->max_stack;
	     n++) {
		enum sframe_user_step s = sframe_user_step(&f, &ra, &fp_used,
							   &left);

		if (s != SFU_NEXT) {
			error = s == SFU_ERROR;
			break;
		}
		if (!ra)
			break;			/* outermost by convention */
		if (ra >= TASK_SIZE) {
			error = true;
			break;
		}
		if (perf_callchain_store(entry, ra))
			break;
		frames++;
		by_fp += fp_used;
		f.regs.pc = ra;
	}

	st = this_cpu_ptr(&sframe_user_stats);
	st->samples++;
	st->frames += frames;
	st->frames_fp += by_fp;
	st->frames_sframe += frames - by_fp;
	st->errors += error;
	st->cycles += get_cycles() - c0;
	__this_cpu_dec(sframe_user_nesting);
	pagefault_enable();
	preempt_enable_notrace();
	return true;
}

/* ---- debugfs ------------------------------------------------------------ */

static u64 sframe_user_cycle_ps;	/* picoseconds per cycle */

static int sframe_user_stats_show(struct seq_file *m, void *v)
{
	struct sframe_user_stats sum = { };
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sframe_user_stats *s = per_cpu_ptr(&sframe_user_stats, cpu);

		sum.samples += s->samples;
		sum.frames += s->frames;
		sum.frames_sframe += s->frames_sframe;
		sum.frames_fp += s->frames_fp;
		sum.errors += s->errors;
		sum.cycles += s->cycles;
		sum.cache_hits += s->cache_hits;
		sum.cache_misses += s->cache_misses;
		sum.lookup_budget += s->lookup_budget;
		sum.sample_budget += s->sample_budget;
		sum.unsorted += s->unsorted;
		sum.refused += s->refused;
	}
	seq_printf(m, "samples %llu\nframes %llu\nframes_sframe %llu\n",
		   sum.samples, sum.frames, sum.frames_sframe);
	seq_printf(m, "frames_fp %llu\nerrors %llu\nns %llu\n", sum.frames_fp,
		   sum.errors, div64_u64(sum.cycles * sframe_user_cycle_ps, 1000));
	seq_printf(m, "cache_hits %llu\ncache_misses %llu\n", sum.cache_hits,
		   sum.cache_misses);
	/* 0 until a process has a section (sframe_user_caches_alloc()) */
	seq_printf(m, "cache_bytes %zu\n",
		   sframe_user_cache_units_allocated() * SFRAME_USER_UNIT_BYTES *
		   num_possible_cpus());
	seq_printf(m, "lookup_budget %llu\nsample_budget %llu\nunsorted %llu\nrefused %llu\n",
		   sum.lookup_budget, sum.sample_budget, sum.unsorted,
		   sum.refused);
	seq_printf(m, "prefault_requests %ld\nlazy_fault_requests %ld\nfault_in_pages %ld\n",
		   atomic_long_read(&sframe_user_prefaults),
		   atomic_long_read(&sframe_user_lazy_faults),
		   atomic_long_read(&sframe_user_fault_pages));
	return 0;
}

static int sframe_user_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, sframe_user_stats_show, NULL);
}

static ssize_t sframe_user_stats_write(struct file *file,
				       const char __user *buf, size_t len,
				       loff_t *ppos)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&sframe_user_stats, cpu), 0,
		       sizeof(struct sframe_user_stats));
	atomic_long_set(&sframe_user_prefaults, 0);
	atomic_long_set(&sframe_user_lazy_faults, 0);
	atomic_long_set(&sframe_user_fault_pages, 0);
	return len;
}

static const struct file_operations sframe_user_stats_fops = {
	.owner = THIS_MODULE,
	.open = sframe_user_stats_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = sframe_user_stats_write,
};

/*
 * debugfs sframe/user_maps: the reading process's own text mappings with
 * SFrame, one line each, as perf's walks find them: "START-END SFRAME
 * SIZE" (the text's range and the section's run-time address, in hex; the
 * bytes the section may take), then " no-cache" if its answers are not
 * cached, " refused" if lookups in it are refused for now.
 */
static int sframe_user_maps_show(struct seq_file *m, void *v)
{
	struct mm_struct *mm = current->mm;
	const struct sframe_user_sec *s;
	struct sframe_user_mm *t;
	unsigned long flags;
	unsigned int i;

	if (!mm)
		return 0;
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	t = sframe_user_table(mm);
	for (i = 0; t && i < t->nr; i++) {
		s = &t->secs[i];
		flags = READ_ONCE(s->flags);
		seq_printf(m, "%lx-%lx %lx %lu%s%s\n", s->start, s->end,
			   s->sframe, s->size,
			   flags & BIT(SFRAME_USER_NO_CACHE) ? " no-cache" : "",
			   flags & BIT(SFRAME_USER_REFUSED) ? " refused" : "");
	}
	mmap_read_unlock(mm);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sframe_user_maps);

static int __init sframe_user_init(void)
{
	struct dentry *dir;
	u64 c0, t0;
	int cpu;

	for_each_possible_cpu(cpu)
		init_irq_work(&per_cpu_ptr(&sframe_user_request, cpu)->irq_work,
			      sframe_user_request_fn);

	/* Calibrate the cycle counter once (the statistics' ns). */
	c0 = get_cycles();
	t0 = ktime_get_ns();
	mdelay(20);
	sframe_user_cycle_ps = div64_u64((ktime_get_ns() - t0) * 1000,
					 max_t(u64, get_cycles() - c0, 1));

	dir = sframe_debugfs_dir();
	debugfs_create_file("user", 0600, dir, NULL, &sframe_user_stats_fops);
	debugfs_create_file("user_maps", 0400, dir, NULL, &sframe_user_maps_fops);
	return 0;
}
late_initcall(sframe_user_init);

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "sframe."
module_param_named(user_prefault, sframe_user_prefault_on, bool, 0644);
MODULE_PARM_DESC(user_prefault,
		 "map sections' pages when they are mapped and at fork (default on)");
module_param_named(user_cache, sframe_user_cache_on, bool, 0644);
MODULE_PARM_DESC(user_cache,
		 "cache the answers of unchanged user sections per CPU (default on)");
