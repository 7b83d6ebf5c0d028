/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tiny test harness for the host tests: one "PASS: name" or "FAIL: name"
 * line per test case, details on stderr.
 */
#ifndef _SFRAME_TEST_HARNESS_H
#define _SFRAME_TEST_HARNESS_H

#include <stdarg.h>
#include <stdio.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static int t_pass, t_fail, t_case_failed;
static char t_case[256];

static inline void t_begin(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t_case, sizeof(t_case), fmt, ap);
	va_end(ap);
	t_case_failed = 0;
}

static inline void t_end(void)
{
	if (t_case_failed) {
		t_fail++;
		printf("FAIL: %s\n", t_case);
	} else {
		t_pass++;
		printf("PASS: %s\n", t_case);
	}
	fflush(stdout);
}

/* Report at most a few details per case; count every failure. */
#define T_CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		if (t_case_failed++ < 5) {				\
			fprintf(stderr, "  %s: ", t_case);		\
			fprintf(stderr, __VA_ARGS__);			\
			fprintf(stderr, "\n");				\
		}							\
	}								\
} while (0)

#endif
