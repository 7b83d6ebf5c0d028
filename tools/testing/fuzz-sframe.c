// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: open + validate + lookups + dump of arbitrary bytes,
 * read as one section and as a sequence of sections (sframe_open_part()).
 *
 * The first 8 input bytes choose the section address, the open options and
 * the block size of a lookup index that is built and used too;
 * the rest is the section.  Every function of the core must return an error
 * or an answer on any input: ASan/UBSan turn any out-of-bounds read,
 * overflow or hang (libFuzzer's -timeout) into a finding.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sframe/sframe.h>
#include "../dump.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct sframe_section sec;
	struct sframe_rule rule;
	struct sframe_fde fde;
	uint64_t addr = 0, off, next;
	uint32_t i;

	if (!null)
		null = fopen("/dev/null", "w");
	if (size >= 8) {
		memcpy(&addr, data, 8);
		data += 8;
		size -= 8;
	}
	/* The bytes as a sequence of sections (a module's .sframe). */
	for (off = 0; off < size; off = next) {
		if (sframe_open_part(&sec, data, size, addr & ~1ULL, off,
				     addr & 1, &next))
			break;
		if (!sframe_validate(&sec, NULL, NULL) && sec.num_fdes &&
		    !sframe_get_fde(&sec, 0, &fde))
			sframe_find(&sec, fde.start, &rule);
	}
	if (sframe_open(&sec, data, size, addr & ~1ULL, addr & 1))
		return 0;
	if (!sframe_validate(&sec, NULL, NULL))
		sframe_dump(null, &sec, ".sframe");
	for (i = 0; i < sec.num_fdes && i < 256; i++) {
		if (sframe_get_fde(&sec, i, &fde))
			continue;
		sframe_find(&sec, fde.start, &rule);
		sframe_find(&sec, fde.start + fde.size / 2, &rule);
		sframe_find(&sec, fde.start + fde.size - 1, &rule);
		sframe_dump_lookup(null, &sec, fde.start + 1);
	}
	sframe_find(&sec, addr, &rule);

	/* The same lookups through a lookup index, when it fits. */
	{
		static uint32_t mem[1 << 16];
		uint32_t nwords;

		if (!sframe_index_size(&sec, 4 + (addr >> 60), &nwords) &&
		    nwords <= ARRAY_SIZE(mem) &&
		    !sframe_index_build(&sec, 4 + (addr >> 60), mem, nwords)) {
			for (i = 0; i < sec.num_fdes && i < 256; i++) {
				if (sframe_get_fde(&sec, i, &fde))
					continue;
				sframe_find(&sec, fde.start, &rule);
				sframe_find(&sec, fde.start + fde.size - 1, &rule);
			}
			sframe_find(&sec, addr, &rule);
		}
	}
	return 0;
}
