/* SPDX-License-Identifier: MIT */
#include <zstd.h>

#include "inflate.h"

/*
 * Our blocks compress about 10:1; a claim up to this many times the frame's
 * size (plus some slack for small blocks) is allocated at once, anything
 * larger grows with the output.
 */
#define CT_TRUSTED_RATIO 32
#define CT_TRUSTED_SLACK (UINT64_C(1) << 20)

/* The frame decoded in steps, the buffer doubling only when it is full. */
static int ct_inflate_growing(ZSTD_DCtx *dctx, struct ct_buf *out, uint64_t raw_len,
			      const void *src, size_t src_len, size_t cap)
{
	ZSTD_inBuffer in = { src, src_len, 0 };

	ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
	for (;;) {
		ct_buf_reserve(out, cap + 1 - out->len);
		ZSTD_outBuffer o = { out->data, cap, out->len };
		size_t before_in = in.pos, before_out = o.pos;
		size_t r = ZSTD_decompressStream(dctx, &o, &in);
		out->len = o.pos;
		if (ZSTD_isError(r))
			return -1;
		if (r == 0)
			return out->len == raw_len && in.pos == in.size ? 0 : -1;
		if (o.pos < cap) {
			/* not full: it wants input; none left, or no progress, is a torn frame */
			if (in.pos == in.size || (in.pos == before_in && o.pos == before_out))
				return -1;
			continue;
		}
		if (cap == raw_len)
			return -1; /* it yields more than the block claims */
		cap = (size_t)ct_min((uint64_t)cap * 2, raw_len);
	}
}

int ct_inflate(ZSTD_DCtx *dctx, struct ct_buf *out, uint64_t raw_len, const void *src,
	       size_t src_len)
{
	out->len = 0;
	if (raw_len > CT_BLOCK_RAW_MAX)
		return -1;
	if (raw_len <= (uint64_t)src_len * CT_TRUSTED_RATIO + CT_TRUSTED_SLACK) {
		ct_buf_reserve(out, (size_t)raw_len + 1);
		size_t n = ZSTD_decompressDCtx(dctx, out->data, (size_t)raw_len, src, src_len);
		if (ZSTD_isError(n) || n != raw_len)
			return -1;
		out->len = n;
	} else if (ct_inflate_growing(dctx, out, raw_len, src, src_len,
				      (size_t)((uint64_t)src_len * CT_TRUSTED_RATIO +
					       CT_TRUSTED_SLACK)) < 0) {
		return -1;
	}
	out->data[out->len] = 0;
	return 0;
}
