// SPDX-License-Identifier: GPL-2.0-only
/*
 * sframe-hostile: its own .sframe, found through the program headers,
 * opened with the SFrame core, made writable, and forged in place one way
 * at a time (the section variants), unmapped or made PROT_NONE.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hostile.h"

/* ---- the section ---------------------------------------------------------- */

/* the section (hostile.h) */
struct section sf;

int exe_fd = -1;
long page_size;

/* n bytes at section offset off of the pristine copy, sign-extended */
static s64 get_orig(u32 off, unsigned int n)
{
	unsigned int shift = 64 - 8 * n;
	u64 v = 0;

	memcpy(&v, sf.orig + off, n);
	return (s64)(v << shift) >> shift;
}

/* writes n bytes of v at section offset off (if inside the segment) */
static void put(u64 off, u64 v, unsigned int n)
{
	if (off > sf.len || n > sf.len - off)
		return;
	memcpy(sf.live + off, &v, n);
}

/* the FDE index entry i (the core's stride) */
static u32 fde_entry(u32 i)
{
	return sf.sec.fde_base + i * sf.sec.fde_size;
}

/* where a field of FDE i lies; len 0: none in this version */
static struct sframe_field fde_field(u32 i, enum sframe_field_id id)
{
	struct sframe_field f;

	if (sframe_fde_field(&sf.sec, &sf.fdes[i].d, id, &f))
		f.len = 0;
	return f;
}

/* where a field of an FRE of FDE i lies; len 0: the row has none */
static struct sframe_field fre_field(u32 i, const struct sframe_fre *fr,
				     enum sframe_field_id id)
{
	struct sframe_field f;

	if (sframe_fre_field(&sf.sec, &sf.fdes[i].d, fr, id, &f))
		f.len = 0;
	return f;
}

static void put_field(struct sframe_field f, u64 v)
{
	put(f.off, v, f.len);
}

static int find_fde(u64 pc)
{
	u32 i;

	for (i = 0; i < sf.sec.num_fdes; i++)
		if (pc >= sf.fdes[i].d.start &&
		    pc - sf.fdes[i].d.start < sf.fdes[i].d.size)
			return i;
	return -1;
}

struct phdr_search {
	uintptr_t sframe, sframe_len;
	uintptr_t load_vaddr, load_off, load_len;	/* the PT_LOAD holding it */
	bool found, in_text;
	uintptr_t text_lo[16], text_hi[16];
	int ntext;
	uintptr_t x_lo, x_hi, x_off;	/* the first executable PT_LOAD */
};

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct phdr_search *ps = arg;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_GNU_SFRAME) {
			ps->sframe = info->dlpi_addr + ph->p_vaddr;
			ps->sframe_len = ph->p_memsz;
			ps->found = true;
		}
	}
	if (!ps->found)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if ((ph->p_flags & PF_X) && !ps->x_hi &&
		    ph->p_filesz == ph->p_memsz &&
		    (lo & (page_size - 1)) == (ph->p_offset & (page_size - 1))) {
			ps->x_lo = lo & ~(page_size - 1);
			ps->x_hi = (lo + ph->p_filesz + page_size - 1) & ~(page_size - 1);
			ps->x_off = ph->p_offset & ~(page_size - 1);
		}
		if ((ph->p_flags & PF_X) && ps->ntext < 16) {
			ps->text_lo[ps->ntext] = lo & ~(page_size - 1);
			ps->text_hi[ps->ntext++] = (lo + ph->p_memsz + page_size - 1) &
						   ~(page_size - 1);
		}
		if (ps->sframe >= lo && ps->sframe + ps->sframe_len <= lo + ph->p_filesz) {
			ps->load_vaddr = lo;
			ps->load_off = ph->p_offset;
			ps->load_len = ph->p_filesz;
			ps->in_text = ph->p_flags & PF_X;
		}
	}
	return 1;			/* the executable only */
}

/* FDEs and FREs of the section as opened with opts; 0 or a core error */
static int decode_section(unsigned int opts)
{
	u32 i, j, p, cap = 0;
	int err;

	err = sframe_open(&sf.sec, sf.orig, sf.len, sf.addr, opts);
	if (!err)
		err = sframe_validate(&sf.sec, NULL, NULL);
	if (err)
		return err;
	free(sf.fdes);
	sf.fdes = calloc(sf.sec.num_fdes + 1, sizeof(*sf.fdes));
	if (!sf.fdes)
		die(2, "out of memory");
	sf.nfres = 0;
	for (i = 0; i < sf.sec.num_fdes; i++) {
		struct fde *f = &sf.fdes[i];
		struct sframe_field start;

		err = sframe_get_fde(&sf.sec, i, &f->d);
		if (err)
			return err;
		start = fde_field(i, SFRAME_FIELD_FDE_START);
		f->anchor = f->d.start - get_orig(start.off, start.len);
		f->first = sf.nfres;
		for (j = 0, p = f->d.fres; j < f->d.num_fres; j++) {
			if (sf.nfres == cap) {
				cap = cap ? 2 * cap : 256;
				sf.fres = realloc(sf.fres, cap * sizeof(*sf.fres));
				if (!sf.fres)
					die(2, "out of memory");
			}
			err = sframe_read_fre(&sf.sec, &f->d, p,
					      &sf.fres[sf.nfres]);
			if (err)
				return err;
			p = sf.fres[sf.nfres++].next;
		}
		f->nfres = sf.nfres - f->first;
	}
	return 0;
}

