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
 * bytes at a time when the plane has few distinct ones. count (or NULL):
 * how often each byte occurs, for the caller's next choice.
 */
size_t ct_huff_encode(const uint8_t *in, uint32_t n, uint8_t *out, uint32_t *pairs,
		      uint32_t *count);

/*
 * A coded plane of len bytes back into out's n bytes (n >= 1); scratch holds
 * a padded copy of the streams. 0, or -1 if it is malformed (a length table that is
 * not a prefix code, a code it does not have, streams of other lengths than
 * their n symbols take).
 */
int ct_huff_decode(const uint8_t *in, size_t len, uint8_t *out, uint32_t n, struct ct_buf *scratch);

/*
 * A plane most of whose bytes are a few bytes, the modes (format 8's split
 * clock plane: calls and returns that follow each other as fast as the hooks
 * go are mostly one or two clock deltas): how many modes (1 to
 * CT_HUFF_MODES), the modes, then for each in turn a bit a byte of what is
 * left of the plane, least significant first in ⌈m / 64⌉ little-endian u64
 * (1: that mode; m: the bytes the modes before left), then the bytes no mode
 * took Huffman-coded (ct_huff_encode), if there are any. Where each mode is
 * half of what is left or more, it takes as many bits as the plane's
 * Huffman code (that code gives such a byte a bit too) and costs a fraction
 * of its time: the bits come 64 at a time, the code has only the rest.
 */
#define CT_HUFF_MODES 4

static inline size_t ct_huff_split_bound(uint32_t n)
{
	return 1 + CT_HUFF_MODES + CT_HUFF_MODES * (((size_t)n + 63) / 64 * 8) + ct_huff_bound(n);
}

/*
 * Whether this machine splits a plane in vector registers: elsewhere
 * splitting costs more than the Huffman code saves, and the encoder codes
 * planes whole (a split plane decodes anywhere).
 */
int ct_huff_split_fast(void);

/* For the tests: the widest vectors the split may use, -1 (the default) the machine's widest. */
void ct_huff_split_vectors(int level);

/*
 * in's n bytes split on modes[0 .. nmodes) (1 to CT_HUFF_MODES) into out
 * (ct_huff_split_bound(n) bytes), what each leaves through rest (2 * (n + 64)
 * bytes of scratch): returns out's length. count as ct_huff_encode's, the
 * modes' included.
 */
size_t ct_huff_encode_split(const uint8_t *in, uint32_t n, const uint8_t *modes, uint32_t nmodes,
			    uint8_t *out, uint8_t *rest, uint32_t *pairs, uint32_t *count);

/* A split plane of len bytes back into out's n bytes: 0, or -1 if it is malformed. */
int ct_huff_decode_split(const uint8_t *in, size_t len, uint8_t *out, uint32_t n,
			 struct ct_buf *scratch);

/*
 * The split itself (huff_split.c, with its vector forms in huff_split_x86.c):
 * the bits into bits (⌈n / 64⌉ u64, stored as bytes: any alignment), the
 * other bytes into rest in order (n + 64 bytes: vectors store whole).
 * Returns how many others.
 */
uint32_t ct_split_plane(const uint8_t *in, uint32_t n, uint8_t mode, uint8_t *bits, uint8_t *rest);

#ifdef __x86_64__
/*
 * From the plane's start, 64 bytes at a time, as far as they go (returned);
 * the others kept go to *r: AVX-512 VBMI2, or SSSE3.
 */
uint32_t ct_split_avx512(const uint8_t *in, uint32_t n, uint8_t mode, uint8_t *bits, uint8_t *rest,
			 uint32_t *r);
uint32_t ct_split_ssse3(const uint8_t *in, uint32_t n, uint8_t mode, uint8_t *bits, uint8_t *rest,
			uint32_t *r);
#endif

#endif
