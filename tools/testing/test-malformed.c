// SPDX-License-Identifier: GPL-2.0-only
/*
 * Crafted hostile sections: each case patches a real section so that one
 * specific rule is broken and checks the exact error code, and that
 * lookups at every PC of the original functions still terminate in bounds.
 *
 *   test-malformed DIR      DIR: the fixtures directory
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sframe/sframe.h>
#include "harness.h"
#include "encode.h"
#include "../lib/elf.h"

struct base {
	uint8_t *data;
	size_t size;
	uint64_t addr;
	struct sframe_section sec;
};

static void w32(uint8_t *p, uint32_t v)
{
	p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24;
}

static void w64(uint8_t *p, uint64_t v)
{
	w32(p, v);
	w32(p + 4, v >> 32);
}

static uint32_t r32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Open, validate, look up everywhere; return open's or validate's error. */
static int exercise(const struct base *b, uint8_t *buf, size_t len)
{
	struct sframe_section sec;
	struct sframe_rule r;
	struct sframe_fde f;
	uint32_t i;
	uint64_t o;
	int err;

	err = sframe_open(&sec, buf, len, b->addr, 0);
	if (err)
		return err;
	err = sframe_validate(&sec, NULL, NULL);
	for (i = 0; i < b->sec.num_fdes; i++) {
		if (sframe_get_fde(&b->sec, i, &f))
			continue;
		for (o = 0; o < f.size && o < 4096; o++)
			sframe_find(&sec, f.start + o, &r);
	}
	return err;
}

#define CASE(name, want, ...) do {					\
	uint8_t *buf = malloc(b->size);					\
	size_t len = b->size;						\
	int got, expected = (want);					\
									\
	memcpy(buf, b->data, b->size);					\
	__VA_ARGS__;							\
	t_begin("malformed: %s -> %s", name, sframe_errname(expected));	\
	got = exercise(b, buf, len);					\
	T_CHECK(got == expected, "got %s", sframe_errname(got));	\
	t_end();							\
	free(buf);							\
} while (0)

static int load(struct base *b, const char *dir, const char *name,
		uint64_t addr)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s.sframe", dir, name);
	if (sframe_read_file(p, &b->data, &b->size))
		return -1;
	b->addr = addr;
	return sframe_open(&b->sec, b->data, b->size, addr, 0);
}

/* Section offset of FDE @i's index entry and of its FRE @k. */
static uint32_t fde_at(const struct base *b, uint32_t i)
{
	return b->sec.fde_base + i * b->sec.fde_size;
}

static uint32_t fre_at(const struct base *b, uint32_t i, uint32_t k)
{
	struct sframe_fde f;
	struct sframe_fre fre;
	uint32_t p;

	sframe_get_fde(&b->sec, i, &f);
	p = f.fres;
	while (k--) {
		sframe_read_fre(&b->sec, &f, p, &fre);
		p = fre.next;
	}
	return p;
}

/* Point every FDE at the first FDE's rows (a "loop" in the section). */
static void share_fre_block(const struct base *b, uint8_t *buf)
{
	uint32_t i, off = r32(buf + fde_at(b, 0) + 12);

	for (i = 0; i < b->sec.num_fdes; i++)
		w32(buf + fde_at(b, i) + 12, off);
}

