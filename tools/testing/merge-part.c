// SPDX-License-Identifier: GPL-2.0-only
/*
 * Objects for the sframe-gen --merge test (run-host-tests.sh): built with
 * -DPART=1, 2, 3 (functions in .text and in another text section) and
 * -DPART=0 (main), each with gas's SFrame, then linked by `ld -r`.
 */
#define CAT(a, b)	a##b
#define NAME(a, b)	CAT(a, b)

#include "merge-part.h"

#if PART == 0
int sink(int x)
{
	return x + 1;
}

int main(void)
{
	return sink(-1);
}
#else
__attribute__((noinline)) int NAME(loop_, PART)(int x)
{
	int a[8], i;

	for (i = 0; i < 8; i++)
		a[i] = sink(x + i);
	return a[x & 7] + sink(a[1]);
}

__attribute__((noinline, section(".text.other"))) int NAME(other_, PART)(int x)
{
	return sink(x) * 3 + sink(x + 1);
}

__attribute__((noinline)) int NAME(after_, PART)(int x)
{
	return NAME(loop_, PART)(x) + NAME(other_, PART)(x);
}
#endif
