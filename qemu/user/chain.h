/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sampler's workload: a fixed chain of calls that never changes shape,
 * so that every user callchain perf takes of it can be checked exactly.
 *
 *   main -> w_outer -> w_a -> w_b -> w_c -> w_d -> w_leaf
 *   [sampler.c] [chain.c]  [chainlib.c ] [chain.c] [chainlib.c]
 *
 * chainlib.c is libchain.so in the dynamic build: w_a calls w_b through the
 * executable's PLT, w_b calls w_c through the library's own PLT (w_c is
 * preemptible), w_c calls w_d back in the executable through a function
 * pointer and w_d calls w_leaf through the executable's PLT again.
 */
#ifndef CHAIN_H
#define CHAIN_H

/*
 * Every chain function keeps its own frame: no inlining, no cloning, no
 * interprocedural register allocation, and an empty asm after each call so
 * that no call becomes a tail call (the return address stays in the caller).
 */
#define CHAIN_FN	__attribute__((noinline, noipa))
#define NO_TAIL()	asm volatile("" ::: "memory")

/* The chain from the outermost function to the leaf, for the sampler. */
#define CHAIN_NAMES	{ "main", "w_outer", "w_a", "w_b", "w_c", "w_d", "w_leaf" }
#define CHAIN_LEN	7

typedef unsigned long (*chain_fn_t)(unsigned long x);

/* chain.c */
extern volatile int chain_stop;
extern volatile unsigned long chain_sink;
unsigned long w_outer(void);
unsigned long w_a(unsigned long x);
unsigned long w_d(unsigned long x);

/* chainlib.c (libchain.so in the dynamic build) */
void chain_set_callback(chain_fn_t fn);
unsigned long w_b(unsigned long x);
unsigned long w_c(unsigned long x);
unsigned long w_leaf(unsigned long x);

#endif /* CHAIN_H */
