/* SPDX-License-Identifier: MIT */
/*
 * A byte plane split on its most frequent bytes (huff.h): the bits that say
 * where each of them is, and the Huffman code of the rest. The split runs in
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

size_t ct_huff_encode_split(const uint8_t *in, uint32_t n, const uint8_t *modes, uint32_t nmodes,
			    uint8_t *out, uint8_t *rest, uint32_t *pairs, uint32_t *count)
{
	uint8_t *left[2] = { rest, rest + (size_t)n + 64 };
	const uint8_t *from = in;
	uint32_t m = n, taken[CT_HUFF_MODES];
	size_t len = 1 + nmodes;

	out[0] = (uint8_t)nmodes;
	memcpy(out + 1, modes, nmodes);
	for (uint32_t l = 0; l < nmodes; l++) { /* each mode out of what the one before left */
		uint32_t others = ct_split_plane(from, m, modes[l], out + len, left[l & 1]);
		len += ct_split_bits_len(m);
		taken[l] = m - others;
		from = left[l & 1];
		m = others;
	}
	if (m)
		len += ct_huff_encode(from, m, out + len, pairs, count);
	else if (count)
		memset(count, 0, 256 * sizeof(*count));
	for (uint32_t l = 0; count && l < nmodes; l++)
		count[modes[l]] += taken[l];
	return len;
}

/*
 * A level of the split back in place: the m bytes at region, whose others
 * (the bytes this mode did not take) are the region's last ones. Byte i is
 * written over no other not yet taken: before it are i - r modes, so
 * i < m - others + r, or i == m - others + r and byte i is the other it
 * takes. Past the last other, the last is read again (and not used).
 */
static void ct_split_spread(uint8_t *region, uint32_t m, uint32_t others, uint8_t mode,
			    const uint8_t *bits)
{
	if (!others) {
		memset(region, mode, m);
		return;
	}
	const uint8_t *rest = region + (m - others);
	for (uint32_t i = 0, r = 0; i < m; i++) {
		uint8_t is = bits[i / 8] >> (i % 8) & 1, other = rest[r - (r == others)];
		region[i] = is ? mode : other;
		r += !is;
	}
}

int ct_huff_decode_split(const uint8_t *in, size_t len, uint8_t *out, uint32_t n,
			 struct ct_buf *scratch)
{
	uint32_t nmodes = len ? in[0] : 0, size[CT_HUFF_MODES + 1];
	const uint8_t *bits[CT_HUFF_MODES];
	uint64_t pos = 1 + (uint64_t)nmodes;

	if (!n || !nmodes || nmodes > CT_HUFF_MODES || len < pos)
		return -1;
	size[0] = n;
	for (uint32_t l = 0; l < nmodes; l++) { /* each level's bits: what the one before left */
		uint64_t nbits = ct_split_bits_len(size[l]), taken = 0, last = 0;
		if (len - pos < nbits)
			return -1;
		bits[l] = in + pos;
		for (uint64_t k = 0; k < nbits; k += 8) {
			uint64_t w;
			memcpy(&w, bits[l] + k, 8);
			taken += (uint64_t)__builtin_popcountll(w);
		}
		if (nbits) /* none where the modes before took every byte */
			memcpy(&last, bits[l] + nbits - 8, 8);
		if ((nbits && size[l] % 64 && last >> (size[l] % 64)) || taken > size[l])
			return -1; /* a bit past the end */
		size[l + 1] = (uint32_t)(size[l] - taken);
		pos += nbits;
	}
	/* the bytes no mode took, coded after the bits exactly when there are any */
	uint32_t rest = size[nmodes];
	if (!rest != (pos == len))
		return -1;
	if (rest && ct_huff_decode(in + pos, len - pos, out + (n - rest), rest, scratch) < 0)
		return -1;
	for (uint32_t l = nmodes; l-- > 0;) /* each level's region ends the plane */
		ct_split_spread(out + (n - size[l]), size[l], size[l + 1], in[1 + l], bits[l]);
	return 0;
}
