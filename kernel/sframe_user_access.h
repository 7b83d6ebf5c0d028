/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Accessor of kernel/sframe_user.c: section bytes in user memory.
 *
 * @sec->data holds the section's user address.  copy_from_user_nofault()
 * checks access_ok(), never sleeps and never takes a page fault (a page
 * not present is a failed read), so the core can run in any context,
 * perf's NMI handler included.
 */
#ifndef _SFRAME_USER_ACCESS_H
#define _SFRAME_USER_ACCESS_H

#include <linux/uaccess.h>

static __always_inline int sframe_access_copy(const struct sframe_section *sec,
					      u32 off, void *dst, u32 len)
{
	const void __user *src = (__force const void __user *)(sec->data + off);

	return copy_from_user_nofault(dst, src, len) ? -SFRAME_E_FAULT : 0;
}

#endif /* _SFRAME_USER_ACCESS_H */
