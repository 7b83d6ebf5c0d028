/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How the bytes of an SFrame section are laid out, for the programs that
 * write sections: sframe-gen (tools/gen/write.c, from CFI rows) and the
 * host tests' re-encoder (tools/testing/encode.c, from a decoded section).
 * They decide what to write; this is the one place that knows where each
 * field goes in version 1, 2 and 3 (the layout of include/sframe/format.h).
 */
#ifndef _SFRAME_TOOLS_SFRAME_LAYOUT_H
#define _SFRAME_TOOLS_SFRAME_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include "wbuf.h"

/**
 * struct sframe_layout - a section being written
 * @version: 1, 2 or 3
 * @fdes: the FDE index (v2, v3: function starts filled in at the end)
 * @fres: the FRE sub-section (v3: with each function's attributes)
 * @starts: each function's start address, in FDE order
 * @nfdes: functions written
 * @cap: room in @starts
 * @nfres: rows written
 * @oom: an allocation failed
 *
 * Zero it, set @version, and set @fdes.be and @fres.be for a big-endian
 * target; then sframe_layout_fde() for each function in the order its FDEs
 * are to be, each followed by sframe_layout_fre() for its rows, and
 * sframe_layout_finish().
 */
struct sframe_layout {
	int version;
	struct wbuf fdes, fres;
	uint64_t *starts;
	size_t nfdes, cap;
	uint32_t nfres;
	int oom;
};

/**
 * struct sframe_layout_hdr - the header fields the writer chooses
 * @flags: %SFRAME_F_* (%SFRAME_F_FDE_FUNC_START_PCREL is added for v2, v3)
 * @abi: %SFRAME_ABI_*
 * @fixed_fp: the fixed FP offset (0: none)
 * @fixed_ra: the fixed RA offset (0: none)
 * @auxhdr_len: bytes of auxiliary header (written as 0xa5)
 * @addr: the address the section will be loaded at: function starts are
 *        stored relative to it (v1) or to their own field (v2, v3)
 */
struct sframe_layout_hdr {
	uint8_t flags, abi;
	int8_t fixed_fp, fixed_ra;
	uint8_t auxhdr_len;
	uint64_t addr;
};

int sframe_layout_fde_size(int version);
void sframe_layout_fde(struct sframe_layout *l, uint64_t start, uint32_t size,
		       uint32_t nrows, uint8_t info, uint8_t info2,
		       uint8_t rep_size);
void sframe_layout_fre(struct sframe_layout *l, uint32_t start, int asz,
		       uint8_t info, const int64_t *words, int nwords,
		       int wsz);
int sframe_layout_finish(struct sframe_layout *l,
			 const struct sframe_layout_hdr *h,
			 uint8_t **buf, size_t *len);

#endif
