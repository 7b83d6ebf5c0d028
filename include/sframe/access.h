/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SFrame accessor layer: the only way the core reads section bytes.
 *
 * The accessor is chosen at compile time.  By default the section lives in
 * memory the current context can read directly (kernel image, module, or
 * a host buffer).  A build that must read a section in user memory defines
 * SFRAME_ACCESS_HEADER to a header providing its own sframe_access_copy()
 * (fault-tolerant, returning -SFRAME_E_FAULT), and compiles what it needs of
 * lib/sframe/ again under other function names: the decoding logic is
 * shared, line for line.
 *
 * The core checks bounds before every call: the accessor only moves bytes.
 * sframe_access_prefetch() is a hint that reads nothing.
 */
#ifndef _SFRAME_ACCESS_H
#define _SFRAME_ACCESS_H

#include "sframe.h"

#ifdef SFRAME_ACCESS_HEADER
#include SFRAME_ACCESS_HEADER
/*
 * Sections in user memory are not prefetched: the reads a prefetch needs
 * would cost copies from user memory.
 */
#define SFRAME_ACCESS_PREFETCH	0
#define sframe_access_prefetch(sec, off)	((void)(sec), (void)(off))
#else
static __always_inline int sframe_access_copy(const struct sframe_section *sec,
					      u32 off, void *dst, u32 len)
{
	sframe_memcpy(dst, sec->data + off, len);
	return 0;
}

/*
 * Start loading the cache line of section offset @off.  A hint: it never
 * faults, whatever the offset, and the core bounds-checks the read that
 * follows as any other.
 */
#define SFRAME_ACCESS_PREFETCH	1
static __always_inline void sframe_access_prefetch(const struct sframe_section *sec,
						   u32 off)
{
	__builtin_prefetch(sec->data + off);
}
#endif

#endif /* _SFRAME_ACCESS_H */
