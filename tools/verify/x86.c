// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-verify, x86_64: SFrame against ORC at every instruction, and the
 * instruction patterns that explain the differences (and the coverage gaps
 * of DRAP functions and of call padding).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/search.h"
#include "verify.h"

/*
 * ORC (arch/x86/include/asm/orc_types.h).  Entries are kept in the
 * Linux 6.1 form (type CALL, REGS or REGS_PARTIAL, and an end-of-stack
 * bit); load_orc() converts the 6.4+ form (a 3-bit type that includes
 * UNDEFINED and END_OF_STACK, marked by an .orc_header section).
 */
#define ORC_REG_UNDEFINED	0
#define ORC_REG_PREV_SP		1
#define ORC_REG_DX		2
#define ORC_REG_DI		3
#define ORC_REG_BP		4
#define ORC_REG_SP		5
#define ORC_REG_R10		6
#define ORC_REG_R13		7
#define ORC_REG_BP_INDIRECT	8
#define ORC_REG_SP_INDIRECT	9
#define ORC_TYPE_CALL		0
#define ORC_ENTRY_SIZE		6
/* Linux 6.4+ types */
#define ORC_V2_TYPE_UNDEFINED	0
#define ORC_V2_TYPE_END		1
#define ORC_V2_TYPE_CALL	2

/*
 * x86_64: stack realignment through a DRAP register, whose FDE gas 2.40
 * drops: "and $-N,%rsp" (48 83 e4 ib or 48 81 e4 id) within the first 64
 * bytes (the ftrace call and the set-up of a call's arguments may come
 * first), followed within 28 bytes (KASAN puts a movabs in between) by
 * "push -8(%reg)" (ff 7x f8, REX optional) that re-pushes the return
 * address.  Only whole functions.
 */
static int is_drap(const struct input *in, const struct region *r,
		   uint64_t lo, uint64_t hi)
{
	uint64_t n = r->hi - r->lo, i, j;
	const uint8_t *b;

	if (in->f.machine != ELF_EM_X86_64 || lo != r->sym || hi != r->hi)
		return 0;
	if (n > 96)
		n = 96;
	b = text_bytes(in, r->lo, n);
	if (!b)
		return 0;
	for (i = 0; i + 4 <= n && i < 64; i++) {
		if (b[i] != 0x48 || (b[i + 1] != 0x83 && b[i + 1] != 0x81) ||
		    b[i + 2] != 0xe4)
			continue;
		for (j = i + 4; j + 3 <= n && j < i + 32; j++)
			if (b[j] == 0xff && (b[j + 1] & 0xf8) == 0x70 &&
			    b[j + 2] == 0xf8)
				return 1;
	}
	return 0;
}

/*
 * The .cold partition of a DRAP function: gcc moves its unlikely paths to
 * "NAME.cold", which has its own FDE in the CFI; gas drops it with the
 * main part's (load_module.cold).  Only a whole, uncovered .cold symbol
 * whose parent NAME is a whole, uncovered DRAP function.
 */
static int is_drap_cold(const struct input *in, const struct region *r,
			uint64_t lo, uint64_t hi)
{
	size_t len = strlen(r->name), k;

	if (lo != r->sym || hi != r->hi || len <= 5 ||
	    strcmp(r->name + len - 5, ".cold"))
		return 0;
	for (k = 0; k < in->nregs; k++) {
		const struct region *p = &in->regs[k];

		if (strlen(p->name) == len - 5 &&
		    !strncmp(p->name, r->name, len - 5) &&
		    !iv_overlap(&in->rows, p->lo, p->hi))
			return is_drap(in, p, p->sym, p->hi);
	}
	return 0;
}

/**
 * is_drap_gap() - x86_64: is a gap a DRAP function whose FDE gas dropped?
 * @in: the input
 * @r: the region of the gap
 * @lo: first byte
 * @hi: end
 *
 * Return: 1 if [@lo, @hi) is a whole DRAP function (is_drap()) or the
 * whole .cold part of one (is_drap_cold()).
 */
int is_drap_gap(const struct input *in, const struct region *r, uint64_t lo,
		uint64_t hi)
{
	return is_drap(in, r, lo, hi) || is_drap_cold(in, r, lo, hi);
}

/* Longest call padding: CONFIG_FUNCTION_PADDING_BYTES is at most 64. */
#define CALL_PADDING_MAX	64

