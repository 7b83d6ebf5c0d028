// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-costly: a well-formed but costly SFrame section for the kernel's
 * perf user unwinder, whose cost per sample must stay bounded whatever a
 * section holds.
 *
 *	sframe-costly SHAPE SECONDS
 *
 * spins SECONDS of wall time at the bottom of a 100-frame frame-pointer
 * call chain and prints the loop's throughput, one line:
 *
 *	sframe-costly: SHAPE iterations N seconds S rate R
 *
 * SHAPE "real": the kernel walks with the program's own .sframe.  Any other
 * SHAPE: the program copies itself to /tmp/sframe-costly-SHAPE with its
 * PT_GNU_SFRAME pointing to COSTLY_ADDR, COSTLY_SIZE bytes (64 MiB: the
 * most the kernel looks at), and execve()s the copy with
 * SFRAME_COSTLY_FORGED=SHAPE; the kernel takes the section's address and
 * size from that program header when it maps the text.  The copy maps
 * anonymous memory there and writes SHAPE into it:
 *
 *   unsorted  v2, SORTED clear: as many FDEs (one FRE each) as fit, none
 *             covering the text: a linear scan reads them all, finds none
 *   rows      v2, sorted: one FDE starting N bytes below the text, with N
 *             (9.6 million on x86_64) ADDR4 rows starting at 0, 1, ...,
 *             N - 1, all the frame-pointer rule: every text PC lies past
 *             the last row's start, the scan reads all rows
 *   v3        v3, unsorted: as unsorted; each FDE's attribute (v3 keeps it
 *             in front of the function's rows, in the FRE sub-section) lies
 *             far from the previous FDE's, all over the section
 *   pcmask    v1, sorted: one PCMASK FDE covering the text, as many mask
 *             rows as fit, all the frame-pointer rule: v1 mask rows are
 *             scanned in full on every lookup
 *   recover   unsorted for the first half of SECONDS; then the program
 *             rewrites it in place into a good section (one FDE over the
 *             text, one row, the frame-pointer rule) and spins the second
 *             half.  The kernel refuses the unsorted section, but must
 *             read the repaired one again: from debugfs sframe/user, the
 *             second half's samples must average >= DEPTH / 2 frames found
 *             with SFrame, else the program fails (exit 1)
 *
 * Each lookup in such a section walks 64 MiB of user memory, and a sample
 * looks up every frame's PC.  qemu/smoke.sh runs each SHAPE under perf
 * record -g: a forged section must keep >= 50% of real's throughput.
 *
 * v1 and v2 start fields are 32-bit offsets from the section: it must lie
 * within 2 GiB of the text, and rows needs N bytes of address space below
 * the text.  So the program is linked (static, non-PIE) with its text at
 * 0x10000000 and the section goes below it, where a static non-PIE
 * process has nothing (brk follows the data, mmap() works top-down).
 *
 * SFRAME_COSTLY_VALIDATE=1: check the section with the SFrame core
 * (sframe_validate(), and sframe_find() at text PCs answers as SHAPE
 * should); without it only its header is opened (slow under TCG).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sframe/sframe.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "little-endian targets only (x86_64, aarch64)"
#endif

/*
 * The frame-pointer rule, CFA = FP + 16, FP at CFA - 16, RA at CFA - 8, as
 * gas writes it: on x86_64 the header fixes the RA slot (no RA word).
 */
#if defined(__x86_64__)
#define COSTLY_ABI	SFRAME_ABI_AMD64_ENDIAN_LITTLE
#define COSTLY_FIXED_RA	(-8)
static const s8 fp_words[] = { 16, -16 };	/* CFA, FP */
#elif defined(__aarch64__)
#define COSTLY_ABI	SFRAME_ABI_AARCH64_ENDIAN_LITTLE
#define COSTLY_FIXED_RA	0
static const s8 fp_words[] = { 16, -8, -16 };	/* CFA, RA, FP */
#else
#error "x86_64 or aarch64 only"
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NWORDS		ARRAY_SIZE(fp_words)
/* bytes of a row whose start field is @asz bytes wide */
#define FRE_LEN(asz)	((asz) + 1 + NWORDS)