/* the chain's functions by level (stack.c) */
static unsigned long (*const level_fn[NLEVELS])(unsigned long) = {
	h_leaf, h_c, h_b, h_a, h_outer, run_chain,
};

/*
 * Opens the pristine copy with the core; exits 2 when it is not the SFrame
 * we expect.  Start addresses: as the header says, else PC-relative,
 * whichever puts an FDE at h_leaf.
 */
static void parse_section(void)
{
	unsigned int mode;
	int lv, f, err = 0;

	for (mode = 0; mode < 2; mode++) {
		err = decode_section(mode ? SFRAME_OPEN_PCREL : 0);
		if (err)
			die(2, ".sframe: %s (%s)", sframe_strerror(err),
			    sframe_errname(err));
		f = find_fde((uintptr_t)h_leaf);
		if (f >= 0 && sf.fdes[f].d.start == (uintptr_t)h_leaf)
			break;
	}
	if (mode == 2)
		die(2, ".sframe: no FDE starts at h_leaf %p", (void *)h_leaf);
	if (sf.sec.abi != SFRAME_ABI)
		die(2, ".sframe: ABI %u, expected %u", sf.sec.abi, SFRAME_ABI);
	sf.used = sf.sec.size;
	sf.hdr_end = SFRAME_HDR_SIZE + sf.orig[SFRAME_HDR_AUXHDR_LEN];
	sf.fdeoff = sf.sec.fde_base - sf.hdr_end;
	sf.freoff = sf.sec.fre_base - sf.hdr_end;
	sf.fre_len = sf.sec.fre_end - sf.sec.fre_base;
	for (lv = 0; lv < NLEVELS; lv++) {
		int k;

		f = find_fde((uintptr_t)level_fn[lv]);
		sf.level_fde[lv] = f;
		if (f < 0)
			die(2, ".sframe: no FDE covers %s", level_names[lv]);
		for (k = 0; k < sf.nchain; k++)
			if (sf.chain_fdes[k] == (u32)f)
				break;
		if (k == sf.nchain)
			sf.chain_fdes[sf.nchain++] = f;
	}
}

/**
 * setup_section() - finds the section and makes its pages writable
 *
 * Keeps the pristine bytes; exits 2 when the executable has no suitable
 * .sframe.
 */
void setup_section(void)
{
	struct phdr_search ps = { 0 };
	int i;

	page_size = sysconf(_SC_PAGESIZE);
	dl_iterate_phdr(phdr_cb, &ps);
	if (!ps.found)
		die(2, "no PT_GNU_SFRAME in the executable: built without -Wa,--gsframe?");
	if (!ps.load_len || ps.in_text)
		die(2, ".sframe at %#lx is %s: link with -z separate-code", ps.sframe,
		    ps.in_text ? "in the text segment" : "in no PT_LOAD");
	sf.addr = ps.sframe;
	sf.len = ps.sframe_len;
	sf.live = (u8 *)sf.addr;
	sf.page = sf.addr & ~(page_size - 1);
	sf.page_len = ((sf.addr + sf.len + page_size - 1) & ~(page_size - 1)) - sf.page;
	for (i = 0; i < ps.ntext; i++)
		if (sf.page < ps.text_hi[i] && sf.page + sf.page_len > ps.text_lo[i])
			die(2, ".sframe pages %#lx-%#lx share a page with text",
			    sf.page, sf.page + sf.page_len);
	sf.text_lo = ps.x_lo;
	sf.text_hi = ps.x_hi;
	sf.text_off = ps.x_off;
	sf.file_off = ps.load_off + (sf.page - ps.load_vaddr);
	if (sf.page < ps.load_vaddr && ps.load_vaddr - sf.page > ps.load_off)
		sf.file_off = -1;
	sf.orig = malloc(sf.len);
	sf.orig_pages = malloc(sf.page_len);
	if (!sf.orig || !sf.orig_pages)
		die(2, "out of memory");
	memcpy(sf.orig, sf.live, sf.len);
	memcpy(sf.orig_pages, (void *)sf.page, sf.page_len);
	parse_section();
	exe_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (mprotect((void *)sf.page, sf.page_len, PROT_READ | PROT_WRITE))
		die(2, "mprotect of the .sframe pages: %s", strerror(errno));
	flap_set_base(sf.live);
}