/**
 * is_call_padding() - x86_64: is a gap the call padding before a function?
 * @in: the input
 * @r: the region of the gap
 * @lo: first byte
 * @hi: end
 *
 * With CONFIG_CALL_PADDING the compiler puts nops before every function
 * and objtool --prefix names them __pfx_<function>.  They are never a
 * frame of their own: call-depth tracking may patch its accounting into
 * them at boot, which runs on the caller's return address and falls
 * through into the function.
 *
 * Return: 1 if [@lo, @hi) is a whole __pfx_ symbol of single-byte nops.
 */
int is_call_padding(const struct input *in, const struct region *r,
		    uint64_t lo, uint64_t hi)
{
	const uint8_t *b;
	uint64_t i;

	if (in->f.machine != ELF_EM_X86_64 || lo != r->sym || hi != r->hi ||
	    hi - lo > CALL_PADDING_MAX || strncmp(r->name, "__pfx_", 6))
		return 0;
	b = text_bytes(in, lo, hi - lo);
	if (!b)
		return 0;
	for (i = 0; i < hi - lo; i++)
		if (b[i] != 0x90)
			return 0;
	return 1;
}

/* SFrame against ORC. */

static int cmp_orc(const void *a, const void *b)
{
	const struct orc *x = a, *y = b;
	int ux, uy;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	/* As orc_sort_cmp(): a terminator loses against a real entry. */
	ux = x->sp_reg == ORC_REG_UNDEFINED && !x->end;
	uy = y->sp_reg == ORC_REG_UNDEFINED && !y->end;
	return uy - ux;
}

/**
 * load_orc() - read .orc_unwind_ip and .orc_unwind, sorted as the kernel
 * sorts them
 * @in: the input (no ORC: nothing happens)
 */
void load_orc(struct input *in)
{
	int ip = elf_sec_find(&in->f, ".orc_unwind_ip");
	int un = elf_sec_find(&in->f, ".orc_unwind");
	/* Linux 6.4+: the header section hashes orc_types.h */
	int v2 = elf_sec_find(&in->f, ".orc_header") >= 0;
	const uint8_t *ipd, *und;
	const char *why;
	uint64_t i, n;

	if (ip < 0 || un < 0)
		return;
	n = in->f.secs[ip].size / 4;
	if (!elf_sec_data(&in->f, ip) || !elf_sec_data(&in->f, un) ||
	    in->f.secs[ip].size % 4 ||
	    in->f.secs[un].size != n * ORC_ENTRY_SIZE)
		die(in->path, "malformed ORC: .orc_unwind_ip and .orc_unwind sizes disagree");
	if (in->f.type == ELF_ET_REL &&
	    elf_apply_rela(&in->f, ip, &why))
		die(in->path, ".rela.orc_unwind_ip: %s", why);
	ipd = elf_sec_data(&in->f, ip);
	und = elf_sec_data(&in->f, un);
	in->orc = xcalloc(n, sizeof(*in->orc));
	for (i = 0; i < n; i++) {
		const uint8_t *u = und + i * ORC_ENTRY_SIZE;
		struct orc *o = &in->orc[i];
		uint16_t bits = elf_get(&in->f, u + 4, 2);

		o->ip = in->f.secs[ip].vaddr + 4 * i +
			(int64_t)(int32_t)elf_get(&in->f, ipd + 4 * i, 4);
		o->sp_off = (int16_t)elf_get(&in->f, u, 2);
		o->bp_off = (int16_t)elf_get(&in->f, u + 2, 2);
		o->sp_reg = bits & 0xf;
		o->bp_reg = (bits >> 4) & 0xf;
		if (!v2) {
			o->type = (bits >> 8) & 3;
			o->end = (bits >> 10) & 1;
			continue;
		}
		o->type = (bits >> 8) & 7;
		if (o->type <= ORC_V2_TYPE_END) {
			/* undefined or end of stack: no frame */
			o->end = o->type == ORC_V2_TYPE_END;
			o->sp_reg = ORC_REG_UNDEFINED;
			o->type = ORC_TYPE_CALL;
		} else {
			/* CALL, REGS, REGS_PARTIAL as in 6.1; 3: unknown */
			o->type -= ORC_V2_TYPE_CALL;
			if (o->type > 3)
				o->type = 3;
		}
	}
	qsort(in->orc, n, sizeof(*in->orc), cmp_orc);
	in->norc = n;
	in->st.has_orc = 1;
}