static void v3_cases(const struct base *b)
{
	const uint32_t H = SFRAME_HDR_SIZE;
	uint32_t attr0 = fre_at(b, 0, 0) - SFRAME_V3_FDE_ATTR_SIZE;
	uint32_t attr1 = fre_at(b, 1, 0) - SFRAME_V3_FDE_ATTR_SIZE;

	CASE("empty", -SFRAME_E_TRUNCATED, len = 0);
	CASE("header cut", -SFRAME_E_TRUNCATED, len = H - 1);
	CASE("FRE data cut", -SFRAME_E_TRUNCATED, len = b->sec.fre_end - 1);
	CASE("bad magic", -SFRAME_E_MAGIC, buf[0] ^= 0xff);
	CASE("version 4", -SFRAME_E_VERSION, buf[2] = 4);
	CASE("version 0", -SFRAME_E_VERSION, buf[2] = 0);
	CASE("v3 FRAME_POINTER flag", -SFRAME_E_FLAGS, buf[3] |= 0x2);
	CASE("unknown flag", -SFRAME_E_FLAGS, buf[3] |= 0x80);
	CASE("unknown ABI", -SFRAME_E_ABI, buf[4] = 9);
	CASE("big-endian ABI, little-endian magic", -SFRAME_E_ABI, buf[4] = 1);
	CASE("num_fdes 0xffffffff", -SFRAME_E_LAYOUT, w32(buf + 8, ~0U));
	CASE("fdeoff past freoff", -SFRAME_E_LAYOUT, w32(buf + 20, 16));
	CASE("freoff 0xffffffff", -SFRAME_E_LAYOUT, w32(buf + 24, ~0U));
	CASE("fre_len 0xffffffff", -SFRAME_E_LAYOUT, w32(buf + 16, ~0U));
	CASE("fre_len past the end", -SFRAME_E_TRUNCATED,
	     w32(buf + 16, r32(buf + 16) + 4096));
	CASE("auxhdr past the end", -SFRAME_E_TRUNCATED,
	     { buf[7] = 255; len = H + 100; });
	CASE("num_fres off by one", -SFRAME_E_NUM_FRES,
	     w32(buf + 12, r32(buf + 12) + 1));
	CASE("fre_len longer than the rows", -SFRAME_E_FRE_LEN,
	     { w32(buf + 16, r32(buf + 16) + 1); len = b->size + 1;
	       buf = realloc(buf, len); buf[len - 1] = 0; });
	CASE("attribute outside FRE sub-section", -SFRAME_E_FRE_BOUNDS,
	     w32(buf + fde_at(b, 0) + 12, r32(buf + 16)));
	CASE("attribute offset 0xffffffff", -SFRAME_E_FRE_BOUNDS,
	     w32(buf + fde_at(b, 0) + 12, ~0U));
	/* The walk runs into the next function's rows, which restart at 0. */
	CASE("num_fres 65535 in a small function", -SFRAME_E_FRE_ORDER,
	     { buf[attr0] = 0xff; buf[attr0 + 1] = 0xff; });
	CASE("FRE type 3", -SFRAME_E_FRE_TYPE, buf[attr0 + 2] |= 0x3);
	CASE("FRE type 15", -SFRAME_E_FRE_TYPE, buf[attr0 + 2] |= 0xf);
	CASE("FDE type 2", -SFRAME_E_FDE_TYPE, buf[attr0 + 3] = 2);
	CASE("PCMASK with zero block size", -SFRAME_E_REP_SIZE,
	     buf[attr1 + 4] = 0);
	CASE("data-word size 3", -SFRAME_E_WORD_SIZE,
	     buf[fre_at(b, 0, 0) + 1] |= 0x60);
	CASE("AMD64 DEFAULT with 3 data words", -SFRAME_E_WORD_COUNT,
	     buf[fre_at(b, 0, 0) + 1] = (buf[fre_at(b, 0, 0) + 1] & ~0x1e) | 3 << 1);
	CASE("FRE starts not increasing", -SFRAME_E_FRE_ORDER,
	     buf[fre_at(b, 0, 1)] = 0);
	CASE("FRE start beyond the function", -SFRAME_E_FRE_START,
	     buf[fre_at(b, 0, 1)] = 0xff);
	CASE("FDEs out of order under SORTED", -SFRAME_E_UNSORTED,
	     { uint8_t t[16]; memcpy(t, buf + fde_at(b, 3), 16);
	       memcpy(buf + fde_at(b, 3), buf + fde_at(b, 4), 16);
	       memcpy(buf + fde_at(b, 4), t, 16);
	       w64(buf + fde_at(b, 3), r32(buf + fde_at(b, 3)) - 16);
	       w64(buf + fde_at(b, 4), r32(buf + fde_at(b, 4)) + 16); });
	CASE("function range wraps", -SFRAME_E_FUNC_RANGE,
	     { w64(buf + fde_at(b, 68), ~0ULL - b->addr - fde_at(b, 68) - 4);
	       w32(buf + fde_at(b, 68) + 8, 64); });
	/* Rows of the first function do not fit the smaller ones. */
	CASE("every FDE shares one FRE block", -SFRAME_E_FRE_START,
	     share_fre_block(b, buf));
}

/*
 * v2 starts (PC-relative, 4 bytes) on both sides of the wrap of the
 * address space: the section placed so that FDE 2's start resolves to 0,
 * its predecessors' to the top of the address space.  The search orders
 * 4-byte starts by their fields, the rest of the core by address, which
 * agree only when all starts wrap or none does (all do at address 0 in a
 * relocatable object: the other cases).
 */
static void wrap_cases(const struct base *orig)
{
	struct base bb = *orig, *b = &bb;
	struct sframe_fde f;

	if (sframe_get_fde(&orig->sec, 2, &f)) {
		t_begin("wrap: read FDE 2");
		T_CHECK(0, "cannot read");
		t_end();
		return;
	}
	bb.addr = orig->addr - f.start;
	CASE("v2 starts on both sides of the address-space wrap",
	     -SFRAME_E_FUNC_RANGE, (void)0);
	bb.addr = orig->addr - f.start - 0x1000000;
	CASE("v2 starts all below the wrap (control)", 0, (void)0);
}