/**
 * remap_section() - maps the section's pages back and refills them
 *
 * From the executable, else anonymous memory.
 */
void remap_section(void)
{
	void *p = MAP_FAILED;

	if (exe_fd >= 0 && sf.file_off >= 0)
		p = mmap((void *)sf.page, sf.page_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_FIXED, exe_fd, sf.file_off);
	if (p == MAP_FAILED)
		p = mmap((void *)sf.page, sf.page_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0);
	if (p != (void *)sf.page)
		die(1, "FAIL: cannot map the .sframe pages back: %s", strerror(errno));
	if (memcmp(p, sf.orig_pages, sf.page_len))
		memcpy(p, sf.orig_pages, sf.page_len);
}

/* ---- section variants ------------------------------------------------------ */

const char *const sclass_names[NSCLASS] = {
	"byte-flips", "num_fdes", "num_fres", "fre_len", "fdeoff", "freoff",
	"magic/version", "abi/flags", "auxhdr_len/fixed-offsets",
	"sorted-flag-on-unsorted-fdes", "fde-start", "fde-size", "fde-fre-offset",
	"fde-num-fres", "pcmask-type", "fde-info", "fre-cfa-offset",
	"fre-ra/fp-offset", "fre-info", "fre-start", "truncation", "random-fill",
	"flapping", "munmap", "prot-none",
};

/* in-place classes, weighted */
static const enum sclass sched_section[] = {
	S_FLIP, S_FLIP, S_FLIP, S_NUM_FDES, S_NUM_FRES, S_FRE_LEN, S_FDEOFF,
	S_FREOFF, S_IDENT, S_ABI_FLAGS, S_AUX_FIXED, S_UNSORTED, S_FDE_START,
	S_FDE_START, S_FDE_SIZE, S_FDE_FREOFF, S_FDE_NFRES, S_PCMASK, S_FDE_INFO,
	S_FRE_CFA, S_FRE_CFA, S_FRE_RA_FP, S_FRE_RA_FP, S_FRE_INFO, S_FRE_START,
	S_TRUNCATE, S_RANDOM, S_FLAP, S_FLAP,
};

unsigned long sclass_count[NSCLASS];

/* an FDE: a chain function's 3 times out of 4 */
static u32 pick_fde(void)
{
	if (rndn(4) && sf.nchain)
		return sf.chain_fdes[rndn(sf.nchain)];
	return rndn(sf.sec.num_fdes);
}

static const char *fde_name(u32 i)
{
	int lv;

	for (lv = 0; lv < NLEVELS; lv++)
		if (sf.level_fde[lv] == (int)i)
			return level_names[lv];
	return "other";
}

/* an FRE of FDE i, NULL if it has none */
static const struct sframe_fre *pick_fre(u32 i)
{
	const struct fde *f = &sf.fdes[i];

	if (!f->nfres)
		return NULL;
	return &sf.fres[f->first + rndn(f->nfres)];
}

/* the largest signed value of a field of n bytes */
static u64 smax(unsigned int n)
{
	return (1ULL << (8 * n - 1)) - 1;
}

/* FDE entry i's start field set to addr (from entry i's anchor) */
static void set_fde_start(u32 i, u64 addr)
{
	struct sframe_field f = fde_field(i, SFRAME_FIELD_FDE_START);
	s64 raw = (s64)(addr - sf.fdes[i].anchor), min = -(s64)smax(f.len) - 1;

	if (raw < min || raw > (s64)smax(f.len)) {
		raw = min;
		describe(" (out of reach: %#" PRIx64 ")",
			 sf.fdes[i].anchor + (u64)raw);
	}
	put_field(f, raw);
}

/* extreme values of a signed word of n bytes */
static u64 word_extreme(unsigned int n)
{
	u64 max = smax(n);

	return PICK(max, max + 1, 0, (u64)-8, (u64)-1, 1, max - 7, rnd());
}

static void flip_bytes(void)
{
	unsigned int k, n = 1 + rndn(16);

	describe(" %u bytes:", n);
	for (k = 0; k < n; k++) {
		u32 off = rndn(sf.used);
		u8 x = 1 + rndn(255);

		sf.live[off] ^= x;
		if (k < 4)
			describe(" [%u]^=%#x", off, x);
	}
}

/*
 * A 32-bit field of the header (S_NUM_FDES to S_FREOFF: counts, the FRE
 * sub-section's length, the offsets): 0, 1, around its own value and its
 * neighbours', past the end, the sign bit, all ones, random.
 */