static int orc_above(const void *elem, const void *key)
{
	return ((const struct orc *)elem)->ip > *(const uint64_t *)key;
}

/* Index of the first ORC entry above @pc. */
static size_t orc_upper(const struct input *in, uint64_t pc)
{
	return search_first(in->orc, in->norc, sizeof(*in->orc), &pc,
			    orc_above);
}

static int orc_defined(const struct orc *o)
{
	return o && !(o->sp_reg == ORC_REG_UNDEFINED && !o->end);
}

static void fmt_orc(const struct orc *o, char *buf, size_t n)
{
	static const char * const types[] = { "call", "regs", "regs-partial", "?" };
	static const char * const regs[16] = {
		"undef", "prev_sp", "dx", "di", "bp", "sp", "r10", "r13",
		"*bp", "*sp", "10", "11", "12", "13", "14", "15"
	};
	int k;

	if (o->sp_reg == ORC_REG_UNDEFINED) {
		snprintf(buf, n, "%s", o->end ? "end-of-stack" : "undefined");
		return;
	}
	if (o->sp_reg == ORC_REG_SP_INDIRECT)
		k = snprintf(buf, n, "CFA=*(sp)%+d", o->sp_off);
	else
		k = snprintf(buf, n, "CFA=%s%+d", regs[o->sp_reg], o->sp_off);
	if (o->bp_reg == ORC_REG_UNDEFINED)
		k += snprintf(buf + k, n - k, " FP=same");
	else if (o->bp_reg == ORC_REG_PREV_SP)
		k += snprintf(buf + k, n - k, " FP=*(CFA%+d)", o->bp_off);
	else
		k += snprintf(buf + k, n - k, " FP=*(%s%+d)", regs[o->bp_reg],
			      o->bp_off);
	if (o->type != ORC_TYPE_CALL)
		snprintf(buf + k, n - k, " %s", types[o->type]);
}

/* DWARF number + 1 of the CFA base of an ORC sp_reg (0: none). */
static const uint8_t orc_dwarf[] = {
	[ORC_REG_DX] = 1 + 1, [ORC_REG_DI] = 5 + 1, [ORC_REG_BP] = 6 + 1,
	[ORC_REG_SP] = 7 + 1, [ORC_REG_R10] = 10 + 1, [ORC_REG_R13] = 13 + 1,
	[ORC_REG_BP_INDIRECT] = 6 + 1,
};

/* Do ORC entry @o and SFrame rule @r describe the same frame? */
static int rules_agree(const struct input *in, const struct orc *o,
		       const struct sframe_rule *r)
{
	if (o->type != ORC_TYPE_CALL || (r->flags & SFRAME_RULE_OUTERMOST))
		return 0;
	/*
	 * CFA: SP or BP plus an offset, or (a realigned frame, v3 FLEX) the
	 * DRAP register (DX, DI, R10, R13) plus an offset, or loaded from
	 * BP plus an offset.
	 */
	if (r->cfa.kind != SFRAME_LOC_REG || r->cfa.offset != o->sp_off ||
	    o->sp_reg >= sizeof(orc_dwarf) || !orc_dwarf[o->sp_reg] ||
	    r->cfa.reg != orc_dwarf[o->sp_reg] - 1 ||
	    r->cfa.deref != !!(o->sp_reg == ORC_REG_BP_INDIRECT))
		return 0;
	if (r->ra.kind != SFRAME_LOC_CFA || !r->ra.deref || r->ra.offset != -8)
		return 0;
	if (o->bp_reg == ORC_REG_UNDEFINED)
		return r->fp.kind == SFRAME_LOC_SAME;
	if (o->bp_reg == ORC_REG_PREV_SP)
		return r->fp.kind == SFRAME_LOC_CFA && r->fp.deref &&
		       r->fp.offset == o->bp_off;
	/* A realigned frame: BP saved at BP + offset. */
	if (o->bp_reg == ORC_REG_BP)
		return r->fp.kind == SFRAME_LOC_REG &&
		       r->fp.reg == in->sec.fp_reg && r->fp.deref &&
		       r->fp.offset == o->bp_off;
	return 0;
}

