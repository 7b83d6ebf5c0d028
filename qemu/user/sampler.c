// SPDX-License-Identifier: GPL-2.0-only
/*
 * sampler: checks the user callchains that perf_event_open() records for a
 * workload whose call chain is known exactly (chain.h).
 *
 * The program forks: the child runs the chain (main -> w_outer -> ... ->
 * w_leaf) forever, the parent samples the child with a software CPU clock
 * event (user only, PERF_SAMPLE_IP | TID | CALLCHAIN) at a randomly varied
 * period and checks every sample's callchain. A forked child has the
 * parent's address space layout, so the parent symbolizes the child's
 * addresses with its own /proc/self/maps and ELF symbol tables, and the
 * sampling, ring-buffer reading and checking never run in the sampled
 * task (no samples of the sampler itself, no need to tell threads apart).
 *
 * For a sample whose IP is in chain function F (or in the PLT entry that
 * jumps to F), the callchain must be PERF_CONTEXT_USER, the IP, then one
 * return address in each caller of F in order, up to main. Entries after
 * main's are not checked (the C library has no SFrame). A sample is:
 *   complete: all those return addresses are there and right;
 *   short:    the ones that are there are right, but the chain ends early;
 *   wrong:    an entry is not the expected caller (a frame skipped, garbage,
 *             or a malformed chain);
 *   fp-blind: (-f, frame-pointer builds) only the caller is missing, and the
 *             IP is where a frame-pointer walk cannot see it (prologue
 *             before the frame pointer is set, epilogue after it is
 *             restored, PLT entry);
 * samples whose IP is outside the chain (the fork, the dynamic linker) are
 * counted but not checked. A return address must also follow a call
 * instruction.
 *
 * -x MS samples short-lived processes instead: each child execs this
 * program again to run the chain for MS milliseconds (-R MS), sampled from
 * its execve() on (enable_on_exec), until enough samples are checked; the
 * summary adds how many runs had their first checked sample complete.
 * This is what a process's first samples look like before its .sframe
 * pages are mapped (a static, non-PIE build: the exec'd image has the
 * parent's addresses).
 *
 * -z MS makes the sampled child drop the page table entries of its SFrame
 * sections (MADV_DONTNEED) every MS milliseconds, as reclaim does: each
 * time, the kernel must fault the pages in again after a sample finds
 * them missing, or the rest of the child's samples lose their chains.
 *
 * -s fp|eh samples in-process with SIGPROF instead of perf (a frame-pointer
 * walk, or backtrace() over .eh_frame) to test the checker without perf;
 * -r SECONDS only runs the workload. See qemu/user/README.md.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <execinfo.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "chain.h"
#include "perfring.h"
#include "../../tools/lib/elf.h"
#include "../../tools/lib/search.h"

#define RING_PAGES	64		/* default data pages of the ring buffer */
#define MAX_REPORT	5		/* failing samples printed per kind */
#define PLT_ENTRY	16		/* x86_64 and aarch64 PLT entries */

static const char *const chain_names[CHAIN_LEN] = CHAIN_NAMES;
static const char *prog = "sampler";

/* ---- symbols ------------------------------------------------------------ */

struct sym {
	uint64_t start, end;		/* run-time addresses, [start, end) */
	const char *name;
	const char *obj;		/* basename of the ELF file */
	int level;			/* index in chain_names, -1: none */
	bool plt;			/* PLT entry jumping to name */
};

struct map {
	uint64_t start, end;
	const char *name;
};

static struct sym *syms;
static size_t nsyms, syms_cap;
static struct map *maps;
static size_t nmaps, maps_cap;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(2);
	}
	return p;
}

static int chain_level(const char *name)
{
	int i;

	for (i = 0; i < CHAIN_LEN; i++)
		if (!strcmp(name, chain_names[i]))
			return i;
	return -1;
}

static void add_sym(uint64_t start, uint64_t end, const char *name,
		    const char *obj, bool plt)
{
	struct sym *s;

	if (nsyms == syms_cap) {
		syms_cap = syms_cap ? 2 * syms_cap : 1024;
		syms = xrealloc(syms, syms_cap * sizeof(*syms));
	}
	s = &syms[nsyms++];
	s->start = start;
	s->end = end;
	s->name = name;
	s->obj = obj;
	s->level = chain_level(name);
	s->plt = plt;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* chain symbols first among aliases */
	return (y->level >= 0) - (x->level >= 0);
}

static int sym_starts_above(const void *elem, const void *key)
{
	return ((const struct sym *)elem)->start > *(const uint64_t *)key;
}

/* The symbol containing addr, or NULL. Prefers chain symbols. */
static const struct sym *find_sym(uint64_t addr)
{
	/* the first symbol starting above addr */
	size_t i = search_first(syms, nsyms, sizeof(*syms), &addr,
				sym_starts_above);
	const struct sym *best = NULL;
	size_t n;

	/* look back over a few entries: aliases and nested symbols */
	for (n = 0; i > 0 && n < 64; i--, n++) {
		const struct sym *s = &syms[i - 1];

		if (addr < s->end && (!best || (best->level < 0 && s->level >= 0)))
			best = s;
	}
	return best;
}

static const char *find_map(uint64_t addr, uint64_t *start)
{
	size_t i;

	for (i = 0; i < nmaps; i++) {
		if (addr >= maps[i].start && addr < maps[i].end) {
			*start = maps[i].start;
			return maps[i].name;
		}
	}
	return NULL;
}

/* "w_leaf+0x12", "w_b@plt+0x4", "libc.so.6+0x2724a" or the bare address */
static const char *symbolize(uint64_t addr, char *buf, size_t len)
{
	const struct sym *s = find_sym(addr);
	uint64_t start = 0;
	const char *m = find_map(addr, &start);

	if (addr >= PERF_CONTEXT_MAX)
		snprintf(buf, len, "[context %#llx]", (unsigned long long)addr);
	else if (s)
		snprintf(buf, len, "%s%s+%#llx", s->name, s->plt ? "@plt" : "",
			 (unsigned long long)(addr - s->start));
	else if (m)
		snprintf(buf, len, "%s+%#llx", m, (unsigned long long)(addr - start));
	else
		snprintf(buf, len, "%#llx", (unsigned long long)addr);
	return buf;
}

/* ---- symbols of the ELF files (tools/lib/elf.c) ------------------------------ */

