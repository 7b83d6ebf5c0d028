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
#include "../elf.h"

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
	if (!load(&b, argv[1], "x86_64/nofp/asm.o", 0))
		flex_cases(&b);
	free(b.data);
	if (!load(&b, argv[1], "s390x/nofp/prog", 0x13588))
		s390x_cases(&b);
	free(b.data);
	printf("%d passed, %d failed\n", t_pass, t_fail);
	return t_fail ? 1 : 0;
}
