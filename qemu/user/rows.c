// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-rows: a cached row never answers for another mapping's text.
 *
 *   sframe-rows [-t SECONDS] [-p PERIOD_NS] LIB
 *
 * The kernel keeps the rows it decoded from user SFrame sections per CPU
 * (the row cache, kernel/unwind_user.c), each with the range of PCs it
 * covers, and asks it before it looks for the PC's mapping.  A section
 * may say that its last function runs on past the end of its text: a row
 * of that function must not answer for the PCs of the mapping after it,
 * which have their own section.  This program
 *   1. reads LIB (librows-sframe.so, rowslib.c), forges the size of its
 *      last FDE, rows_g's, to twice the span of the library's segments
 *      (through the SFrame core, lib/sframe/) and writes the result to a
 *      memfd;
 *   2. maps the memfd twice as a loader does (each PT_LOAD over a
 *      reserved span, with its own protection), the second copy right
 *      after the first: the first copy's rows_g now runs over all of the
 *      second copy's text;
 *   3. samples itself with perf (task clock, user callchains) for SECONDS
 *      (2) of CPU time, and on up to ten times as long until each function
 *      has 200 checked samples (a slow kernel samples less often), while
 *      it calls the first copy's rows_g and the second copy's rows_f in
 *      turn, each through r_call() (remapcall.S);
 *   4. checks every sample whose IP is in one of the two: the callchain
 *      must be PERF_CONTEXT_USER, the IP, r_call_ret, and hold none of the
 *      values rows_f keeps in its frame.  A walk that took the first
 *      rows_g's row for a PC of the second rows_f reads those values as
 *      return addresses.
 * Prints one line of counts per function and exits 0 if each has at least
 * 50 checked samples, none wrong and >= 90% complete (short: the chain
 * ends before r_call_ret); 1 otherwise, with the first wrong chain; 2
 * when perf or the library cannot be used.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <sframe/format.h>
#include <sframe/sframe.h>
#include "perfring.h"
#include "../../tools/lib/elf.h"

#define RING_PAGES	64
#define NFILL		4
#define MIN_CHECKED	50		/* per function, to pass */
#define WANT_CHECKED	200		/* per function, run on for them */

void r_call(void (*mid)(void (*)(void)), void (*leaf)(void));
extern const char r_call_ret[];

static const char *prog = "sframe-rows";

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%s: ", prog);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	exit(code);
}

/* The values of rows_f's frame: text addresses, none of the chain's. */
static unsigned long fill[NFILL];

static __attribute__((noinline)) void rows_decoy(void)
{
	asm volatile("nop\n\tnop\n\tnop\n\tnop\n\tnop" ::: "memory");
}

/* ---- the library, forged and mapped twice --------------------------------- */

struct lib {
	uint8_t *bytes;			/* the file, then forged */
	size_t size;
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph;
	uint64_t f_start, f_end, g_start, g_end;	/* vaddrs */
	uintptr_t span;			/* of the PT_LOAD segments, in pages */
};

static void lib_symbols(struct lib *l, const char *path)
{
	struct elf_file f;
	struct elf_sym s;
	const char *why = NULL;
	uint64_t i, n;

	if (elf_file_open(&f, path, &why) || !f.symtab)
		die(2, "%s: %s", path, why ? why : "no symbol table");
	n = elf_nsyms(&f, f.symtab);
	for (i = 0; i < n; i++) {
		if (elf_sym_get(&f, f.symtab, i, &s) || s.type != ELF_STT_FUNC)
			continue;
		if (!strcmp(s.name, "rows_f")) {
			l->f_start = s.value;
			l->f_end = s.value + s.size;
		} else if (!strcmp(s.name, "rows_g")) {
			l->g_start = s.value;
			l->g_end = s.value + s.size;
		}
	}
	elf_file_close(&f);
	if (!l->f_end || !l->g_end)
		die(2, "%s: no rows_f or rows_g", path);
}

