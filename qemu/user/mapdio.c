// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-mapdio: an ELF file mapped PROT_EXEC through an O_DIRECT
 * descriptor, unwound with its SFrame.
 *
 *   sframe-mapdio [-l LIB] [-t SECONDS] DIR
 *
 * The kernel learns where a mapped ELF file's .sframe lies by reading its
 * ELF headers when an executable file mapping is created.  Read under
 * mmap_lock (in mmap_region()), through the descriptor's own mode, that
 * read took ext4's inode lock (shared, O_DIRECT) below mmap_lock, while the
 * write path takes mmap_lock (faulting in its source buffer) below the
 * inode lock: lockdep's "possible circular locking dependency".  The
 * kernel now reads them from a task_work on the way back to user space,
 * with no lock held, through the page cache.  In DIR (on ext4) this
 * program
 *   1. copies LIB (default: libspin-sframe.so next to this program) to
 *      DIR/libspin.so (write, fsync);
 *   2. writes DIR/pw.dat with pwrite()s whose source buffers are fresh
 *      anonymous mappings never touched: the kernel faults them in while
 *      ext4 holds the inode lock (inode lock -> mmap_lock for lockdep).
 *      Meanwhile another thread maps and unmaps the library's first page
 *      PROT_EXEC through an O_DIRECT descriptor, again and again: the
 *      fault's mmap_read_trylock() then fails now and then and the fault
 *      waits for mmap_lock (a trylock records no dependency), and a
 *      kernel that read the file under mmap_lock would record the other
 *      order (the race the two threads of a process can run into);
 *   3. opens DIR/libspin.so O_RDONLY | O_DIRECT and maps it as a loader
 *      does: one PROT_READ mapping of the whole span at offset 0, then each
 *      PT_LOAD MAP_FIXED over it with its own protection from the same
 *      descriptor (PROT_EXEC for the text: the mapping whose ELF headers
 *      the kernel reads).  The library needs no relocations;
 *   4. samples itself with perf (cpu-clock, 1000 Hz, user callchains) for
 *      SECONDS (2) while it calls the library's spin_entry() ->
 *      s_a -> s_b -> s_c -> s_leaf (spinlib.c), whose ranges it takes
 *      from DIR/libspin.so's .symtab (read with read());
 *   5. checks every sample whose IP is in s_leaf: the callchain must be
 *      PERF_CONTEXT_USER, the IP, a return address in s_c, s_b, s_a and
 *      spin_entry (each right after a call instruction), then the return
 *      address of the call in this program (spin_entry stores it).
 * Prints
 *   sframe-mapdio: samples N checked C complete K short S wrong W
 * (short: the entries there are right but the chain stops early; wrong:
 * an entry is not the expected one) and exits 0 if C >= 50 and K >= 95%
 * of C; 1 otherwise, with the reason and the first incomplete chain; 2
 * when O_DIRECT, perf or the files cannot be used.  The library's code
 * has neither frame pointers nor any unwind information perf could use
 * besides its PT_GNU_SFRAME: without the kernel's SFrame unwinder every
 * chain is short or wrong.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "perfring.h"

#if defined(__x86_64__)
#define MAPDIO_MACHINE	EM_X86_64
#elif defined(__aarch64__)
#define MAPDIO_MACHINE	EM_AARCH64
#else
#error "x86_64 or aarch64 only"
#endif

#define RING_PAGES	64
#define SAMPLE_FREQ	1000
#define NSEC_PER_SEC	1000000000ULL
#define MIN_CHECKED	50
#define COMPLETE_PCT	95
#define SPIN_ITERS	200000UL	/* s_leaf iterations per call */
#define PW_WRITES	256		/* pwrite()s of step 2 */
#define PW_SLOTS	8		/* ... at this many offsets */
#define PW_SIZE		(256 * 1024)	/* bytes each */
#define MAX_FILE	(16 << 20)	/* the library is a few KB */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* spin_entry() of spinlib.c */
typedef unsigned long (*spin_fn_t)(unsigned long iters, unsigned long *ret_addr);

static const char *prog = "sframe-mapdio";

static void __attribute__((noreturn, format(printf, 2, 3)))
die(int status, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", prog);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(status);
}

/* ---- files ---------------------------------------------------------------- */