/* Lowest PT_LOAD address, page aligned: where the offset-0 mapping starts. */
static uint64_t elf_base(const struct elf_file *f)
{
	uint64_t base = UINT64_MAX, page = sysconf(_SC_PAGESIZE), i;
	struct elf_seg s;

	for (i = 0; i < f->phnum && !elf_seg_get(f, i, &s); i++)
		if (s.type == ELF_PT_LOAD && s.vaddr < base)
			base = s.vaddr;
	return base == UINT64_MAX ? 0 : base & ~(page - 1);
}

/* Function symbols of a SHT_SYMTAB or SHT_DYNSYM section. */
static int elf_load_symtab(const struct elf_file *f, uint64_t tab,
			   uint64_t bias, const char *obj)
{
	uint64_t i, n = elf_nsyms(f, tab);
	struct elf_sym s;
	int count = 0;

	for (i = 1; i < n; i++) {
		if (elf_sym_get(f, tab, i, &s) ||
		    (s.type != ELF_STT_FUNC && s.type != ELF_STT_GNU_IFUNC) ||
		    !s.shndx || !s.size || !*s.name)
			continue;
		add_sym(s.value + bias, s.value + s.size + bias, s.name, obj,
			false);
		count++;
	}
	return count;
}

/*
 * The GOT slot a PLT entry jumps through, from its code, or 0:
 * x86_64 "jmp *disp(%rip)" (after endbr64 / bnd in .plt.sec), aarch64
 * "adrp x16, page; ldr x17, [x16, #off]" (after bti c).
 */
static uint64_t plt_got_slot(uint16_t machine, const unsigned char *p, uint64_t pc)
{
	if (machine == EM_X86_64) {
		unsigned int i = 0;
		int32_t disp;

		if (!memcmp(p, "\xf3\x0f\x1e\xfa", 4))	/* endbr64 */
			i = 4;
		if (p[i] == 0xf2)			/* bnd */
			i++;
		if (p[i] != 0xff || p[i + 1] != 0x25)
			return 0;
		memcpy(&disp, p + i + 2, 4);
		return pc + i + 6 + (int64_t)disp;
	}
	if (machine == EM_AARCH64) {
		uint32_t adrp, ldr;
		int64_t imm;

		memcpy(&adrp, p, 4);
		if (adrp == 0xd503245f) {		/* bti c */
			p += 4;
			pc += 4;
			memcpy(&adrp, p, 4);
		}
		memcpy(&ldr, p + 4, 4);
		if ((adrp & 0x9f00001f) != 0x90000010 ||	/* adrp x16 */
		    (ldr & 0xffc003ff) != 0xf9400211)		/* ldr x17, [x16, #] */
			return 0;
		imm = ((adrp >> 29) & 3) | (((adrp >> 5) & 0x7ffff) << 2);
		imm = (imm ^ (1 << 20)) - (1 << 20);		/* sign extend 21 bits */
		return (pc & ~0xfffULL) + (imm << 12) + ((ldr >> 10) & 0xfff) * 8;
	}
	return 0;
}

/* PLT entries named after the symbol of their JUMP_SLOT relocation. */
static int elf_load_plt(const struct elf_file *f, const char *secname,
			uint64_t bias, const char *obj)
{
	int plt = elf_sec_find(f, secname), rela = elf_sec_find(f, ".rela.plt");
	uint32_t jump_slot = f->machine == EM_X86_64 ? R_X86_64_JUMP_SLOT :
			     R_AARCH64_JUMP_SLOT;
	uint64_t off, addr, i, n;
	const uint8_t *code;
	struct elf_rela r;
	struct elf_sym s;
	int count = 0;

	if (plt < 0 || rela < 0)
		return 0;
	code = elf_sec_data(f, plt);
	addr = f->secs[plt].addr;
	n = elf_nrelas(f, rela);
	for (off = 0; code && off + PLT_ENTRY <= f->secs[plt].size;
	     off += PLT_ENTRY) {
		uint64_t got = plt_got_slot(f->machine, code + off, addr + off);

		if (!got)
			continue;
		for (i = 0; i < n; i++)
			if (!elf_rela_get(f, rela, i, &r) && r.offset == got)
				break;
		if (i == n || r.type != jump_slot ||
		    elf_sym_get(f, f->secs[rela].link, r.sym, &s) || !*s.name)
			continue;
		add_sym(addr + off + bias, addr + off + PLT_ENTRY + bias, s.name,
			obj, true);
		count++;
	}
	return count;
}

/* Symbols and PLT entries of the ELF file mapped at map_start (offset 0). */
static void load_object(const char *path, uint64_t map_start)
{
	uint64_t symtab = 0, dynsym = 0, bias, i;
	const char *why, *obj;
	struct elf_file f;

	if (elf_file_open(&f, path, &why)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, why);
		return;
	}
	if (f.sec_why) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, f.sec_why);
		elf_file_close(&f);
		return;
	}
	obj = strdup(strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	bias = map_start - elf_base(&f);
	for (i = 1; i < f.shnum; i++) {
		if (f.secs[i].type == ELF_SHT_SYMTAB)
			symtab = i;
		if (f.secs[i].type == ELF_SHT_DYNSYM)
			dynsym = i;
	}
	if (!(symtab && elf_load_symtab(&f, symtab, bias, obj)) && dynsym)
		elf_load_symtab(&f, dynsym, bias, obj);
	elf_load_plt(&f, ".plt", bias, obj);
	elf_load_plt(&f, ".plt.sec", bias, obj);
	/* f stays open: the symbol names point into its mapping */
}

/* Every file mapped into this process (the child has the same layout). */
static void load_symbols(void)
{
	char line[PATH_MAX + 128], path[PATH_MAX];
	FILE *f = fopen("/proc/self/maps", "re");
	size_t i;

	if (!f) {
		fprintf(stderr, "%s: /proc/self/maps: %s\n", prog, strerror(errno));
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		int pos = 0;
		char *name;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &start, &end, &off, &pos) < 3 ||
		    !pos)
			continue;
		name = line + pos;
		name[strcspn(name, "\n")] = 0;
		if (!*name)
			continue;
		if (nmaps == maps_cap) {
			maps_cap = maps_cap ? 2 * maps_cap : 64;
			maps = xrealloc(maps, maps_cap * sizeof(*maps));
		}
		maps[nmaps].start = start;
		maps[nmaps].end = end;
		maps[nmaps].name = strdup(strrchr(name, '/') ? strrchr(name, '/') + 1 : name);
		nmaps++;
		/* the first mapping of each file: the one at offset 0 */
		if (name[0] == '/' && off == 0 && !strstr(name, " (deleted)")) {
			for (i = 0; i + 1 < nmaps; i++)
				if (!strcmp(maps[i].name, maps[nmaps - 1].name))
					break;
			if (i + 1 == nmaps) {
				snprintf(path, sizeof(path), "%s", name);
				load_object(path, start);
			}
		}
	}
	fclose(f);
	qsort(syms, nsyms, sizeof(*syms), sym_cmp);

	for (i = 0; i < CHAIN_LEN; i++) {
		size_t j;

		for (j = 0; j < nsyms; j++)
			if (syms[j].level == (int)i && !syms[j].plt)
				break;
		if (j == nsyms) {
			fprintf(stderr, "%s: no symbol for %s: is the binary stripped?\n",
				prog, chain_names[i]);
			exit(2);
		}
	}
}

