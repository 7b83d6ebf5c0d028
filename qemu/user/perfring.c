// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading the ring buffer of a perf_event_open() event (perfring.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perfring.h"

int perf_ring_open_self(struct perf_ring *r, uint64_t clock, uint64_t period_ns,
			unsigned long pages)
{
	struct perf_event_attr attr;
	int fd, err;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = clock;
	attr.sample_period = period_ns;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.exclude_callchain_kernel = 1;
	attr.disabled = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (perf_ring_map(r, fd, pages)) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int perf_ring_map(struct perf_ring *r, int fd, unsigned long pages)
{
	uint64_t page = sysconf(_SC_PAGESIZE);
	void *mem;

	memset(r, 0, sizeof(*r));
	r->map_len = (pages + 1) * page;
	mem = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		return -1;
	r->meta = mem;
	r->data = (unsigned char *)mem +
		  (r->meta->data_offset ? r->meta->data_offset : page);
	r->size = r->meta->data_size ? r->meta->data_size : pages * page;
	r->rec = malloc(r->size);
	if (!r->rec) {
		munmap(mem, r->map_len);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void perf_ring_unmap(struct perf_ring *r)
{
	munmap(r->meta, r->map_len);
	free(r->rec);
	r->meta = NULL;
	r->rec = NULL;
}

/* len bytes at data offset off, wrapping around the end */
static void ring_copy(const struct perf_ring *r, uint64_t off, void *dst, size_t len)
{
	uint64_t first = r->size - off;

	if (len <= first) {
		memcpy(dst, r->data + off, len);
	} else {
		memcpy(dst, r->data + off, first);
		memcpy((unsigned char *)dst + first, r->data, len - first);
	}
}

/*
 * Read data_head, then rmb, read the records, then mb before data_tail is
 * written (include/uapi/linux/perf_event.h).
 */
int perf_ring_drain(struct perf_ring *r, perf_ring_fn fn, void *arg)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_RELAXED);
	uint64_t tail = r->meta->data_tail;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);	/* smp_rmb() */
	while (head - tail >= sizeof(struct perf_event_header)) {
		uint64_t off = tail & (r->size - 1);
		struct perf_event_header hdr;
		const unsigned char *p;

		/* 8-byte aligned records never wrap a header; others might */
		ring_copy(r, off, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail) {
			r->bad_size = hdr.size;
			return -1;
		}
		if (off + hdr.size <= r->size) {
			p = r->data + off;
		} else {			/* wraps around the end */
			ring_copy(r, off, r->rec, hdr.size);
			p = r->rec;
		}
		fn(arg, &hdr, p);
		tail += hdr.size;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* smp_mb() */
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELAXED);
	return 0;
}
