/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Accessor of kernel/core_uaccess.c: section bytes in user memory.
 *
 * Every section the user-memory core sees is the first member of a struct
 * sframe_user_cursor (kernel/unwind_user.c makes them), whose small window
 * holds the last bytes copied from the section: the header, a stretch of
 * the FDE array or a function's rows are usually one copy, not one per
 * field.  The window is a snapshot: the process may change its section at
 * any time, and the core bounds-checks every read against the section
 * size whatever the bytes say, so a stale or forged window can only give a
 * wrong answer.
 *
 * copy_from_user_nofault() checks access_ok(), never sleeps and never
 * takes a page fault (a page not present is a failed read), so the core
 * can run in any context, perf's NMI handler included.
 *
 * Cost.  A section is the process's to forge, and a well-formed one can
 * still make a lookup read all of it (FDEs not sorted, a function with
 * millions of rows, v1 PCMASK rows that are always read in full).  Every
 * copy from user memory spends one of @budget: when none is left the copy
 * is refused (-SFRAME_E_FAULT, as any failed read, with @spent set so the
 * caller knows why).  Copies served from the window are free.  The walk
 * sets @budget before each lookup (kernel/unwind_user.c): that is what
 * bounds a sample's work, whatever the section holds.
 */
#ifndef _SFRAME_USER_ACCESS_H
#define _SFRAME_USER_ACCESS_H

#include <linux/minmax.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/* Bytes copied at once from a user section. */
#define SFRAME_USER_WINDOW	128

/**
 * struct sframe_user_cursor - a user section and its read window
 * @sec: the section, as the core sees it (must stay the first member)
 * @base: user address the window belongs to
 * @limit: bytes readable at @base (the section's upper bound)
 * @win_off: section offset of @win
 * @win_len: valid bytes in @win (0: empty)
 * @budget: copies from user memory the current lookup may still make
 * @spent: a copy was refused because @budget was 0
 * @win: the last bytes copied
 */
struct sframe_user_cursor {
	struct sframe_section sec;
	unsigned long base, limit;
	u32 win_off, win_len;
	u32 budget;
	bool spent;
	u8 win[SFRAME_USER_WINDOW];
};

static __always_inline int sframe_access_copy(const struct sframe_section *sec,
					      u32 off, void *dst, u32 len)
{
	/* @sec is the first member of a cursor (see above). */
	struct sframe_user_cursor *c = (struct sframe_user_cursor *)sec;
	const u8 __user *src = (__force const u8 __user *)sec->data;
	u32 n;

	if (c->win_len && off >= c->win_off && len <= c->win_len &&
	    off - c->win_off <= c->win_len - len) {
		memcpy(dst, c->win + (off - c->win_off), len);
		return 0;
	}
	if (unlikely(!c->budget)) {
		c->spent = true;
		return -SFRAME_E_FAULT;
	}
	c->budget--;
	if (len <= SFRAME_USER_WINDOW && off < c->limit) {
		n = min_t(unsigned long, SFRAME_USER_WINDOW, c->limit - off);
		if (n >= len && !copy_from_user_nofault(c->win, src + off, n)) {
			c->win_off = off;
			c->win_len = n;
			memcpy(dst, c->win, len);
			return 0;
		}
		c->win_len = 0;
	}
	/* The window ran into a page that is not there: just these bytes. */
	return copy_from_user_nofault(dst, src + off, len) ? -SFRAME_E_FAULT : 0;
}

#endif /* _SFRAME_USER_ACCESS_H */