/* ---- checking one callchain --------------------------------------------- */

enum verdict { COMPLETE, SHORT, WRONG, FP_BLIND, OTHER, NVERDICT };

struct stats {
	unsigned long n[NVERDICT];	/* by verdict */
	unsigned long skipped;		/* wrong: callers skipped */
	unsigned long blind;		/* ... the caller, at an FP blind spot */
	unsigned long at_entry;		/* ip at a chain function's first insn */
	unsigned long plt, plt_complete;/* ip in a PLT entry of the chain */
	unsigned long where[CHAIN_LEN];	/* checked samples by ip's function */
	unsigned long lost, throttled, records;
	unsigned long reported[NVERDICT];
};

/*
 * Frame-pointer blind spots: where the frame pointer does not (yet, or
 * any more) point to the frame record of the function holding the IP, so
 * that a frame-pointer walk finds the caller's record and skips the caller:
 * from the function's entry up to the instruction that sets the frame
 * pointer (included), and from the restore of the caller's frame pointer
 * to the return. PLT entries have no frame at all. The code is read from
 * our own memory: the child has the same mappings.
 */
#if defined(__x86_64__)
/* ra follows a call instruction in s: call rel32, call *disp32(%rip), call *reg/mem */
static bool after_call(const struct sym *s, uint64_t ra)
{
	const unsigned char *p = (const unsigned char *)(uintptr_t)ra;
	uint64_t room = ra - s->start;

	if (room >= 5 && p[-5] == 0xe8)
		return true;
	if (room >= 6 && p[-6] == 0xff && (p[-5] == 0x15 || (p[-5] & 0xf8) == 0x90))
		return true;
	if (room >= 2 && p[-2] == 0xff && (p[-1] & 0xf8) == 0xd0)
		return true;
	return room >= 3 && p[-3] == 0xff && (p[-2] & 0xf8) == 0x50;
}

static bool fp_blind_spot(const struct sym *s, uint64_t ip)
{
	const unsigned char *p = (const unsigned char *)(uintptr_t)s->start;
	uint64_t off = ip - s->start, len = s->end - s->start, i;

	if (s->plt)
		return true;
	for (i = 0; i + 3 <= len && i < 64; i++)	/* mov %rsp,%rbp */
		if (p[i] == 0x48 && p[i + 1] == 0x89 && p[i + 2] == 0xe5)
			break;
	if (i + 3 <= len && i < 64 && off <= i)
		return true;
	/* "pop %rbp; ret" or "leave; ret" */
	return off > 0 && p[off] == 0xc3 && (p[off - 1] == 0x5d || p[off - 1] == 0xc9);
}
#elif defined(__aarch64__)
/* ra follows bl, blr or blraa/blrab(z) in s */
static bool after_call(const struct sym *s, uint64_t ra)
{
	uint32_t insn;

	if (ra - s->start < 4 || ra % 4)
		return false;
	memcpy(&insn, (const void *)(uintptr_t)(ra - 4), 4);
	return (insn & 0xfc000000) == 0x94000000 ||	/* bl */
	       (insn & 0xfffffc1f) == 0xd63f0000 ||	/* blr */
	       (insn & 0xfefff800) == 0xd63f0800;	/* blraa, blrab, ...z */
}

static bool fp_blind_spot(const struct sym *s, uint64_t ip)
{
	const uint32_t *p = (const uint32_t *)(uintptr_t)s->start;
	uint64_t n = (s->end - s->start) / 4, at = (ip - s->start) / 4, i;

	if (s->plt)
		return true;
	for (i = 0; i < n && i < 32; i++)		/* add x29, sp, #imm */
		if ((p[i] & 0xffc003ff) == 0x910003fd)
			break;
	if (i < n && i < 32 && at <= i)
		return true;
	/* after "ldp x29, x30, [sp...]" and up to its ret */
	for (i = at; i > 0 && at - i < 8; i--) {
		uint32_t insn = p[i - 1];

		if ((insn & 0xffc07fff) == 0xa8c07bfd || (insn & 0xffc07fff) == 0xa9407bfd)
			break;
		if (insn == 0xd65f03c0)
			return false;
	}
	if (i == 0 || at - i >= 8)
		return false;
	for (i = at; i < n && i - at < 8; i++)
		if (p[i] == 0xd65f03c0)
			return true;
	return false;
}
#else
static bool after_call(const struct sym *s, uint64_t ra)
{
	(void)s;
	(void)ra;
	return true;
}

static bool fp_blind_spot(const struct sym *s, uint64_t ip)
{
	(void)s;
	(void)ip;
	return false;
}
#endif

/*
 * Checks ips[j...] against the chain functions at levels k, k-1, ..., 0:
 * each must be a return address in that function (right after a call
 * instruction). COMPLETE, SHORT (ends early) or WRONG; *bad is the first
 * entry that is missing or wrong.
 */
static enum verdict match_callers(const uint64_t *ips, uint64_t nr, uint64_t j,
				  int k, uint64_t *bad)
{
	const struct sym *c;

	for (; k >= 0; k--, j++) {
		*bad = j;
		if (j >= nr)
			return SHORT;
		c = ips[j] < PERF_CONTEXT_MAX ? find_sym(ips[j]) : NULL;
		if (!c || c->plt || c->level != k || !after_call(c, ips[j]))
			return WRONG;
	}
	return COMPLETE;
}

/*
 * ips[0..nr) is the sample's callchain, ip its PERF_SAMPLE_IP.
 * *why gets the reason for SHORT, WRONG and FP_BLIND. fp_mode: a callchain
 * that lacks only the caller, at a frame-pointer blind spot, is FP_BLIND.
 */
