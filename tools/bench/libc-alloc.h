/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * glibc's own allocator entry points: the benchmark wraps malloc() and
 * friends to count allocations and forwards to these.
 */
#ifndef _SFRAME_BENCH_LIBC_ALLOC_H
#define _SFRAME_BENCH_LIBC_ALLOC_H

#include <stddef.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);

#endif
