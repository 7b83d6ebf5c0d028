// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only SFrame encoder (see encode.h).  It reads the rows through the
 * core (sframe_get_fde(), sframe_read_fre()) and only re-lays the bytes
 * out; FDEs the target version cannot express are left out and marked so
 * in out->kept: FLEX FDEs and zero-row FDEs below v3, rows without data
 * words and PCMASK FDEs in v1, signal trampolines below v3.
 */
#include <stdlib.h>
#include <string.h>
#include "encode.h"
#include "../lib/layout.h"

static uint64_t get(const uint8_t *p, int n, int be)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (be ? 8 * (n - 1 - i) : 8 * i);
	return v;
}

/* Can @fde be expressed in @version? */
static int encodable(const struct sframe_section *sec,
		     const struct sframe_fde *fde, int version)
{
	struct sframe_fre fre;
	uint32_t p = fde->fres, k;

	if (version < 3 && (sframe_fde_flex(fde) || !fde->num_fres ||
			    sframe_fde_signal(sec, fde)))
		return 0;
	/* v1 PCMASK rows are masks; v2/v3 use a block size v1 lacks. */
	if ((version == 1 || sec->version == 1) && sframe_fde_pcmask(fde))
		return 0;
	for (k = 0; k < fde->num_fres; k++, p = fre.next) {
		if (sframe_read_fre(sec, fde, p, &fre))
			return 0;
		if (version == 1 && !sframe_fre_words(&fre))
			return 0;
		if (version == 3 && sec->version == 2 &&
		    sec->abi == SFRAME_ABI_S390X_ENDIAN_BIG) {
			/* v2's odd RA/FP offsets name registers; v3 has FLEX. */
			int asz = 1 << SFRAME_FUNC_FRE_TYPE(fde->info);
			int wsz = 1 << SFRAME_FRE_WORD_SIZE(fre.info);
			unsigned int w;

			for (w = 1; w < sframe_fre_words(&fre); w++)
				if (sec->data[fre.off + asz + 1 + w * wsz +
					      (sec->big_endian ? wsz - 1 : 0)] & 1)
					return 0;
		}
	}
	return 1;
}

/* Is data word @i of a FLEX row a control word (read unsigned)? */
static int flex_ctrl(const uint8_t *words, int wsz, int n, int i, int be)
{
	if (i == 0)
		return 1;
	if (i == 2)
		return 1;
	if (n == 5)
		return i == 3;
	(void)words; (void)wsz; (void)be;
	return i == 4;
}

int sframe_encode(const struct sframe_section *sec,
		  const struct encode_opts *o, struct encoded *out)
{
	int be = sec->big_endian, abi = sec->abi;
	uint32_t n = sec->num_fdes, i, kept = 0;
	uint32_t *order = calloc(n + 1, sizeof(*order));
	struct sframe_layout l = { .version = o->version };
	struct sframe_layout_hdr h = {
		.flags = o->shuffle ? 0 : (sec->flags & SFRAME_F_FDE_SORTED),
		.fixed_fp = sec->fixed_fp,
		.fixed_ra = sec->fixed_ra,
		.auxhdr_len = o->auxhdr_len,
		.addr = o->addr,
	};
	int err;

	if (o->swap) {
		be = !be;
		abi = abi == SFRAME_ABI_AARCH64_ENDIAN_LITTLE ?
		      SFRAME_ABI_AARCH64_ENDIAN_BIG :
		      SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
	}
	h.abi = abi;
	l.fdes.be = be;
	l.fres.be = be;
	out->kept = calloc(n + 1, sizeof(*out->kept));
	for (i = 0; i < n; i++)
		order[i] = i;
	if (o->shuffle)
		for (i = 0; i + 1 < n; i++) {
			uint32_t j = i + (i * 7919u + 13) % (n - i), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}

	for (i = 0; i < n; i++) {
		struct sframe_fde fde;
		struct sframe_fre fre;
		uint32_t p, k;
		int fre_type, info;

		if (sframe_get_fde(sec, order[i], &fde) ||
		    !encodable(sec, &fde, o->version))
			continue;
		out->kept[order[i]] = kept + 1;
		fre_type = o->wide_starts ? SFRAME_FRE_TYPE_ADDR4 :
					    SFRAME_FUNC_FRE_TYPE(fde.info);
		info = (fde.info & 0xf0) | fre_type;
		sframe_layout_fde(&l, fde.start, fde.size, fde.num_fres, info,
				  fde.info2, fde.rep_size);
		for (k = 0, p = fde.fres; k < fde.num_fres; k++, p = fre.next) {
			int asz = 1 << SFRAME_FUNC_FRE_TYPE(fde.info);
			int64_t w[SFRAME_FRE_WORD_COUNT(0xff)];
			int wsz, nw, j, fi;
			const uint8_t *words;

			sframe_read_fre(sec, &fde, p, &fre);
			wsz = 1 << SFRAME_FRE_WORD_SIZE(fre.info);
			nw = SFRAME_FRE_WORD_COUNT(fre.info);
			words = sec->data + fre.off + asz + 1;
			fi = fre.info;
			if (o->wide_words)
				fi = (fi & ~0x60) | (SFRAME_FRE_WORD_4B << 5);
			for (j = 0; j < nw; j++) {
				uint64_t v = get(words + j * wsz, wsz,
						 sec->big_endian);
				int ctrl = sframe_fde_flex(&fde) &&
					   flex_ctrl(words, wsz, nw, j, be);

				if (!ctrl && wsz < 8 && (v >> (8 * wsz - 1)) & 1)
					v |= ~0ULL << (8 * wsz);	/* sign */
				w[j] = (int64_t)v;
			}
			sframe_layout_fre(&l, fre.start, 1 << fre_type, fi, w,
					  nw, o->wide_words ? 4 : wsz);
		}
		kept++;
	}
	free(order);
	err = sframe_layout_finish(&l, &h, &out->buf, &out->len);
	if (err) {
		out->buf = NULL;
		out->len = 0;
	}
	return err;
}