/* The whole file @path, read with read(); *@size its length. */
static unsigned char *read_file(const char *path, size_t *size)
{
	unsigned char *buf;
	struct stat st;
	size_t got = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		die(2, "%s: %s", path, strerror(errno));
	if (st.st_size <= 0 || st.st_size > MAX_FILE)
		die(2, "%s: size %lld", path, (long long)st.st_size);
	buf = malloc(st.st_size);
	if (!buf)
		die(2, "out of memory");
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, st.st_size - got);
		if (n <= 0)
			die(2, "%s: read: %s", path, n ? strerror(errno) : "short file");
		got += n;
	}
	close(fd);
	*size = got;
	return buf;
}

/* Write @len bytes of @buf to @fd at its offset, all of them. */
static void write_all(int fd, const void *buf, size_t len, const char *what)
{
	const unsigned char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n <= 0)
			die(2, "%s: write: %s", what, n ? strerror(errno) : "wrote 0");
		p += n;
		len -= n;
	}
}

/* Step 1: @src copied to @dst (write, fsync). */
static void copy_lib(const char *src, const char *dst)
{
	unsigned char *buf;
	size_t len;
	int fd;

	buf = read_file(src, &len);
	fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0)
		die(2, "%s: %s", dst, strerror(errno));
	write_all(fd, buf, len, dst);
	if (fsync(fd) || close(fd))
		die(2, "%s: fsync/close: %s", dst, strerror(errno));
	free(buf);
}

/*
 * Step 2: @path written with pwrite()s from fresh anonymous mappings that
 * nothing touched: the kernel faults each page in (mmap_lock) while ext4
 * holds the file's inode lock for the write.
 */
static volatile int race_stop;

/* Step 2's other thread: map @arg (an O_DIRECT descriptor) PROT_EXEC. */
static void *map_exec_loop(void *arg)
{
	int fd = *(int *)arg;
	void *p;

	while (!race_stop) {
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			die(2, "mmap(PROT_EXEC, O_DIRECT): %s", strerror(errno));
		munmap(p, 4096);
	}
	return NULL;
}