/* FLEX rows: re-encode asm.o with 4-byte words, then break control words. */
static void flex_cases(const struct base *orig)
{
	struct encode_opts eo = { .version = 3, .wide_words = 1 };
	struct encoded enc;
	struct base bb, *b = &bb;
	uint32_t f = 0, i, w;

	sframe_encode(&orig->sec, &eo, &enc);
	bb.data = enc.buf;
	bb.size = enc.len;
	bb.addr = 0;
	if (sframe_open(&bb.sec, bb.data, bb.size, 0, 0)) {
		t_begin("flex: open re-encoded asm.o");
		T_CHECK(0, "cannot open");
		t_end();
		goto out;
	}
	for (i = 0; i < bb.sec.num_fdes; i++) {
		struct sframe_fde fde;

		if (!sframe_get_fde(&bb.sec, i, &fde) && sframe_fde_flex(&fde) &&
		    fde.num_fres >= 2)
			f = i;
	}
	w = fre_at(b, f, 0) + 1 + 1;	/* 1-byte start, info, words */
	CASE("FLEX CFA control without register", -SFRAME_E_FLEX_CTRL,
	     w32(buf + w, 0x2));
	CASE("FLEX register number 0x1fffffff", -SFRAME_E_REGNUM,
	     w32(buf + w, 0xfffffff9));
	CASE("FLEX with 3 data words", -SFRAME_E_WORD_COUNT,
	     buf[w - 1] = (buf[w - 1] & ~0x1e) | 3 << 1);
	CASE("FLEX with 7 data words", -SFRAME_E_WORD_COUNT,
	     buf[w - 1] = (buf[w - 1] & ~0x1e) | 7 << 1);
out:
	free(enc.buf);
	free(enc.kept);
}

/* s390x scales CFA offsets by 8: a 4-byte word can overflow 32 bits. */
static void s390x_cases(const struct base *orig)
{
	struct encode_opts eo = { .version = 3, .wide_words = 1 };
	struct encoded enc;
	struct base bb, *b = &bb;
	uint32_t w;

	sframe_encode(&orig->sec, &eo, &enc);
	bb.data = enc.buf;
	bb.size = enc.len;
	bb.addr = orig->addr;
	if (!sframe_open(&bb.sec, bb.data, bb.size, bb.addr, 0)) {
		w = fre_at(b, 0, 0) + 1 + 1;
		CASE("s390x CFA offset overflow", -SFRAME_E_OFFSET,
		     { buf[w] = 0x7f; buf[w + 1] = buf[w + 2] = buf[w + 3] = 0xff; });
		CASE("s390x ABI with little-endian magic", -SFRAME_E_ABI,
		     { buf[0] = 0xe2; buf[1] = 0xde; });
	}
	free(enc.buf);
	free(enc.kept);
}

/*
 * Sequences of sections, as `ld -r` with scripts/sframe-concat.lds makes
 * a module's .sframe: each section at the next multiple of 8, zero bytes
 * in between (sframe_open_part()).
 */
#define SEQ_MAX		4
#define SEQ_ADDR	0x40000

struct seq {
	uint8_t *buf;
	size_t len;
	int n;
	size_t off[SEQ_MAX], size[SEQ_MAX];
};

static void seq_add(struct seq *q, const struct base *b)
{
	size_t at = (q->len + 7) & ~(size_t)7;

	q->buf = realloc(q->buf, at + b->size);
	memset(q->buf + q->len, 0, at - q->len);
	memcpy(q->buf + at, b->data, b->size);
	q->off[q->n] = at;
	q->size[q->n++] = b->size;
	q->len = at + b->size;
}

/*
 * Walk the parts of @buf as the kernel does: open each, validate it and
 * look up every function start.  Each call must make progress inside
 * @len.  Return the first open error (0 if every part opened), the number
 * of parts in @n and their offsets in @off.
 */
