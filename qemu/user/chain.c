// SPDX-License-Identifier: GPL-2.0-only
/*
 * The executable's part of the sampler's workload (see chain.h): w_outer,
 * w_a and w_d. CPU-bound, little work per call, so that a good share of the
 * samples land in prologues, epilogues and around call sites.
 */
#include "chain.h"

volatile int chain_stop;
volatile unsigned long chain_sink;

/*
 * Called back from w_c through a function pointer (in libchain.so for the
 * dynamic build). Its last call would be a tail call without NO_TAIL().
 */
CHAIN_FN unsigned long w_d(unsigned long x)
{
	unsigned long r;

	r = w_leaf(x);
	NO_TAIL();
	r = w_leaf(r ^ x);
	NO_TAIL();
	return r;
}

/* A big frame: 4 KB of locals below the return address. */
CHAIN_FN unsigned long w_a(unsigned long x)
{
	unsigned long buf[512];
	unsigned long r = x;
	int i;

	for (i = 0; i < 3; i++) {
		buf[(x + i) & 511] = r;
		r += w_b(r + i);
		NO_TAIL();
	}
	/* the array escapes: its stores and its frame stay */
	asm volatile("" : : "r"(buf) : "memory");
	return r ^ buf[x & 511];
}

/* Runs the chain until chain_stop is set (the sampler's child is killed). */
CHAIN_FN unsigned long w_outer(void)
{
	unsigned long x = 1;

	chain_set_callback(w_d);
	while (!chain_stop) {
		x = w_a(x);
		NO_TAIL();
		chain_sink = x;
	}
	return x;
}