static void pwrite_untouched(const char *path, const char *lib)
{
	pthread_t mapper;
	int fd, dfd, i;
	ssize_t n;
	void *buf;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die(2, "%s: %s", path, strerror(errno));
	dfd = open(lib, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (dfd < 0)
		die(2, "%s: open(O_DIRECT): %s", lib, strerror(errno));
	if (pthread_create(&mapper, NULL, map_exec_loop, &dfd))
		die(2, "pthread_create failed");
	for (i = 0; i < PW_WRITES; i++) {
		buf = mmap(NULL, PW_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED)
			die(2, "mmap: %s", strerror(errno));
		n = pwrite(fd, buf, PW_SIZE, (off_t)(i % PW_SLOTS) * PW_SIZE);
		if (n != PW_SIZE)
			die(2, "%s: pwrite: %s", path,
			    n < 0 ? strerror(errno) : "short write");
		munmap(buf, PW_SIZE);
	}
	race_stop = 1;
	pthread_join(mapper, NULL);
	close(dfd);
	if (fsync(fd) || close(fd))
		die(2, "%s: fsync/close: %s", path, strerror(errno));
}

/* ---- the library's ELF file ----------------------------------------------- */

enum { F_ENTRY, F_A, F_B, F_C, F_LEAF, NR_FN };

/* In chain order from the leaf up: what a complete chain has after the IP. */
static const char *const fn_name[NR_FN] = {
	[F_ENTRY] = "spin_entry", [F_A] = "s_a", [F_B] = "s_b",
	[F_C] = "s_c", [F_LEAF] = "s_leaf",
};

struct lib {
	const unsigned char *img;	/* the file as read() gave it */
	size_t size;
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph;
	uint64_t fn_start[NR_FN], fn_end[NR_FN];	/* file vaddrs */
	/* mapped: */
	uintptr_t base;				/* load bias */
	uintptr_t start[NR_FN], end[NR_FN];	/* run-time ranges */
};

/* @len bytes at file offset @off, or NULL when outside the file. */
static const void *lib_bytes(const struct lib *l, uint64_t off, uint64_t len)
{
	if (off > l->size || len > l->size - off)
		return NULL;
	return l->img + off;
}

static void lib_parse(struct lib *l, const char *path)
{
	const Elf64_Shdr *sh;
	int i, tab, found = 0;

	l->img = read_file(path, &l->size);
	l->eh = lib_bytes(l, 0, sizeof(*l->eh));
	if (!l->eh || memcmp(l->eh->e_ident, ELFMAG, SELFMAG) ||
	    l->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    l->eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    l->eh->e_type != ET_DYN || l->eh->e_machine != MAPDIO_MACHINE ||
	    l->eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    l->eh->e_shentsize != sizeof(Elf64_Shdr))
		die(2, "%s: not a 64-bit shared object of this machine", path);
	l->ph = lib_bytes(l, l->eh->e_phoff,
			  (uint64_t)l->eh->e_phnum * sizeof(*l->ph));
	sh = lib_bytes(l, l->eh->e_shoff,
		       (uint64_t)l->eh->e_shnum * sizeof(*sh));
	if (!l->ph || !sh)
		die(2, "%s: program or section headers outside the file", path);

	/* .symtab (static functions are only there), .dynsym for the rest */
	for (tab = 0; tab < 2; tab++) {
		for (i = 0; i < l->eh->e_shnum; i++) {
			const Elf64_Sym *sym;
			const char *str;
			uint64_t j, n;

			if (sh[i].sh_type != (tab ? SHT_DYNSYM : SHT_SYMTAB) ||
			    sh[i].sh_entsize != sizeof(*sym) ||
			    sh[i].sh_link >= l->eh->e_shnum)
				continue;
			n = sh[i].sh_size / sizeof(*sym);
			sym = lib_bytes(l, sh[i].sh_offset, sh[i].sh_size);
			str = lib_bytes(l, sh[sh[i].sh_link].sh_offset,
					sh[sh[i].sh_link].sh_size);
			if (!sym || !str)
				die(2, "%s: symbol table outside the file", path);
			for (j = 0; j < n; j++) {
				uint64_t name = sym[j].st_name;
				int f;

				if (ELF64_ST_TYPE(sym[j].st_info) != STT_FUNC ||
				    !sym[j].st_size ||
				    name >= sh[sh[i].sh_link].sh_size ||
				    !memchr(str + name, 0,
					    sh[sh[i].sh_link].sh_size - name))
					continue;
				for (f = 0; f < NR_FN; f++) {
					if (strcmp(str + name, fn_name[f]) ||
					    l->fn_end[f])
						continue;
					l->fn_start[f] = sym[j].st_value;
					l->fn_end[f] = sym[j].st_value +
						       sym[j].st_size;
					found++;
				}
			}
		}
	}
	if (found != NR_FN)
		die(2, "%s: %d of the %d functions found in its symbol tables",
		    path, found, NR_FN);
	if (l->eh->e_entry != l->fn_start[F_ENTRY])
		die(2, "%s: entry point %#" PRIx64 " is not spin_entry (%#" PRIx64 ")",
		    path, (uint64_t)l->eh->e_entry, l->fn_start[F_ENTRY]);
}

static int lib_prot(uint32_t flags)
{
	return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) |
	       (flags & PF_X ? PROT_EXEC : 0);
}

/*
 * Step 3: map the library from descriptor @fd as the dynamic loader does:
 * reserve the span of its PT_LOAD segments with one read-only mapping of
 * the file at offset 0, then map each segment over it (MAP_FIXED) with
 * its own protection.  Returns the text segment's run-time start.
 */
