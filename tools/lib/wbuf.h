/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A growing byte buffer that stores integers in a chosen byte order, for
 * the layout of SFrame sections (tools/lib/layout.c).
 */
#ifndef _SFRAME_TOOLS_WBUF_H
#define _SFRAME_TOOLS_WBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/**
 * struct wbuf - bytes being written
 * @p: the bytes (malloc()ed)
 * @len: bytes written
 * @cap: bytes allocated
 * @be: store big-endian
 * @oom: an allocation failed (the bytes since are lost)
 */
struct wbuf {
	uint8_t *p;
	size_t len, cap;
	int be;
	int oom;
};

/* Append the @n low bytes of @v. */
static inline void put(struct wbuf *w, uint64_t v, int n)
{
	int i;

	if (w->len + n > w->cap) {
		size_t cap = (w->cap + n) * 2;
		uint8_t *p = realloc(w->p, cap);

		if (!p) {
			w->oom = 1;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	for (i = 0; i < n; i++)
		w->p[w->len + i] = v >> (w->be ? 8 * (n - 1 - i) : 8 * i);
	w->len += n;
}

/* Overwrite @n bytes at @at (written before). */
static inline void put_at(struct wbuf *w, size_t at, uint64_t v, int n)
{
	size_t save = w->len;

	w->len = at;
	put(w, v, n);
	w->len = save;
}

#endif
