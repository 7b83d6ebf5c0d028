// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-maps: which text mappings keep an SFrame entry.
 *
 *   sframe-maps [DEBUGFS]
 *
 * The kernel notes a text mapping's SFrame section when the mapping is
 * made and forgets it when the text goes or may change
 * (kernel/unwind_user.c); debugfs sframe/user_maps lists the reading
 * process's entries.  This program maps its own text again (its ELF
 * file's executable PT_LOAD, from /proc/self/exe) and checks the list
 * after each change:
 *
 *  - mapped read-only and executable: listed;
 *  - mprotect() to the same protection: still listed;
 *  - arm64: mprotect() adding PROT_BTI, as the dynamic loader does to
 *    every BTI-marked object: still listed (skipped where the CPU or the
 *    kernel has no BTI);
 *  - made writable: no longer listed;
 *  - mapped writable and executable from the start: never listed;
 *  - MADV_DONTFORK, then fork(): listed in the parent, not in the child,
 *    which has a hole there (its own text still listed);
 *  - munmap(): no longer listed.
 *
 * One line per check ("ok: ...", "FAIL: ...", "skip: ..."), then a count.
 * Exit 0 if every check passed, 1 if one failed, 2 if the list cannot be
 * read (no debugfs, or a kernel without it).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PROT_BTI
#define PROT_BTI	0x10	/* arm64 */
#endif

static const char *list = "/sys/kernel/debug/sframe/user_maps";
static int failed, passed;

/* Is an entry's text at @addr?  -1 if the list cannot be read. */
static int listed(const void *addr)
{
	unsigned long a = (unsigned long)addr, lo, hi;
	char line[256];
	int found = 0;
	FILE *f;

	f = fopen(list, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= a && a < hi)
			found = 1;
	fclose(f);
	return found;
}

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
	if (ok)
		passed++;
	else
		failed++;
}

/* This program's executable PT_LOAD: its page-aligned file range. */
static int text_segment(int fd, off_t *off, size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int i;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_phentsize != sizeof(ph))
		return -1;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			return -1;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		*off = ph.p_offset & ~(page - 1);
		*len = ph.p_offset + ph.p_filesz - *off;
		return 0;
	}
	return -1;
}

static void *map_text(int fd, off_t off, size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE, fd, off);

	if (p == MAP_FAILED) {
		perror("sframe-maps: mmap");
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	const int rx = PROT_READ | PROT_EXEC;
	void *a, *b, *c, *d;
	int fd, st, r;
	size_t len;
	off_t off;
	pid_t pid;

	if (argc > 1)
		list = argv[1];
	r = listed((const void *)main);
	if (r < 0) {
		fprintf(stderr, "sframe-maps: %s: %s\n", list, strerror(errno));
		return 2;
	}
	check(r == 1, "own text listed");

	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0 || text_segment(fd, &off, &len)) {
		fprintf(stderr, "sframe-maps: no executable PT_LOAD in /proc/self/exe\n");
		return 1;
	}

	a = map_text(fd, off, len, rx);
	check(listed(a) == 1, "text mapped again read-only: listed");
	check(!mprotect(a, len, rx) && listed(a) == 1,
	      "mprotect() to the same protection: still listed");
#if defined(__aarch64__)
	if (mprotect(a, len, rx | PROT_BTI)) {
		printf("skip: mprotect(PROT_BTI): %s (no BTI here)\n",
		       strerror(errno));
	} else {
		check(listed(a) == 1, "mprotect() adding PROT_BTI: still listed");
	}
#endif
	check(!mprotect(a, len, rx | PROT_WRITE) && listed(a) == 0,
	      "made writable: no longer listed");
	munmap(a, len);

	b = map_text(fd, off, len, rx | PROT_WRITE);
	check(listed(b) == 0, "mapped writable and executable: not listed");
	munmap(b, len);

	c = map_text(fd, off, len, rx);
	check(!madvise(c, len, MADV_DONTFORK) && listed(c) == 1,
	      "MADV_DONTFORK: listed in the parent");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* the child: a hole where c was, its own text as before */
		_exit((listed(c) == 0 ? 0 : 1) |
		      (listed((const void *)main) == 1 ? 0 : 2));
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) {
		check(0, "fork(): the child's list");
	} else {
		check(!(WEXITSTATUS(st) & 1),
		      "MADV_DONTFORK: not listed in the child");
		check(!(WEXITSTATUS(st) & 2), "the child's own text listed");
	}
	munmap(c, len);

	d = map_text(fd, off, len, rx);
	check(listed(d) == 1 && !munmap(d, len) && listed(d) == 0,
	      "munmap(): no longer listed");
	close(fd);

	printf("sframe-maps: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
