/* SPDX-License-Identifier: MIT */
/*
 * A byte plane split on its most frequent byte (huff.h): the bits that say
 * where that byte is, and the Huffman code of the others. The split runs in
 * vector registers where the machine has them (huff_split_x86.c).
 */
#include <string.h>

#include "huff.h"

/* Bytes of the bits of n symbols: a u64 for 64. */
static uint64_t ct_split_bits_len(uint32_t n)
{
	return ((uint64_t)n + 63) / 64 * 8;
}

/* Symbols from j (a multiple of 64) on, one at a time. */
static uint32_t ct_split_scalar(const uint8_t *in, uint32_t j, uint32_t n, uint8_t mode,
				uint8_t *bits, uint8_t *rest, uint32_t r)
{
	for (; j < n; j += 64) {
		uint64_t word = 0;
		for (uint32_t i = 0; i < 64 && j + i < n; i++) {
			uint64_t is = in[j + i] == mode;
			word |= is << i;
			rest[r] = in[j + i];
			r += (uint32_t)!is;
		}
		memcpy(bits + j / 8, &word, 8);
	}
	return r;
}

#ifdef __x86_64__
static int ct_split_asked = -1; /* ct_huff_split_vectors */

/* 2: AVX-512 VBMI2's byte compress, 1: SSSE3's byte shuffle (and POPCNT), 0: neither. */
static int ct_split_level(void)
{
	static int known = -1; /* the same answer in every thread (--jobs workers ask too) */
	int widest = __atomic_load_n(&known, __ATOMIC_RELAXED);
	if (widest < 0) {
		widest = __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("avx512bw")
				 ? 2
			 : __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("popcnt") ? 1
											       : 0;
		__atomic_store_n(&known, widest, __ATOMIC_RELAXED);
	}
	return ct_split_asked < 0 || ct_split_asked > widest ? widest : ct_split_asked;
}
#endif

void ct_huff_split_vectors(int level)
{
#ifdef __x86_64__
	ct_split_asked = level;
#else
	(void)level;
#endif
}

int ct_huff_split_fast(void)
{
#ifdef __x86_64__
	return ct_split_level() > 0;
#else
	return 0;
#endif
}

uint32_t ct_split_plane(const uint8_t *in, uint32_t n, uint8_t mode, uint8_t *bits, uint8_t *rest)
{
	uint32_t j = 0, r = 0;

#ifdef __x86_64__
	int level = ct_split_level();
	if (level == 2)
		j = ct_split_avx512(in, n, mode, bits, rest, &r);
	else if (level == 1)
		j = ct_split_ssse3(in, n, mode, bits, rest, &r);
#endif
	return ct_split_scalar(in, j, n, mode, bits, rest, r);
}

size_t ct_huff_encode_split(const uint8_t *in, uint32_t n, uint8_t mode, uint8_t *out,
			    uint8_t *rest, uint32_t *pairs, uint32_t *count)
{
	uint64_t nbits = ct_split_bits_len(n);
	uint32_t others = ct_split_plane(in, n, mode, out + 1, rest);
	size_t len = 1 + nbits;

	out[0] = mode;
	if (others)
		len += ct_huff_encode(rest, others, out + len, pairs, count);
	else if (count)
		memset(count, 0, 256 * sizeof(*count));
	if (count)
		count[mode] += n - others;
	return len;
}

int ct_huff_decode_split(const uint8_t *in, size_t len, uint8_t *out, uint32_t n,
			 struct ct_buf *scratch)
{
	uint64_t nbits = ct_split_bits_len(n), modes = 0;

	if (!n || len < 1 + nbits)
		return -1;
	uint8_t mode = in[0];
	const uint8_t *bits = in + 1;
	for (uint64_t k = 0; k < nbits; k += 8) {
		uint64_t w;
		memcpy(&w, bits + k, 8);
		modes += (uint64_t)__builtin_popcountll(w);
	}
	/* no bit past the plane's end, and the others coded after the bits if there are any */
	uint64_t last;
	memcpy(&last, bits + nbits - 8, 8);
	if ((n % 64 && last >> (n % 64)) || modes > n || (modes == n) != (len == 1 + nbits))
		return -1;
	uint32_t others = (uint32_t)(n - modes);
	if (!others) {
		memset(out, mode, n);
		return 0;
	}
	/* the others decoded at the plane's end, then spread from the front */
	const uint8_t *rest = out + modes;
	if (ct_huff_decode(in + 1 + nbits, len - 1 - nbits, out + modes, others, scratch) < 0)
		return -1;
	/*
	 * Symbol i is written over no other not yet taken: before it are
	 * i - r modes, so i < modes + r, or i == modes + r and symbol i is
	 * the other it takes. Past the last other, the last is read again.
	 */
	for (uint32_t i = 0, r = 0; i < n; i++) {
		uint8_t is = bits[i / 8] >> (i % 8) & 1, other = rest[r - (r == others)];
		out[i] = is ? mode : other;
		r += !is;
	}
	return 0;
}