/* Step 1: rows_g's FDE, the last one, made to cover 2 * span bytes. */
static void lib_forge(struct lib *l, const char *path)
{
	uintptr_t page = sysconf(_SC_PAGESIZE), hi = 0;
	const Elf64_Phdr *sfp = NULL, *p;
	struct sframe_section sec;
	struct sframe_field loc;
	struct sframe_fde fde;
	unsigned int opts;
	uint32_t size;
	int i, err = -1;

	if (sframe_read_file(path, &l->bytes, &l->size) ||
	    l->size < sizeof(Elf64_Ehdr))
		die(2, "%s: cannot read it", path);
	l->eh = (const Elf64_Ehdr *)l->bytes;
	if (memcmp(l->eh->e_ident, ELFMAG, SELFMAG) ||
	    l->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    l->eh->e_phoff + (uint64_t)l->eh->e_phnum * sizeof(Elf64_Phdr) > l->size)
		die(2, "%s: not a 64-bit ELF file", path);
	l->ph = (const Elf64_Phdr *)(l->bytes + l->eh->e_phoff);
	for (i = 0; i < l->eh->e_phnum; i++) {
		p = &l->ph[i];
		if (p->p_type == PT_GNU_SFRAME)
			sfp = p;
		if (p->p_type == PT_LOAD && p->p_vaddr + p->p_memsz > hi)
			hi = p->p_vaddr + p->p_memsz;
	}
	l->span = (hi + page - 1) & ~(page - 1);
	if (!sfp || sfp->p_offset + sfp->p_filesz > l->size)
		die(2, "%s: no PT_GNU_SFRAME", path);

	/* start fields as the header says, else PC-relative (v2 errata) */
	for (opts = 0; opts <= SFRAME_OPEN_PCREL && err; opts += SFRAME_OPEN_PCREL) {
		err = sframe_open(&sec, l->bytes + sfp->p_offset, sfp->p_filesz,
				  sfp->p_vaddr, opts);
		if (!err)
			err = sframe_find_fde(&sec, l->g_start, &fde);
		if (!err && fde.start != l->g_start)
			err = -1;
	}
	if (err)
		die(2, "%s: no FDE starts at rows_g", path);
	if (fde.index != sec.num_fdes - 1)
		die(2, "%s: rows_g's FDE is not the last one", path);
	if (sframe_fde_field(&sec, &fde, SFRAME_FIELD_FDE_SIZE, &loc) ||
	    loc.len != sizeof(size))
		die(2, "%s: no size field in rows_g's FDE", path);
	size = 2 * l->span;
	memcpy(l->bytes + sfp->p_offset + loc.off, &size, sizeof(size));
}

static int lib_prot(uint32_t flags)
{
	return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) |
	       (flags & PF_X ? PROT_EXEC : 0);
}

/* Step 2: each PT_LOAD of @fd at @base + its vaddr, over the span. */
static void lib_map(const struct lib *l, int fd, uintptr_t base)
{
	uintptr_t page = sysconf(_SC_PAGESIZE), start, end;
	const Elf64_Phdr *p;
	int i;

	for (i = 0; i < l->eh->e_phnum; i++) {
		p = &l->ph[i];
		if (p->p_type != PT_LOAD || !p->p_filesz)
			continue;
		if (p->p_memsz != p->p_filesz || (p->p_vaddr - p->p_offset) % page)
			die(2, "librows: PT_LOAD %d cannot be mapped without a loader", i);
		start = base + (p->p_vaddr & ~(page - 1));
		end = base + p->p_vaddr + p->p_filesz;
		if (mmap((void *)start, end - start, lib_prot(p->p_flags),
			 MAP_PRIVATE | MAP_FIXED, fd,
			 p->p_offset & ~(page - 1)) == MAP_FAILED)
			die(2, "mmap of PT_LOAD %d: %s", i, strerror(errno));
	}
}

/* ---- the samples ------------------------------------------------------------ */

struct fn_stats {
	const char *what;
	uintptr_t start, end;
	unsigned long checked, wrong, shrt;
	uint64_t first_wrong[5];	/* IP, then up to 4 entries */
	uint64_t first_nr;
};

static struct fn_stats fns[2];
static unsigned long nsamples;

static int is_fill(uint64_t v)
{
	int i;

	for (i = 0; i < NFILL; i++)
		if (v == fill[i])
			return 1;
	return 0;
}

