/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The binary search of the user-space programs (sframe-verify and
 * the user-space sampler): the first element of a sorted array past a key.
 */
#ifndef _SFRAME_TOOLS_SEARCH_H
#define _SFRAME_TOOLS_SEARCH_H

#include <stddef.h>

/**
 * search_first() - the first element of a sorted array past a key
 * @base: the array; @past is false for its first elements, true for the rest
 * @n: number of elements
 * @size: size of an element
 * @key: passed to @past
 * @past: is the element past @key?
 *
 * Return: the index of the first element past @key, or @n if none is.
 */
static inline size_t search_first(const void *base, size_t n, size_t size,
				  const void *key,
				  int (*past)(const void *elem, const void *key))
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (past((const char *)base + mid * size, key))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

#endif