static int seq_walk(const uint8_t *buf, size_t len, int *n, size_t *off)
{
	struct sframe_section sec;
	struct sframe_rule r;
	struct sframe_fde f;
	uint64_t o = 0, next = 0;
	uint32_t i;
	int err;

	*n = 0;
	do {
		err = sframe_open_part(&sec, buf, len, SEQ_ADDR, o, 0, &next);
		if (err)
			return err;
		if (next <= o || next > len)
			return 1000;	/* no progress: the walk may not end */
		if (*n < SEQ_MAX)
			off[*n] = o;
		(*n)++;
		sframe_validate(&sec, NULL, NULL);
		for (i = 0; i < sec.num_fdes && i < 64; i++)
			if (!sframe_get_fde(&sec, i, &f))
				sframe_find(&sec, f.start, &r);
		o = next;
	} while (o < len);
	return 0;
}

#define SEQ_CASE(name, want, nwant, ...) do {				\
	uint8_t *buf = malloc(q->len + 64);				\
	size_t len = q->len, offs[SEQ_MAX];				\
	int got, n, expected = (want);					\
									\
	memcpy(buf, q->buf, q->len);					\
	memset(buf + q->len, 0, 64);					\
	__VA_ARGS__;							\
	t_begin("sequence: %s -> %s", name, sframe_errname(expected));	\
	got = seq_walk(buf, len, &n, offs);				\
	T_CHECK(got == expected, "got %s", sframe_errname(got));	\
	T_CHECK(got || n == (nwant), "%d parts", n);			\
	t_end();							\
	free(buf);							\
} while (0)

/* A deterministic xorshift generator for the mutations below. */
static uint64_t seq_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Fuzz-style: the valid sequence with random bytes overwritten (half of
 * them next to a part boundary, where the splitting happens), cut short
 * or extended; every walk must end (ASan/UBSan watch the reads).
 */
static void seq_fuzz(const struct seq *q)
{
	size_t cap = q->len + 64, offs[SEQ_MAX];
	uint8_t *buf = malloc(cap);
	int k, j, n, err, ok = 0, bad = 0, stuck = 0;
	uint64_t x = 0x5eed5eed5eedULL;

	for (k = 0; k < 20000; k++) {
		size_t len = q->len;

		memcpy(buf, q->buf, q->len);
		memset(buf + q->len, 0, cap - q->len);
		for (j = 1 + seq_rand(&x) % 4; j > 0; j--) {
			size_t at = seq_rand(&x) % len;

			if (seq_rand(&x) & 1) {
				int p = 1 + seq_rand(&x) % (q->n - 1);

				at = q->off[p] - 8 + seq_rand(&x) % 16;
			}
			buf[at] = seq_rand(&x) & 3 ? seq_rand(&x) : 0;
		}
		if (seq_rand(&x) % 4 == 0)
			len = seq_rand(&x) % (q->len + 1);
		else if (seq_rand(&x) % 8 == 0)
			len += seq_rand(&x) % 64;
		err = seq_walk(buf, len, &n, offs);
		stuck += err == 1000;
		if (err)
			bad++;
		else
			ok++;
	}
	t_begin("sequence: 20000 mutated sequences: every walk ends in bounds");
	T_CHECK(!stuck, "%d walks without progress", stuck);
	T_CHECK(ok && bad, "%d accepted, %d rejected", ok, bad);
	t_end();
	free(buf);
}