static enum verdict check_chain(const uint64_t *ips, uint64_t nr, uint64_t ip,
				bool fp_mode, struct stats *st, char *why, size_t len)
{
	const struct sym *s = find_sym(ip), *c;
	enum verdict v;
	char b1[128];
	uint64_t bad, bad2;
	int k;

	if (!s || s->level < 0)
		return OTHER;
	if (nr < 2 || ips[0] != PERF_CONTEXT_USER) {
		snprintf(why, len, "malformed: no PERF_CONTEXT_USER first");
		return WRONG;
	}
	if (ips[1] != ip) {
		snprintf(why, len, "malformed: entry 1 is not the sample ip %s",
			 symbolize(ip, b1, sizeof(b1)));
		return WRONG;
	}
	st->where[s->level]++;
	if (s->plt)
		st->plt++;
	else if (ip == s->start)
		st->at_entry++;
	/*
	 * A PLT entry runs before its target's first instruction: the stack
	 * is the one the target sees at its entry, the caller is the target's.
	 */
	v = match_callers(ips, nr, 2, s->level - 1, &bad);
	if (v == COMPLETE) {
		if (s->plt)
			st->plt_complete++;
		return COMPLETE;
	}
	k = s->level - 1 - (int)(bad - 2);	/* the level expected at bad */
	if (v == SHORT) {
		snprintf(why, len, "short: ends after %llu of %d callers (%s missing)",
			 (unsigned long long)(bad - 2), s->level, chain_names[k]);
		return SHORT;
	}
	c = ips[bad] < PERF_CONTEXT_MAX ? find_sym(ips[bad]) : NULL;
	/*
	 * main skipped at a blind spot of w_outer: the next entry is main's
	 * caller, outside the chain (the C library's start code).
	 */
	if (bad == 2 && k == 0 && fp_blind_spot(s, ip) &&
	    (!c || (c->level < 0 && !c->plt && after_call(c, ips[bad])))) {
		st->skipped++;
		st->blind++;
		snprintf(why, len, "%s: entry 2 is %s: the caller main is skipped at a "
			 "frame-pointer blind spot", fp_mode ? "fp-blind" : "wrong",
			 symbolize(ips[bad], b1, sizeof(b1)));
		return fp_mode ? FP_BLIND : WRONG;
	}
	if (c && !c->plt && c->level == k) {
		snprintf(why, len, "wrong: entry %llu is %s, in %s but not after a call",
			 (unsigned long long)bad, symbolize(ips[bad], b1, sizeof(b1)),
			 chain_names[k]);
		return WRONG;
	}
	if (!c || c->plt || c->level < 0 || c->level >= k) {
		snprintf(why, len, "wrong: entry %llu is %s, expected %s",
			 (unsigned long long)bad, symbolize(ips[bad], b1, sizeof(b1)),
			 chain_names[k]);
		return WRONG;
	}
	st->skipped++;
	if (bad == 2 && c->level == k - 1 && fp_blind_spot(s, ip) &&
	    match_callers(ips, nr, 2, k - 1, &bad2) == COMPLETE) {
		st->blind++;
		snprintf(why, len, "%s: entry 2 is %s: the caller %s is skipped at a "
			 "frame-pointer blind spot", fp_mode ? "fp-blind" : "wrong",
			 symbolize(ips[bad], b1, sizeof(b1)), chain_names[k]);
		return fp_mode ? FP_BLIND : WRONG;
	}
	snprintf(why, len, "wrong: entry %llu is %s, expected %s (%d frame%s skipped)",
		 (unsigned long long)bad, symbolize(ips[bad], b1, sizeof(b1)),
		 chain_names[k], k - c->level, k - c->level > 1 ? "s" : "");
	return WRONG;
}

static void print_chain(const char *what, const uint64_t *ips, uint64_t nr,
			const char *why)
{
	char buf[128];
	uint64_t i;

	printf("%s:   %s:", prog, what);
	for (i = 1; i < nr && i < 16; i++) {
		printf("%s%s", i > 1 ? " <- " : " ", symbolize(ips[i], buf, sizeof(buf)));
		if (ips[i] < PERF_CONTEXT_MAX && find_sym(ips[i]) &&
		    find_sym(ips[i])->level == 0)
			break;		/* main: the rest is not checked */
	}
	if (nr < 2)
		printf(" (%llu entries)", (unsigned long long)nr);
	printf("\n%s:     %s\n", prog, why);
}

static void stop_chain(int sig);

/* ---- perf ring buffer (perfring.c) ---------------------------------------- */

struct sample_ctx {
	struct stats st;
	pid_t child;
	unsigned long limit;		/* checked samples wanted */
	bool verbose, quiet, fp_mode;
	/* -x: runs, and whether each one's first checked sample was complete */
	bool first_pending;
	unsigned long runs, first_checked, first_complete;
};

static unsigned long checked_samples(const struct stats *st)
{
	return st->n[COMPLETE] + st->n[SHORT] + st->n[WRONG] + st->n[FP_BLIND];
}

/* Classifies one callchain, counts it, prints it if it fails (or -v). */
static void account(struct sample_ctx *ctx, const uint64_t *ips, uint64_t nr, uint64_t ip)
{
	const char *const what[] = { "complete", "short", "wrong", "fp-blind", "other" };
	char why[256] = "";
	enum verdict v;

	if (checked_samples(&ctx->st) >= ctx->limit)
		return;
	v = check_chain(ips, nr, ip, ctx->fp_mode, &ctx->st, why, sizeof(why));
	ctx->st.n[v]++;
	if (ctx->first_pending && v != OTHER) {
		ctx->first_pending = false;
		ctx->first_checked++;
		ctx->first_complete += v == COMPLETE;
	}
	if (ctx->verbose || (!ctx->quiet && (v == WRONG || v == SHORT) &&
			     ctx->st.reported[v]++ < MAX_REPORT))
		print_chain(what[v], ips, nr, why[0] ? why : "ok");
}

static void handle_sample(struct sample_ctx *ctx, const unsigned char *p, size_t size)
{
	/* PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN, in that order */
	struct {
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t nr;
	} h;
	const size_t fixed = sizeof(struct perf_event_header) + sizeof(h);

	if (size < fixed)
		return;
	memcpy(&h, p + sizeof(struct perf_event_header), sizeof(h));
	if ((pid_t)h.pid != ctx->child)
		return;			/* not ours (cannot happen: task event) */
	if (h.nr > (size - fixed) / 8) {
		printf("%s:   malformed sample: %llu callchain entries do not fit the record\n",
		       prog, (unsigned long long)h.nr);
		ctx->st.n[WRONG]++;
		return;
	}
	account(ctx, (const uint64_t *)(p + fixed), h.nr, h.ip);
}

