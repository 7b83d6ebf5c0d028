// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-verify: sets of half-open address intervals.  A set is built with
 * iv_add() and iv_merge(), which sorts it and merges overlapping or
 * adjacent intervals; the queries take a merged set.
 */
#include <stdlib.h>
#include "../lib/search.h"
#include "verify.h"

/**
 * iv_add() - add an interval to a set (merge before querying it)
 * @s: the set
 * @lo: first address
 * @hi: end (an empty interval is not added)
 */
void iv_add(struct ivals *s, uint64_t lo, uint64_t hi)
{
	if (lo >= hi)
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xrealloc(s->v, s->cap, sizeof(*s->v));
	}
	s->v[s->n].lo = lo;
	s->v[s->n].hi = hi;
	s->n++;
}

static int cmp_ival(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/**
 * iv_merge() - sort a set and merge overlapping or adjacent intervals
 * @s: the set
 */
void iv_merge(struct ivals *s)
{
	size_t i, n = 0;

	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_ival);
	for (i = 1; i < s->n; i++) {
		if (s->v[i].lo <= s->v[n].hi) {
			if (s->v[i].hi > s->v[n].hi)
				s->v[n].hi = s->v[i].hi;
		} else {
			s->v[++n] = s->v[i];
		}
	}
	s->n = n + 1;
}

static int ival_ends_above(const void *elem, const void *key)
{
	return ((const struct ival *)elem)->hi > *(const uint64_t *)key;
}

/* First interval of a merged set ending above @a. */
static size_t iv_first(const struct ivals *s, uint64_t a)
{
	return search_first(s->v, s->n, sizeof(*s->v), &a, ival_ends_above);
}

/**
 * iv_overlap() - bytes of an interval inside a merged set
 * @s: the set
 * @lo: first address
 * @hi: end
 *
 * Return: the number of bytes of [@lo, @hi) in @s.
 */
uint64_t iv_overlap(const struct ivals *s, uint64_t lo, uint64_t hi)
{
	uint64_t n = 0;
	size_t i;

	for (i = iv_first(s, lo); i < s->n && s->v[i].lo < hi; i++) {
		uint64_t a = s->v[i].lo > lo ? s->v[i].lo : lo;
		uint64_t b = s->v[i].hi < hi ? s->v[i].hi : hi;

		n += b - a;
	}
	return n;
}

/**
 * iv_subtract() - the parts of an interval outside a merged set
 * @s: the set
 * @lo: first address
 * @hi: end
 * @out: the parts of [@lo, @hi) outside @s are added to it
 */
void iv_subtract(const struct ivals *s, uint64_t lo, uint64_t hi,
		 struct ivals *out)
{
	size_t i;

	for (i = iv_first(s, lo); i < s->n && s->v[i].lo < hi && lo < hi; i++) {
		if (s->v[i].lo > lo)
			iv_add(out, lo, s->v[i].lo);
		lo = s->v[i].hi;
	}
	if (lo < hi)
		iv_add(out, lo, hi);
}