/* Length of the `pop` at @b (at most @n bytes), or 0 if it is no pop. */
static unsigned int x86_pop_len(const uint8_t *b, uint64_t n)
{
	unsigned int k = 0, len, mod, rm;

	if (n && b[0] >= 0x40 && b[0] <= 0x4f)		/* REX */
		k = 1;
	if (k >= n)
		return 0;
	if (b[k] >= 0x58 && b[k] <= 0x5f)		/* pop reg */
		return k + 1;
	if (b[k] != 0x8f || k + 1 >= n || (b[k + 1] & 0x38))
		return 0;
	/* pop r/m64: 8f /0 */
	mod = b[k + 1] >> 6;
	rm = b[k + 1] & 7;
	len = k + 2;
	if (mod != 3 && rm == 4) {			/* SIB */
		if (len >= n)
			return 0;
		if (mod == 0 && (b[len] & 7) == 5)
			len += 4;
		len++;
	}
	if (mod == 1)
		len += 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		len += 4;
	return len;
}

/*
 * Length of the prologue instruction at @b (at most @n bytes) if it writes
 * no general register but SP (push of a register, sub of an immediate
 * from SP), else 0.
 */
static unsigned int x86_prologue_len(const uint8_t *b, uint64_t n)
{
	unsigned int k = n && b[0] == 0x41;		/* REX.B: r8-r15 */

	if (k < n && b[k] >= 0x50 && b[k] <= 0x57)	/* push reg */
		return k + 1;
	if (n >= 4 && b[0] == 0x48 && b[1] == 0x83 && b[2] == 0xec)
		return 4;				/* sub $imm8,%rsp */
	if (n >= 7 && b[0] == 0x48 && b[1] == 0x81 && b[2] == 0xec)
		return 7;				/* sub $imm32,%rsp */
	return 0;
}

/*
 * clang describes the registers a prologue saves (.cfi_offset) after the
 * whole prologue, not after each push as GCC does: until then its CFI, and
 * the SFrame made from it, has BP unchanged where ORC has it saved at
 * CFA - 16 by the "push %rbp" before ORC entry @oi's run of "BP saved"
 * entries.  Both give the same BP as long as nothing wrote BP since that
 * push: every instruction from it to the end of [@lo, @hi) is one of
 * x86_prologue_len()'s, @lo is on an instruction boundary, and the CFA and
 * RA rules agree.  (Shrink-wrapped functions run other code before the
 * push: it does not matter, ORC tells what the push saved.)
 */
static int is_bp_unchanged(const struct input *in, const struct region *r,
			   uint64_t lo, uint64_t hi, size_t oi,
			   const struct sframe_rule *rule)
{
	const struct orc *o = &in->orc[oi], *p;
	struct sframe_rule saved = *rule;
	uint64_t start, n, i = 0;
	unsigned int len;
	const uint8_t *b;
	int at_lo = 0;

	if (o->bp_reg != ORC_REG_PREV_SP || rule->fp.kind != SFRAME_LOC_SAME)
		return 0;
	saved.fp.kind = SFRAME_LOC_CFA;
	saved.fp.deref = 1;
	saved.fp.offset = o->bp_off;
	if (!rules_agree(in, o, &saved))
		return 0;
	/* the first entry of the run: right after the push */
	for (; oi > 0; oi--) {
		p = &in->orc[oi - 1];
		if (p->ip < r->sym || !orc_defined(p) ||
		    p->bp_reg != ORC_REG_PREV_SP || p->bp_off != o->bp_off)
			break;
	}
	start = in->orc[oi].ip;
	if (start <= r->sym || start > lo || hi - start > 64)
		return 0;
	n = hi - start;
	b = text_bytes(in, start - 1, n + 1);
	if (!b || b[0] != 0x55)				/* push %rbp */
		return 0;
	for (b++; start + i < hi; i += len) {
		at_lo |= start + i == lo;
		len = x86_prologue_len(b + i, n - i);
		if (!len)
			return 0;
	}
	return at_lo;
}

/*
 * clang's CFI of an argument pushed for a call can take effect one
 * instruction late (the compiler moved an instruction between the push
 * and its .cfi_adjust_cfa_offset: "push %rbx; mov %r10,%rbx; push ..."),
 * so SFrame's CFA is 8 short on the instruction after a push of a
 * register.  Recognised by that push's byte right before @lo, 8 bytes
 * between the CFAs, and a range no longer than one instruction (15 bytes).
 */
