// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-remap: no cached SFrame answer outlives the mapping it came from.
 *
 *   sframe-remap [-r ROUNDS] [-m MS] [-p PERIOD_NS] DIR
 *
 * The kernel caches the answers of user SFrame lookups per CPU
 * (kernel/unwind_user.c).  This program samples itself with perf (user
 * callchains) while it calls r_call(r_mid, r_leaf): main's r_call() calls
 * a library's r_mid(), which calls main's frameless r_leaf().  Round by
 * round it dlopen()s DIR/libremap-a.so or DIR/libremap-b.so (alternately),
 * runs the chain for MS milliseconds of CPU time, drains the ring buffer
 * and dlclose()s the library.  The two libraries have the same code
 * layout with different frame sizes (remaplib.S): loaded at the same
 * address, the return address r_mid_ret is the same PC with another rule.
 * A walk that used an answer cached from the other library would not find
 * r_call_ret after r_mid_ret.
 *
 * Every sample whose IP is in r_leaf must have the chain IP, r_mid_ret
 * (this round's library), r_call_ret.  Exit 0 when all such samples are
 * right, there were some in every round, and the libraries were loaded at
 * the same address in some consecutive rounds (else the run proves
 * nothing: exit 1 too); 1 otherwise, 2 when perf cannot sample.  One line
 * of counts either way.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "perfring.h"

#define RING_PAGES	64

void r_call(void (*mid)(void (*)(void)), void (*leaf)(void));
void r_leaf(void);
extern const char r_call_ret[], r_leaf_end[];

struct round {
	uint64_t expect_mid_ret;	/* this round's r_mid_ret */
	unsigned long samples, checked, wrong;
	uint64_t first_wrong[4];	/* a wrong chain: IP, then 3 entries */
};

static const char *prog = "sframe-remap";

static double cpu_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN records */
static void on_record(void *arg, const struct perf_event_header *hdr,
		      const unsigned char *rec)
{
	const uint64_t *w = (const uint64_t *)(rec + sizeof(*hdr));
	size_t n = (hdr->size - sizeof(*hdr)) / sizeof(uint64_t);
	struct round *r = arg;
	uint64_t ip, nr;
	const uint64_t *cc;

	if (hdr->type != PERF_RECORD_SAMPLE || n < 2)
		return;
	r->samples++;
	ip = w[0];
	nr = w[1];
	cc = &w[2];
	if (nr > n - 2)
		nr = n - 2;
	if (ip < (uintptr_t)r_leaf || ip >= (uintptr_t)r_leaf_end)
		return;
	r->checked++;
	/* PERF_CONTEXT_USER, IP, r_mid_ret, r_call_ret */
	if (nr >= 4 && cc[0] == PERF_CONTEXT_USER && cc[1] == ip &&
	    cc[2] == r->expect_mid_ret && cc[3] == (uintptr_t)r_call_ret)
		return;
	if (!r->wrong++) {
		r->first_wrong[0] = ip;
		r->first_wrong[1] = nr > 2 ? cc[2] : 0;
		r->first_wrong[2] = nr > 3 ? cc[3] : 0;
		r->first_wrong[3] = nr;
	}
}

int main(int argc, char **argv)
{
	unsigned long rounds = 12, ms = 150, period = 100000;
	unsigned long total = 0, checked = 0, wrong = 0, same = 0, empty = 0;
	uintptr_t last_base = 0;
	struct perf_ring ring;
	char path[4096];
	int opt, fd;
	unsigned long i;

	while ((opt = getopt(argc, argv, "r:m:p:")) != -1) {
		switch (opt) {
		case 'r': rounds = strtoul(optarg, NULL, 0); break;
		case 'm': ms = strtoul(optarg, NULL, 0); break;
		case 'p': period = strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (optind + 1 != argc || rounds < 2) {
usage:
		fprintf(stderr, "usage: %s [-r ROUNDS>=2] [-m MS] [-p PERIOD_NS] DIR\n",
			prog);
		return 2;
	}

	fd = perf_ring_open_self(&ring, PERF_COUNT_SW_TASK_CLOCK, period, RING_PAGES);
	if (fd < 0) {
		printf("%s: cannot sample: %s\n", prog, strerror(errno));
		return 2;
	}

	for (i = 0; i < rounds; i++) {
		struct round r = { 0 };
		void (*mid)(void (*)(void));
		uintptr_t base;
		void *h;
		double t;

		snprintf(path, sizeof(path), "%s/libremap-%c.so", argv[optind],
			 i % 2 ? 'b' : 'a');
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			printf("%s: dlopen: %s\n", prog, dlerror());
			return 1;
		}
		mid = (void (*)(void (*)(void)))dlsym(h, "r_mid");
		r.expect_mid_ret = (uintptr_t)dlsym(h, "r_mid_ret");
		if (!mid || !r.expect_mid_ret) {
			printf("%s: %s: no r_mid or r_mid_ret\n", prog, path);
			return 1;
		}
		base = (uintptr_t)mid;
		same += i && base == last_base;
		last_base = base;

		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		t = cpu_ms();
		while (cpu_ms() - t < ms)
			r_call(mid, r_leaf);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (perf_ring_drain(&ring, on_record, &r)) {
			printf("%s: malformed ring buffer record\n", prog);
			return 1;
		}
		dlclose(h);

		if (r.wrong)
			printf("%s: round %lu (%s at %#lx): %lu of %lu wrong, first: IP %#" PRIx64 " then %#" PRIx64 ", %#" PRIx64 " (%" PRIu64 " entries; expected %#" PRIx64 ", %#lx)\n",
			       prog, i, path, (unsigned long)base, r.wrong,
			       r.checked, r.first_wrong[0], r.first_wrong[1],
			       r.first_wrong[2], r.first_wrong[3],
			       r.expect_mid_ret, (unsigned long)r_call_ret);
		total += r.samples;
		checked += r.checked;
		wrong += r.wrong;
		empty += !r.checked;
	}
	printf("%s: %lu rounds, %lu with the other library at the same address; %lu samples, %lu in r_leaf checked, %lu wrong, %lu rounds without a checked sample\n",
	       prog, rounds, same, total, checked, wrong, empty);
	return wrong || empty || !same ? 1 : 0;
}
