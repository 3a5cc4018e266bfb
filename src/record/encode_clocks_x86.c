/* SPDX-License-Identifier: MIT */
/*
 * The clock pass (encode_clocks.c) in x86's vector registers: SSE2, which
 * every x86-64 has, AVX2 and AVX-512 where the machine has them.
 */
#ifdef __x86_64__
#include <immintrin.h>

#include "encode_run.h"

/*
 * Which of two lanes hold a value other than 0, from the four bits of a
 * compare of their 32-bit halves with 0: both halves 0, the lane is 0.
 */
static const uint8_t ct_nonzero_lanes[16] = { 3, 3, 3, 2, 3, 3, 3, 2, 3, 3, 3, 2, 1, 1, 1, 0 };

/*
 * ct_clocks_scalar from record j (the words before it readable), two
 * records at a time in 128-bit registers: returns where it stopped. Word 0
 * and the word 0 before come from records j, j + 1 and, carried, j - 1.
 */
uint32_t ct_clocks_sse2(const uint64_t *p, uint32_t j, uint32_t n, uint8_t *cp, struct ct_group *g,
			uint64_t far_bias)
{
	const __m128i clock_bits = _mm_set1_epi64x((long long)CT_CLOCK_BITS);
	const __m128i one = _mm_set1_epi64x(1), bias = _mm_set1_epi64x((long long)far_bias);
	const __m128i lo16 = _mm_set1_epi64x(0xffff), hi15 = _mm_set1_epi64x(0x7fff0000);
	const __m128i low32 = _mm_set1_epi64x(0xffffffff), none = _mm_setzero_si128();
	__m128i kinds = _mm_set1_epi64x(-1), far = none, zero = none;
	uint64_t wide = 0;

	if (j + 2 > n)
		return j;
	const uint64_t *q = p + 2 * j;
	__m128i prev = _mm_loadu_si128((const __m128i *)(q - 2));
	__m128i sp_prev = _mm_set1_epi64x((long long)ct_ev_sp(q[-2], q[-1]));
	for (; j + 2 <= n; j += 2) {
		__m128i a = _mm_loadu_si128((const __m128i *)(p + 2 * j));
		__m128i b = _mm_loadu_si128((const __m128i *)(p + 2 * j + 2));
		__m128i w0 = _mm_unpacklo_epi64(a, b), w1 = _mm_unpackhi_epi64(a, b);
		__m128i c = _mm_and_si128(w0, clock_bits);
		__m128i before = _mm_and_si128(_mm_unpacklo_epi64(prev, a), clock_bits);
		prev = b;
		kinds = _mm_and_si128(kinds, _mm_xor_si128(w1, _mm_add_epi64(w1, w1)));
		far = _mm_or_si128(far, _mm_add_epi64(c, bias));
		zero = _mm_or_si128(zero, _mm_cmpeq_epi32(c, none)); /* high halves looked at */
		__m128i d = _mm_srli_epi64(_mm_sub_epi64(c, before), 16);
		__m128i fit = _mm_cmpeq_epi32(_mm_srli_epi64(_mm_add_epi64(d, one), 8), none);
		wide |= (uint64_t)ct_nonzero_lanes[_mm_movemask_ps(_mm_castsi128_ps(fit))] << j;
		__m128i sp = _mm_or_si128(_mm_and_si128(w0, lo16),
					  _mm_and_si128(_mm_srli_epi64(w1, 31), hi15));
		__m128i spp = _mm_castpd_si128(
			_mm_shuffle_pd(_mm_castsi128_pd(sp_prev), _mm_castsi128_pd(sp), 1));
		sp_prev = sp;
		/* stack pointers take 31 bits: their difference's zigzag is a 32-bit one */
		__m128i dsp = _mm_sub_epi64(sp, spp);
		__m128i zs = _mm_and_si128(
			_mm_xor_si128(_mm_slli_epi32(dsp, 1), _mm_srai_epi32(dsp, 31)), low32);
		_mm_storeu_si128((__m128i *)(g->zs + j), zs);
		cp[j] = (uint8_t)_mm_cvtsi128_si32(d);
		cp[j + 1] = (uint8_t)_mm_extract_epi16(d, 4);
	}
	kinds = _mm_and_si128(kinds, _mm_unpackhi_epi64(kinds, kinds));
	far = _mm_or_si128(far, _mm_unpackhi_epi64(far, far));
	g->kinds &= (uint64_t)_mm_cvtsi128_si64(kinds);
	g->far |= (uint64_t)_mm_cvtsi128_si64(far);
	g->zero |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(zero)) & 0xa; /* the high halves */
	g->wide |= wide;
	return j;
}


