/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading the ring buffer of a perf_event_open() event, as
 * include/uapi/linux/perf_event.h asks (shared by the sampler and
 * sframe-hostile).
 */
#ifndef PERFRING_H
#define PERFRING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct perf_ring {
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t size;			/* data bytes, a power of two */
	unsigned char *rec;		/* a record copied out when it wraps */
	size_t map_len;
	unsigned int bad_size;		/* perf_ring_drain() -1: the bad size */
};

/* Called for every record; rec (hdr->size bytes) is valid during the call. */
typedef void (*perf_ring_fn)(void *arg, const struct perf_event_header *hdr,
			     const unsigned char *rec);

/*
 * A sampling event on the calling thread, created disabled: every
 * @period_ns of @clock (PERF_COUNT_SW_TASK_CLOCK or PERF_COUNT_SW_CPU_CLOCK;
 * a period, not a frequency: the kernel lowers perf_event_max_sample_rate
 * when its sampling interrupts take long, as on KASAN kernels under TCG,
 * and a frequency above it is EINVAL), the IP and the user callchain, in
 * a ring of @pages data pages mapped into @r.  The event's fd, or -1
 * (errno).
 */
int perf_ring_open_self(struct perf_ring *r, uint64_t clock, uint64_t period_ns,
			unsigned long pages);

/* Maps the meta page and @pages data pages of event @fd. 0, or -1 (errno). */
int perf_ring_map(struct perf_ring *r, int fd, unsigned long pages);
void perf_ring_unmap(struct perf_ring *r);

/*
 * Hands every record between data_tail and data_head to @fn, then moves
 * data_tail past them. -1 without consuming anything more when a record's
 * size is below a header or beyond data_head (r->bad_size), else 0.
 */
int perf_ring_drain(struct perf_ring *r, perf_ring_fn fn, void *arg);

/* data_head as the kernel last wrote it (no barrier: for polling). */
static inline uint64_t perf_ring_head(const struct perf_ring *r)
{
	return __atomic_load_n(&r->meta->data_head, __ATOMIC_RELAXED);
}

#endif /* PERFRING_H */
