// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-hostile: the perf event that samples the chain (task clock, user
 * callchains), its ring buffer drained after each variant, and the checks
 * of every record: a well-formed sample of our pid/tid, PERF_CONTEXT_USER
 * then the sample IP first, at most perf_event_max_stack + 1 entries.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hostile.h"

/* ---- perf and the records ---------------------------------------------------- */

struct counts cnt[NPHASE];
static struct perf_ring ring;
static int perf_fd = -1;
u64 max_entries;		/* perf_event_max_stack + 1 */
pid_t my_pid;

/* baselines: leaf samples, and those unwound through run_chain */
const char *const base_names[NBASE] = {
	"start", "after in-place section variants", "after unmap/PROT_NONE",
	"after stack variants",
};

unsigned long base_leaf[NBASE], base_ok[NBASE];
int base_cur = -1;

/**
 * in_level() - whether an address is in a chain function
 * @a: the address
 * @lv: the function's level (LV_*)
 *
 * Return: true when @a is in the function of level @lv, as its FDE says.
 */
bool in_level(u64 a, int lv)
{
	const struct sframe_fde *f = &sf.fdes[sf.level_fde[lv]].d;

	return a >= f->start && a - f->start < f->size;
}

static void baseline_sample(const u64 *ips, u64 nr, u64 ip)
{
	int lv;

	if (base_cur < 0 || !in_level(ip, LV_LEAF))
		return;
	base_leaf[base_cur]++;
	for (lv = LV_C; lv < NLEVELS; lv++)
		if (nr < (u64)lv + 2 || !in_level(ips[lv + 1], lv))
			return;
	base_ok[base_cur]++;
}

/**
 * check_record() - checks one record of a thread's ring and counts it
 * @hdr: the record's header
 * @p: the record (@hdr->size bytes)
 * @tid: the thread sampled
 * @c: where to count it
 * @s: filled for a sample with a callchain
 *
 * Fails when the record is malformed, of another pid or tid, or has a
 * callchain perf should not write.
 *
 * Return: 1 when it is a well-formed sample with a callchain (@s filled),
 * else 0.
 */
int check_record(const struct perf_event_header *hdr, const unsigned char *p,
		 pid_t tid, struct counts *c, struct sample *s)
{
	struct {
		u64 ip;
		u32 pid, tid;
		u64 nr;
	} h;
	const size_t fixed = sizeof(*hdr) + sizeof(h);
	const u64 *ips;
	u64 j, lost[2];

	c->records++;
	if (hdr->size % 8) {
		fail("record type %u of %u bytes: not a multiple of 8", hdr->type,
		     hdr->size);
		return 0;
	}
	switch (hdr->type) {
	case PERF_RECORD_LOST:
		if (hdr->size >= sizeof(*hdr) + sizeof(lost)) {
			memcpy(lost, p + sizeof(*hdr), sizeof(lost));
			c->lost += lost[1];
		}
		return 0;
	case PERF_RECORD_THROTTLE:
		c->throttled++;
		return 0;
	case PERF_RECORD_SAMPLE:
		break;
	default:
		return 0;
	}
	if (hdr->size < fixed) {
		fail("sample record of %u bytes", hdr->size);
		return 0;
	}
	memcpy(&h, p + sizeof(*hdr), sizeof(h));
	ips = (const u64 *)(p + fixed);
	c->samples++;
	if (h.nr > max_entries) {
		fail("callchain of %" PRIu64 " entries, more than %" PRIu64, h.nr,
		     max_entries);
		return 0;
	}
	if (hdr->size != fixed + 8 * h.nr) {
		fail("sample record of %u bytes for %" PRIu64 " callchain entries",
		     hdr->size, h.nr);
		return 0;
	}
	if ((pid_t)h.pid != my_pid || (pid_t)h.tid != tid)
		fail("sample of pid %u tid %u, expected %d/%d", h.pid, h.tid,
		     (int)my_pid, (int)tid);
	if (!h.nr) {
		c->empty++;
		return 0;
	}
	if (ips[0] != PERF_CONTEXT_USER) {
		fail("callchain entry 0 is %#" PRIx64 ", not PERF_CONTEXT_USER", ips[0]);
		return 0;
	}
	if (h.nr >= 2 && ips[1] != h.ip)
		fail("callchain entry 1 %#" PRIx64 " is not the sample ip %#" PRIx64,
		     ips[1], h.ip);
	for (j = 2; j < h.nr; j++)
		if (ips[j] >= USER_END) {
			c->nonuser++;
			if (opt.user_only)
				fail("callchain entry %" PRIu64 " of %" PRIu64 " is %#" PRIx64
				     ", outside user space", j, h.nr, ips[j]);
			break;
		}
	if (h.nr > c->maxnr)
		c->maxnr = h.nr;
	if (h.nr > 2)
		c->chained++;
	s->ip = h.ip;
	s->nr = h.nr;
	s->ips = ips;
	return 1;
}

static void handle_record(void *arg, const struct perf_event_header *hdr,
			  const unsigned char *p)
{
	struct counts *c = &cnt[sh->phase];
	unsigned long samples = c->samples, chained = c->chained;
	struct sample s;
	int r;

	(void)arg;
	r = check_record(hdr, p, my_pid, c, &s);
	sh->samples += c->samples - samples;
	sh->chained += c->chained - chained;
	if (r)
		baseline_sample(s.ips, s.nr, s.ip);
}

/**
 * drain() - checks and counts the records of the ring buffer (perf only)
 *
 * Exits 1 on a corrupt ring buffer record.
 */
void drain(void)
{
	if (perf_fd < 0)
		return;
	if (perf_ring_drain(&ring, handle_record, NULL)) {
		fail("corrupt ring buffer record (size %u)", ring.bad_size);
		exit(1);
	}
}

/**
 * read_sysctl() - a number from a file of /proc/sys
 * @path: the file
 * @def: the default
 *
 * Return: the number, or @def when the file cannot be read.
 */
u64 read_sysctl(const char *path, u64 def)
{
	FILE *f = fopen(path, "re");
	unsigned long long v;

	if (!f)
		return def;
	if (fscanf(f, "%llu", &v) != 1)
		v = def;
	fclose(f);
	return v;
}

/**
 * open_event() - a task-clock event of the calling thread
 * @r: its ring buffer, mapped
 *
 * Exits 2 when the event cannot be opened or mapped.
 *
 * Return: the event's file descriptor.
 */
int open_event(struct perf_ring *r)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = opt.period_ns;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.exclude_callchain_kernel = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		die(2, "perf_event_open: %s: cannot sample (-N runs without perf)",
		    strerror(errno));
	if (perf_ring_map(r, fd, RING_PAGES))
		die(2, "mmap of the ring buffer: %s", strerror(errno));
	return fd;
}

/**
 * open_perf() - samples the main thread, its data_head watched by the leaf
 */
void open_perf(void)
{
	max_entries = read_sysctl("/proc/sys/kernel/perf_event_max_stack", 127) + 1;
	perf_fd = open_event(&ring);
	leaf_set_ring((volatile u64 *)&ring.meta->data_head);
}