static uintptr_t lib_map(struct lib *l, int fd, const char *path)
{
	uintptr_t page = sysconf(_SC_PAGESIZE), lo = UINTPTR_MAX, hi = 0;
	uintptr_t text = 0, start, fend, mend;
	const Elf64_Phdr *p;
	void *res;
	int i, f;

	for (i = 0; i < l->eh->e_phnum; i++) {
		p = &l->ph[i];
		if (p->p_type != PT_LOAD)
			continue;
		if ((p->p_vaddr - p->p_offset) % page || p->p_filesz > p->p_memsz ||
		    p->p_offset + p->p_filesz > l->size)
			die(2, "%s: PT_LOAD %d cannot be mapped", path, i);
		if (p->p_vaddr < lo)
			lo = p->p_vaddr;
		if (p->p_vaddr + p->p_memsz > hi)
			hi = p->p_vaddr + p->p_memsz;
	}
	lo &= ~(page - 1);
	if (hi <= lo || lo != 0)
		die(2, "%s: PT_LOAD segments do not start at 0", path);
	hi = (hi + page - 1) & ~(page - 1);

	res = mmap(NULL, hi - lo, PROT_READ, MAP_PRIVATE, fd, 0);
	if (res == MAP_FAILED)
		die(2, "%s: mmap of the span: %s", path, strerror(errno));
	l->base = (uintptr_t)res - lo;

	for (i = 0; i < l->eh->e_phnum; i++) {
		p = &l->ph[i];
		if (p->p_type != PT_LOAD)
			continue;
		start = l->base + (p->p_vaddr & ~(page - 1));
		fend = l->base + p->p_vaddr + p->p_filesz;
		mend = l->base + p->p_vaddr + p->p_memsz;
		if (p->p_filesz &&
		    mmap((void *)start, fend - start, lib_prot(p->p_flags),
			 MAP_PRIVATE | MAP_FIXED, fd,
			 p->p_offset & ~(page - 1)) == MAP_FAILED)
			die(2, "%s: mmap of PT_LOAD %d: %s", path, i, strerror(errno));
		if (mend > fend) {		/* .bss: none expected */
			uintptr_t zend = (fend + page - 1) & ~(page - 1);

			if (!(p->p_flags & PF_W))
				die(2, "%s: PT_LOAD %d: memsz > filesz, read-only", path, i);
			if (p->p_filesz)
				memset((void *)fend, 0, (zend < mend ? zend : mend) - fend);
			else
				zend = start;
			if (mend > zend &&
			    mmap((void *)zend, mend - zend, lib_prot(p->p_flags),
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
				die(2, "%s: mmap of PT_LOAD %d's zero pages: %s",
				    path, i, strerror(errno));
		}
		if ((p->p_flags & PF_X) &&
		    l->fn_start[F_LEAF] >= p->p_vaddr &&
		    l->fn_start[F_LEAF] < p->p_vaddr + p->p_filesz)
			text = start;
	}
	if (!text)
		die(2, "%s: no executable PT_LOAD holds the functions", path);
	for (f = 0; f < NR_FN; f++) {
		l->start[f] = l->base + l->fn_start[f];
		l->end[f] = l->base + l->fn_end[f];
	}
	return text;
}

/*
 * The code runs from our mapping of @path: spin_entry's page is mapped
 * r-x from that file (/proc/self/maps; a missing maps file is no error).
 */
static void lib_check_maps(const struct lib *l, const char *path)
{
	char line[PATH_MAX + 128], perms[8], *file;
	unsigned long lo, hi;
	bool ok = false;
	FILE *m;

	m = fopen("/proc/self/maps", "r");
	if (!m)
		return;
	while (fgets(line, sizeof(line), m)) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 ||
		    l->start[F_ENTRY] < lo || l->start[F_ENTRY] >= hi)
			continue;
		line[strcspn(line, "\n")] = 0;
		file = strchr(line, '/');
		ok = !strncmp(perms, "r-x", 3) && file &&
		     !strcmp(file + strlen(file) - strlen("/libspin.so"),
			     "/libspin.so");
		if (!ok)
			die(2, "spin_entry at %#lx is not in an r-x mapping of %s: %s",
			    (unsigned long)l->start[F_ENTRY], path, line);
	}
	fclose(m);
	if (!ok)
		die(2, "spin_entry at %#lx is in no mapping",
		    (unsigned long)l->start[F_ENTRY]);
}

/* ---- sampling and the check ----------------------------------------------- */

struct tally {
	const struct lib *lib;
	uint64_t site;			/* spin_entry's return address */
	unsigned long samples, checked, complete, shortc, wrong, lost;
	/* the first incomplete chain: entries after PERF_CONTEXT_USER */
	uint64_t bad[8];
	unsigned int bad_nr;
	bool bad_wrong;
};

static int fn_of(const struct lib *l, uint64_t pc)
{
	int f;

	for (f = 0; f < NR_FN; f++)
		if (pc >= l->start[f] && pc < l->end[f])
			return f;
	return -1;
}