static void on_record(void *arg, const struct perf_event_header *hdr,
		      const unsigned char *rec)
{
	const uint64_t *w = (const uint64_t *)(rec + sizeof(*hdr));
	size_t n = (hdr->size - sizeof(*hdr)) / sizeof(uint64_t);
	const uint64_t *cc;
	struct fn_stats *s = NULL;
	uint64_t ip, nr, k;
	int i, bad;

	(void)arg;
	if (hdr->type != PERF_RECORD_SAMPLE || n < 2)
		return;
	nsamples++;
	ip = w[0];
	nr = w[1];
	cc = &w[2];
	if (nr > n - 2)
		nr = n - 2;
	for (i = 0; i < 2; i++)
		if (ip >= fns[i].start && ip < fns[i].end)
			s = &fns[i];
	if (!s)
		return;
	s->checked++;
	bad = nr < 2 || cc[0] != PERF_CONTEXT_USER || cc[1] != ip;
	for (k = 2; k < nr && !bad; k++)
		bad = is_fill(cc[k]) || (k == 2 && cc[k] != (uintptr_t)r_call_ret);
	if (!bad && nr < 3) {
		s->shrt++;
		return;
	}
	if (!bad)
		return;
	if (!s->wrong++) {
		s->first_wrong[0] = ip;
		for (k = 2; k < nr && k < 6; k++)
			s->first_wrong[k - 1] = cc[k];
		s->first_nr = nr;
	}
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	unsigned long seconds = 2, period = 100000;
	void (*f2)(void (*)(void)), (*g1)(void (*)(void));
	struct perf_ring ring;
	struct lib l = { 0 };
	uintptr_t base;
	int opt, fd, mfd, i, fail = 0;
	double t;

	while ((opt = getopt(argc, argv, "t:p:")) != -1) {
		switch (opt) {
		case 't': seconds = strtoul(optarg, NULL, 0); break;
		case 'p': period = strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (optind + 1 != argc || !seconds || !period) {
usage:
		fprintf(stderr, "usage: %s [-t SECONDS] [-p PERIOD_NS] LIB\n", prog);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < NFILL; i++)
		fill[i] = (uintptr_t)rows_decoy + i + 1;

	lib_symbols(&l, argv[optind]);
	lib_forge(&l, argv[optind]);
	mfd = memfd_create("librows-forged.so", MFD_CLOEXEC);
	if (mfd < 0 || write(mfd, l.bytes, l.size) != (ssize_t)l.size)
		die(2, "memfd: %s", strerror(errno));
	base = (uintptr_t)mmap(NULL, 2 * l.span, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == (uintptr_t)MAP_FAILED)
		die(2, "mmap: %s", strerror(errno));
	lib_map(&l, mfd, base);
	lib_map(&l, mfd, base + l.span);
	g1 = (void (*)(void (*)(void)))(base + l.g_start);
	f2 = (void (*)(void (*)(void)))(base + l.span + l.f_start);
	fns[0] = (struct fn_stats){ .what = "first copy's rows_g",
		.start = base + l.g_start, .end = base + l.g_end };
	fns[1] = (struct fn_stats){ .what = "second copy's rows_f",
		.start = base + l.span + l.f_start, .end = base + l.span + l.f_end };

	fd = perf_ring_open_self(&ring, PERF_COUNT_SW_TASK_CLOCK, period, RING_PAGES);
	if (fd < 0)
		die(2, "cannot sample: %s", strerror(errno));
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);

	t = cpu_ms();
	while (cpu_ms() - t < seconds * 1e3 ||
	       ((fns[0].checked < WANT_CHECKED || fns[1].checked < WANT_CHECKED) &&
		cpu_ms() - t < 10 * seconds * 1e3)) {
		double chunk = cpu_ms();

		while (cpu_ms() - chunk < 20) {
			r_call(g1, (void (*)(void))fill);
			r_call(f2, (void (*)(void))fill);
		}
		if (perf_ring_drain(&ring, on_record, NULL))
			die(1, "malformed ring buffer record");
	}
	close(fd);

	for (i = 0; i < 2; i++) {
		struct fn_stats *s = &fns[i];
		unsigned long ok = s->checked - s->wrong - s->shrt;

		printf("%s: %s: %lu checked, %lu complete, %lu wrong, %lu short\n",
		       prog, s->what, s->checked, ok, s->wrong, s->shrt);
		if (s->wrong)
			printf("%s: %s: first wrong: IP %#" PRIx64 " then %#" PRIx64 ", %#" PRIx64 ", %#" PRIx64 " (%" PRIu64 " entries; expected r_call_ret %#lx, no value of %#lx..%#lx)\n",
			       prog, s->what, s->first_wrong[0], s->first_wrong[1],
			       s->first_wrong[2], s->first_wrong[3], s->first_nr,
			       (unsigned long)(uintptr_t)r_call_ret, fill[0],
			       fill[NFILL - 1]);
		if (s->checked < MIN_CHECKED || s->wrong || ok * 10 < s->checked * 9)
			fail = 1;
	}
	printf("%s: %lu samples; forged rows_g runs to %#lx, past the second copy (%#lx..%#lx)\n",
	       prog, nsamples, (unsigned long)(base + l.g_start + 2 * l.span),
	       (unsigned long)base + l.span, (unsigned long)(base + 2 * l.span));
	return fail;
}
