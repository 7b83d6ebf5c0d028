// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-modload KO NAME N: load the module KO (named NAME once loaded)
 * and unload it again, N times, and report what finit_module() took, the
 * part of it the kernel spent registering the module's SFrame (debugfs
 * sframe/module_load_ns: sframe_module_init(), summed), and what the
 * check of the module's SFrame off the load path took after it
 * (sframe/module_check_ns; each module stays loaded for a few ms, as a
 * loaded module does, so that the check is done before it goes).  For the
 * benchmark stage of the boot tests; judges nothing.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LOAD_NS	"/sys/kernel/debug/sframe/module_load_ns"
#define CHECK_NS "/sys/kernel/debug/sframe/module_check_ns"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int read_u64(const char *path, unsigned long long *val)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%llu", val) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned long long t0, load = 0, s0, s1, c0 = 0, c1 = 0;
	const struct timespec stay = { .tv_nsec = 5000000 };
	int i, n, fd;

	n = argc == 4 ? atoi(argv[3]) : 0;
	if (n <= 0) {
		fprintf(stderr, "usage: sframe-modload KO NAME N\n");
		return 2;
	}
	if (read_u64(LOAD_NS, &s0)) {
		perror(LOAD_NS);
		return 1;
	}
	/* (a kernel that checks modules at load has no module_check_ns) */
	read_u64(CHECK_NS, &c0);
	for (i = 0; i < n; i++) {
		fd = open(argv[1], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			perror(argv[1]);
			return 1;
		}
		t0 = now_ns();
		if (syscall(SYS_finit_module, fd, "", 0)) {
			perror("finit_module");
			return 1;
		}
		load += now_ns() - t0;
		close(fd);
		nanosleep(&stay, NULL);
		if (syscall(SYS_delete_module, argv[2], O_NONBLOCK)) {
			perror("delete_module");
			return 1;
		}
	}
	if (read_u64(LOAD_NS, &s1)) {
		perror(LOAD_NS);
		return 1;
	}
	read_u64(CHECK_NS, &c1);
	printf("module load: %s: %d loads: finit_module %llu ns each, ", argv[2], n,
	       load / n);
	printf("of which SFrame registration %llu ns (%.1f%%) (goal <= 5%%); ",
	       (s1 - s0) / n,
	       load ? 100.0 * (s1 - s0) / load : 0.0);
	printf("its check off the load path %llu ns per load\n", (c1 - c0) / n);
	return 0;
}
