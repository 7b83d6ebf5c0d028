// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-sframe: PC-to-rule lookups per second, ours against libsframe 2.40
 * (binutils-dev) on the same v1 section and the same PCs, in one run.
 *
 *   bench-sframe ELF [LOOKUPS [ROUNDS]]
 *
 * Each round times every loop once, one after the other; a loop's time is
 * its best round (ROUNDS, default 5), so that a ratio compares the two
 * sides at their best on the same machine state.
 *
 * A benchmark, not a test: it prints numbers and the ratio.  It also counts
 * heap allocations made during our lookups (malloc and friends are wrapped
 * below) to show the core's lookup path allocates nothing.
 *
 * The four measured loops are the functions bench_plain(), bench_index(),
 * bench_rows() (decoded rows, the kernel's lookup structure) and
 * bench_libsframe(): tools/bench/run-bench.sh counts the instructions of
 * each with callgrind (inclusive cost, ROUNDS 2), which does not drift with
 * the machine's load the way wall time does.  bench_ls_rule() (libsframe's
 * row and its three offsets: the same answer as a rule) and bench_class()
 * (lookups grouped by the rows they read) are printed for information.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sframe/sframe.h>
#include "../lib/sframe-elf.h"
#include "libsframe-glue.h"
#include "libc-alloc.h"

/* Count every heap allocation of the process (glibc's real allocator). */
static unsigned long allocations;

void *malloc(size_t size)
{
	allocations++;
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	allocations++;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	allocations++;
	return __libc_realloc(p, size);
}

/* noipa: not merged with an identical function (bench_plain/bench_index) */
#define noinline_noipa	__attribute__((__noinline__, __noipa__))

#define BENCH_SHIFT 8	/* 256-byte blocks, as ORC's lookup table */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/*
 * Our lookups: FIND(OBJ, pc, &rule) for every PC; a loop of its own in
 * each caller (bench_plain(), bench_index(), bench_rows()), so that
 * callgrind tells them apart.
 */
#define BENCH_LOOKUPS(find, obj, pcs, n, sum) ({			\
	unsigned long i_, ok_ = 0;					\
									\
	for (i_ = 0; i_ < (n); i_++) {					\
		struct sframe_rule r_;					\
									\
		if (!(find)((obj), (pcs)[i_], &r_)) {			\
			ok_++;						\
			*(sum) += r_.cfa.offset;			\
		}							\
	}								\
	ok_;								\
})

static noinline_noipa unsigned long
bench_plain(const struct sframe_section *sec, const uint64_t *pcs,
	    unsigned long n, uint64_t *sum)
{
	return BENCH_LOOKUPS(sframe_find, sec, pcs, n, sum);
}

static noinline_noipa unsigned long
bench_index(const struct sframe_section *sec, const uint64_t *pcs,
	    unsigned long n, uint64_t *sum)
{
	return BENCH_LOOKUPS(sframe_find, sec, pcs, n, sum);
}

/* Lookups in the decoded rows (sframe_rows_build()). */
static noinline_noipa unsigned long
bench_rows(const struct sframe_rows *rows, const uint64_t *pcs,
	   unsigned long n, uint64_t *sum)
{
	return BENCH_LOOKUPS(sframe_rows_find, rows, pcs, n, sum);
}

static noinline_noipa unsigned long
bench_libsframe(void *ls, uint64_t addr, const uint64_t *pcs,
		unsigned long n)
{
	unsigned long i, ok = 0;

	for (i = 0; i < n; i++)
		ok += !ls_find_fre_only(ls, (int32_t)(pcs[i] - addr));
	return ok;
}

/* libsframe's row and its CFA, FP and RA offsets: what a rule holds. */
static noinline_noipa unsigned long
bench_ls_rule(void *ls, uint64_t addr, const uint64_t *pcs,
	      unsigned long n, uint64_t *sum)
{
	unsigned long i, ok = 0;
	struct ls_row row;

	for (i = 0; i < n; i++) {
		if (!ls_find(ls, (int32_t)(pcs[i] - addr), &row)) {
			ok++;
			*sum += row.cfa;
		}
	}
	return ok;
}