/* One ring-buffer record: samples are checked, LOST and THROTTLE counted. */
static void handle_record(void *arg, const struct perf_event_header *hdr,
			  const unsigned char *p)
{
	struct sample_ctx *ctx = arg;

	ctx->st.records++;
	switch (hdr->type) {
	case PERF_RECORD_SAMPLE:
		handle_sample(ctx, p, hdr->size);
		break;
	case PERF_RECORD_LOST: {
		uint64_t lost[2];	/* id, lost */

		if (hdr->size >= sizeof(*hdr) + sizeof(lost)) {
			memcpy(lost, p + sizeof(*hdr), sizeof(lost));
			ctx->st.lost += lost[1];
		}
		break;
	}
	case PERF_RECORD_THROTTLE:
		ctx->st.throttled++;
		break;
	default:
		break;
	}
}

/* Consumes every record between data_tail and data_head. */
static void ring_drain(struct perf_ring *r, struct sample_ctx *ctx)
{
	if (perf_ring_drain(r, handle_record, ctx)) {
		fprintf(stderr, "%s: corrupt ring buffer record (size %u)\n",
			prog, r->bad_size);
		exit(2);
	}
}

/* ---- sampling with perf ------------------------------------------------- */

struct options {
	unsigned long nsamples, period_us, timeout, run_only, ring_pages;
	unsigned long exec_ms;		/* -x: short-lived exec'd runs */
	unsigned long zap_ms;		/* -z: drop the sections' pages */
	bool expect_complete, expect_right;
	bool check;			/* -c */
	const char *self_test;		/* -s fp|eh */
	double threshold;
};

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* A period in ns, uniformly in [mean/2, 3*mean/2). */
static uint64_t next_period(uint64_t mean_ns)
{
	return mean_ns / 2 + rng() % mean_ns;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Samples the workload running in child until opt->nsamples samples are
 * checked, then kills it. Returns 0, 1 on a timeout or a dead workload,
 * 2 when perf cannot be used.
 */
static int run_perf(const struct options *opt, struct sample_ctx *ctx, pid_t child)
{
	struct perf_event_attr attr;
	struct perf_ring ring;
	int fd, status, ret = 0;
	bool warned = false;
	uint64_t period;
	double t0;

	rng_state = ((uint64_t)time(NULL) << 20) ^ (uint64_t)child ^ 0x9e3779b97f4a7c15ULL;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = next_period(opt->period_us * 1000);
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.exclude_callchain_kernel = 1;
	attr.wakeup_events = 4;
	fd = syscall(SYS_perf_event_open, &attr, child, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: perf_event_open: %s\n", prog, strerror(errno));
		ret = 2;
		goto out_child;
	}
	if (perf_ring_map(&ring, fd, opt->ring_pages)) {
		fprintf(stderr, "%s: mmap of the ring buffer: %s\n", prog, strerror(errno));
		ret = 2;
		goto out_fd;
	}
	ctx->child = child;

	t0 = now();
	while (checked_samples(&ctx->st) < opt->nsamples) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (now() - t0 > opt->timeout) {
			printf("%s: timeout after %lus\n", prog, opt->timeout);
			ret = 1;
			break;
		}
		if (waitpid(child, &status, WNOHANG) == child) {
			printf("%s: the workload died (status %#x)\n", prog, status);
			child = 0;
			ret = 1;
			break;
		}
		if (poll(&pfd, 1, 500) < 0 && errno != EINTR) {
			perror("poll");
			ret = 1;
			break;
		}
		ring_drain(&ring, ctx);
		/* a new random period from the next sample on */
		period = next_period(opt->period_us * 1000);
		if (ioctl(fd, PERF_EVENT_IOC_PERIOD, &period) < 0 && !warned && !ctx->quiet) {
			printf("%s: PERF_EVENT_IOC_PERIOD: %s (fixed period)\n",
			       prog, strerror(errno));
			warned = true;
		}
	}
	ring_drain(&ring, ctx);		/* counts up to nsamples */
	perf_ring_unmap(&ring);
out_fd:
	close(fd);
out_child:
	if (child) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	return ret;
}

/*
 * -x MS: short-lived processes.  Each run forks a child that waits for the
 * event, then execs this program with -R MS; the event (enable_on_exec)
 * counts from the execve() on.  Runs until enough samples are checked.
 * Returns like run_perf().
 */
static int run_exec(const struct options *opt, struct sample_ctx *ctx,
		    const char *self)
{
	struct perf_event_attr attr;
	struct perf_ring ring;
	char ms[32];
	int fd, go[2], status, ret = 0;
	pid_t child;
	double t0 = now();
	bool done;

	snprintf(ms, sizeof(ms), "%lu", opt->exec_ms);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = opt->period_us * 1000;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.exclude_callchain_kernel = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	attr.wakeup_events = 4;
	while (checked_samples(&ctx->st) < opt->nsamples) {
		if (now() - t0 > opt->timeout) {
			printf("%s: timeout after %lus\n", prog, opt->timeout);
			return 1;
		}
		if (pipe2(go, O_CLOEXEC)) {
			perror("pipe2");
			return 2;
		}
		child = fork();
		if (child < 0) {
			perror("fork");
			return 2;
		}
		if (child == 0) {
			char c;

			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(1);
			execl(self, prog, "-R", ms, (char *)NULL);
			_exit(127);
		}
		close(go[0]);
		fd = syscall(SYS_perf_event_open, &attr, child, -1, -1,
			     PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 || perf_ring_map(&ring, fd, opt->ring_pages)) {
			fprintf(stderr, "%s: perf_event_open: %s\n", prog, strerror(errno));
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
			return 2;
		}
		ctx->child = child;
		ctx->first_pending = true;
		ctx->runs++;
		if (write(go[1], "g", 1) != 1)
			ret = 1;
		close(go[1]);
		for (done = false; !done;) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			if (waitpid(child, &status, WNOHANG) == child) {
				if (!WIFEXITED(status) || WEXITSTATUS(status)) {
					printf("%s: run %lu died (status %#x)\n",
					       prog, ctx->runs, status);
					ret = 1;
				}
				done = true;
			} else if (poll(&pfd, 1, 5) < 0 && errno != EINTR) {
				perror("poll");
				ret = 1;
			}
			ring_drain(&ring, ctx);
		}
		perf_ring_unmap(&ring);
		close(fd);
		if (ret)
			return ret;
	}
	return 0;
}