static int is_late_push(const struct input *in, uint64_t lo, uint64_t hi,
			const struct orc *o, const struct sframe_rule *r)
{
	const uint8_t *b;

	if (hi - lo > 15 || lo < 2 || o->type != ORC_TYPE_CALL ||
	    o->sp_reg != ORC_REG_SP || r->cfa.reg != in->sec.sp_reg ||
	    r->cfa.offset != o->sp_off - 8)
		return 0;
	b = text_bytes(in, lo - 2, 2);
	return b && b[1] >= 0x50 && b[1] <= 0x57;
}

/*
 * clang's CFI of an epilogue's stack release can take effect late: with a
 * tail call behind a test ("add $N,%rsp; test %rax,%rax; je ...; pop
 * %rbx; ...; jmp *%rax"), the .cfi_adjust_cfa_offset of the add comes
 * after the branch, so SFrame's CFA is N bytes too large on the
 * instructions in between.  Recognised by the add to %rsp (imm8 or
 * imm32) right before @lo, N bytes between the CFAs, and a range of at
 * most 32 bytes.
 */
static int is_late_add(const struct input *in, uint64_t lo, uint64_t hi,
		       const struct orc *o, const struct sframe_rule *r)
{
	const uint8_t *b;
	int64_t n;

	if (hi - lo > 32 || lo < 7 || o->type != ORC_TYPE_CALL ||
	    o->sp_reg != ORC_REG_SP || r->cfa.reg != in->sec.sp_reg)
		return 0;
	b = text_bytes(in, lo - 7, 7);
	if (!b)
		return 0;
	if (b[3] == 0x48 && b[4] == 0x83 && b[5] == 0xc4)
		n = (int8_t)b[6];
	else if (b[0] == 0x48 && b[1] == 0x81 && b[2] == 0xc4)
		n = (int32_t)((uint32_t)b[3] | (uint32_t)b[4] << 8 |
			      (uint32_t)b[5] << 16 | (uint32_t)b[6] << 24);
	else
		return 0;
	return n > 0 && r->cfa.offset == o->sp_off + n;
}

/*
 * `pushf; pop reg` or `pushf; pop mem` (native_save_fl(), local_irq_save()):
 * the pop runs with the flags on the stack, which GCC's CFI cannot see, so
 * SFrame's CFA is 8 bytes short on exactly that instruction.
 */
static int is_pushf_pop(const struct input *in, uint64_t lo, uint64_t hi,
			const struct orc *o, const struct sframe_rule *r)
{
	const uint8_t *b;

	if (hi - lo > 15 || o->type != ORC_TYPE_CALL ||
	    r->cfa.offset != o->sp_off - 8)
		return 0;
	b = text_bytes(in, lo - 1, hi - lo + 1);
	return b && b[0] == 0x9c && x86_pop_len(b + 1, hi - lo) == hi - lo;
}

/*
 * iret-to-self (sync_core(), arch/x86/include/asm/sync_core.h): the inline
 * asm builds an IRET frame with "push %rsp; addq $8,(%rsp); pushf; ...;
 * iretq" that GCC's CFI cannot see.  Recognised by its bytes: the range
 * lies within the 32 bytes before the end of an iretq (48 cf) and those
 * bytes contain "push %rsp; addq $8,(%rsp)" (54 48 83 04 24 08).  Bytes
 * rather than a list of function names, so that a new caller of
 * sync_core() is recognised and an unrelated disagreement in a listed
 * function is not.
 */
static int is_iret_to_self(const struct input *in, const struct region *r,
			   uint64_t lo, uint64_t hi)
{
	static const uint8_t sig[] = { 0x54, 0x48, 0x83, 0x04, 0x24, 0x08 };
	const uint8_t *b = text_bytes(in, r->lo, r->hi - r->lo);
	uint64_t q, i, w;

	if (!b || hi - lo > 32)
		return 0;
	/* iretq at [q, q + 2), the range inside [q + 2 - 32, q + 2) */
	q = hi >= r->lo + 2 ? hi - 2 : r->lo;
	for (; q + 2 <= r->hi && q + 2 <= lo + 32; q++) {
		if (b[q - r->lo] != 0x48 || b[q + 1 - r->lo] != 0xcf)
			continue;
		w = q + 2 - 32 > r->lo && q + 2 >= 32 ? q + 2 - 32 : r->lo;
		if (lo < w)
			continue;
		for (i = w; i + sizeof(sig) <= q; i++)
			if (!memcmp(b + (i - r->lo), sig, sizeof(sig)))
				return 1;
	}
	return 0;
}

