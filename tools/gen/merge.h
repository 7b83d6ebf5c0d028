/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sframe-gen --merge (merge.c): the SFrame sections `ld -r`
 * concatenated into .sframe_cat, as one .sframe in a copy of the object.
 */
#ifndef _SFRAME_TOOLS_SFRAME_MERGE_H
#define _SFRAME_TOOLS_SFRAME_MERGE_H

int sframe_merge(const char *path, const char *out, int quiet);

#endif