#define COSTLY_ADDR	0x04000000UL	/* below the text (0x10000000) */
#define COSTLY_SIZE	(64UL << 20)
#define FAKE_SIZE	16		/* unsorted, v3: size of a function */
#define DEPTH		100
#define FORGED_ENV	"SFRAME_COSTLY_FORGED"
#define VALIDATE_ENV	"SFRAME_COSTLY_VALIDATE"

#define HFN		__attribute__((noinline, noipa))
#define NO_TAIL()	asm volatile("" ::: "memory")

enum shape { REAL, UNSORTED, ROWS, V3, PCMASK, RECOVER, NSHAPES };

static const char *const shape_names[NSHAPES] = {
	"real", "unsorted", "rows", "v3", "pcmask", "recover",
};

#define STATS_PATH	"/sys/kernel/debug/sframe/user"

static const char *prog = "sframe-costly";
static enum shape shape;
static char copy_path[64];		/* the forged copy */

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	printf("%s: %s: ", prog, shape_names[shape]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* ---- the spin ------------------------------------------------------------ */

/* Iterations of the loop until @secs of wall time have passed. */
HFN static u64 spin_leaf(double secs, double *took)
{
	struct timespec t0, t;
	double el;
	u64 n = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n++;
		asm volatile("" : "+r" (n));
		if (n % 4096)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t);
		el = (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9;
		if (el >= secs)
			break;
	}
	*took = el;
	return n;
}

/* @depth frames of this function, then the leaf. */
HFN static u64 descend(unsigned int depth, double secs, double *took)
{
	u64 n;

	if (depth > 1)
		n = descend(depth - 1, secs, took);
	else
		n = spin_leaf(secs, took);
	NO_TAIL();
	return n;
}

/* ---- the program's own segments ----------------------------------------- */

struct self {
	u64 text_lo, text_hi;		/* the executable PT_LOAD */
	u64 sframe, sframe_size;	/* PT_GNU_SFRAME */
};

/* Static non-PIE: the program headers' addresses are the run-time ones. */
static void find_self(struct self *s)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)getauxval(AT_PHDR);
	unsigned long i, n = getauxval(AT_PHNUM);

	*s = (struct self){ 0 };
	for (i = 0; ph && i < n; i++) {
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) &&
		    !s->text_hi) {
			s->text_lo = ph[i].p_vaddr;
			s->text_hi = ph[i].p_vaddr + ph[i].p_memsz;
		} else if (ph[i].p_type == PT_GNU_SFRAME) {
			s->sframe = ph[i].p_vaddr;
			s->sframe_size = ph[i].p_memsz;
		}
	}
	if (!s->text_hi || !s->sframe)
		die("no executable PT_LOAD or no PT_GNU_SFRAME");
	if ((uintptr_t)spin_leaf < s->text_lo ||
	    (uintptr_t)spin_leaf >= s->text_hi)
		die("spin_leaf at %p outside the text %#llx-%#llx: not static non-PIE?",
		    (void *)spin_leaf, (unsigned long long)s->text_lo,
		    (unsigned long long)s->text_hi);
}

/*
 * A copy of the executable whose PT_GNU_SFRAME says COSTLY_ADDR,
 * COSTLY_SIZE bytes, run in our place with FORGED_ENV set.
 */
