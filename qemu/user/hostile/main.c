// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-hostile: hostile input for the kernel's SFrame user unwinder.
 *
 * The program samples itself with perf_event_open() (user callchains) and,
 * while the samples are taken, feeds the unwinder
 *   - section variants: its own .sframe (PT_GNU_SFRAME), made writable,
 *     forged in place one way at a time (header fields, FDEs, FREs, byte
 *     flips, truncation, bytes flapping between two states during the
 *     walk), unmapped, or made PROT_NONE;
 *   - stack variants: a spinning leaf function overwrites its callers'
 *     return addresses, saved frame pointers and other slots with garbage
 *     (0, -1, kernel addresses, loops, unaligned values, values below the
 *     stack pointer), sets SP/FP/LR to garbage, or runs on a small mmap'ed
 *     stack (sigaltstack, makecontext) that the walk must leave.
 * Everything is restored before the leaf returns. Each variant runs the
 * chain run_chain -> h_outer -> h_a -> h_b -> h_c -> h_leaf until a few
 * samples were taken (the ring buffer's data_head moved), then the ring
 * buffer is drained and every record checked: a well-formed sample record,
 * our pid/tid, PERF_CONTEXT_USER then the sample IP first, at most
 * perf_event_max_stack + 1 entries. A wrong or short chain is expected;
 * a malformed record, a failed self-check or a crash is a failure.
 *
 * The work runs in a forked child so that a crash is reported (with the
 * variant it happened in) rather than lost. See qemu/user/README.md.
 *
 * This file is the driver: the options, the child and the parent's report,
 * the order of the variants and the baselines, failures and descriptions.
 * section.c forges the section, stack.c runs the chain and corrupts its
 * stack, perf.c samples it and checks the records, conc.c is the
 * concurrent mode (-t); hostile.h is what they share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"

const char *prog = "sframe-hostile";

struct options opt = {
	.n = 1000, .period_ns = 100000, .min_ms = 1, .max_ms = 25, .timeout = 600,
	.want = 2, .seconds = 20,
};

/* ---- state shared with the parent (survives a crash) --------------------- */

const char *const phase_names[NPHASE] = {
	"setup", "baseline", "section variant", "unmap/PROT_NONE section variant",
	"stack variant", "concurrent run", "done",
};

struct shared *sh;

/* ---- failures and descriptions ------------------------------------------ */

bool failed;
static unsigned long nreported;

/* the description being written: sh->desc, or a thread's own (-t) */
__thread char *desc_tls;

static char *desc_buf(void)
{
	return desc_tls ? desc_tls : sh->desc;
}

/**
 * describe() - appends to the description of the variant or mutation
 * @fmt: printf() format, and its arguments
 */
void describe(const char *fmt, ...)
{
	char *d = desc_buf();
	size_t len = strlen(d);
	va_list ap;

	if (len >= sizeof(sh->desc) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(d + len, sizeof(sh->desc) - len, fmt, ap);
	va_end(ap);
}

/* the thread failing, in the concurrent mode: "worker 1", "mutator 0" */
__thread const char *who;

/**
 * fail() - reports a failure (the first 20) with what was under way
 * @fmt: printf() format, and its arguments
 */
void fail(const char *fmt, ...)
{
	va_list ap;

	__atomic_store_n(&failed, true, __ATOMIC_RELAXED);
	if (__atomic_fetch_add(&nreported, 1, __ATOMIC_RELAXED) >= 20)
		return;
	flockfile(stdout);
	if (who)
		printf("%s: FAIL: %s (%s): ", prog, who, desc_buf());
	else if (sh->phase == P_DONE)
		printf("%s: FAIL: ", prog);
	else
		printf("%s: FAIL: %s %lu (%s): ", prog, phase_names[sh->phase],
		       sh->variant, sh->desc);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	funlockfile(stdout);
}

/**
 * die() - says why and exits (noreturn: hostile.h)
 * @status: the exit status
 * @fmt: printf() format, and its arguments
 */
void die(int status, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", prog);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(status);
}

/* ---- running variants ------------------------------------------------------ */

/**
 * cpu_ms() - the calling thread's CPU time
 *
 * Return: the time in milliseconds (monotonic time without CPU-time
 * clocks).
 */
double cpu_ms(void)
{
	struct timespec ts;

	/* Without CONFIG_POSIX_TIMERS there are no CPU-time clocks. */
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/**
 * wall_s() - monotonic time
 *
 * Return: the time in seconds.
 */
double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/**
 * start_variant() - a variant begins (in the state the parent reports)
 * @ph: its phase
 * @i: its number
 */
void start_variant(enum phase ph, unsigned long i)
{
	sh->phase = ph;
	sh->variant = i;
	sh->desc[0] = 0;
	leaf_reset();
}

/**
 * end_variant() - a variant ended: its records checked
 */
void end_variant(void)
{
	if (opt.verbose)
		printf("%s: %s %lu: %s\n", prog, phase_names[sh->phase], sh->variant,
		       sh->desc);
	leaf_check_restored();
	drain();
}

static void baseline(int b)
{
	int k;

	start_variant(P_BASE, b);
	describe("pristine, %s", base_names[b]);
	base_cur = b;
	for (k = 0; k < BASE_RUNS; k++) {
		chain_sink = run_chain(k);
		drain();
	}
	base_cur = -1;
}

/* ---- main -------------------------------------------------------------------- */

static void print_counts(const char *what, enum phase ph)
{
	const struct counts *c = &cnt[ph];

	printf("%s: %s: %lu samples, %lu with a chain > 1 frame, %lu empty, deepest %lu "
	       "entries, %lu with an entry outside user space; lost %lu, throttled %lu\n",
	       prog, what, c->samples, c->chained, c->empty, c->maxnr, c->nonuser,
	       c->lost, c->throttled);
}

/* the section, the stacks, the calibration and perf; all printed */
static void child_setup(void)
{
	my_pid = getpid();
	setup_section();
	setup_stacks();
	leaf_set_ring(NULL);
	calibrate(opt.no_perf ? 0 : opt.want);
	if (!opt.no_perf)
		open_perf();
	if (!opt.quiet) {
		printf("%s: .sframe at %#lx, %zu bytes (%zu used), v%u, %u FDEs, %u FREs, "
		       "start addresses %s; pages %#lx-%#lx made writable\n", prog,
		       sf.addr, sf.len, sf.used, sf.sec.version, sf.sec.num_fdes,
		       sf.sec.num_fres, sf.sec.pcrel ? "PC-relative" : "section-relative", sf.page,
		       sf.page + sf.page_len);
		if (opt.no_perf)
			printf("%s: no perf (-N): %lu ms per variant (%" PRIu64
			       " iterations/ms)\n", prog, opt.min_ms, leaf_iters_per_ms());
		else
			printf("%s: perf task-clock sampling, period %lu ns, %lu-%lu ms per "
			       "variant until %lu samples (%" PRIu64 " iterations/ms)\n",
			       prog, opt.period_ns, opt.min_ms, opt.max_ms, opt.want,
			       leaf_iters_per_ms());
	}
}

/* the section and stack variants, in the child */
static int child_main(void)
{
	unsigned long i, nmap, ninplace;
	double t0, t1, t2, c0, c1, c2;
	int b;

	child_setup();
	nmap = opt.n >= 50 ? opt.n / 50 : opt.n >= 4 ? 1 : 0;	/* of each */
	ninplace = opt.n - 2 * nmap;
	t0 = wall_s();
	c0 = cpu_ms();
	baseline(0);
	run_section_variants(ninplace);
	baseline(1);
	run_map_variants(ninplace, nmap);
	baseline(2);
	t1 = wall_s();
	c1 = cpu_ms();
	run_stack_variants(opt.n);
	baseline(3);
	t2 = wall_s();
	c2 = cpu_ms();
	sh->phase = P_DONE;
	sh->desc[0] = 0;

	check_pristine();
	if (mprotect((void *)sf.page, sf.page_len, PROT_READ))
		fail("mprotect back to read-only: %s", strerror(errno));
	if (leaf_slots_skipped())
		fail("%lu planned stack slots outside the callers' frames",
		     leaf_slots_skipped());
	if (!opt.no_perf && !sh->samples)
		fail("no samples: nothing was tested");
	if (!opt.quiet) {
		printf("%s: section variants:", prog);
		for (i = 0; i < NSCLASS; i++)
			printf(" %s %lu", sclass_names[i], sclass_count[i]);
		printf("\n%s: stack variants:", prog);
		for (i = 0; i < NKCLASS; i++)
			printf(" %s %lu", kclass_names[i], kclass_count[i]);
		printf(" (%lu slots overwritten)\n", leaf_slots_written());
		print_counts("section variants", P_SECTION);
		print_counts("unmap/PROT_NONE variants", P_MAP);
		print_counts("stack variants", P_STACK);
		print_counts("baselines", P_BASE);
		printf("%s: baseline leaf samples unwound through run_chain:", prog);
		for (b = 0; b < NBASE; b++)
			printf("%s %s %lu/%lu", b ? "," : "", base_names[b], base_ok[b],
			       base_leaf[b]);
		printf("\n%s: time: section variants %.2f s (%.2f s CPU), stack variants "
		       "%.2f s (%.2f s CPU)\n", prog, t1 - t0, (c1 - c0) / 1e3, t2 - t1,
		       (c2 - c1) / 1e3);
	}
	if (opt.expect && !opt.no_perf) {
		for (b = 0; b < NBASE; b++)
			if (!base_leaf[b] || base_ok[b] * 10 < base_leaf[b] * 9)
				fail("baseline %s: %lu of %lu leaf samples unwound through "
				     "run_chain, expected >= 90%%", base_names[b], base_ok[b],
				     base_leaf[b]);
	}
	return failed ? 1 : 0;
}

static pid_t child;
static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
	kill(child, SIGKILL);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-n N] [-s SEED] [-q|-v] [-p NS] [-w SAMPLES] [-m MS] [-M MS]\n"
		"          [-T SECONDS] [-e] [-u] [-N] [-t THREADS [-j MUTATORS] [-d SECONDS]]\n"
		"  -n  variants of each kind, section and stack (default 1000)\n"
		"  -s  seed (default: from the time; printed)\n"
		"  -q  the summary line only; -v every variant\n"
		"  -p  sample period in ns of task clock (default 100000)\n"
		"  -w  samples to wait for per variant (default 2), -m at least\n"
		"      MS ms (default 1), -M at most MS ms (default 25) of CPU\n"
		"  -T  give up after SECONDS (default 600)\n"
		"  -e  expect >= 90%% of the leaf samples of the pristine baselines\n"
		"      unwound through run_chain (an SFrame kernel)\n"
		"  -u  fail on a callchain entry outside user space (a kernel address\n"
		"      or a value perf tools take for a context marker)\n"
		"  -N  no perf: run the variants only (tests this program, e.g. under\n"
		"      qemu-user)\n"
		"  -t  concurrent mode: THREADS sampled workers run the chain while\n"
		"      -j mutator threads (default THREADS) rewrite, unmap, remap the\n"
		"      section and remap the text, for -d SECONDS (default 20)\n", prog);
	exit(2);
}

