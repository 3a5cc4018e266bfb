/* SPDX-License-Identifier: MIT */
/*
 * Decompressing a block of a trace that may have been crafted: the sizes a
 * block claims are checked before anything is allocated.
 */
#ifndef CT_FORMAT_INFLATE_H
#define CT_FORMAT_INFLATE_H

#include <stddef.h>
#include <stdint.h>

#include "../util/util.h"

struct ZSTD_DCtx_s;

/* No block calltrace writes decodes to more (symbol tables are the largest). */
#define CT_BLOCK_RAW_MAX (UINT64_C(1) << 30)

/*
 * Decompress one zstd frame of src_len bytes that must yield exactly raw_len
 * bytes into out (replacing its contents; out->data[raw_len] is a NUL, so a
 * string in the block cannot run off its end). 0, or -1 if the frame is bad
 * or does not yield raw_len bytes. What is allocated is bounded by the block:
 * a claimed size far above what the frame could hold is believed only as far
 * as the frame really decodes.
 */
int ct_inflate(struct ZSTD_DCtx_s *dctx, struct ct_buf *out, uint64_t raw_len, const void *src,
	       size_t src_len);

#endif
