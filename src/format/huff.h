/* SPDX-License-Identifier: MIT */
/*
 * Canonical Huffman codes for one byte plane (format 6's clock plane,
 * docs/FORMAT.md). The clock deltas of a block are a handful of values, but
 * not in runs zstd's matches would find cheaply: an entropy code gets them
 * to the bits their frequencies say, at a few instructions a byte, where
 * zstd's fast levels spent most of their time on this plane and stored its
 * literals raw.
 *
 * A coded plane: 256 code lengths, 4 bits each (symbol 2k in the low half of
 * byte k; 0: the symbol does not occur); three u32 (little-endian) byte
 * lengths of streams 0 to 2, stream 3 being the rest; then the four streams.
 * Stream k holds symbols k*q to (k+1)*q - 1 of the plane, q = (n + 3) / 4,
 * each code least significant bit first, the stream padded to a byte: four
 * streams so the decoder keeps four codes in flight.
 */
#ifndef CT_FORMAT_HUFF_H
#define CT_FORMAT_HUFF_H

#include <stddef.h>
#include <stdint.h>

#include "../util/util.h"

#define CT_HUFF_MAX_LEN 11 /* bits: the decoder's table has 2^11 entries */
#define CT_HUFF_STREAMS 4
#define CT_HUFF_HEAD	(128 + 4 * (CT_HUFF_STREAMS - 1))

/* Bytes out must have for n symbols (the encoder stores 8 bytes at a time). */
static inline size_t ct_huff_bound(uint32_t n)
{
	return CT_HUFF_HEAD + (size_t)n * CT_HUFF_MAX_LEN / 8 + 8 * CT_HUFF_STREAMS + 8;
}

/* Entries of the encoder's scratch table of byte pairs' codes (256 KiB). */
#define CT_HUFF_PAIRS 65536

/*
 * The n bytes of in, coded into out (ct_huff_bound(n) bytes): returns its
 * length. pairs: CT_HUFF_PAIRS entries of scratch (or NULL), for coding two
 * bytes at a time when the plane has few distinct ones.
 */
size_t ct_huff_encode(const uint8_t *in, uint32_t n, uint8_t *out, uint32_t *pairs);

/*
 * A coded plane of len bytes back into out's n bytes (n >= 1); scratch holds
 * a padded copy of the streams. 0, or -1 if it is malformed (a length table that is
 * not a prefix code, a code it does not have, streams of other lengths than
 * their n symbols take).
 */
int ct_huff_decode(const uint8_t *in, size_t len, uint8_t *out, uint32_t n,
		   struct ct_buf *scratch);

#endif