/* bench_plain() again, for the breakdown (callgrind counts bench_plain). */
static noinline_noipa unsigned long
bench_class(const struct sframe_section *sec, const uint64_t *pcs,
	    unsigned long n, uint64_t *sum)
{
	return BENCH_LOOKUPS(sframe_find, sec, pcs, n, sum);
}

/* Best of @rounds: the time of one loop in the current round. */
static void best_of(double *best, double t0)
{
	double t = now() - t0;

	if (!*best || t < *best)
		*best = t;
}

#define CLASS_MAX	8	/* rows read: 1..7, and 8 or more */
#define CLASS_PCS	100000	/* lookups timed per class */

/*
 * Lookups without an index, grouped by the rows the scan reads (the
 * function's rows up to the first one above the PC): within a group the
 * scan's exit is the same every time.  The core finds the row
 * (sframe_find_fre()); its position among the function's rows is counted
 * with sframe_read_fre(), outside the timed loops.
 */
static void rows_breakdown(const struct sframe_section *sec,
			   const uint64_t *pcs, unsigned long n, int rounds,
			   uint64_t *sum)
{
	static uint64_t class_pcs[CLASS_MAX + 1][CLASS_PCS];
	unsigned long cnt[CLASS_MAX + 1] = { 0 }, i, c;
	double best;
	int rep;

	for (i = 0; i < n; i++) {
		struct sframe_fde fde;
		struct sframe_fre fre, at;
		u32 pos, r;

		if (sframe_find_fde(sec, pcs[i], &fde) || sframe_fde_pcmask(&fde) ||
		    sframe_find_fre(sec, &fde, pcs[i], &fre))
			continue;
		/* r: the found row's index (rows are at least 2 bytes long) */
		for (r = 0, pos = fde.fres; pos < fre.off && r < fde.num_fres; r++) {
			if (sframe_read_fre(sec, &fde, pos, &at))
				break;
			pos = at.next;
		}
		/* the found row, and the one above the PC that ended the scan */
		c = r + 2 < fde.num_fres ? r + 2 : fde.num_fres;
		c = c > CLASS_MAX ? CLASS_MAX : c;
		if (c && cnt[c] < CLASS_PCS)
			class_pcs[c][cnt[c]++] = pcs[i];
	}
	printf("no index, by rows read (in a group, every scan ends alike):");
	for (c = 1; c <= CLASS_MAX; c++) {
		if (cnt[c] < CLASS_PCS / 10)
			continue;
		best = 0;
		for (rep = 0; rep < rounds; rep++) {
			double t0 = now();

			bench_class(sec, class_pcs[c], cnt[c], sum);
			best_of(&best, t0);
		}
		printf(" %lu%s %.1f ns;", c, c == CLASS_MAX ? "+" : "",
		       best * 1e9 / cnt[c]);
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	struct elf_file f;
	struct sframe_blob b;
	struct sframe_section sec;
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 2000000, i;
	int rounds = argc > 3 ? atoi(argv[3]) : 5;
	unsigned long ours_ok = 0, theirs_ok = 0, agree = 0, before;
	uint64_t *pcs, sum = 0;
	struct sframe_fde *fdes;
	uint32_t nf = 0, k;
	const char *why;
	double t0, t_ours = 0, t_theirs = 0, t_plain = 0, t_ls_rule = 0;
	struct sframe_section plain;
	unsigned long plain_allocs = 0, index_allocs = 0;
	u32 nwords = 0, *index, nrows, nblocks;
	struct sframe_rows rows = { 0 };
	unsigned long rows_ok = 0, rows_allocs = 0;
	double t_rows = 0, t_build = 0, t_validate, t_both;
	u16 *hash;
	void *ls;
	int rep;

	if (argc < 2 || rounds < 1) {
		fprintf(stderr, "usage: bench-sframe ELF [LOOKUPS [ROUNDS]]\n");
		return 2;
	}
	if (elf_file_open(&f, argv[1], &why) ||
	    sframe_elf_find(&f, &b, 0, &why) ||
	    sframe_open(&sec, b.data, b.size, b.addr, 0)) {
		fprintf(stderr, "bench-sframe: %s: no usable .sframe\n", argv[1]);
		return 1;
	}
	if (sec.version != SFRAME_VERSION_1 || sframe_validate(&sec, NULL, NULL)) {
		fprintf(stderr, "bench-sframe: %s: need a valid v1 section\n",
			argv[1]);
		fprintf(stderr, "(libsframe 2.40, the reference, reads v1 only)\n");
		return 1;
	}
	ls = ls_open(b.data, sec.size);
	if (!ls) {
		fprintf(stderr, "bench-sframe: libsframe cannot decode %s\n", argv[1]);
		return 1;
	}

	/* PCs spread uniformly over the functions (PLT masks left out). */
	fdes = calloc(sec.num_fdes, sizeof(*fdes));
	for (k = 0; k < sec.num_fdes; k++)
		if (!sframe_get_fde(&sec, k, &fdes[nf]) && fdes[nf].size &&
		    !sframe_fde_pcmask(&fdes[nf]))
			nf++;
	pcs = malloc(n * sizeof(*pcs));
	for (i = 0; i < n; i++) {
		const struct sframe_fde *f = &fdes[next_rand() % nf];

		pcs[i] = f->start + next_rand() % f->size;
	}

	/* Same answers first (row start), so both do the same work. */
	for (i = 0; i < n && i < 200000; i++) {
		struct sframe_rule r;
		struct ls_row row;
		int a = sframe_find(&sec, pcs[i], &r);
		int c = ls_find(ls, (int32_t)(pcs[i] - sec.addr), &row);

		agree += (!a == !c) && (a || r.fre_start == row.fre_start);
	}

	plain = sec;
	index = NULL;
	if (!sframe_index_size(&sec, BENCH_SHIFT, &nwords))
		index = malloc(nwords * sizeof(*index));
	if (!index || sframe_index_build(&sec, BENCH_SHIFT, index, nwords)) {
		fprintf(stderr, "bench-sframe: cannot build the lookup index\n");
		return 1;
	}

	if (sframe_rows_size(&sec, BENCH_SHIFT, SFRAME_ROWS_ALL, &nrows, &nblocks)) {
		fprintf(stderr, "bench-sframe: cannot size the rows\n");
		return 1;
	}
	rows.start = malloc(nrows * sizeof(*rows.start));
	rows.id = malloc(nrows * sizeof(*rows.id));
	rows.block = malloc((nblocks + 1) * sizeof(*rows.block));
	rows.rules = malloc(SFRAME_ROWS_MAX_RULES * sizeof(*rows.rules));
	hash = malloc(SFRAME_ROWS_HASH_SLOTS * sizeof(*hash));
	t0 = now();
	sframe_validate(&sec, NULL, NULL);
	t_validate = now() - t0;
	t0 = now();
	if (sframe_rows_build(&sec, BENCH_SHIFT, SFRAME_ROWS_ALL, &rows, hash)) {
		fprintf(stderr, "bench-sframe: cannot build the rows\n");
		return 1;
	}
	t_build = now() - t0;
	t0 = now();
	if ((sec.flags & SFRAME_F_FDE_SORTED) &&
	    sframe_validate_rows(&sec, BENCH_SHIFT, SFRAME_ROWS_ALL, &rows, hash)) {
		fprintf(stderr, "bench-sframe: cannot validate and build the rows\n");
		return 1;
	}
	t_both = now() - t0;

	/* Every loop once a round; each keeps its best round. */
	for (rep = 0; rep < rounds; rep++) {
		before = allocations;
		t0 = now();
		bench_plain(&plain, pcs, n, &sum);
		best_of(&t_plain, t0);
		plain_allocs += allocations - before;

		before = allocations;
		t0 = now();
		ours_ok = bench_index(&sec, pcs, n, &sum);
		best_of(&t_ours, t0);
		index_allocs += allocations - before;

		before = allocations;
		t0 = now();
		rows_ok = bench_rows(&rows, pcs, n, &sum);
		best_of(&t_rows, t0);
		rows_allocs += allocations - before;

		t0 = now();
		theirs_ok = bench_libsframe(ls, sec.addr, pcs, n);
		best_of(&t_theirs, t0);

		/* For information: libsframe's row and offsets. */
		t0 = now();
		bench_ls_rule(ls, sec.addr, pcs, n, &sum);
		best_of(&t_ls_rule, t0);
	}

	printf("section: %s: SFrame v%u, %u FDEs, %u FREs, %u bytes\n", argv[1],
	       sec.version, sec.num_fdes, sec.num_fres, sec.size);
	printf("lookups: %lu random PCs in %u functions; ", n, nf);
	printf("answers agree on %lu of %lu checked\n", agree,
	       n < 200000 ? n : 200000);
	printf("sframe core, no index:      %10.0f lookups/s (%6.1f ns each)\n",
	       n / t_plain, t_plain * 1e9 / n);
	printf("sframe core, block index:   %10.0f lookups/s (%6.1f ns each), found %lu, ",
	       n / t_ours, t_ours * 1e9 / n, ours_ok);
	printf("index %u KiB (%u-byte blocks)\n", nwords * 4 / 1024,
	       1U << BENCH_SHIFT);
	printf("sframe core, decoded rows:  %10.0f lookups/s (%6.1f ns each), found %lu, ",
	       n / t_rows, t_rows * 1e9 / n, rows_ok);
	printf("rows %zu KiB (%u rows, %u rules; built in %.1f ms)\n",
	       ((size_t)rows.nrows * (sizeof(*rows.start) + sizeof(*rows.id)) +
		(size_t)(rows.nblocks + 1) * sizeof(*rows.block) +
		(size_t)rows.nrules * sizeof(*rows.rules)) / 1024,
	       rows.nrows, rows.nrules, t_build * 1e3);
	printf("section set-up: validate %.1f ms, build rows %.1f ms, ", t_validate * 1e3,
	       t_build * 1e3);
	printf("both in one pass %.1f ms (%.1f ms/MB)\n",
	       t_both * 1e3, t_both * 1e3 / (sec.size / 1048576.0));
	printf("libsframe 2.40 find_fre:    %10.0f lookups/s (%6.1f ns each), found %lu\n",
	       n / t_theirs, t_theirs * 1e9 / n, theirs_ok);
	printf("ratio (libsframe time / ours): %.1fx with decoded rows, ", t_theirs / t_rows);
	printf("%.1fx with the block index, %.1fx without\n",
	       t_theirs / t_ours, t_theirs / t_plain);
	printf("goal: wall time with the index (decoded rows): %.2fx libsframe (goal >= 4x): %s\n",
	       t_theirs / t_rows, t_theirs / t_rows >= 4 ? "met" : "not met");
	printf("goal: wall time without an index: %.2fx libsframe (goal >= 2x): %s\n",
	       t_theirs / t_plain, t_theirs / t_plain >= 2 ? "met" : "not met");
	printf("libsframe 2.40 find_fre + 3 offsets (a rule): %.1f ns each; ",
	       t_ls_rule * 1e9 / n);
	printf("%.2fx our time without an index\n", t_ls_rule / t_plain);
	if (rounds > 2)		/* not in run-bench.sh's callgrind run */
		rows_breakdown(&plain, pcs, n, rounds, &sum);
	printf("heap allocations during our %lu x %d lookups: %lu with the index, ",
	       n, rounds, index_allocs);
	printf("%lu with rows, %lu without", rows_allocs, plain_allocs);
	printf(" (checksum %" PRIu64 ")\n", sum);
	free(index);
	free(rows.start);
	free(rows.id);
	free(rows.block);
	free(rows.rules);
	free(hash);
	ls_close(ls);
	free(pcs);
	free(fdes);
	elf_file_close(&f);
	return 0;
}