/* -R MS (the child of -x): the chain for MS milliseconds, nothing else. */
static int run_short(const char *arg)
{
	unsigned long ms = strtoul(arg, NULL, 0);
	struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };

	signal(SIGALRM, stop_chain);
	setitimer(ITIMER_REAL, &it, NULL);
	chain_sink = w_outer();
	return 0;
}

/* ---- self-test: SIGPROF and a frame-pointer walk, no perf ---------------- */

/*
 * -s fp|eh: the workload runs in this process; a SIGPROF handler records
 * the interrupted PC and the return addresses of either a frame-pointer
 * walk bounded to the stack (fp: what perf does without SFrame) or the C
 * library's backtrace(), which unwinds with .eh_frame through the signal
 * frame (eh: what a correct unwinder gives). The chains go through the same
 * checks. This tests the checker where perf is not there (qemu-user), not
 * the kernel.
 */
#define SELF_DEPTH	32

struct self_sample {
	uint64_t ip, nr;
	uint64_t ips[SELF_DEPTH];
};

static struct self_sample *self_buf;
static bool self_eh;
static volatile unsigned long self_n;
static unsigned long self_cap, self_want, self_checked, self_period_us;
static uint64_t stack_lo, stack_hi;

static void self_arm(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };
	uint64_t us = next_period(self_period_us * 1000) / 1000;

	it.it_value.tv_sec = us / 1000000;
	it.it_value.tv_usec = us % 1000000 ? us % 1000000 : 1;
	setitimer(ITIMER_PROF, &it, NULL);
}

static void self_prof(int sig, siginfo_t *si, void *ucp)
{
	ucontext_t *uc = ucp;
	struct self_sample *smp;
	const struct sym *s;
	uint64_t pc, fp, sp, n;

	(void)sig;
	(void)si;
	if (self_n >= self_cap || chain_stop)
		return;
#if defined(__x86_64__)
	pc = uc->uc_mcontext.gregs[REG_RIP];
	fp = uc->uc_mcontext.gregs[REG_RBP];
	sp = uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
	pc = uc->uc_mcontext.pc;
	fp = uc->uc_mcontext.regs[29];
	sp = uc->uc_mcontext.sp;
#else
	pc = 0;
	fp = 0;
	sp = 0;
	(void)uc;
#endif
	smp = &self_buf[self_n];
	smp->ip = pc;
	smp->ips[0] = PERF_CONTEXT_USER;
	smp->ips[1] = pc;
	if (self_eh) {
		void *bt[SELF_DEPTH + 8];
		int k, m = backtrace(bt, SELF_DEPTH + 8);

		/* handler, sigreturn trampoline, then pc and its callers */
		for (k = 0; k < m && (uint64_t)(uintptr_t)bt[k] != pc; k++)
			;
		for (n = 2, k++; k < m && n < SELF_DEPTH; k++, n++)
			smp->ips[n] = (uint64_t)(uintptr_t)bt[k];
		smp->nr = n;
		goto done;
	}
	/* frame records {next fp, return address}, strictly up the stack */
	for (n = 2; n < SELF_DEPTH && fp >= sp && fp % 8 == 0 &&
	     fp >= stack_lo && fp + 16 <= stack_hi; n++) {
		const uint64_t *rec = (const uint64_t *)(uintptr_t)fp;

		smp->ips[n] = rec[1];
		if (rec[0] <= fp)
			break;
		fp = rec[0];
	}
	smp->nr = n < SELF_DEPTH ? n + (fp >= sp && fp % 8 == 0 && fp >= stack_lo &&
					fp + 16 <= stack_hi) : n;
done:
	self_n++;
	s = find_sym(pc);
	if (s && s->level >= 0 && ++self_checked >= self_want)
		chain_stop = 1;
	else
		self_arm();
}

/* Sets up SIGPROF sampling of this process, before main runs w_outer. */
static int self_start(const struct options *opt)
{
	char line[PATH_MAX + 128];
	struct sigaction sa;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;

		if (strstr(line, "[stack]") && sscanf(line, "%llx-%llx", &lo, &hi) == 2) {
			stack_lo = lo;
			stack_hi = hi;
		}
	}
	if (f)
		fclose(f);
	if (!stack_hi) {
		fprintf(stderr, "%s: no [stack] in /proc/self/maps\n", prog);
		return 2;
	}
	if (!strcmp(opt->self_test, "eh")) {
		void *bt[4];

		self_eh = true;
		backtrace(bt, 4);	/* loads the unwinder outside the handler */
	}
	self_want = opt->nsamples;
	self_cap = 2 * opt->nsamples + 100;
	self_buf = xrealloc(NULL, self_cap * sizeof(*self_buf));
	self_period_us = opt->period_us;
	rng_state = ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid() ^ 0x9e3779b97f4a7c15ULL;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = self_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	self_arm();
	return 0;
}

/* After w_outer returned: checks the recorded chains. */
static void self_finish(struct sample_ctx *ctx)
{
	unsigned long i;

	signal(SIGPROF, SIG_IGN);
	for (i = 0; i < self_n; i++)
		account(ctx, self_buf[i].ips, self_buf[i].nr, self_buf[i].ip);
}

/* ---- -c: the checker's verdicts on made-up chains -------------------------- */

static uint64_t main_ra;		/* main's return address, in the C library */

static const struct sym *chain_sym(int level)
{
	size_t j;

	for (j = 0; j < nsyms; j++)
		if (syms[j].level == level && !syms[j].plt)
			return &syms[j];
	return NULL;
}

/* the first instruction of s after its frame-pointer blind spot at entry */
static uint64_t past_blind_spot(const struct sym *s)
{
	uint64_t a, step = 1;

#if defined(__aarch64__)
	step = 4;
#endif
	for (a = s->start; a < s->end; a += step)
		if (!fp_blind_spot(s, a))
			return a;
	return 0;
}

/* the first return address of a call in s */
static uint64_t first_call_site(const struct sym *s)
{
	uint64_t a;

	for (a = s->start + 1; a <= s->end; a++)
		if (after_call(s, a))
			return a;
	return 0;
}

/*
 * Checks check_chain() against chains built from this binary's own
 * functions, with known verdicts: a frame-pointer build's blind spots at
 * the entry of w_outer (main skipped) and of w_a (w_outer skipped), a
 * caller skipped elsewhere, two callers skipped, a short chain. Returns
 * the number of cases that got another verdict.
 */