static void seq_cases(const char *dir)
{
	static const char * const names[] = {
		"x86_64/v1-nofp/chain.o", "x86_64/nofp/asm.o",
		"aarch64/nofp/many.o",
	};
	struct seq seq = { 0 }, one = { 0 }, *q = &seq;
	struct sframe_section sec;
	struct base b[3];
	size_t e1, e2;
	uint64_t next;
	int i;

	for (i = 0; i < 3; i++) {
		if (load(&b[i], dir, names[i], 0) || b[i].sec.size != b[i].size ||
		    b[i].size % 8 == 0) {
			printf("FAIL: sequence: load %s (an unaligned size)\n",
			       names[i]);
			return;
		}
		seq_add(&seq, &b[i]);
	}
	seq_add(&one, &b[0]);
	e1 = q->off[1] + q->size[1];	/* end of part 1, before its padding */
	e2 = q->len;			/* end of part 2, the last */

	SEQ_CASE("3 sections at multiples of 8, zero padding", 0, 3, (void)0);
	{
		size_t offs[SEQ_MAX];
		int n, err = seq_walk(q->buf, q->len, &n, offs);

		t_begin("sequence: parts found where they were put, exact sizes");
		T_CHECK(!err && n == 3, "%s, %d parts", sframe_errname(err), n);
		for (i = 0; !err && i < 3; i++) {
			T_CHECK(offs[i] == q->off[i], "part %d at %zu, not %zu",
				i, offs[i], q->off[i]);
			T_CHECK(!sframe_open_part(&sec, q->buf, q->len, SEQ_ADDR,
						  q->off[i], 0, &next) &&
				sec.size == q->size[i] &&
				sec.addr == SEQ_ADDR + q->off[i] &&
				next == (i < 2 ? q->off[i + 1] : q->len),
				"part %d: size %u, next %" PRIu64, i, sec.size,
				next);
		}
		t_end();
	}
	q = &one;
	SEQ_CASE("a single section is a sequence of one", 0, 1, (void)0);
	q = &seq;
	SEQ_CASE("zero padding after the last section", 0, 3,
		 len = (e2 + 7) & ~(size_t)7);
	SEQ_CASE("non-zero padding byte", -SFRAME_E_PADDING, 0,
		 buf[e1 + 2] = 0x01);
	SEQ_CASE("non-zero byte after the last section", -SFRAME_E_PADDING, 0,
		 { buf[e2] = 0x80; len = e2 + 1; });
	SEQ_CASE("garbage where part 2 starts", -SFRAME_E_PADDING, 0,
		 buf[q->off[2]] = 0x55);
	SEQ_CASE("part 2 misaligned (no padding before it)", -SFRAME_E_PADDING, 0,
		 { memmove(buf + e1, buf + q->off[2], q->size[2]);
		   len = e1 + q->size[2]; });
	SEQ_CASE("part 2 misaligned (4 bytes late)", -SFRAME_E_PADDING, 0,
		 { memmove(buf + q->off[2] + 4, q->buf + q->off[2], q->size[2]);
		   memset(buf + q->off[2], 0, 4); len += 4; });
	SEQ_CASE("8 more zero bytes before part 2", -SFRAME_E_PADDING, 0,
		 { memmove(buf + q->off[2] + 8, q->buf + q->off[2], q->size[2]);
		   memset(buf + q->off[2], 0, 8); len += 8; });
	SEQ_CASE("8 zero bytes after the last section's padding", -SFRAME_E_PADDING, 0,
		 len = ((e2 + 7) & ~(size_t)7) + 8);
	SEQ_CASE("32 zero bytes after the last section's padding", -SFRAME_E_PADDING, 0,
		 len = ((e2 + 7) & ~(size_t)7) + 32);
	SEQ_CASE("part 2 truncated", -SFRAME_E_TRUNCATED, 0, len = e2 - 1);
	SEQ_CASE("part 2 cut to its magic", -SFRAME_E_TRUNCATED, 0,
		 len = q->off[2] + 2);
	SEQ_CASE("part 1's FRE length past the end", -SFRAME_E_TRUNCATED, 0,
		 w32(buf + q->off[1] + 16, 0x7fffffff - q->off[1]));
	SEQ_CASE("part 1 of version 9", -SFRAME_E_VERSION, 0,
		 buf[q->off[1] + 2] = 9);
	SEQ_CASE("empty", -SFRAME_E_TRUNCATED, 0, len = 0);

	t_begin("sequence: offsets not a multiple of 8 or past the end -> SFRAME_E_INVAL");
	T_CHECK(sframe_open_part(&sec, q->buf, q->len, 0, 4, 0, &next) ==
		-SFRAME_E_INVAL, "offset 4");
	T_CHECK(sframe_open_part(&sec, q->buf, q->len, 0, q->len + 8, 0,
				 &next) == -SFRAME_E_INVAL, "offset past the end");
	T_CHECK(sframe_open_part(&sec, q->buf, q->len, 0, 0, 0, NULL) ==
		-SFRAME_E_INVAL, "no @next");
	t_end();

	seq_fuzz(q);
	for (i = 0; i < 3; i++)
		free(b[i].data);
	free(seq.buf);
	free(one.buf);
}

int main(int argc, char **argv)
{
	struct base b;

	if (argc != 2) {
		fprintf(stderr, "usage: test-malformed FIXTURE-DIR\n");
		return 2;
	}
	if (load(&b, argv[1], "x86_64/nofp/prog", 0x139b8)) {
		printf("FAIL: load x86_64/nofp/prog\n0 passed, 1 failed\n");
		return 1;
	}
	v3_cases(&b);
	free(b.data);
	if (!load(&b, argv[1], "x86_64/v2-nofp/prog", 0x139b8))
		wrap_cases(&b);
	free(b.data);
	if (!load(&b, argv[1], "x86_64/nofp/asm.o", 0))
		flex_cases(&b);
	free(b.data);
	if (!load(&b, argv[1], "s390x/nofp/prog", 0x13588))
		s390x_cases(&b);
	free(b.data);
	seq_cases(argv[1]);
	printf("%d passed, %d failed\n", t_pass, t_fail);
	return t_fail ? 1 : 0;
}
