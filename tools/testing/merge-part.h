/* SPDX-License-Identifier: GPL-2.0-only */
/* The function every part of merge-part.c calls (defined in part 0). */
#ifndef _SFRAME_TESTING_MERGE_PART_H
#define _SFRAME_TESTING_MERGE_PART_H

int sink(int x);

#endif
