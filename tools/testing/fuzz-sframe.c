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
#include "../gen/cfi.h"
#include "../lib/dump.h"

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

	/* The same bytes as DWARF CFI, for sframe-gen's reader (both ABIs). */
	{
		static const struct cfi_abi abis[2] = {
			{ .machine = 62, .sp = 7, .fp = 6, .ra = 16, .addr_size = 8 },
			{ .machine = 183, .sp = 31, .fp = 29, .ra = 30, .addr_size = 8 },
		};
		struct cfi_fde *cfi;
		size_t ncfi;
		char err[200];

		if (!cfi_read(&abis[addr & 1], data, size, addr, !(addr & 2),
			      &cfi, &ncfi, err, sizeof(err)))
			cfi_free(cfi, ncfi);
	}

	/*
	 * Validated and decoded into rows in one pass, when it fits: a
	 * section that passes must give the core's answers from its rows.
	 */
	{
		static uint32_t block[1 << 15], func[1 << 15];
		static uint16_t start[1 << 15], id[1 << 15];
		static uint16_t hash[SFRAME_ROWS_HASH_SLOTS];
		static struct sframe_rows_rule rules[SFRAME_ROWS_MAX_RULES];
		struct sframe_rows rows = {
			.start = start, .id = id, .block = block, .rules = rules,
		};
		uint64_t limit = SFRAME_ROWS_ALL;
		uint32_t nrows, nblocks;
		struct sframe_rule r2;

		/* Function starts kept where there is room for them. */
		if (sec.num_fdes <= ARRAY_SIZE(func))
			rows.func = func;
		/* Rows for the lower half of the functions only, at times. */
		if ((addr >> 60 & 1) && sec.num_fdes &&
		    !sframe_get_fde(&sec, sec.num_fdes / 2, &fde))
			limit = fde.start;
		if (!sframe_rows_size(&sec, 4 + (addr >> 61), limit,
				      &nrows, &nblocks) &&
		    nrows <= ARRAY_SIZE(start) && nblocks < ARRAY_SIZE(block) &&
		    !sframe_validate_rows(&sec, 4 + (addr >> 61), limit, &rows,
					  hash)) {
			for (i = 0; i < sec.num_fdes && i < 256; i++) {
				uint64_t pcs[3];
				unsigned int k;

				if (sframe_get_fde(&sec, i, &fde))
					continue;
				pcs[0] = fde.start;
				pcs[1] = fde.start + fde.size / 2;
				pcs[2] = fde.start + fde.size;
				for (k = 0; k < 3; k++) {
					int e1 = sframe_find(&sec, pcs[k], &rule);
					int e2 = sframe_rows_find(&rows, pcs[k], &r2);

					if (e1 != e2)
						__builtin_trap();
					if (!e1 &&
					    (memcmp(&rule.cfa, &r2.cfa, sizeof(r2.cfa)) ||
					     memcmp(&rule.ra, &r2.ra, sizeof(r2.ra)) ||
					     memcmp(&rule.fp, &r2.fp, sizeof(r2.fp)) ||
					     rule.flags != r2.flags ||
					     (rows.func &&
					      rule.func_start != r2.func_start)))
						__builtin_trap();
				}
			}
		}
	}
	return 0;
}