static void __attribute__((noreturn)) reexec(char **argv)
{
	const char *path = copy_path;
	struct stat st;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	ssize_t r;
	size_t off;
	u8 *buf;
	int fd, i;

	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		die("/proc/self/exe: %s", strerror(errno));
	buf = malloc(st.st_size);
	if (!buf || st.st_size < (off_t)sizeof(*eh))
		die("/proc/self/exe: %lld bytes", (long long)st.st_size);
	for (off = 0; off < (size_t)st.st_size; off += r) {
		r = read(fd, buf + off, st.st_size - off);
		if (r <= 0)
			die("/proc/self/exe: read: %s", r ? strerror(errno) : "short");
	}
	close(fd);

	eh = (Elf64_Ehdr *)buf;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(*ph) ||
	    eh->e_phoff + (u64)eh->e_phnum * sizeof(*ph) > (u64)st.st_size)
		die("/proc/self/exe: not a 64-bit ELF file");
	ph = (Elf64_Phdr *)(buf + eh->e_phoff);
	for (i = 0; i < eh->e_phnum && ph[i].p_type != PT_GNU_SFRAME; i++)
		;
	if (i == eh->e_phnum)
		die("/proc/self/exe: no PT_GNU_SFRAME");
	/* p_offset stays: the kernel only takes an identity from it */
	ph[i].p_vaddr = COSTLY_ADDR;
	ph[i].p_paddr = COSTLY_ADDR;
	ph[i].p_filesz = COSTLY_SIZE;
	ph[i].p_memsz = COSTLY_SIZE;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	for (off = 0; off < (size_t)st.st_size; off += r) {
		r = write(fd, buf + off, st.st_size - off);
		if (r <= 0)
			die("%s: write: %s", path, r ? strerror(errno) : "short");
	}
	if (fchmod(fd, 0755) || close(fd))
		die("%s: %s", path, strerror(errno));
	free(buf);
	if (setenv(FORGED_ENV, shape_names[shape], 1))
		die("setenv: %s", strerror(errno));
	fflush(stdout);
	execv(path, argv);
	die("execv %s: %s", path, strerror(errno));
}

/* ---- the forged sections ------------------------------------------------- */

static void put_le(u8 *p, u64 v, unsigned int n)
{
	while (n--) {
		*p++ = v;
		v >>= 8;
	}
}

/* A row starting at @start (@asz bytes) with the frame-pointer rule. */
static void put_fre(u8 *p, unsigned int asz, u32 start)
{
	unsigned int i;

	put_le(p, start, asz);
	p[asz] = SFRAME_FRE_INFO(0, NWORDS, SFRAME_FRE_WORD_1B, 0);
	for (i = 0; i < NWORDS; i++)
		p[asz + 1 + i] = (u8)fp_words[i];
}

/* The header, written last: until then the kernel finds no magic. */
static void put_hdr(u8 *s, u8 version, u8 flags, u32 nfdes, u32 nfres,
		    u32 freoff, u32 fre_len)
{
	u8 h[SFRAME_HDR_SIZE] = { 0 };

	put_le(h + SFRAME_HDR_MAGIC, SFRAME_MAGIC, 2);
	h[SFRAME_HDR_VERSION] = version;
	h[SFRAME_HDR_FLAGS] = flags;
	h[SFRAME_HDR_ABI] = COSTLY_ABI;
	h[SFRAME_HDR_FIXED_RA] = (u8)COSTLY_FIXED_RA;
	put_le(h + SFRAME_HDR_NUM_FDES, nfdes, 4);
	put_le(h + SFRAME_HDR_NUM_FRES, nfres, 4);
	put_le(h + SFRAME_HDR_FRE_LEN, fre_len, 4);
	put_le(h + SFRAME_HDR_FREOFF, freoff, 4);	/* FDEs right after */
	memcpy(s, h, sizeof(h));
}