/* Is @ra in function @f of the library, right after a call instruction? */
static bool ra_in(const struct lib *l, int f, uint64_t ra)
{
	if (ra <= l->start[f] || ra >= l->end[f])
		return false;
#if defined(__x86_64__)
	/* call rel32: e8 and 4 bytes (the only call these functions make) */
	return ra - l->start[f] >= 5 && *(const uint8_t *)(uintptr_t)(ra - 5) == 0xe8;
#else
	/* bl imm26 */
	return ra - l->start[f] >= 4 && !(ra & 3) &&
	       (*(const uint32_t *)(uintptr_t)(ra - 4) & 0xfc000000) == 0x94000000;
#endif
}

/* PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN records */
static void on_record(void *arg, const struct perf_event_header *hdr,
		      const unsigned char *rec)
{
	const uint64_t *w = (const uint64_t *)(rec + sizeof(*hdr));
	size_t n = (hdr->size - sizeof(*hdr)) / sizeof(uint64_t);
	/* after the IP: s_c, s_b, s_a, spin_entry, then the call site */
	static const int expect[] = { F_C, F_B, F_A, F_ENTRY };
	const unsigned int nexp = ARRAY_SIZE(expect);
	struct tally *t = arg;
	const uint64_t *cc;
	uint64_t ip, nr;
	bool wrong = false;
	unsigned int i, have;

	if (hdr->type == PERF_RECORD_LOST) {
		t->lost += n >= 2 ? w[1] : 1;
		return;
	}
	if (hdr->type != PERF_RECORD_SAMPLE || n < 2)
		return;
	t->samples++;
	ip = w[0];
	nr = w[1];
	cc = &w[2];
	if (nr > n - 2)
		nr = n - 2;
	if (fn_of(t->lib, ip) != F_LEAF)
		return;
	t->checked++;
	if (nr < 2 || cc[0] != PERF_CONTEXT_USER || cc[1] != ip) {
		wrong = true;
		have = 0;
	} else {
		/* entries after the IP: cc[2] .. cc[nr - 1] */
		have = nr - 2;
		for (i = 0; i < have && i <= nexp && !wrong; i++) {
			if (i < nexp)
				wrong = !ra_in(t->lib, expect[i], cc[2 + i]);
			else
				wrong = cc[2 + i] != t->site;
		}
	}
	if (!wrong && have >= nexp + 1) {
		t->complete++;
		return;
	}
	if (wrong)
		t->wrong++;
	else
		t->shortc++;
	if (t->shortc + t->wrong == 1) {
		t->bad_nr = nr > 1 ? (nr - 1 < 8 ? nr - 1 : 8) : 0;
		for (i = 0; i < t->bad_nr; i++)
			t->bad[i] = cc[1 + i];
		t->bad_wrong = wrong;
	}
}

