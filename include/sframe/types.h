/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fixed-width types for the SFrame core.  Inside the kernel they come from
 * <linux/types.h>; in userspace from the freestanding <stdint.h> and
 * <stdbool.h>, so the core builds with -ffreestanding -nostdlib.
 */
#ifndef _SFRAME_TYPES_H
#define _SFRAME_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#define sframe_memcpy(d, s, n)	memcpy(d, s, n)
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#define sframe_memcpy(d, s, n)	__builtin_memcpy(d, s, n)
#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#endif

#endif /* _SFRAME_TYPES_H */