static void mut_header_word(enum sclass c)
{
	const struct sframe_section *sec = &sf.sec;
	u32 end = sf.len - sf.hdr_end;	/* offsets past the segment */
	unsigned int off;
	u64 v;

	switch (c) {
	case S_NUM_FDES:
		off = SFRAME_HDR_NUM_FDES;
		v = PICK(0, 1, sec->num_fdes - 1, sec->num_fdes + 1,
			 2 * sec->num_fdes,
			 (sec->fre_base - sec->fde_base) / sec->fde_size + 1,
			 (sf.len - sec->fde_base) / sec->fde_size + 1, 0x7fffffff,
			 0x80000000, 0xffffffff, (u32)rnd());
		break;
	case S_NUM_FRES:
		off = SFRAME_HDR_NUM_FRES;
		v = PICK(0, 1, sec->num_fres - 1, sec->num_fres + 1, 0x80000000,
			 0xffffffff, (u32)rnd());
		break;
	case S_FRE_LEN:
		off = SFRAME_HDR_FRE_LEN;
		v = PICK(0, 1, sf.fre_len - 1, sf.fre_len + 1,
			 sf.len - sec->fre_base + 1, sf.len - sec->fre_base + 4096,
			 0x7fffffff, 0xffffffff, (u32)rnd());
		break;
	case S_FDEOFF:
		off = SFRAME_HDR_FDEOFF;
		v = PICK(sf.fdeoff ? 0 : 1, 1, sf.freoff, sf.freoff + 1,
			 sf.fdeoff + sec->fde_size, end, end + 1, 0x80000000,
			 0xffffffff, (u32)rnd());
		break;
	default:
		off = SFRAME_HDR_FREOFF;
		v = PICK(0, 1, sf.fdeoff, sf.fdeoff + sec->fde_size,
			 sf.freoff - 1, sf.freoff + 1, end - sf.fre_len + 1, end,
			 0x80000000, 0xffffffff, (u32)rnd());
		break;
	}
	put(off, v, 4);
	describe(" = %#" PRIx64, v);
}

/* magic and version (or a consistent foreign identity) */
static void mut_ident(void)
{
	const struct sframe_section *sec = &sf.sec;
	u64 v;

	if (!rndn(4)) {
		/* consistent but foreign: big-endian, or PC-relative */
		if (rndn(2)) {
			put(SFRAME_HDR_MAGIC, 0xe2de, 2);
			put(SFRAME_HDR_ABI, PICK(SFRAME_ABI_AARCH64_ENDIAN_BIG,
						 SFRAME_ABI_S390X_ENDIAN_BIG), 1);
			describe(" big-endian magic and abi %u", sf.live[SFRAME_HDR_ABI]);
		} else {
			/* v3 data read as v2: FDEs of another size */
			v = sec->version == SFRAME_VERSION_2 ?
			    SFRAME_VERSION_3 : SFRAME_VERSION_2;
			put(SFRAME_HDR_VERSION, v, 1);
			sf.live[SFRAME_HDR_FLAGS] |= SFRAME_F_FDE_FUNC_START_PCREL;
			describe(" version %" PRIu64 " with PC-relative starts",
				 v);
		}
	} else if (rndn(2)) {
		v = PICK(0, 0xe2de /* big-endian magic */, 0xdee3, 0xffff,
			 (u16)rnd());
		put(SFRAME_HDR_MAGIC, v, 2);
		describe(" magic = %#" PRIx64, v);
	} else {
		v = PICK(0, sec->version == 1 ? 2 : 1, 3, 4, 0x7f, 0xff);
		put(SFRAME_HDR_VERSION, v, 1);
		describe(" version = %" PRIu64, v);
	}
}

/* ABI or flags */
static void mut_abi_flags(void)
{
	const struct sframe_section *sec = &sf.sec;
	u64 v;

	if (rndn(2)) {
		do {
			v = PICK(0, 1, 2, 3, 4, 5, 0x7f, 0xff);
		} while (v == SFRAME_ABI);
		put(SFRAME_HDR_ABI, v, 1);
		describe(" abi = %" PRIu64, v);
	} else {
		v = PICK(0, SFRAME_F_FRAME_POINTER,
			 SFRAME_F_FDE_FUNC_START_PCREL | sec->flags, 0x7, 0x80,
			 0xff);
		put(SFRAME_HDR_FLAGS, v, 1);
		describe(" flags = %#" PRIx64, v);
	}
}

/* auxiliary header length or a fixed offset */
static void mut_aux_fixed(void)
{
	u64 v;

	switch (rndn(3)) {
	case 0:
		v = PICK(1, 3, 8, 0xff, rndn(256));
		put(SFRAME_HDR_AUXHDR_LEN, v, 1);
		describe(" auxhdr_len = %" PRIu64, v);
		break;
	case 1:
		v = PICK(0, 0x7f, 0x80, 0xf0, 0x10, rndn(256));
		put(SFRAME_HDR_FIXED_FP, v, 1);
		describe(" fixed_fp = %d", (s8)v);
		break;
	default:
		v = PICK(0, 0x7f, 0x80, 0xf0, 0x10, rndn(256));
		put(SFRAME_HDR_FIXED_RA, v, 1);
		describe(" fixed_ra = %d", (s8)v);
		break;
	}
}

