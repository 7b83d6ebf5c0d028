// SPDX-License-Identifier: GPL-2.0-only
/*
 * insn-profile: a QEMU TCG plugin that counts the guest instructions
 * executed at each address, split into phases the guest marks itself.
 *
 *   qemu-system-... -plugin build/bench/insn-profile.so,out=FILE[,lo=A,hi=B]
 *
 * A phase marker is an instruction that does nothing, carrying a number:
 * on arm64 "movz xzr, #(0x5a00 + N)", on x86_64 "nopl 0x5a5a0000+N(%rax)"
 * (qemu/modules/sframe_unwind_demo.c, DEMO_MARK()).  Every instruction
 * executed between a marker N and the next marker counts for phase N;
 * those before the first marker for phase 0.  Only addresses in [lo, hi)
 * are counted (default: the upper half of the address space, the kernel).
 *
 * At exit, FILE gets one line per phase and address executed in it:
 * "PHASE ADDRESS COUNT" (hexadecimal address).  Counts are exact for one
 * vCPU (run the guest with -smp 1, as make bench-kernel's icount runs do);
 * with more, concurrent updates may be lost.
 *
 * Written against the plugin API of QEMU 7.2 (version 1):
 * qemu-plugin-api.h.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qemu-plugin-api.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

/* ---- counters -------------------------------------------------------- */

#define PHASES		16
#define CHUNK		65536

/*
 * One counter per address, in chunks that never move (the translated code
 * adds to them in place); found through an open-addressing table of
 * pointers that may grow.
 */
struct counter {
	uint64_t addr;
	uint64_t count;			/* added to by the translated code */
	uint64_t last;			/* count at the last marker */
	uint64_t phase[PHASES];		/* counts per phase */
};

static struct counter **table;
static size_t table_size, used;
static struct counter *chunk;
static size_t chunk_used = CHUNK;
static struct counter **all;		/* every counter, for the markers */
static size_t nall, all_cap;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t lo = 0x8000000000000000ULL, hi = UINT64_MAX;
static unsigned int cur_phase;
static const char *out_path;
static bool arm64;

static size_t slot_of(uint64_t addr, size_t size)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 20) & (size - 1);
}

static void grow(void)
{
	size_t size = table_size ? 2 * table_size : 1 << 16, i, j;
	struct counter **t = calloc(size, sizeof(*t));

	if (!t)
		abort();
	for (i = 0; i < table_size; i++) {
		if (!table[i])
			continue;
		for (j = slot_of(table[i]->addr, size); t[j]; j = (j + 1) & (size - 1))
			;
		t[j] = table[i];
	}
	free(table);
	table = t;
	table_size = size;
}

/* The counter of @addr, made on first use; called with @lock held. */
static struct counter *counter_of(uint64_t addr)
{
	size_t j;

	if (2 * (used + 1) > table_size)
		grow();
	for (j = slot_of(addr, table_size); table[j]; j = (j + 1) & (table_size - 1))
		if (table[j]->addr == addr)
			return table[j];
	if (chunk_used == CHUNK) {
		chunk = calloc(CHUNK, sizeof(*chunk));
		if (!chunk)
			abort();
		chunk_used = 0;
	}
	if (nall == all_cap) {
		all_cap = all_cap ? 2 * all_cap : CHUNK;
		all = realloc(all, all_cap * sizeof(*all));
		if (!all)
			abort();
	}
	table[j] = &chunk[chunk_used++];
	table[j]->addr = addr;
	all[nall++] = table[j];
	used++;
	return table[j];
}

/* Counts since the last marker go to the phase it began. */
static void close_phase(void)
{
	size_t i;

	for (i = 0; i < nall; i++) {
		struct counter *c = all[i];

		c->phase[cur_phase] += c->count - c->last;
		c->last = c->count;
	}
}

static void on_marker(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	pthread_mutex_lock(&lock);
	close_phase();
	cur_phase = (unsigned int)(uintptr_t)udata;
	pthread_mutex_unlock(&lock);
}

/* The phase number of a marker instruction, or -1. */
static int marker_phase(const struct qemu_plugin_insn *insn)
{
	const unsigned char *p = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn);
	uint32_t v;

	if (arm64) {
		/* movz xzr, #(0x5a00 + N): 0xd2800000 | imm16 << 5 | 31 */
		if (n != 4)
			return -1;
		memcpy(&v, p, 4);
		if ((v & 0xffe0001f) != 0xd280001f)
			return -1;
		v = ((v >> 5) & 0xffff) - 0x5a00;
	} else {
		/* nopl 0x5a5a0000+N(%rax): 0f 1f 80 disp32 */
		if (n != 7 || p[0] != 0x0f || p[1] != 0x1f || p[2] != 0x80)
			return -1;
		memcpy(&v, p + 3, 4);
		v -= 0x5a5a0000;
	}
	return v < PHASES ? (int)v : -1;
}

static void on_translate(uint64_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	(void)id;
	pthread_mutex_lock(&lock);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t addr = qemu_plugin_insn_vaddr(insn);
		int phase;

		if (addr < lo || addr >= hi)
			continue;
		phase = marker_phase(insn);
		if (phase >= 0)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)phase);
		qemu_plugin_register_vcpu_insn_exec_inline(insn,
							   QEMU_PLUGIN_INLINE_ADD_U64,
							   &counter_of(addr)->count, 1);
	}
	pthread_mutex_unlock(&lock);
}

static void at_exit(uint64_t id, void *udata)
{
	FILE *f = fopen(out_path, "w");
	size_t i;
	unsigned int p;

	(void)id;
	(void)udata;
	if (!f) {
		perror(out_path);
		return;
	}
	pthread_mutex_lock(&lock);
	close_phase();
	for (p = 0; p < PHASES; p++)
		for (i = 0; i < nall; i++)
			if (all[i]->phase[p])
				fprintf(f, "%u %llx %llu\n", p,
					(unsigned long long)all[i]->addr,
					(unsigned long long)all[i]->phase[p]);
	pthread_mutex_unlock(&lock);
	fclose(f);
}

EXPORT int qemu_plugin_install(uint64_t id, const struct qemu_plugin_info *info,
			       int argc, char **argv)
{
	int i;

	arm64 = !strcmp(info->target_name, "aarch64");
	if (!arm64 && strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "insn-profile: %s: not aarch64 or x86_64\n",
			info->target_name);
		return 1;
	}
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = argv[i] + 4;
		} else if (!strncmp(argv[i], "lo=", 3)) {
			lo = strtoull(argv[i] + 3, NULL, 0);
		} else if (!strncmp(argv[i], "hi=", 3)) {
			hi = strtoull(argv[i] + 3, NULL, 0);
		} else {
			fprintf(stderr, "insn-profile: unknown argument %s\n", argv[i]);
			return 1;
		}
	}
	if (!out_path) {
		fprintf(stderr, "insn-profile: out=FILE is required\n");
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
