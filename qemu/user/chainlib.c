// SPDX-License-Identifier: GPL-2.0-only
/*
 * The library's part of the sampler's workload (see chain.h): w_b, w_c and
 * w_leaf. Built into libchain.so for the dynamic build, where w_b's call of
 * w_c goes through the library's PLT (w_c is preemptible).
 */
#include "chain.h"

static chain_fn_t chain_callback;

void chain_set_callback(chain_fn_t fn)
{
	chain_callback = fn;
}

/*
 * The leaf: a short loop, no calls. Its one stack slot makes gcc give it a
 * frame record with -fno-omit-frame-pointer (x86_64 gcc drops the frame
 * pointer of a leaf that does not touch the stack, whatever the flags); with
 * -fomit-frame-pointer it has no frame of its own (x86_64: the slot is in
 * the red zone) or a small one (arm64).
 */
CHAIN_FN unsigned long w_leaf(unsigned long x)
{
	volatile unsigned long slot = x;
	unsigned long r = x;
	int i;

	for (i = 0; i < 3; i++) {
		r = r * 6364136223846793005UL + 1442695040888963407UL;
		asm volatile("" : "+r"(r));	/* a loop, not a vector op */
	}
	return r ^ slot;
}

/*
 * A variable-length array: the stack pointer moves by a run-time amount,
 * so gcc gives this function a frame base register (rbp on x86_64, x29
 * on arm64) even with -fomit-frame-pointer, and the CFA rule of its body
 * is based on that register. The VLA is the point here.
 */
CHAIN_FN unsigned long w_c(unsigned long x)
{
	unsigned long n = 2 + (x & 3);
	unsigned long v[n];
	unsigned long r = 0, i;

	for (i = 0; i < n; i++)
		v[i] = x + i;
	asm volatile("" : : "r"(v) : "memory");
	for (i = 0; i < 2; i++) {
		r += chain_callback(v[i] ^ r);
		NO_TAIL();
	}
	return r;
}

/*
 * Six values live across the calls: gcc saves and uses all the callee-saved
 * registers it needs for them (rbx, rbp, r12-r15 on x86_64; x19-x24 on arm64).
 */
CHAIN_FN unsigned long w_b(unsigned long x)
{
	unsigned long a = x * 3, b = x ^ 0x55, c = x + 7;
	unsigned long d = x >> 1, e = x * 5 + 1, f = ~x;
	int i;

	for (i = 0; i < 2; i++) {
		unsigned long r = w_c(a + i);

		NO_TAIL();
		a += r ^ b;
		b += r * c;
		c ^= r + d;
		d += e;
		e ^= f + r;
		f += a;
	}
	return a ^ b ^ c ^ d ^ e ^ f;
}
