// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-verify: the exceptions file (--exceptions), known gaps that are
 * not findings (see scripts/sframe-verify-exceptions).
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "verify.h"

static struct exception *excs;
static int nexcs;
static const char *exc_path;

static enum cls cls_parse(const char *s)
{
	int i;

	for (i = CLS_UNKNOWN + 1; i < CLS_MAX; i++)
		if (!strcmp(s, cls_names[i]))
			return i;
	return CLS_NONE;
}

/**
 * exc_load() - read an exceptions file (exits on a malformed one)
 * @path: the file
 *
 * Line format: ARCH KIND PATTERN REASON...
 *   ARCH     x86_64, arm64 or "*"
 *   KIND     missing (no SFrame row) or wrong (SFrame disagrees)
 *   PATTERN  symbol glob, section:NAME, range:START..END (linker symbols),
 *            class:CLASS or class:CLASS:SYMBOL-GLOB
 */
void exc_load(const char *path)
{
	uint8_t *buf;
	size_t size;
	char *p, *line, *save = NULL;
	int err, lineno = 0;

	err = sframe_read_file(path, &buf, &size);
	if (err)
		die(path, "%s", strerror(-err));
	exc_path = path;
	buf = xrealloc(buf, size + 1, 1);
	buf[size] = 0;
	if (memchr(buf, 0, size))
		die(path, "NUL byte in the exceptions file");
	for (p = (char *)buf; (line = strtok_r(p, "\n", &save)); p = NULL) {
		char *f[3], *rest = line, *s;
		struct exception *e;
		int i;

		lineno++;
		while (*rest == ' ' || *rest == '\t')
			rest++;
		if (!*rest || *rest == '#')
			continue;
		for (i = 0; i < 3; i++) {
			f[i] = rest;
			rest += strcspn(rest, " \t");
			if (!*rest)
				die(path, "line %d: expected ARCH KIND PATTERN REASON",
				    lineno);
			*rest++ = 0;
			rest += strspn(rest, " \t");
		}
		if (!*rest)
			die(path, "line %d: no reason given", lineno);
		excs = xrealloc(excs, nexcs + 1, sizeof(*excs));
		e = &excs[nexcs++];
		memset(e, 0, sizeof(*e));
		e->line = lineno;
		e->reason = xstrdup(rest);
		if (!strcmp(f[0], "x86_64"))
			e->machine = ELF_EM_X86_64;
		else if (!strcmp(f[0], "arm64"))
			e->machine = ELF_EM_AARCH64;
		else if (strcmp(f[0], "*"))
			die(path, "line %d: unknown arch '%s'", lineno, f[0]);
		if (!strcmp(f[1], "missing"))
			e->kind = EXC_MISSING;
		else if (!strcmp(f[1], "wrong"))
			e->kind = EXC_WRONG;
		else
			die(path, "line %d: unknown kind '%s'", lineno, f[1]);
		if (!strncmp(f[2], "section:", 8)) {
			e->pat = PAT_SECTION;
			e->arg = xstrdup(f[2] + 8);
		} else if (!strncmp(f[2], "range:", 6)) {
			e->pat = PAT_RANGE;
			e->arg = xstrdup(f[2] + 6);
			s = strstr(e->arg, "..");
			if (!s || s == e->arg || !s[2])
				die(path, "line %d: expected range:START..END",
				    lineno);
			*s = 0;
			e->arg2 = s + 2;
		} else if (!strncmp(f[2], "class:", 6)) {
			e->pat = PAT_CLASS;
			e->arg = xstrdup(f[2] + 6);
			s = strchr(e->arg, ':');
			if (s) {
				*s = 0;
				e->arg2 = s + 1;
			}
			e->cls = cls_parse(e->arg);
			if (e->cls == CLS_NONE)
				die(path, "line %d: unknown class '%s'", lineno,
				    e->arg);
		} else {
			e->pat = PAT_GLOB;
			e->arg = xstrdup(f[2]);
		}
	}
	free(buf);
}

/**
 * exc_resolve() - resolve the range: patterns against an input's symbols
 * @in: the input
 */
void exc_resolve(struct input *in)
{
	uint64_t i, n = elf_nsyms(&in->f, in->f.symtab);
	struct elf_sym s;
	int k;

	for (k = 0; k < nexcs; k++)
		excs[k].resolved = 0;
	for (i = 1; i < n; i++) {
		if (elf_sym_get(&in->f, in->f.symtab, i, &s) || !s.shndx || !*s.name)
			continue;
		for (k = 0; k < nexcs; k++) {
			struct exception *e = &excs[k];

			if (e->pat != PAT_RANGE)
				continue;
			if (!strcmp(s.name, e->arg)) {
				e->lo = s.value;
				e->resolved |= 1;
			}
			if (!strcmp(s.name, e->arg2)) {
				e->hi = s.value;
				e->resolved |= 2;
			}
		}
	}
}

/* Does @glob match the name of the symbol of @r or of one of its aliases? */
static int name_match(const char *glob, const struct region *r)
{
	size_t i;

	if (!fnmatch(glob, r->name, 0))
		return 1;
	for (i = 0; i < r->nalias; i++)
		if (!fnmatch(glob, r->alias[i].name, 0))
			return 1;
	return 0;
}

/**
 * exc_match() - the exception that accepts a finding, counted as a hit
 * @in: the input
 * @kind: %EXC_MISSING (uncovered) or %EXC_WRONG
 * @r: the region of the finding
 * @lo: first byte
 * @hi: end
 * @cls: class of the finding
 *
 * Return: the exception, or NULL.
 */
struct exception *exc_match(const struct input *in, enum exc_kind kind,
			    const struct region *r, uint64_t lo, uint64_t hi,
			    enum cls cls)
{
	int k;

	for (k = 0; k < nexcs; k++) {
		struct exception *e = &excs[k];
		int ok = 0;

		if (e->kind != kind || (e->machine && e->machine != in->f.machine))
			continue;
		switch (e->pat) {
		case PAT_GLOB:
			ok = name_match(e->arg, r);
			break;
		case PAT_SECTION:
			ok = !strcmp(e->arg, in->f.secs[r->shndx].name);
			break;
		case PAT_RANGE:
			ok = e->resolved == 3 && lo >= e->lo && hi <= e->hi;
			break;
		case PAT_CLASS:
			ok = e->cls == cls &&
			     (!e->arg2 || name_match(e->arg2, r));
			break;
		}
		if (ok) {
			e->hits++;
			e->bytes += hi - lo;
			return e;
		}
	}
	return NULL;
}

/**
 * exc_reset() - clear the hit counts, before an input
 */
void exc_reset(void)
{
	int k;

	for (k = 0; k < nexcs; k++) {
		excs[k].hits = 0;
		excs[k].bytes = 0;
	}
}

/**
 * exc_print_hits() - one line per exception that accepted findings
 * @path: the input
 */
void exc_print_hits(const char *path)
{
	int k;

	for (k = 0; k < nexcs; k++)
		if (excs[k].hits)
			printf("%s: %s: exception %s:%d: %" PRIu64
			       " findings, %" PRIu64 " B: %s\n",
			       prog, path, exc_path, excs[k].line,
			       excs[k].hits, excs[k].bytes, excs[k].reason);
}
