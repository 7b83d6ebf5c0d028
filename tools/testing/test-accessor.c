// SPDX-License-Identifier: GPL-2.0-only
/*
 * The core compiled with another accessor (as the kernel's user-memory
 * build will be): a read that fails at any point of open, validate,
 * index build or lookup must come back as -SFRAME_E_FAULT, and the same
 * calls with all reads allowed must give the normal answers.
 *
 *   test-accessor FIXTURE...   raw sections X.sframe with X.meta
 */
#define SFRAME_ACCESS_HEADER "fault-access.h"
#include "../../lib/sframe/open.c"
#include "../../lib/sframe/find.c"
#include "../../lib/sframe/index.c"
#include "../../lib/sframe/validate.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "../lib/elf.h"

long fault_budget = -1;
unsigned long fault_reads;

/* All operations on one section; returns the first error. */
static int run_all(const u8 *data, size_t size, u64 addr, u32 *mem, u32 nmem)
{
	struct sframe_section sec;
	struct sframe_rule r;
	struct sframe_fde f;
	u32 nwords, i;
	int err;

	err = sframe_open(&sec, data, size, addr, 0);
	if (!err)
		err = sframe_validate(&sec, NULL, NULL);
	if (!err)
		err = sframe_index_size(&sec, 6, &nwords);
	if (!err)
		err = nwords <= nmem ? sframe_index_build(&sec, 6, mem, nwords) :
				       -SFRAME_E_INDEX;
	for (i = 0; !err && i < sec.num_fdes; i++) {
		err = sframe_get_fde(&sec, i, &f);
		if (!err && f.num_fres)
			err = sframe_find(&sec, f.start + f.size - 1, &r);
	}
	return err;
}

int main(int argc, char **argv)
{
	static u32 mem[1 << 16];
	int i;

	for (i = 1; i < argc; i++) {
		char p[1024], line[256];
		unsigned long total, k, other = 0;
		uint8_t *data;
		size_t size;
		u64 addr = 0;
		FILE *f;
		int err;

		t_begin("every failed read is SFRAME_E_FAULT: %s", argv[i]);
		snprintf(p, sizeof(p), "%s.sframe", argv[i]);
		if (sframe_read_file(p, &data, &size)) {
			T_CHECK(0, "cannot read %s", p);
			t_end();
			continue;
		}
		snprintf(p, sizeof(p), "%s.meta", argv[i]);
		f = fopen(p, "r");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "sh_addr=", 8))
				addr = strtoull(line + 8, NULL, 0);
		if (f)
			fclose(f);

		fault_budget = -1;
		fault_reads = 0;
		err = run_all(data, size, addr, mem, ARRAY_SIZE(mem));
		T_CHECK(!err, "unlimited reads: %s", sframe_errname(err));
		total = fault_reads;
		/* Fail the k-th read, for every k. */
		for (k = 0; k < total; k++) {
			fault_budget = k;
			err = run_all(data, size, addr, mem, ARRAY_SIZE(mem));
			if (err != -SFRAME_E_FAULT && other++ < 3)
				T_CHECK(0, "read %lu failed: got %s", k,
					sframe_errname(err));
		}
		fprintf(stderr, "  %s: %lu reads, each failed once\n", argv[i], total);
		free(data);
		t_end();
	}
	printf("%d passed, %d failed\n", t_pass, t_fail);
	return t_fail ? 1 : 0;
}
