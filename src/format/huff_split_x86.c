/* SPDX-License-Identifier: MIT */
/*
 * A plane's split on a mode (huff_split.c) in x86's vector registers, 64
 * bytes at a time: AVX-512's byte compress where the machine has VBMI2 (Ice
 * Lake, Zen 4 and later), else SSSE3's byte shuffle through a table of the
 * 256 ways to keep some of 8 bytes. Each returns how far it went (a multiple
 * of 64), the others it kept in *r.
 */
#ifdef __x86_64__
#include <immintrin.h>
#include <string.h>

#include "huff.h"

/*
 * The compress goes through a register: its form that stores to memory is
 * microcoded on Zen 4 and several times slower.
 */
__attribute__((target("avx512f,avx512bw,avx512vbmi2"))) uint32_t
ct_split_avx512(const uint8_t *in, uint32_t n, uint8_t mode, uint8_t *bits, uint8_t *rest,
		uint32_t *r)
{
	const __m512i m = _mm512_set1_epi8((char)mode);
	uint32_t j = 0, k = *r;

	for (; j + 64 <= n; j += 64) {
		__m512i v = _mm512_loadu_si512((const void *)(in + j));
		__mmask64 is = _mm512_cmpeq_epi8_mask(v, m);
		uint64_t word = (uint64_t)is;
		memcpy(bits + j / 8, &word, 8);
		_mm512_storeu_si512((void *)(rest + k), _mm512_maskz_compress_epi8(~is, v));
		k += 64 - (uint32_t)__builtin_popcountll(word);
	}
	*r = k;
	return j;
}

/*
 * For each byte of 8 bits (1: drop that byte), the shuffle that keeps the
 * others in front; made as the program loads (2 KiB).
 */
static uint8_t ct_keep[256][8];

__attribute__((constructor)) static void ct_keep_init(void)
{
	for (int mask = 0; mask < 256; mask++) {
		int k = 0;
		for (int i = 0; i < 8; i++)
			if (!(mask >> i & 1))
				ct_keep[mask][k++] = (uint8_t)i;
		while (k < 8)
			ct_keep[mask][k++] = 0x80; /* a zero byte, stored over by the next */
	}
}

__attribute__((target("ssse3,popcnt"))) uint32_t ct_split_ssse3(const uint8_t *in, uint32_t n,
								uint8_t mode, uint8_t *bits,
								uint8_t *rest, uint32_t *r)
{
	const __m128i m = _mm_set1_epi8((char)mode);
	uint32_t j = 0, k = *r;

	for (; j + 64 <= n; j += 64) {
		uint64_t word = 0;
		for (int q = 0; q < 4; q++) {
			__m128i v = _mm_loadu_si128((const __m128i *)(in + j + 16 * q));
			uint32_t is = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, m));
			word |= (uint64_t)is << (16 * q);
			__m128i lo = _mm_shuffle_epi8(
				v, _mm_loadl_epi64((const __m128i *)ct_keep[is & 0xff]));
			__m128i hi = _mm_shuffle_epi8(
				_mm_srli_si128(v, 8),
				_mm_loadl_epi64((const __m128i *)ct_keep[is >> 8]));
			_mm_storel_epi64((__m128i *)(rest + k), lo);
			k += 8 - (uint32_t)__builtin_popcount(is & 0xff);
			_mm_storel_epi64((__m128i *)(rest + k), hi);
			k += 8 - (uint32_t)__builtin_popcount(is >> 8);
		}
		memcpy(bits + j / 8, &word, 8);
	}
	*r = k;
	return j;
}
#endif