/* "s_c+0x9" for a library address, else the address */
static const char *sym(const struct tally *t, uint64_t pc, char *buf, size_t len)
{
	int f = fn_of(t->lib, pc);

	if (f >= 0)
		snprintf(buf, len, "%s+%#" PRIx64, fn_name[f],
			 pc - t->lib->start[f]);
	else if (pc == t->site)
		snprintf(buf, len, "call site %#" PRIx64, pc);
	else
		snprintf(buf, len, "%#" PRIx64, pc);
	return buf;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Step 4: call the chain in the mapping for @secs while perf samples. */
static void sample(struct tally *t, double secs)
{
	spin_fn_t entry;
	struct perf_ring ring;
	unsigned long site = 0;
	double t0;
	int fd;

	fd = perf_ring_open_self(&ring, PERF_COUNT_SW_CPU_CLOCK,
				 NSEC_PER_SEC / SAMPLE_FREQ, RING_PAGES);
	if (fd < 0)
		die(2, "cannot sample: perf_event_open: %s", strerror(errno));

	entry = (spin_fn_t)t->lib->start[F_ENTRY];
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	t0 = now_s();
	do {
		entry(SPIN_ITERS, &site);
		if (perf_ring_drain(&ring, on_record, t))
			die(1, "malformed ring buffer record (size %u)", ring.bad_size);
		if (!t->site)
			t->site = site;
		else if (site != t->site)
			die(1, "spin_entry returned to %#lx, then %#lx",
			    (unsigned long)t->site, site);
	} while (now_s() - t0 < secs);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (perf_ring_drain(&ring, on_record, t))
		die(1, "malformed ring buffer record (size %u)", ring.bad_size);
	perf_ring_unmap(&ring);
	close(fd);
}

int main(int argc, char **argv)
{
	char lib_src[PATH_MAX], lib_path[PATH_MAX], pw_path[PATH_MAX];
	const char *dir, *src = NULL;
	struct tally t = { 0 };
	struct lib l = { 0 };
	double secs = 2;
	uintptr_t text;
	unsigned int i;
	int opt, dfd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "l:t:")) != -1) {
		switch (opt) {
		case 'l':
			src = optarg;
			break;
		case 't':
			secs = strtod(optarg, NULL);
			break;
		default:
			goto usage;
		}
	}
	if (optind + 1 != argc || secs <= 0) {
usage:
		fprintf(stderr, "usage: %s [-l LIB] [-t SECONDS] DIR (DIR on ext4)\n",
			prog);
		return 2;
	}
	dir = argv[optind];
	if (!src) {
		/* libspin-sframe.so next to this program */
		ssize_t n = readlink("/proc/self/exe", lib_src, sizeof(lib_src) - 32);
		char *slash;

		if (n <= 0)
			die(2, "/proc/self/exe: %s (give -l LIB)", strerror(errno));
		lib_src[n] = 0;
		slash = strrchr(lib_src, '/');
		strcpy(slash ? slash + 1 : lib_src, "libspin-sframe.so");
		src = lib_src;
	}
	snprintf(lib_path, sizeof(lib_path), "%s/libspin.so", dir);
	snprintf(pw_path, sizeof(pw_path), "%s/pw.dat", dir);

	copy_lib(src, lib_path);
	pwrite_untouched(pw_path, lib_path);

	dfd = open(lib_path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (dfd < 0 && errno == EINVAL)
		die(2, "%s: open(O_DIRECT): EINVAL: the filesystem of %s has no O_DIRECT (tmpfs?); use a directory on ext4",
		    lib_path, dir);
	if (dfd < 0)
		die(2, "%s: open(O_DIRECT): %s", lib_path, strerror(errno));
	if (!(fcntl(dfd, F_GETFL) & O_DIRECT))
		die(2, "%s: O_DIRECT not set on the descriptor", lib_path);
	lib_parse(&l, lib_path);
	text = lib_map(&l, dfd, lib_path);
	lib_check_maps(&l, lib_path);
	printf("%s: %s mapped through O_DIRECT at %#lx (text %#lx), s_leaf [%#lx, %#lx)\n",
	       prog, lib_path, (unsigned long)l.base, (unsigned long)text,
	       (unsigned long)l.start[F_LEAF], (unsigned long)l.end[F_LEAF]);

	t.lib = &l;
	sample(&t, secs);
	unlink(pw_path);
	unlink(lib_path);

	printf("%s: samples %lu checked %lu complete %lu short %lu wrong %lu\n",
	       prog, t.samples, t.checked, t.complete, t.shortc, t.wrong);
	if (t.shortc + t.wrong) {
		char buf[64];

		printf("%s: first %s chain (%u entries after PERF_CONTEXT_USER):",
		       prog, t.bad_wrong ? "wrong" : "short", t.bad_nr);
		for (i = 0; i < t.bad_nr; i++)
			printf(" %s", sym(&t, t.bad[i], buf, sizeof(buf)));
		printf("; expected s_leaf, s_c, s_b, s_a, spin_entry, call site %#" PRIx64 "\n",
		       t.site);
	}
	if (t.lost)
		printf("%s: %lu samples lost\n", prog, t.lost);
	if (t.checked < MIN_CHECKED)
		die(1, "fail: %lu samples in s_leaf, fewer than %d", t.checked,
		    MIN_CHECKED);
	if (t.complete * 100 < t.checked * COMPLETE_PCT)
		die(1, "fail: %lu of %lu chains complete, fewer than %d%%",
		    t.complete, t.checked, COMPLETE_PCT);
	return 0;
}
