/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A relocatable object with an SFrame section added, for the sframe tools:
 * sframe-gen --object (SFrame from CFI) and sframe-gen --merge (the
 * sequence `ld -r` concatenated, as one section).
 */
#ifndef _SFRAME_TOOLS_SFRAME_OBJECT_H
#define _SFRAME_TOOLS_SFRAME_OBJECT_H

#include <stddef.h>
#include <stdint.h>
#include <sframe/sframe.h>
#include "../lib/elf.h"

/**
 * struct sframe_object_add - what sframe_object_write() adds
 * @name: the section's name (.rela<name> relocates it)
 * @buf: its bytes, start fields included (they are written as 0)
 * @len: their number
 * @sec: @buf opened with %SFRAME_OPEN_RELOCATED: FDE starts are addresses
 *       of the object's layout (elf_layout_rel())
 * @discard: a section renamed .discard<its name>, which the kernel's
 *           linker scripts drop, and whose section type the new one
 *           takes; or -1 (type SHT_GNU_SFRAME)
 */
struct sframe_object_add {
	const char *name;
	const uint8_t *buf;
	size_t len;
	const struct sframe_section *sec;
	int discard;
};

int sframe_object_write(const struct elf_file *f,
			const struct sframe_object_add *a, const char *out,
			const char **why);

#endif