/*
 * struct alt_instr: s32 instr_offset, s32 repl_offset, the feature (u16
 * cpuid in 6.1; u32 ft_flags, cpuid and flags, since 6.3), u8 instrlen,
 * u8 replacementlen.  The file says nothing of its kernel's version: the
 * size is the one at which every entry is an alternative, its original in
 * the file's sections and padded to at least the replacement's length
 * (the ALTERNATIVE macros guarantee it), its replacement in the sections.
 */
static const unsigned int alt_sizes[] = { 14, 12, 0 };

static int alts_fit(const struct input *in, const struct elf_sec *s,
		    const uint8_t *d, unsigned int size)
{
	uint64_t i, n = s->size / size;

	if (!n || s->size % size)
		return 0;
	for (i = 0; i < n; i++) {
		const uint8_t *e = d + size * i;
		uint64_t a = s->vaddr + size * i;
		uint64_t orig = a + (int64_t)(int32_t)elf_get(&in->f, e, 4);
		uint64_t repl = a + 4 + (int64_t)(int32_t)elf_get(&in->f, e + 4, 4);
		unsigned int olen = e[size - 2], rlen = e[size - 1];

		if (olen < rlen || !text_bytes(in, orig, olen) ||
		    !text_bytes(in, repl, rlen))
			return 0;
	}
	return 1;
}

/**
 * load_alts() - read .altinstructions (struct alt_instr of 6.1 or 6.12)
 * @in: the input (none: nothing happens)
 */
void load_alts(struct input *in)
{
	int idx = elf_sec_find(&in->f, ".altinstructions");
	unsigned int size = 0, k;
	const struct elf_sec *s;
	const uint8_t *d;
	const char *why;
	uint64_t i, n;

	if (idx < 0)
		return;
	s = &in->f.secs[idx];
	if (!elf_sec_data(&in->f, idx))
		return;
	if (in->f.type == ELF_ET_REL &&
	    elf_apply_rela(&in->f, idx, &why))
		die(in->path, ".rela.altinstructions: %s", why);
	d = elf_sec_data(&in->f, idx);
	for (k = 0; alt_sizes[k] && !size; k++)
		if (alts_fit(in, s, d, alt_sizes[k]))
			size = alt_sizes[k];
	if (!size) {
		/* its alt-pushf findings are then reported as unknown */
		fprintf(stderr, "%s: %s: .altinstructions: %s\n", prog,
			in->path, "entries of no known size, ignored");
		return;
	}
	n = s->size / size;
	in->alts = xcalloc(n, sizeof(*in->alts));
	in->alt_repl = xcalloc(n, sizeof(*in->alt_repl));
	for (i = 0; i < n; i++) {
		const uint8_t *e = d + size * i;
		uint64_t a = s->vaddr + size * i;

		in->alts[i].lo = a + (int64_t)(int32_t)elf_get(&in->f, e, 4);
		in->alts[i].hi = in->alts[i].lo + e[size - 2];
		in->alt_repl[i].lo = a + 4 +
				     (int64_t)(int32_t)elf_get(&in->f, e + 4, 4);
		in->alt_repl[i].hi = in->alt_repl[i].lo + e[size - 1];
	}
	in->nalts = n;
}

/*
 * An alternative whose replacement pushes the flags (smap_save(): "pushf;
 * pop %0; clac", smap_restore(): "push %0; popf"): objtool describes the
 * replacement's stack in ORC over the NOPs of the original, GCC's CFI
 * cannot.  The range lies inside the original instruction, the replacement
 * has a pushf (9c) or popf (9d), and SFrame's CFA is 8 short.
 */
static int is_alt_pushf(const struct input *in, uint64_t lo, uint64_t hi,
			const struct orc *o, const struct sframe_rule *r)
{
	size_t i;

	if (o->type != ORC_TYPE_CALL || r->cfa.offset != o->sp_off - 8)
		return 0;
	for (i = 0; i < in->nalts; i++) {
		uint64_t n = in->alt_repl[i].hi - in->alt_repl[i].lo;
		const uint8_t *b;

		if (lo < in->alts[i].lo || hi > in->alts[i].hi)
			continue;
		b = text_bytes(in, in->alt_repl[i].lo, n);
		if (b && (memchr(b, 0x9c, n) || memchr(b, 0x9d, n)))
			return 1;
	}
	return 0;
}

