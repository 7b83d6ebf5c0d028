// SPDX-License-Identifier: GPL-2.0-only
/*
 * The chain (chain.h) as a plain program for the real perf tool: no
 * sampling of its own, it only runs the chain for a given time.
 *
 *   chain-work-static -t SECONDS          main -> w_outer -> ... -> w_leaf
 *   chain-work-threads -t SECONDS -j N    N threads, each
 *                                         w_thread -> w_outer -> ... -> w_leaf
 *
 * With -j 0 (the default unless built with -DWORK_THREADS=N) main runs
 * w_outer itself; otherwise main only waits and each thread's chain starts
 * at w_thread, the thread's start function. SIGALRM after -t seconds (wall
 * clock) sets chain_stop; every w_outer loop then returns. At exit it
 * prints its own CPU time (all threads) on stderr, for the perf tests'
 * overhead figures:
 *
 *   chain-work: 4 threads, 3.00 s, cpu user 5.812 s sys 0.190 s
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include "chain.h"

#ifndef WORK_THREADS
#define WORK_THREADS	0
#endif

static void on_alarm(int sig)
{
	(void)sig;
	chain_stop = 1;
}

static double tv_secs(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

static int report(int nthreads, double secs)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 1;
	fprintf(stderr, "chain-work: %d threads, %.2f s, cpu user %.3f s sys %.3f s\n",
		nthreads, secs, tv_secs(&ru.ru_utime), tv_secs(&ru.ru_stime));
	return 0;
}

/* A thread's start function: the root of its chain. */
CHAIN_FN void *w_thread(void *arg)
{
	unsigned long r;

	(void)arg;
	r = w_outer();
	NO_TAIL();
	return (void *)r;
}

int main(int argc, char **argv)
{
	double secs = 2.0;
	int nthreads = WORK_THREADS, c, i;
	struct itimerval it = { 0 };
	struct sigaction sa = { 0 };
	pthread_t *tids = NULL;

	while ((c = getopt(argc, argv, "t:j:")) != -1) {
		switch (c) {
		case 't':
			secs = atof(optarg);
			break;
		case 'j':
			nthreads = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-t SECONDS] [-j THREADS]\n", argv[0]);
			return 2;
		}
	}
	if (secs <= 0 || nthreads < 0 || nthreads > 64) {
		fprintf(stderr, "%s: bad -t or -j\n", argv[0]);
		return 2;
	}

	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	/* wall-clock time: the chain is CPU-bound, threads share the CPUs */
	it.it_value.tv_sec = (long)secs;
	it.it_value.tv_usec = (long)((secs - (long)secs) * 1e6);
	setitimer(ITIMER_REAL, &it, NULL);

	if (!nthreads) {
		chain_sink = w_outer();
		NO_TAIL();
		return report(nthreads, secs);
	}
	tids = calloc(nthreads, sizeof(*tids));
	if (!tids)
		return 1;
	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&tids[i], NULL, w_thread, NULL)) {
			fprintf(stderr, "%s: pthread_create failed\n", argv[0]);
			return 1;
		}
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	return report(nthreads, secs);
}