static int check_checker(void)
{
	static const char *const vname[] = { "complete", "short", "wrong", "fp-blind", "other" };
	const struct sym *m = chain_sym(0), *o = chain_sym(1), *a = chain_sym(2);
	uint64_t in_main, in_outer, o_mid, a_mid;
	struct {
		const char *what;
		uint64_t ip, nr, ips[4];
		enum verdict fp, nofp;
	} t[7];
	struct stats st = { 0 };
	char why[256];
	int i, n = 0, bad = 0;

	if (!m || !o || !a) {
		printf("sampler: %s: check: main, w_outer or w_a not found\n", prog);
		return 1;
	}
	in_main = first_call_site(m);
	in_outer = first_call_site(o);
	o_mid = past_blind_spot(o);
	a_mid = past_blind_spot(a);
	if (!in_main || !in_outer || !o_mid || !a_mid || o_mid == o->start ||
	    a_mid == a->start || !main_ra) {
		printf("sampler: %s: check: no call site or no frame-pointer prologue "
		       "(a frame-pointer build?)\n", prog);
		return 1;
	}
#define CASE(w, i0, f, nf, ...) do {					\
	const uint64_t c_[] = { PERF_CONTEXT_USER, i0, __VA_ARGS__ };		\
									\
	t[n].what = w;							\
	t[n].ip = i0;							\
	t[n].nr = sizeof(c_) / sizeof(c_[0]);				\
	memcpy(t[n].ips, c_, sizeof(c_));				\
	t[n].fp = f;							\
	t[n].nofp = nf;							\
	n++;								\
} while (0)
	CASE("w_outer in its body", o_mid, COMPLETE, COMPLETE, in_main, main_ra);
	CASE("w_a in its body", a_mid, COMPLETE, COMPLETE, in_outer, in_main);
	CASE("w_outer at its entry, main skipped", o->start, FP_BLIND, WRONG, main_ra);
	CASE("w_a at its entry, w_outer skipped", a->start, FP_BLIND, WRONG, in_main);
	CASE("w_outer in its body, main skipped", o_mid, WRONG, WRONG, main_ra);
	CASE("w_a at its entry, two callers skipped", a->start, WRONG, WRONG, main_ra);
	CASE("w_a in its body, ends after w_outer", a_mid, SHORT, SHORT, in_outer);
#undef CASE
	for (i = 0; i < n; i++) {
		int fp;

		for (fp = 0; fp < 2; fp++) {
			enum verdict want = fp ? t[i].fp : t[i].nofp;
			enum verdict got;

			why[0] = 0;
			got = check_chain(t[i].ips, t[i].nr, t[i].ip, fp, &st, why, sizeof(why));
			if (got == want)
				continue;
			printf("sampler: %s: check: %s%s: %s, expected %s (%s)\n", prog,
			       t[i].what, fp ? " (-f)" : "", vname[got], vname[want], why);
			bad++;
		}
	}
	printf("sampler: %s: check: %d of %d verdicts on made-up chains right\n",
	       prog, 2 * n - bad, 2 * n);
	return bad;
}

/* ---- -z: the child's SFrame pages dropped now and then -------------------- */

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

static struct {
	uintptr_t start;
	size_t len;
} zap_ranges[8];
static int zap_n;

/* The pages of each loaded object's PT_GNU_SFRAME. */
static int zap_find(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), a;
	int i;

	(void)size;
	(void)data;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_GNU_SFRAME || !ph->p_memsz ||
		    zap_n == (int)(sizeof(zap_ranges) / sizeof(zap_ranges[0])))
			continue;
		a = info->dlpi_addr + ph->p_vaddr;
		zap_ranges[zap_n].start = a & ~(page - 1);
		zap_ranges[zap_n].len = ((a + ph->p_memsz + page - 1) & ~(page - 1)) -
					zap_ranges[zap_n].start;
		zap_n++;
	}
	return 0;
}

static void zap_sframe(int sig)
{
	int i;

	(void)sig;
	for (i = 0; i < zap_n; i++)
		madvise((void *)zap_ranges[i].start, zap_ranges[i].len, MADV_DONTNEED);
}

/* In the sampled child: drop its sections' pages every @ms ms. */
static void zap_start(unsigned long ms)
{
	struct itimerval it = {
		.it_interval = { .tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000 },
	};

	dl_iterate_phdr(zap_find, NULL);
	if (!zap_n) {
		fprintf(stderr, "%s: -z: no PT_GNU_SFRAME in this program\n", prog);
		_exit(2);
	}
	it.it_value = it.it_interval;
	signal(SIGALRM, zap_sframe);
	setitimer(ITIMER_REAL, &it, NULL);
}

/* ---- main ---------------------------------------------------------------- */

static void stop_chain(int sig)
{
	(void)sig;
	chain_stop = 1;
}

/* -v: the chain's symbols and their frame-pointer blind spots */
static void print_symbols(void)
{
	size_t j;

	for (j = 0; j < nsyms; j++) {
		const struct sym *sy = &syms[j];
		uint64_t a, from = 0;
		bool in = false;

		if (sy->level < 0)
			continue;
		printf("%s: symbol %s%s [%#llx, %#llx) in %s, fp blind spots:", prog,
		       sy->name, sy->plt ? "@plt" : "", (unsigned long long)sy->start,
		       (unsigned long long)sy->end, sy->obj);
		for (a = sy->start; a <= sy->end; a++) {
			bool b = a < sy->end && fp_blind_spot(sy, a);

			if (b && !in)
				from = a;
			else if (!b && in)
				printf(" +%#llx..+%#llx", (unsigned long long)(from - sy->start),
				       (unsigned long long)(a - 1 - sy->start));
			in = b;
		}
		printf("\n");
	}
}

