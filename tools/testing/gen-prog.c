// SPDX-License-Identifier: GPL-2.0-only
/*
 * A small program for sframe-gen's end-to-end host test: built without
 * SFrame (clang, or gcc without --gsframe), given SFrame from its CFI by
 * `sframe-gen --object`, linked by GNU ld (which makes PT_GNU_SFRAME) and
 * run.  tools/testing/run-host-tests.sh checks the linked .sframe against
 * the program's CFI at every byte.  -DGEN_NOLIBC: without a C library
 * (big-endian AArch64, whose C library the machine does not have), linked
 * with -nostdlib, not run.
 */
#ifndef GEN_NOLIBC
#include <stdio.h>
#endif

__attribute__((noinline)) int gen_leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int gen_mid(int x)
{
	int a[8], i;

	for (i = 0; i < 8; i++)
		a[i] = gen_leaf(x + i);
	return a[x & 7];
}

#ifdef GEN_NOLIBC
int gen_result;

void _start(void)
{
	gen_result = gen_mid(gen_result);
	for (;;)
		;
}
#else
int main(int argc, char **argv)
{
	printf("%d\n", gen_mid(argc));
	return 0;
}
#endif
