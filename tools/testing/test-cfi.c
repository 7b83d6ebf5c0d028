// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the CFI reader of sframe-gen (tools/gen/cfi.c) on hostile
 * input: a real .eh_frame truncated at every byte, with every single bit
 * flipped (in its first 2 KiB), and with random bytes overwritten.  Each
 * must give rows or a one-line error, never a crash, a hang or a read
 * outside the buffer (run under ASan/UBSan).
 *
 *   test-cfi ELF...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "../gen/cfi.h"
#include "../lib/elf.h"

static int run_one(const struct cfi_abi *abi, const uint8_t *data, size_t size,
		   uint64_t addr)
{
	struct cfi_fde *fdes;
	size_t n;
	char err[200];
	int rc;

	rc = cfi_read(abi, data, size, addr, 1, &fdes, &n, err, sizeof(err));
	if (!rc)
		cfi_free(fdes, n);
	else if (!err[0] || strchr(err, '\n'))
		return -2;		/* an error must be one line */
	return rc;
}

static void test_file(const char *path)
{
	struct cfi_abi abi = { .addr_size = 8 };
	struct elf_file f;
	const char *why;
	const uint8_t *data;
	uint8_t *buf;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t size, i;
	int idx, bad = 0, ok = 0, errs = 0, r;

	t_begin("cfi: %s: truncations, bit flips, random bytes", path);
	if (elf_file_open(&f, path, &why)) {
		T_CHECK(0, "%s", why);
		t_end();
		return;
	}
	abi.machine = f.machine;
	abi.be = f.be;
	abi.sp = f.machine == ELF_EM_X86_64 ? 7 : 31;
	abi.fp = f.machine == ELF_EM_X86_64 ? 6 : 29;
	abi.ra = f.machine == ELF_EM_X86_64 ? 16 : 30;
	idx = elf_sec_find(&f, ".eh_frame");
	data = idx >= 0 ? elf_sec_data(&f, idx) : NULL;
	T_CHECK(data, "no .eh_frame");
	if (!data)
		goto out;
	size = f.secs[idx].size;
	T_CHECK(!run_one(&abi, data, size, f.secs[idx].vaddr),
		"the pristine section fails");
	buf = malloc(size);
	for (i = 0; i <= size; i++) {
		/* a fresh allocation of exactly i bytes: ASan sees overruns */
		uint8_t *t = malloc(i ? i : 1);

		memcpy(t, data, i);
		r = run_one(&abi, t, i, f.secs[idx].vaddr);
		bad += r == -2;
		ok += !r;
		errs += r == -1;
		free(t);
	}
	for (i = 0; i < 8 * size && i < 8 * 2048; i++) {
		memcpy(buf, data, size);
		buf[i / 8] ^= 1 << (i % 8);
		r = run_one(&abi, buf, size, f.secs[idx].vaddr);
		bad += r == -2;
		ok += !r;
		errs += r == -1;
	}
	for (i = 0; i < 2000; i++) {
		unsigned int k;

		memcpy(buf, data, size);
		for (k = 0; k < 4; k++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			buf[seed % size] = seed >> 32;
		}
		r = run_one(&abi, buf, size, f.secs[idx].vaddr);
		bad += r == -2;
		ok += !r;
		errs += r == -1;
	}
	free(buf);
	T_CHECK(!bad, "%d errors without a one-line message", bad);
	T_CHECK(errs > 0, "no variant was rejected");
	fprintf(stderr, "  %s: %d variants read, %d rejected\n", path, ok, errs);
out:
	elf_file_close(&f);
	t_end();
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		test_file(argv[i]);
	fprintf(stderr, "test-cfi: %d passed, %d failed\n", t_pass, t_fail);
	return t_fail != 0;
}