/* the options into opt; the seed from the time unless -s gave one */
static void parse_options(int argc, char **argv)
{
	bool seeded = false;
	int c;

	while ((c = getopt(argc, argv, "n:s:qvp:w:m:M:T:euNt:j:d:")) != -1) {
		switch (c) {
		case 'n':
			opt.n = strtoul(optarg, NULL, 0);
			break;
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			seeded = true;
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'p':
			opt.period_ns = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			opt.want = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			opt.min_ms = strtoul(optarg, NULL, 0);
			break;
		case 'M':
			opt.max_ms = strtoul(optarg, NULL, 0);
			break;
		case 'T':
			opt.timeout = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			opt.expect = true;
			break;
		case 'u':
			opt.user_only = true;
			break;
		case 'N':
			opt.no_perf = true;
			break;
		case 't':
			opt.threads = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			opt.mutators = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			opt.seconds = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !opt.period_ns || !opt.max_ms || opt.min_ms > opt.max_ms)
		usage();
	if (opt.threads && !opt.mutators)
		opt.mutators = opt.threads;
	if (opt.threads > CONC_MAX || opt.mutators > CONC_MAX ||
	    (opt.threads && (opt.no_perf || !opt.seconds)))
		usage();
	if (!seeded) {
		struct timespec ts;

		/* (the arm64 VM has no RTC: its time starts at 0) */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		opt.seed = ((u64)time(NULL) << 20) ^ (u64)getpid() ^
			   (((u64)ts.tv_sec * 1000000000 + ts.tv_nsec) << 24);
	}
}

/* the parent's verdict on the child's status: 0 passed, 1 failed, 2 setup */
static int report(int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		return 2;			/* setup: already said why */
	if (timed_out)
		printf("%s: FAIL: timeout after %lus in %s %lu (%s); seed %#" PRIx64 "\n",
		       prog, opt.timeout, phase_names[sh->phase], sh->variant, sh->desc,
		       opt.seed);
	else if (WIFSIGNALED(status))
		printf("%s: FAIL: crashed (%s) in %s %lu (%s); seed %#" PRIx64 "\n", prog,
		       strsignal(WTERMSIG(status)), phase_names[sh->phase], sh->variant,
		       sh->desc, opt.seed);
	else if (WEXITSTATUS(status))
		printf("%s: FAIL: seed %#" PRIx64 "\n", prog, opt.seed);
	if (opt.threads)
		conc_summary(WIFSIGNALED(status) && !timed_out);
	else
		printf("%s: %lu section variants, %lu stack variants, %lu samples (%lu "
		       "with a chain > 1 frame), %d crashes\n", prog, sh->nsection,
		       sh->nstack, sh->samples, sh->chained,
		       WIFSIGNALED(status) && !timed_out);
	return WIFEXITED(status) && !WEXITSTATUS(status) && !timed_out ? 0 : 1;
}

int main(int argc, char **argv)
{
	int status;

	parse_options(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!opt.quiet && opt.threads)
		printf("%s: seed %#" PRIx64 " (-s to repeat), concurrent: %lu workers, "
		       "%lu mutators, %lu s\n", prog, opt.seed, opt.threads,
		       opt.mutators, opt.seconds);
	else if (!opt.quiet)
		printf("%s: seed %#" PRIx64 " (-s to repeat), %lu variants of each kind\n",
		       prog, opt.seed, opt.n);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		  -1, 0);
	if (sh == MAP_FAILED)
		die(2, "mmap: %s", strerror(errno));
	fflush(stdout);
	child = fork();
	if (child < 0)
		die(2, "fork: %s", strerror(errno));
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(opt.threads ? conc_main() : child_main());
	}
	signal(SIGALRM, on_alarm);
	alarm(opt.timeout);
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			die(2, "waitpid: %s", strerror(errno));
	alarm(0);
	return report(status);
}