/* FDE entries reordered, flagged sorted */
static void mut_unsorted(void)
{
	const struct sframe_section *sec = &sf.sec;
	u32 i;
	static const char *const unsorted_names[] = {
		"reversed", "rotated", "two swapped", "shuffled",
	};
	/* FDE entries moved (start fields kept pointing at their function) */
	u32 n = sec->num_fdes, *perm = calloc(n, sizeof(*perm));
	unsigned int how = rndn(4);

	if (!perm)
		die(1, "out of memory");
	for (i = 0; i < n; i++)
		perm[i] = how == 0 ? n - 1 - i : how == 1 ? (i + 1) % n : i;
	if (how == 2 && n > 1) {	/* a chain FDE swapped with another */
		u32 a = pick_fde(), b = rndn(n);

		if (a == b)
			b = (a + 1) % n;
		perm[a] = b;
		perm[b] = a;
	}
	if (how == 3)
		for (i = n - 1; i > 0; i--) {
			u32 j = rndn(i + 1), t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
	for (i = 0; i < n; i++) {	/* entry i gets old entry perm[i] */
		memcpy(sf.live + fde_entry(i), sf.orig + fde_entry(perm[i]),
		       sec->fde_size);
		set_fde_start(i, sf.fdes[perm[i]].d.start);
	}
	sf.live[SFRAME_HDR_FLAGS] |= SFRAME_F_FDE_SORTED;
	describe(" (%s)", unsorted_names[how]);
	free(perm);
}

/* an FDE's start: itself, the kernel, another function, extremes */
static void mut_fde_start(void)
{
	const struct sframe_section *sec = &sf.sec;
	u32 i;
	struct sframe_field f;
	u64 v;
	u32 prev, next;

	i = pick_fde();
	prev = i ? i - 1 : sec->num_fdes - 1;
	next = (i + 1) % sec->num_fdes;
	describe(" fde %u (%s)", i, fde_name(i));
	switch (rndn(8)) {
	case 0:
		describe(" -> itself");
		set_fde_start(i, sf.addr + fde_entry(i));
		break;
	case 1:
		describe(" -> kernel %#llx", KERNEL_ADDR);
		set_fde_start(i, KERNEL_ADDR);
		break;
	case 2:
		describe(" -> fde %u's start (overlap)", prev);
		set_fde_start(i, sf.fdes[prev].d.start);
		break;
	case 3:
		describe(" -> fde %u's start (overlap)", next);
		set_fde_start(i, sf.fdes[next].d.start);
		break;
	case 4:
		describe(" -> fde %u's start, size 0xffffffff", prev);
		set_fde_start(i, sf.fdes[prev].d.start);
		put_field(fde_field(i, SFRAME_FIELD_FDE_SIZE), 0xffffffff);
		break;
	case 5:
		/* the field's extremes: 0, max, min, -1 */
		f = fde_field(i, SFRAME_FIELD_FDE_START);
		v = PICK(0, smax(f.len), smax(f.len) + 1, ~0ULL);
		describe(" raw = %#" PRIx64,
			 f.len < 8 ? v & ((1ULL << 8 * f.len) - 1) : v);
		put_field(f, v);
		break;
	case 6:
		v = PICK(1, (u64)-1, 4, (u64)-4, 16);
		describe(" += %" PRId64, (s64)v);
		set_fde_start(i, sf.fdes[i].d.start + v);
		break;
	default:
		describe(" -> the section's start");
		set_fde_start(i, sf.addr);
		break;
	}
}

/* an FDE's size */
static void mut_fde_size(void)
{
	u32 i;
	u64 v;

	i = pick_fde();
	v = PICK(0, 1, 0xffffffff, 0x80000000, sf.fdes[i].d.size + 1,
		 2 * sf.fdes[i].d.size, (u32)rnd());
	put_field(fde_field(i, SFRAME_FIELD_FDE_SIZE), v);
	describe(" fde %u (%s) = %#" PRIx64, i, fde_name(i), v);
}

/* an FDE's FRE offset */
static void mut_fde_freoff(void)
{
	u32 i;
	struct sframe_field f;
	u64 v;
	u32 fre_off;

	i = pick_fde();
	f = fde_field(i, SFRAME_FIELD_FDE_FRE_OFF);
	fre_off = get_orig(f.off, f.len);
	/* back to earlier FREs (another FDE's, its own +-1), past the end */
	v = PICK(i ? get_orig(fde_field(rndn(i), SFRAME_FIELD_FDE_FRE_OFF).off,
			      f.len) : 0,
		 0, fre_off + 1, fre_off ? fre_off - 1 : 1, sf.fre_len,
		 sf.fre_len - 1, 0x80000000, 0xffffffff, (u32)rnd());
	put_field(f, v);
	describe(" fde %u (%s) = %#" PRIx64, i, fde_name(i), v);
}

/* an FDE's FRE count */
static void mut_fde_nfres(void)
{
	u32 i;
	struct sframe_field f;
	u64 v;
	u32 fre_off;

	i = pick_fde();
	f = fde_field(i, SFRAME_FIELD_FDE_FRE_OFF);
	fre_off = get_orig(f.off, f.len);
	f = fde_field(i, SFRAME_FIELD_FDE_NUM_FRES);
	v = PICK(0, sf.fdes[i].d.num_fres + 1, sf.fre_len - fre_off + 1,
		 0xff, 0xffff, 0x10000, 0x7fffffff, 0xffffffff,
		 (u32)rnd());
	put_field(f, v);
	describe(" fde %u (%s) = %#" PRIx64, i, fde_name(i),
		 v & ((1ULL << 8 * f.len) - 1));
}

/* PCMASK FDEs */
static void mut_pcmask(void)
{
	const struct sframe_section *sec = &sf.sec;
	u32 i;
	struct sframe_field f;
	u64 v;

	if (rndn(4)) {
		i = pick_fde();
		sf.live[fde_field(i, SFRAME_FIELD_FDE_INFO).off] |=
			SFRAME_PC_TYPE_MASK << 4;
		describe(" fde %u (%s)", i, fde_name(i));
		f = fde_field(i, SFRAME_FIELD_FDE_REP_SIZE);
		if (f.len) {		/* not in v1 */
			v = PICK(0, 1, 16, 0xff);
			put_field(f, v);
			describe(" rep_size %" PRIu64, v);
		}
	} else {
		for (i = 0; i < sec->num_fdes; i++)
			sf.live[fde_field(i, SFRAME_FIELD_FDE_INFO).off] |=
				SFRAME_PC_TYPE_MASK << 4;
		describe(" every fde");
	}
}

/* an FDE's info byte (v3: its type too) */
static void mut_fde_info(void)
{
	u32 i;
	struct sframe_field f;
	u64 v;

	i = pick_fde();
	v = sf.fdes[i].d.info;
	switch (rndn(4)) {
	case 0:				/* start-address type 3..15 */
		v = (v & ~0xfULL) | (3 + rndn(13));
		break;
	case 1:				/* another valid type */
		v = (v & ~0xfULL) | ((SFRAME_FUNC_FRE_TYPE(v) + 1 + rndn(2)) % 3);
		break;
	case 2:
		v = PICK(v | 0x20, 0xff, 0);
		break;
	default:
		v = rndn(256);
		break;
	}
	put_field(fde_field(i, SFRAME_FIELD_FDE_INFO), v);
	describe(" fde %u (%s) = %#" PRIx64, i, fde_name(i), v);
	f = fde_field(i, SFRAME_FIELD_FDE_INFO2);
	if (f.len && !rndn(4)) {	/* v3: the FDE type too */
		v = PICK(SFRAME_FDE_TYPE_DEFAULT, SFRAME_FDE_TYPE_FLEX,
			 2, 0x1f, 0xff, rndn(256));
		put_field(f, v);
		describe(" info2 = %#" PRIx64, v);
	}
}

/* a CFA word, or (@ra_fp) an RA or FP word, of one or every row of an FDE */
static void mut_fre_word(bool ra_fp)
{
	u32 i;
	const struct sframe_fre *fr;
	struct sframe_field f;
	u64 v;
	enum sframe_field_id id = SFRAME_FIELD_FRE_CFA;
	bool all = !rndn(4);
	u32 k;

	i = pick_fde();
	fr = pick_fre(i);
	if (!fr) {
		flip_bytes();
		return;
	}
	if (ra_fp) {
		bool ra = rndn(2);

		/* no word in the row: the header's fixed offset */
		id = ra ? SFRAME_FIELD_FRE_RA : SFRAME_FIELD_FRE_FP;
		if (ra && !fre_field(i, fr, id).len) {
			v = PICK(0 /* RA at the CFA */, 8, 0xf0, 0x7f, 0x80);
			put(SFRAME_HDR_FIXED_RA, v, 1);
			describe(" fixed_ra = %d", (s8)v);
			return;
		}
		if (!fre_field(i, fr, id).len) {
			v = PICK(0, 8, 0x80);
			put(SFRAME_HDR_FIXED_FP, v, 1);
			describe(" fixed_fp = %d", (s8)v);
			return;
		}
	}
	f = fre_field(i, fr, id);
	if (!f.len) {			/* a row without words */
		flip_bytes();
		return;
	}
	describe(" fde %u (%s) %s %s word", i, fde_name(i),
		 all ? "every fre" : "one fre",
		 id == SFRAME_FIELD_FRE_CFA ? "CFA" :
		 id == SFRAME_FIELD_FRE_RA ? "RA" : "FP");
	/* RA/FP: at the CFA itself half of the time */
	v = ra_fp && rndn(2) ? 0 : word_extreme(f.len);
	describe(" = %#" PRIx64, v & ((1ULL << (8 * f.len - 1) << 1) - 1));
	if (!all) {
		put_field(f, v);
		return;
	}
	for (k = 0; k < sf.fdes[i].nfres; k++)
		put_field(fre_field(i, &sf.fres[sf.fdes[i].first + k], id),
			  v);
}

/* an FRE's info byte */
static void mut_fre_info(void)
{
	u32 i;
	const struct sframe_fre *fr;
	u64 v;

	i = pick_fde();
	fr = pick_fre(i);
	if (!fr) {
		flip_bytes();
		return;
	}
	v = fr->info;
	switch (rndn(6)) {
	case 0:
		v &= ~0x1eULL;			/* no words */
		break;
	case 1:
		v |= 0x1e;			/* 15 words */
		break;
	case 2:				/* one more */
		v = (v & ~0x1eULL) | ((sframe_fre_words(fr) + 1) << 1);
		break;
	case 3:
		v |= 0x60;			/* word size 3 */
		break;
	case 4:
		v ^= 1 | 0x80;			/* base register, mangled RA */
		break;
	default:
		v = rndn(256);
		break;
	}
	put_field(fre_field(i, fr, SFRAME_FIELD_FRE_INFO), v);
	describe(" fde %u (%s) fre at %u info = %#" PRIx64, i, fde_name(i),
		 fr->off, v);
}

/* an FRE's start */
static void mut_fre_start(void)
{
	u32 i;
	const struct sframe_fre *fr;
	struct sframe_field f;
	u64 v;
	u64 max;

	i = pick_fde();
	fr = pick_fre(i);
	if (!fr) {
		flip_bytes();
		return;
	}
	f = fre_field(i, fr, SFRAME_FIELD_FRE_START);
	max = f.len == 4 ? 0xffffffffULL : (1ULL << (8 * f.len)) - 1;
	if (fr == &sf.fres[sf.fdes[i].first]) {
		v = PICK(1, sf.fdes[i].d.size, max);	/* nothing covers the entry */
	} else {
		u64 prev = fr[-1].start;

		v = PICK(prev, prev ? prev - 1 : 0, 0, sf.fdes[i].d.size, max,
			 rnd() & max);
	}
	put_field(f, v);
	describe(" fde %u (%s) fre at %u start = %#" PRIx64, i, fde_name(i),
		 fr->off, v);
}

/* the section zeroed from some offset on */
static void mut_truncate(void)
{
	const struct sframe_section *sec = &sf.sec;
	u64 v;

	v = PICK(rndn(sf.used), sec->fre_base, sec->fde_base, sf.used - 1,
		 sf.hdr_end, SFRAME_HDR_SIZE,
		 sec->fre_base + rndn(sf.fre_len + 1));
	if (v > sf.used)
		v = sf.used;
	memset(sf.live + v, 0, sf.used - v);
	describe(" zeroed from %" PRIu64 " of %zu", v, sf.used);
}

/* random bytes over an FDE, an FRE, the header or anywhere */
static void mut_random(void)
{
	const struct sframe_section *sec = &sf.sec;
	u32 i;
	const struct sframe_fre *fr;
	u32 from, len, k;

	switch (rndn(4)) {
	case 0:
		i = pick_fde();
		from = fde_entry(i);
		len = sec->fde_size;
		describe(" fde %u (%s)", i, fde_name(i));
		break;
	case 1:
		fr = pick_fre(pick_fde());
		from = fr ? fr->off : sec->fre_base;
		len = fr ? fr->next - fr->off : 4;
		describe(" fre at %u", from);
		break;
	case 2:
		from = 0;
		len = SFRAME_HDR_SIZE;
		describe(" header");
		break;
	default:
		from = rndn(sf.used);
		len = 1 + rndn(64);
		describe(" %u at %u", len, from);
		break;
	}
	for (k = 0; k < len && from + k < sf.used; k++)
		sf.live[from + k] = rnd();
}

/* a CFA word of one or every row */
static void mut_fre_cfa(void)
{
	mut_fre_word(false);
}

/* an RA or FP word (or the fixed offset in its place) */
static void mut_fre_ra_fp(void)
{
	mut_fre_word(true);
}

/*
 * The in-place mutations, one per class (the header's 32-bit fields:
 * mut_header_word()); the others (flapping, munmap, PROT_NONE) act on the
 * mapping, not on the bytes.
 */
static void (*const section_mutations[NSCLASS])(void) = {
	[S_FLIP]		= flip_bytes,
	[S_IDENT]		= mut_ident,
	[S_ABI_FLAGS]		= mut_abi_flags,
	[S_AUX_FIXED]		= mut_aux_fixed,
	[S_UNSORTED]		= mut_unsorted,
	[S_FDE_START]		= mut_fde_start,
	[S_FDE_SIZE]		= mut_fde_size,
	[S_FDE_FREOFF]		= mut_fde_freoff,
	[S_FDE_NFRES]		= mut_fde_nfres,
	[S_PCMASK]		= mut_pcmask,
	[S_FDE_INFO]		= mut_fde_info,
	[S_FRE_CFA]		= mut_fre_cfa,
	[S_FRE_RA_FP]		= mut_fre_ra_fp,
	[S_FRE_INFO]		= mut_fre_info,
	[S_FRE_START]		= mut_fre_start,
	[S_TRUNCATE]		= mut_truncate,
	[S_RANDOM]		= mut_random,
};

/**
 * mutate() - applies one in-place mutation to the live section
 * @c: its class
 */
void mutate(enum sclass c)
{
	describe("%s", sclass_names[c]);
	if (c >= S_NUM_FDES && c <= S_FREOFF)
		mut_header_word(c);
	else if (section_mutations[c])
		section_mutations[c]();
}

/* flap: a mutation whose bytes the leaf flips back and forth while spinning */
static const enum sclass flap_classes[] = {
	S_FLIP, S_NUM_FDES, S_NUM_FRES, S_FRE_LEN, S_FDEOFF, S_FREOFF, S_IDENT,
	S_ABI_FLAGS, S_FDE_START, S_FDE_SIZE, S_FDE_FREOFF, S_FDE_NFRES,
	S_FDE_INFO, S_FRE_CFA, S_FRE_RA_FP, S_FRE_INFO, S_FRE_START,
};

/**
 * mutate_flappable() - one in-place mutation of a class that can flap
 */
void mutate_flappable(void)
{
	mutate(flap_classes[rndn(ARRAY_SIZE(flap_classes))]);
}

static void setup_flap(void)
{
	u32 off;

	mutate_flappable();
	flap_reset();
	for (off = 0; off < sf.len && flap_count() < FLAP_MAX; off++) {
		if (sf.live[off] == sf.orig[off])
			continue;
		flap_add(off, sf.orig[off], sf.live[off]);
	}
	memcpy(sf.live, sf.orig, sf.len);	/* the leaf flips the bytes */
	describe(" (%d bytes flapping)", flap_count());
}

/**
 * check_pristine() - fails unless the live section has its pristine bytes
 */
void check_pristine(void)
{
	if (memcmp(sf.live, sf.orig, sf.len))
		fail(".sframe not restored");
}

static void section_variant(unsigned long i, enum sclass c)
{
	start_variant(c == S_UNMAP || c == S_PROTNONE ? P_MAP : P_SECTION, i);
	seed_variant(1, i);
	sclass_count[c]++;
	if (c == S_UNMAP) {
		describe("%s pages %#lx-%#lx", sclass_names[c], sf.page,
			 sf.page + sf.page_len);
		if (munmap((void *)sf.page, sf.page_len))
			fail("munmap: %s", strerror(errno));
		chain_sink = run_chain(i);
		remap_section();
	} else if (c == S_PROTNONE) {
		describe("%s pages %#lx-%#lx", sclass_names[c], sf.page,
			 sf.page + sf.page_len);
		if (mprotect((void *)sf.page, sf.page_len, PROT_NONE))
			fail("mprotect PROT_NONE: %s", strerror(errno));
		chain_sink = run_chain(i);
		if (mprotect((void *)sf.page, sf.page_len, PROT_READ | PROT_WRITE))
			die(1, "FAIL: mprotect of the .sframe pages: %s", strerror(errno));
	} else {
		if (c == S_FLAP) {
			describe("flapping: ");
			setup_flap();
		} else {
			mutate(c);
		}
		chain_sink = run_chain(i);
		flap_reset();
		memcpy(sf.live, sf.orig, sf.len);
	}
	check_pristine();
	sh->nsection++;
	end_variant();
}

/**
 * run_section_variants() - the in-place section variants, in order
 * @n: how many (numbered from 0)
 */
void run_section_variants(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		section_variant(i, sched_section[i % ARRAY_SIZE(sched_section)]);
}

/**
 * run_map_variants() - the munmap and PROT_NONE section variants, in turn
 * @first: the number of the first
 * @nmap: how many of each
 */
void run_map_variants(unsigned long first, unsigned long nmap)
{
	unsigned long i;

	for (i = 0; i < 2 * nmap; i++)
		section_variant(first + i, i % 2 ? S_PROTNONE : S_UNMAP);
}

/**
 * pick_inplace() - an in-place class for mutate(), not flapping (the leaf's)
 *
 * Return: the class.
 */
enum sclass pick_inplace(void)
{
	enum sclass c;
	int k;

	for (k = 0; k < 8; k++) {
		c = sched_section[rndn(ARRAY_SIZE(sched_section))];
		if (c != S_FLAP)
			return c;
	}
	return S_FLIP;
}
