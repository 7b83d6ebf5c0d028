// SPDX-License-Identifier: GPL-2.0-only
/*
 * libspin-sframe.so of sframe-mapdio (mapdio.c): a chain of calls whose
 * user callchain can only be complete through SFrame.
 *
 *   spin_entry -> s_a -> s_b -> s_c -> s_leaf
 *
 * Built with -O2 -fomit-frame-pointer -fPIC -shared -nostdlib
 * -Wa,--gsframe -Wl,-e,spin_entry (scripts/build-user.sh): no frame
 * pointers, no C library, no relocations (the program maps the file like a
 * loader and applies none), PT_GNU_SFRAME.  s_a .. s_leaf are static: in
 * .symtab only, where the program finds their ranges; spin_entry is the
 * one exported symbol and the ELF entry point.
 */

/*
 * Every function keeps its own frame: no inlining, no cloning, no
 * interprocedural register allocation, and an empty asm after each call
 * so that no call becomes a tail call (as CHAIN_FN, chain.h).
 */
#define SPIN_FN		__attribute__((noinline, noipa))
#define NO_TAIL()	asm volatile("" ::: "memory")

unsigned long spin_entry(unsigned long iters, unsigned long *ret_addr);

/* Count to @iters in a stack slot: the samples land here. */
static SPIN_FN unsigned long s_leaf(unsigned long iters)
{
	volatile unsigned long i;

	for (i = 0; i < iters; i++)
		;
	return i;
}

static SPIN_FN unsigned long s_c(unsigned long iters)
{
	unsigned long r = s_leaf(iters);

	NO_TAIL();
	return r + 1;
}

static SPIN_FN unsigned long s_b(unsigned long iters)
{
	unsigned long r = s_c(iters);

	NO_TAIL();
	return r + 1;
}

static SPIN_FN unsigned long s_a(unsigned long iters)
{
	unsigned long r = s_b(iters);

	NO_TAIL();
	return r + 1;
}

/*
 * Spin @iters times at the bottom of the chain; *@ret_addr is where this
 * call returns to (the caller's call site, the last return address a
 * complete chain from s_leaf has).
 */
SPIN_FN unsigned long spin_entry(unsigned long iters, unsigned long *ret_addr)
{
	unsigned long r;

	*ret_addr = (unsigned long)__builtin_return_address(0);
	r = s_a(iters);
	NO_TAIL();
	return r;
}