/* The summary; returns 1 when an expectation (-e, -w) is not met. */
static int summary(const struct options *opt, const struct sample_ctx *ctx)
{
	const struct stats *st = &ctx->st;
	unsigned long checked = checked_samples(st);
	/* -f: the complete share of the samples outside blind spots */
	unsigned long base = checked - st->n[FP_BLIND];
	double pct = base ? 100.0 * st->n[COMPLETE] / base : 0;
	int i, fail = 0;

	printf("sampler: %s: %lu samples, %lu complete (%.1f%%), %lu wrong, %lu short",
	       prog, checked, st->n[COMPLETE], pct, st->n[WRONG], st->n[SHORT]);
	if (ctx->fp_mode)
		printf(", %lu fp-blind (not in the share)", st->n[FP_BLIND]);
	if (opt->self_test)
		printf(" [self-test: SIGPROF + %s]", self_eh ? "backtrace()" : "frame pointers");
	printf("\n");
	if (!ctx->quiet) {
		printf("sampler: %s: ip in", prog);
		for (i = 1; i < CHAIN_LEN; i++)
			printf(" %s %.1f%%", chain_names[i],
			       checked ? 100.0 * st->where[i] / checked : 0);
		printf("; at a function entry %lu, in a PLT entry %lu (%lu complete)\n",
		       st->at_entry, st->plt, st->plt_complete);
		printf("sampler: %s: callers skipped %lu (only the caller, at a frame-pointer ",
		       prog, st->skipped);
		printf("blind spot: %lu); outside the chain %lu (not checked); lost %lu, ",
		       st->blind, st->n[OTHER], st->lost);
		printf("throttled %lu\n", st->throttled);
	}
	if (opt->exec_ms)
		printf("sampler: %s: short-lived: %lu runs of %lu ms, first checked sample complete in %lu of %lu runs\n",
		       prog, ctx->runs, opt->exec_ms, ctx->first_complete,
		       ctx->first_checked);
	if (opt->expect_complete && (pct < opt->threshold || st->n[WRONG])) {
		printf("sampler: %s: FAIL: expected >= %.1f%% complete and 0 wrong\n",
		       prog, opt->threshold);
		fail = 1;
	}
	if (opt->expect_right && st->n[WRONG]) {
		printf("sampler: %s: FAIL: expected 0 wrong\n", prog);
		fail = 1;
	}
	if ((opt->expect_complete || opt->expect_right) && checked < opt->nsamples) {
		printf("sampler: %s: FAIL: %lu of %lu samples\n", prog, checked, opt->nsamples);
		fail = 1;
	}
	return fail;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-n SAMPLES] [-p PERIOD_US] [-e [-t PERCENT]] [-f] [-w] [-q|-v]\n"
		"          [-T SECONDS] [-b PAGES] [-s fp|eh] [-z MS]\n"
		"       %s -c               (check the checker on made-up chains)\n"
		"       %s -r SECONDS       (run the workload only, no sampling)\n"
		"       %s -x MS [options]  (sample short-lived runs of MS ms, exec'd)\n"
		"  -n  checked samples to take (default 2000)\n"
		"  -p  mean sample period in microseconds of CPU time, varied +-50%% (default 1000)\n"
		"  -e  exit 1 unless >= PERCENT (-t, default 95) complete and 0 wrong\n"
		"  -f  frame-pointer build: a chain that lacks only the caller at a frame-\n"
		"      pointer blind spot (prologue, epilogue) is fp-blind, not wrong, and\n"
		"      not in the complete share\n"
		"  -w  exit 1 if any chain is wrong\n"
		"  -q  summary line only; -v every sample, and the chain's symbols\n"
		"  -T  give up after SECONDS without enough samples (default 120)\n"
		"  -z  the sampled child drops its .sframe pages every MS ms (MADV_DONTNEED)\n"
		"  -b  data pages of the ring buffer, a power of 2 (default 64)\n"
		"  -s  self-test without perf, in-process: SIGPROF and a frame-pointer walk\n"
		"      (fp) or the C library's backtrace() (eh: .eh_frame)\n",
		prog, prog, prog, prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct options opt = {
		.nsamples = 2000, .period_us = 1000, .timeout = 120,
		.ring_pages = RING_PAGES, .threshold = 95.0,
	};
	struct sample_ctx ctx = { 0 };
	pid_t parent = getpid(), child;
	int c, ret;

	prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	/* the short-lived child of -x: straight to the chain */
	if (argc == 3 && !strcmp(argv[1], "-R"))
		return run_short(argv[2]);
	while ((c = getopt(argc, argv, "b:cn:p:t:T:efwqvr:s:x:z:")) != -1) {
		switch (c) {
		case 'c':
			opt.check = true;
			break;
		case 'b':
			opt.ring_pages = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			opt.nsamples = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			opt.period_us = strtoul(optarg, NULL, 0);
			break;
		case 't':
			opt.threshold = strtod(optarg, NULL);
			break;
		case 'T':
			opt.timeout = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			opt.expect_complete = true;
			break;
		case 'f':
			ctx.fp_mode = true;
			break;
		case 'w':
			opt.expect_right = true;
			break;
		case 'q':
			ctx.quiet = true;
			break;
		case 'v':
			ctx.verbose = true;
			break;
		case 'r':
			opt.run_only = strtoul(optarg, NULL, 0);
			break;
		case 's':
			opt.self_test = optarg;
			break;
		case 'x':
			opt.exec_ms = strtoul(optarg, NULL, 0);
			break;
		case 'z':
			opt.zap_ms = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !opt.nsamples || !opt.period_us || !opt.ring_pages ||
	    (opt.ring_pages & (opt.ring_pages - 1)) ||
	    (opt.self_test && strcmp(opt.self_test, "fp") && strcmp(opt.self_test, "eh")) ||
	    (opt.zap_ms && (opt.exec_ms || opt.self_test || opt.run_only)))
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	load_symbols();
	if (ctx.verbose)
		print_symbols();
	ctx.limit = opt.nsamples;
	main_ra = (uint64_t)(uintptr_t)__builtin_return_address(0);
	if (opt.check)
		return check_checker() ? 1 : 0;

	if (opt.run_only) {		/* the workload alone, e.g. under qemu-user */
		signal(SIGALRM, stop_chain);
		alarm(opt.run_only);
		chain_sink = w_outer();
		printf("sampler: %s: workload ran %lus (%zu symbols, checksum %#lx)\n",
		       prog, opt.run_only, nsyms, chain_sink);
		return 0;
	}
	/* main calls w_outer itself: main is the chain's first function */
	if (opt.exec_ms) {
		ret = run_exec(&opt, &ctx, "/proc/self/exe");
		if (ret == 2)
			return 2;
	} else if (opt.self_test) {
		ret = self_start(&opt);
		if (ret)
			return ret;
		chain_sink = w_outer();
		self_finish(&ctx);
	} else {
		child = fork();
		if (child < 0) {
			perror("fork");
			return 2;
		}
		if (child == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(1);
			if (opt.zap_ms)
				zap_start(opt.zap_ms);
			chain_sink = w_outer();
			_exit(0);
		}
		ret = run_perf(&opt, &ctx, child);
		if (ret == 2)
			return 2;
	}
	return summary(&opt, &ctx) || ret;
}