static u64 gcd(u64 a, u64 b)
{
	while (b) {
		u64 t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * A stride for spread(): i -> i * stride mod n is a permutation of [0, n)
 * (stride and n coprime) whose neighbours lie ~0.38 n apart.
 */
static u64 spread_stride(u64 n)
{
	u64 s = n * 618 / 1000 + 1;

	while (gcd(s, n) != 1)
		s++;
	return s;
}

static u32 spread(u32 i, u64 n, u64 stride)
{
	return (u64)i * stride % n;
}

/* What the section should answer at a text PC (check_section()). */
struct expect {
	int err;			/* 0 or -SFRAME_E_NO_FDE */
	u32 last_row;			/* rows: the row found */
};

/*
 * unsorted: FDE i describes a FAKE_SIZE-byte function at slot spread(i)
 * of the section's own address range (no text there), one row each, the
 * rows in FDE order after the index.
 */
static void forge_unsorted(u8 *s, struct expect *e)
{
	u32 fl = FRE_LEN(1), i;
	u32 n = (COSTLY_SIZE - SFRAME_HDR_SIZE) / (SFRAME_V2_FDE_SIZE + fl);
	u8 *fde = s + SFRAME_HDR_SIZE, *fre = fde + (u64)n * SFRAME_V2_FDE_SIZE;
	u64 stride = spread_stride(n);

	for (i = 0; i < n; i++, fde += SFRAME_V2_FDE_SIZE) {
		put_le(fde + SFRAME_V1_FDE_START,
		       (u64)spread(i, n, stride) * FAKE_SIZE, 4);
		put_le(fde + SFRAME_V1_FDE_FUNC_SIZE, FAKE_SIZE, 4);
		put_le(fde + SFRAME_V1_FDE_FRE_OFF, (u64)i * fl, 4);
		put_le(fde + SFRAME_V1_FDE_NUM_FRES, 1, 4);
		fde[SFRAME_V1_FDE_INFO] =
			SFRAME_FUNC_INFO(SFRAME_FRE_TYPE_ADDR1, 0, 0);
		put_fre(fre + (u64)i * fl, 1, 0);
	}
	put_hdr(s, SFRAME_VERSION_2, 0, n, n, n * SFRAME_V2_FDE_SIZE, n * fl);
	e->err = -SFRAME_E_NO_FDE;
}

/*
 * rows: one FDE from text_lo - N to text_hi, rows at 0 .. N - 1: the last
 * applies to all of the text.
 */
static void forge_rows(u8 *s, const struct self *self, struct expect *e)
{
	u32 fl = FRE_LEN(4), k;
	u32 n = (COSTLY_SIZE - SFRAME_HDR_SIZE - SFRAME_V2_FDE_SIZE) / fl;
	u8 *fde = s + SFRAME_HDR_SIZE, *fre = fde + SFRAME_V2_FDE_SIZE;
	s64 rel = (s64)(self->text_lo - n) - (s64)COSTLY_ADDR;

	if (self->text_lo <= n || rel != (s32)rel ||
	    self->text_hi - self->text_lo + n > UINT32_MAX)
		die("text %#llx-%#llx: no room for %u rows below it",
		    (unsigned long long)self->text_lo,
		    (unsigned long long)self->text_hi, n);
	put_le(fde + SFRAME_V1_FDE_START, rel, 4);
	put_le(fde + SFRAME_V1_FDE_FUNC_SIZE,
	       self->text_hi - self->text_lo + n, 4);
	put_le(fde + SFRAME_V1_FDE_FRE_OFF, 0, 4);
	put_le(fde + SFRAME_V1_FDE_NUM_FRES, n, 4);
	fde[SFRAME_V1_FDE_INFO] = SFRAME_FUNC_INFO(SFRAME_FRE_TYPE_ADDR4, 0, 0);
	for (k = 0; k < n; k++, fre += fl)
		put_fre(fre, 4, k);
	put_hdr(s, SFRAME_VERSION_2, SFRAME_F_FDE_SORTED, 1, n,
		SFRAME_V2_FDE_SIZE, n * fl);
	e->err = 0;
	e->last_row = n - 1;
}

/*
 * v3: as unsorted; FDE i's attribute and row are at slot spread(i) of the
 * FRE sub-section, so that a scan reading FDE after FDE reads attributes
 * all over the section.
 */
static void forge_v3(u8 *s, struct expect *e)
{
	u32 slot = SFRAME_V3_FDE_ATTR_SIZE + FRE_LEN(1), i, j;
	u32 n = (COSTLY_SIZE - SFRAME_HDR_SIZE) / (SFRAME_V3_FDE_SIZE + slot);
	u8 *fde = s + SFRAME_HDR_SIZE, *fres = fde + (u64)n * SFRAME_V3_FDE_SIZE;
	u64 stride = spread_stride(n);

	for (i = 0; i < n; i++, fde += SFRAME_V3_FDE_SIZE) {
		u8 *a;

		j = spread(i, n, stride);
		a = fres + (u64)j * slot;
		put_le(fde + SFRAME_V3_FDE_START, (u64)j * FAKE_SIZE, 8);
		put_le(fde + SFRAME_V3_FDE_FUNC_SIZE, FAKE_SIZE, 4);
		put_le(fde + SFRAME_V3_FDE_FRE_OFF, (u64)j * slot, 4);
		put_le(a + SFRAME_V3_ATTR_NUM_FRES, 1, 2);
		a[SFRAME_V3_ATTR_INFO] =
			SFRAME_FUNC_INFO(SFRAME_FRE_TYPE_ADDR1, 0, 0);
		a[SFRAME_V3_ATTR_INFO2] = SFRAME_FDE_TYPE_DEFAULT;
		a[SFRAME_V3_ATTR_REP_SIZE] = 0;
		put_fre(a + SFRAME_V3_FDE_ATTR_SIZE, 1, 0);
	}
	put_hdr(s, SFRAME_VERSION_3, 0, n, n, n * SFRAME_V3_FDE_SIZE, n * slot);
	e->err = -SFRAME_E_NO_FDE;
}

/* pcmask: one v1 PCMASK FDE over the text, mask rows (mask 0: all apply). */
static void forge_pcmask(u8 *s, const struct self *self, struct expect *e)
{
	u32 fl = FRE_LEN(1), k;
	u32 n = (COSTLY_SIZE - SFRAME_HDR_SIZE - SFRAME_V1_FDE_SIZE) / fl;
	u8 *fde = s + SFRAME_HDR_SIZE, *fre = fde + SFRAME_V1_FDE_SIZE;

	put_le(fde + SFRAME_V1_FDE_START, self->text_lo - COSTLY_ADDR, 4);
	put_le(fde + SFRAME_V1_FDE_FUNC_SIZE, self->text_hi - self->text_lo, 4);
	put_le(fde + SFRAME_V1_FDE_FRE_OFF, 0, 4);
	put_le(fde + SFRAME_V1_FDE_NUM_FRES, n, 4);
	fde[SFRAME_V1_FDE_INFO] = SFRAME_FUNC_INFO(SFRAME_FRE_TYPE_ADDR1, 0, 0) |
				  SFRAME_PC_TYPE_MASK << 4;
	for (k = 0; k < n; k++, fre += fl)
		put_fre(fre, 1, 0);
	put_hdr(s, SFRAME_VERSION_1, SFRAME_F_FDE_SORTED, 1, n,
		SFRAME_V1_FDE_SIZE, n * fl);
	e->err = 0;
	e->last_row = 0;		/* the mask of the last row */
}

/*
 * recover: the unsorted section at @s rewritten in place into a good one,
 * the header last (until then the kernel finds no magic): one v2 FDE over
 * the text with one row, the frame-pointer rule.
 */
static void repair(u8 *s, const struct self *self)
{
	u32 fl = FRE_LEN(1);
	u8 *fde = s + SFRAME_HDR_SIZE, *fre = fde + SFRAME_V2_FDE_SIZE;

	memset(s, 0, SFRAME_HDR_SIZE);
	asm volatile("" ::: "memory");
	memset(fde, 0, SFRAME_V2_FDE_SIZE);
	put_le(fde + SFRAME_V1_FDE_START, self->text_lo - COSTLY_ADDR, 4);
	put_le(fde + SFRAME_V1_FDE_FUNC_SIZE, self->text_hi - self->text_lo, 4);
	put_le(fde + SFRAME_V1_FDE_FRE_OFF, 0, 4);
	put_le(fde + SFRAME_V1_FDE_NUM_FRES, 1, 4);
	fde[SFRAME_V1_FDE_INFO] = SFRAME_FUNC_INFO(SFRAME_FRE_TYPE_ADDR1, 0, 0);
	put_fre(fre, 1, 0);
	asm volatile("" ::: "memory");
	put_hdr(s, SFRAME_VERSION_2, SFRAME_F_FDE_SORTED, 1, 1,
		SFRAME_V2_FDE_SIZE, fl);
}

/* The kernel's user unwinding counters (debugfs). */
struct stats {
	u64 samples, frames_sframe, refused;
};

static void read_stats(struct stats *st)
{
	char name[64];
	unsigned long long v;
	FILE *f = fopen(STATS_PATH, "r");

	if (!f)
		die("%s: %s (recover needs debugfs)", STATS_PATH, strerror(errno));
	*st = (struct stats){ 0 };
	while (fscanf(f, "%63s %llu", name, &v) == 2) {
		if (!strcmp(name, "samples"))
			st->samples = v;
		else if (!strcmp(name, "frames_sframe"))
			st->frames_sframe = v;
		else if (!strcmp(name, "refused"))
			st->refused = v;
	}
	fclose(f);
}

/* ---- the self-check -------------------------------------------------------- */

static unsigned int nproblems;

static void report(void *arg, int err, u32 fde, u32 fre)
{
	(void)arg;
	if (nproblems++ < 5)
		printf("%s: %s: sframe_validate: %s at FDE %d FRE %d\n", prog,
		       shape_names[shape], sframe_errname(err),
		       fde == SFRAME_NO_INDEX ? -1 : (int)fde,
		       fre == SFRAME_NO_INDEX ? -1 : (int)fre);
}

static bool fp_rule(const struct sframe_section *sec,
		    const struct sframe_rule *r)
{
	return r->cfa.kind == SFRAME_LOC_REG && r->cfa.reg == sec->fp_reg &&
	       !r->cfa.deref && r->cfa.offset == 16 &&
	       r->fp.kind == SFRAME_LOC_CFA && r->fp.deref &&
	       r->fp.offset == -16 &&
	       r->ra.kind == SFRAME_LOC_CFA && r->ra.deref &&
	       r->ra.offset == -8;
}

/*
 * The section validates, and at the first and last text byte, the leaf
 * and the recursion sframe_find() answers as @e says (forged), or finds a
 * rule for the leaf (real).
 */
static void check_section(const struct sframe_section *sec,
			  const struct self *self, const struct expect *e)
{
	const u64 pcs[] = {
		self->text_lo, (uintptr_t)spin_leaf, (uintptr_t)descend,
		self->text_hi - 1,
	};
	struct sframe_rule rule;
	unsigned int i, nfind = 0;
	double t0, t = 0;
	int err;

	err = sframe_validate(sec, report, NULL);
	if (err)
		die("sframe_validate: %s (%u problems)", sframe_errname(err),
		    nproblems);
	for (i = 0; i < ARRAY_SIZE(pcs); i++) {
		if (shape == REAL && pcs[i] != (uintptr_t)spin_leaf)
			continue;
		t0 = now_s();
		err = sframe_find(sec, pcs[i], &rule);
		t += now_s() - t0;
		nfind++;
		if (shape == REAL) {
			if (err)
				die("sframe_find(%#llx) in its own .sframe: %s",
				    (unsigned long long)pcs[i],
				    sframe_errname(err));
			continue;
		}
		if (err != e->err)
			die("sframe_find(%#llx): %s, expected %s",
			    (unsigned long long)pcs[i], sframe_errname(err),
			    sframe_errname(e->err));
		if (err)
			continue;
		if (!fp_rule(sec, &rule) || rule.fre_start != e->last_row)
			die("sframe_find(%#llx): rule cfa %u/%u%+d ra %u%+d fp %u%+d, row start %u: expected the frame-pointer rule, row start %u",
			    (unsigned long long)pcs[i], rule.cfa.kind,
			    rule.cfa.reg, rule.cfa.offset, rule.ra.kind,
			    rule.ra.offset, rule.fp.kind, rule.fp.offset,
			    rule.fre_start, e->last_row);
	}
	printf("%s: %s: validated: sframe_validate() clean, sframe_find() %s (%.3f ms per lookup here)\n",
	       prog, shape_names[shape],
	       shape == REAL ? "finds the leaf's rule" :
	       e->err ? "finds no FDE for the text" :
	       "gives the frame-pointer rule from the last row",
	       t * 1e3 / nfind);
}

/* Map the forged section where PT_GNU_SFRAME says and write SHAPE there. */
static void forge(const struct self *self, struct expect *e)
{
	void *p;

	if (self->sframe != COSTLY_ADDR || self->sframe_size != COSTLY_SIZE)
		die("PT_GNU_SFRAME %#llx, %llu bytes: not a forged copy",
		    (unsigned long long)self->sframe,
		    (unsigned long long)self->sframe_size);
	p = mmap((void *)COSTLY_ADDR, COSTLY_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		die("mmap %#lx: %s", COSTLY_ADDR, strerror(errno));
	if (p != (void *)COSTLY_ADDR)
		die("mmap %#lx: got %p", COSTLY_ADDR, p);
	switch (shape) {
	case ROWS:
		forge_rows(p, self, e);
		break;
	case V3:
		forge_v3(p, e);
		break;
	case UNSORTED:
	case RECOVER:
		forge_unsorted(p, e);
		break;
	default:
		forge_pcmask(p, self, e);
		break;
	}
}

int main(int argc, char **argv)
{
	const char *forged, *v = getenv(VALIDATE_ENV);
	struct sframe_section sec;
	struct expect e = { 0 };
	struct stats st[3];
	struct self self;
	double secs, took;
	char *end;
	u64 n;
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3)
		goto usage;
	for (shape = 0; shape < NSHAPES; shape++)
		if (!strcmp(argv[1], shape_names[shape]))
			break;
	secs = strtod(argv[2], &end);
	if (shape == NSHAPES || *end || !(secs > 0))
		goto usage;

	snprintf(copy_path, sizeof(copy_path), "/tmp/sframe-costly-%s",
		 shape_names[shape]);
	forged = getenv(FORGED_ENV);
	if (shape != REAL && !forged)
		reexec(argv);
	if (shape != REAL && strcmp(forged, shape_names[shape]))
		die("%s=%s, not %s", FORGED_ENV, forged, shape_names[shape]);

	find_self(&self);
	if (shape != REAL)
		forge(&self, &e);
	err = sframe_open(&sec, (const void *)(uintptr_t)self.sframe,
			  self.sframe_size, self.sframe, 0);
	if (err)
		die("sframe_open(%#llx, %llu): %s",
		    (unsigned long long)self.sframe,
		    (unsigned long long)self.sframe_size, sframe_errname(err));
	printf("%s: %s: SFrame v%u at %#llx, %u bytes: %u FDEs, %u FREs, %s; text %#llx-%#llx\n",
	       prog, shape_names[shape], sec.version,
	       (unsigned long long)self.sframe, sec.size, sec.num_fdes,
	       sec.num_fres,
	       sec.flags & SFRAME_F_FDE_SORTED ? "sorted" : "unsorted",
	       (unsigned long long)self.text_lo,
	       (unsigned long long)self.text_hi);
	if (v && !strcmp(v, "1"))
		check_section(&sec, &self, &e);

	if (shape == RECOVER) {
		u64 half[2];
		double half_s[2];

		read_stats(&st[0]);
		half[0] = descend(DEPTH, secs / 2, &half_s[0]);
		read_stats(&st[1]);
		repair((u8 *)COSTLY_ADDR, &self);
		half[1] = descend(DEPTH, secs / 2, &half_s[1]);
		read_stats(&st[2]);
		n = half[0] + half[1];
		took = half_s[0] + half_s[1];
		for (err = 0; err < 2; err++) {
			u64 ns = st[err + 1].samples - st[err].samples;

			printf("%s: %s: %s: %llu samples, %.1f SFrame frames each, %llu refused lookups, rate %llu\n",
			       prog, shape_names[shape],
			       err ? "repaired" : "unsorted",
			       (unsigned long long)ns,
			       ns ? (double)(st[err + 1].frames_sframe -
					     st[err].frames_sframe) / ns : 0.0,
			       (unsigned long long)(st[err + 1].refused -
						    st[err].refused),
			       (unsigned long long)(half[err] / half_s[err]));
		}
		if (st[2].samples == st[1].samples ||
		    st[2].frames_sframe - st[1].frames_sframe <
		    (st[2].samples - st[1].samples) * DEPTH / 2)
			die("the repaired section: fewer than %d SFrame frames per sample",
			    DEPTH / 2);
	} else {
		n = descend(DEPTH, secs, &took);
	}
	printf("%s: %s iterations %llu seconds %.3f rate %llu\n", prog,
	       shape_names[shape], (unsigned long long)n, took,
	       (unsigned long long)(n / took));
	if (shape != REAL)
		unlink(copy_path);	/* mapped: the kernel keeps the file */
	return 0;

usage:
	fprintf(stderr, "usage: %s real|unsorted|rows|v3|pcmask|recover SECONDS\n",
		prog);
	return 2;
}