static int u64_above(const void *elem, const void *key)
{
	return *(const uint64_t *)elem > *(const uint64_t *)key;
}

/* Next boundary above @pc in a sorted array, or UINT64_MAX. */
static uint64_t next_bound(const uint64_t *v, size_t n, uint64_t pc)
{
	size_t k = search_first(v, n, sizeof(*v), &pc, u64_above);

	return k < n ? v[k] : UINT64_MAX;
}

/**
 * check_orc() - compare SFrame with ORC over every code region
 * @in: the input, with ORC (load_orc())
 *
 * Steps over the union of the row boundaries of both tables; every
 * disagreement is classified, counted and reported as a finding.
 */
void check_orc(struct input *in)
{
	size_t k;

	for (k = 0; k < in->nregs; k++) {
		struct region *r = &in->regs[k];
		uint64_t pc = r->lo;

		while (pc < r->hi) {
			uint64_t next = r->hi, b;
			size_t oi = orc_upper(in, pc);
			const struct orc *o = oi ? &in->orc[oi - 1] : NULL;
			struct sframe_rule rule;
			int err, known_ann = 0;
			struct exception *e;
			enum cls c;
			char os[96], ss[96], detail[256];

			if (oi < in->norc && in->orc[oi].ip < next)
				next = in->orc[oi].ip;
			b = next_bound(in->bounds, in->nbounds, pc);
			if (b < next)
				next = b;
			err = sframe_rule_at(in, pc, &rule);
			/* judge the rule the kernel unwinder applies */
			if (!err)
				sframe_rule_no_red_zone(&rule, in->sec.sp_reg);
			if (!orc_defined(o) || err) {
				if (orc_defined(o) && err)
					in->st.orc_only += next - pc;
				pc = next;
				continue;
			}
			in->st.compared += next - pc;
			if (rules_agree(in, o, &rule)) {
				in->st.agree += next - pc;
				pc = next;
				continue;
			}
			if (is_bp_unchanged(in, r, pc, next, oi - 1, &rule)) {
				in->st.agree += next - pc;
				in->st.bp_unchanged += next - pc;
				pc = next;
				continue;
			}
			if (o->sp_reg == ORC_REG_SP_INDIRECT)
				c = CLS_STACK_SWITCH;
			else if (is_pushf_pop(in, pc, next, o, &rule))
				c = CLS_PUSHF_POP;
			else if (is_iret_to_self(in, r, pc, next))
				c = CLS_IRET_TO_SELF;
			else if (is_alt_pushf(in, pc, next, o, &rule))
				c = CLS_ALT_PUSHF;
			else if (is_late_push(in, pc, next, o, &rule))
				c = CLS_LATE_PUSH;
			else if (is_late_add(in, pc, next, o, &rule))
				c = CLS_LATE_ADD;
			else if (rule.cfa.reg != in->sec.sp_reg &&
				 rule.cfa.reg != in->sec.fp_reg &&
				 is_drap(in, r, r->sym, r->hi))
				c = CLS_DRAP;
			else
				c = CLS_UNKNOWN;
			in->st.wrong += next - pc;
			in->st.cls_bytes[c] += next - pc;
			if (!r->wrong) {
				r->wrong = 1;
				in->st.wrong_funcs++;
			}
			if (c == CLS_STACK_SWITCH &&
			    iv_overlap(&in->annot_ssi, pc, next) == next - pc) {
				in->st.ss_annotated += next - pc;
				known_ann = 1;
			}
			iv_subtract(&in->annot_all, pc, next, &in->fix);
			fmt_orc(o, os, sizeof(os));
			fmt_sframe(in, 0, &rule, ss, sizeof(ss));
			snprintf(detail, sizeof(detail), "%s: ORC %s, SFrame %s",
				 cls_names[c], os, ss);
			e = known_ann ? NULL :
			    exc_match(in, EXC_WRONG, r, pc, next, c);
			if (!e && !known_ann)
				in->st.wrong_unknown += next - pc;
			finding(in, "wrong", r, pc, next, e,
				known_ann ? "annotated" : NULL, detail);
			pc = next;
		}
	}
}