/*
 * ct_clocks_scalar from record j (the words before it readable), four
 * records at a time in 256-bit registers, for the machines that have them;
 * returns where it stopped.
 * Records j to j + 3 and, a record earlier, j - 1 to j + 2, unpacked alike,
 * give word 0 and the word 0 before in the same lanes (in the order j,
 * j + 2, j + 1, j + 3, put right where it matters).
 */
__attribute__((target("avx2"))) uint32_t ct_clocks_avx2(const uint64_t *p, uint32_t j,
							       uint32_t n, uint8_t *cp,
							       struct ct_group *g, uint64_t far_bias)
{
	const __m256i clock_bits = _mm256_set1_epi64x((long long)CT_CLOCK_BITS);
	const __m256i fits = _mm256_set1_epi64x(0xfe), bias = _mm256_set1_epi64x((long long)far_bias);
	const __m256i lo16 = _mm256_set1_epi64x(0xffff), hi15 = _mm256_set1_epi64x(0x7fff0000);
	const __m256i low32 = _mm256_set1_epi64x(0xffffffff);
	const __m128i low_bytes = _mm_setr_epi8(0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
						-1, -1, -1);
	__m256i kinds = _mm256_set1_epi64x(-1), far = _mm256_setzero_si256();
	__m256i zero = _mm256_setzero_si256();
	uint64_t wide = 0;

	for (; j + 4 <= n; j += 4) {
		const uint64_t *q = p + 2 * j;
		__m256i a = _mm256_loadu_si256((const __m256i *)q);
		__m256i b = _mm256_loadu_si256((const __m256i *)(q + 4));
		__m256i ap = _mm256_loadu_si256((const __m256i *)(q - 2));
		__m256i bp = _mm256_loadu_si256((const __m256i *)(q + 2));
		__m256i w0 = _mm256_unpacklo_epi64(a, b), w1 = _mm256_unpackhi_epi64(a, b);
		__m256i w0p = _mm256_unpacklo_epi64(ap, bp), w1p = _mm256_unpackhi_epi64(ap, bp);
		__m256i c = _mm256_and_si256(w0, clock_bits);
		__m256i before = _mm256_and_si256(w0p, clock_bits);
		kinds = _mm256_and_si256(kinds, _mm256_xor_si256(w1, _mm256_add_epi64(w1, w1)));
		far = _mm256_or_si256(far, _mm256_add_epi64(c, bias));
		zero = _mm256_or_si256(zero, _mm256_cmpeq_epi64(c, _mm256_setzero_si256()));
		__m256i d = _mm256_srli_epi64(_mm256_sub_epi64(c, before), 16);
		__m256i dn = _mm256_permute4x64_epi64(d, 0xd8); /* j to j + 3 */
		wide |= (uint64_t)_mm256_movemask_pd(
				_mm256_castsi256_pd(_mm256_cmpgt_epi64(dn, fits)))
			<< j;
		/* stack pointers take 31 bits: their difference's zigzag is a 32-bit one */
		__m256i sp = _mm256_or_si256(_mm256_and_si256(w0, lo16),
					     _mm256_and_si256(_mm256_srli_epi64(w1, 31), hi15));
		__m256i spp = _mm256_or_si256(_mm256_and_si256(w0p, lo16),
					      _mm256_and_si256(_mm256_srli_epi64(w1p, 31), hi15));
		__m256i dsp = _mm256_sub_epi64(sp, spp);
		__m256i zs = _mm256_and_si256(_mm256_xor_si256(_mm256_slli_epi32(dsp, 1),
							       _mm256_srai_epi32(dsp, 31)),
					      low32);
		_mm256_storeu_si256((__m256i *)(g->zs + j), _mm256_permute4x64_epi64(zs, 0xd8));
		__m128i even = _mm_shuffle_epi8(_mm256_castsi256_si128(d), low_bytes);
		__m128i odd = _mm_shuffle_epi8(_mm256_extracti128_si256(d, 1), low_bytes);
		uint32_t four = (uint32_t)_mm_cvtsi128_si32(_mm_unpacklo_epi8(even, odd));
		memcpy(cp + j, &four, 4);
	}
	__m128i k = _mm_and_si128(_mm256_castsi256_si128(kinds), _mm256_extracti128_si256(kinds, 1));
	__m128i f = _mm_or_si128(_mm256_castsi256_si128(far), _mm256_extracti128_si256(far, 1));
	g->kinds &= (uint64_t)_mm_cvtsi128_si64(_mm_and_si128(k, _mm_unpackhi_epi64(k, k)));
	g->far |= (uint64_t)_mm_cvtsi128_si64(_mm_or_si128(f, _mm_unpackhi_epi64(f, f)));
	g->zero |= (uint64_t)!_mm256_testz_si256(zero, zero);
	g->wide |= wide;
	return j;
}

/*
 * ct_clocks_scalar from record j (the words before it readable), eight
 * records at a time in 512-bit registers (AVX-512 F, BW, VL: x86-64-v4):
 * returns where it stopped. Two permutes of two loads give the eight words
 * 0 and words 1 in order; the word 0 and stack pointer of the record before
 * each come from the same registers shifted by a lane, with the last of the
 * eight before carried in.
 */
__attribute__((target("avx512f,avx512bw,avx512vl"))) uint32_t
ct_clocks_avx512(const uint64_t *p, uint32_t j, uint32_t n, uint8_t *cp, struct ct_group *g,
		 uint64_t far_bias)
{
	const __m512i clock_bits = _mm512_set1_epi64((long long)CT_CLOCK_BITS);
	const __m512i fits = _mm512_set1_epi64(0xfe), bias = _mm512_set1_epi64((long long)far_bias);
	const __m512i lo16 = _mm512_set1_epi64(0xffff), hi15 = _mm512_set1_epi64(0x7fff0000);
	const __m512i low32 = _mm512_set1_epi64(0xffffffff);
	const __m512i evens = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
	const __m512i odds = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
	__m512i kinds = _mm512_set1_epi64(-1), far = _mm512_setzero_si512();
	uint64_t wide = 0, zero = 0;

	if (j + 8 > n)
		return j;
	const uint64_t *q = p + 2 * j;
	__m512i w0_before = _mm512_set1_epi64((long long)q[-2]);
	__m512i sp_before = _mm512_set1_epi64((long long)ct_ev_sp(q[-2], q[-1]));
	for (; j + 8 <= n; j += 8) {
		q = p + 2 * j;
		__m512i a = _mm512_loadu_si512((const void *)q);
		__m512i b = _mm512_loadu_si512((const void *)(q + 8));
		__m512i w0 = _mm512_permutex2var_epi64(a, evens, b);
		__m512i w1 = _mm512_permutex2var_epi64(a, odds, b);
		__m512i c = _mm512_and_si512(w0, clock_bits);
		__m512i before = _mm512_and_si512(_mm512_alignr_epi64(w0, w0_before, 7), clock_bits);
		w0_before = w0;
		kinds = _mm512_and_si512(kinds, _mm512_xor_si512(w1, _mm512_add_epi64(w1, w1)));
		far = _mm512_or_si512(far, _mm512_add_epi64(c, bias));
		zero |= _mm512_testn_epi64_mask(c, c);
		__m512i d = _mm512_srli_epi64(_mm512_sub_epi64(c, before), 16);
		wide |= (uint64_t)_mm512_cmpgt_epu64_mask(d, fits) << j;
		_mm_storel_epi64((__m128i *)(cp + j), _mm512_cvtepi64_epi8(d));
		/* stack pointers take 31 bits: their difference's zigzag is a 32-bit one */
		__m512i sp = _mm512_or_si512(_mm512_and_si512(w0, lo16),
					     _mm512_and_si512(_mm512_srli_epi64(w1, 31), hi15));
		__m512i dsp = _mm512_sub_epi64(sp, _mm512_alignr_epi64(sp, sp_before, 7));
		sp_before = sp;
		__m512i zs = _mm512_and_si512(_mm512_xor_si512(_mm512_slli_epi32(dsp, 1),
							       _mm512_srai_epi32(dsp, 31)),
					      low32);
		_mm512_storeu_si512((void *)(g->zs + j), zs);
	}
	g->kinds &= (uint64_t)_mm512_reduce_and_epi64(kinds);
	g->far |= (uint64_t)_mm512_reduce_or_epi64(far);
	g->zero |= zero != 0;
	g->wide |= wide;
	return j;
}
#endif
