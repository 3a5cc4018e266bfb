/* SPDX-License-Identifier: MIT */
/*
 * The clock pass (encode_clocks.c) in aarch64's vector registers: NEON
 * (Advanced SIMD), which every aarch64 has.
 */
#ifdef __aarch64__
#include <arm_neon.h>

#include "encode_run.h"

/*
 * ct_clocks_scalar from record j (the words before it readable), four
 * records at a time: two LD2 loads take the words 0 and words 1 of records
 * j, j + 1 and j + 2, j + 3 apart; the clock and stack pointer of the record
 * before each come from the same registers shifted by a lane (EXT), the
 * last of the four before carried in. Returns where it stopped.
 */
uint32_t ct_clocks_neon(const uint64_t *p, uint32_t j, uint32_t n, uint8_t *cp, struct ct_group *g,
			uint64_t far_bias)
{
	const uint64x2_t clock_bits = vdupq_n_u64(CT_CLOCK_BITS), fits = vdupq_n_u64(0xfe);
	const uint64x2_t bias = vdupq_n_u64(far_bias), lo16 = vdupq_n_u64(0xffff);
	const uint64x2_t hi15 = vdupq_n_u64(0x7fff0000), low32 = vdupq_n_u64(0xffffffff);
	/* the low byte of each lane of two registers, in order: a table lookup */
	const uint8x16_t low_bytes = { 0,   8,	 16,  24,  255, 255, 255, 255,
				       255, 255, 255, 255, 255, 255, 255, 255 };
	const uint32x4_t record_bit = { 1, 2, 4, 8 };
	uint64x2_t kinds = vdupq_n_u64(UINT64_MAX), far = vdupq_n_u64(0), zero = vdupq_n_u64(0);
	uint64_t wide = 0;

	if (j + 4 > n)
		return j;
	const uint64_t *q = p + 2 * j;
	uint64_t *zs = g->zs + j;
	uint64x2_t c_before = vandq_u64(vdupq_n_u64(q[-2]), clock_bits);
	uint64x2_t sp_before = vdupq_n_u64(ct_ev_sp(q[-2], q[-1]));
	for (; j + 4 <= n; j += 4, q += 8, zs += 4) {
		uint64x2x2_t a = vld2q_u64(q), b = vld2q_u64(q + 4); /* val[0]: words 0 */
		uint64x2_t c0 = vandq_u64(a.val[0], clock_bits),
			   c1 = vandq_u64(b.val[0], clock_bits);
		uint64x2_t p0 = vextq_u64(c_before, c0, 1), p1 = vextq_u64(c0, c1, 1);
		c_before = c1;
		kinds = vandq_u64(kinds, veorq_u64(a.val[1], vaddq_u64(a.val[1], a.val[1])));
		kinds = vandq_u64(kinds, veorq_u64(b.val[1], vaddq_u64(b.val[1], b.val[1])));
		far = vorrq_u64(far, vorrq_u64(vaddq_u64(c0, bias), vaddq_u64(c1, bias)));
		zero = vorrq_u64(zero, vorrq_u64(vceqzq_u64(c0), vceqzq_u64(c1)));
		uint64x2_t d0 = vshrq_n_u64(vsubq_u64(c0, p0), 16);
		uint64x2_t d1 = vshrq_n_u64(vsubq_u64(c1, p1), 16);
		/* the four compares (all ones or 0) as 32-bit lanes, then a bit each, summed */
		uint32x4_t over = vuzp1q_u32(vreinterpretq_u32_u64(vcgtq_u64(d0, fits)),
					     vreinterpretq_u32_u64(vcgtq_u64(d1, fits)));
		wide |= (uint64_t)vaddvq_u32(vandq_u32(over, record_bit)) << j;
		uint8x16x2_t both = { { vreinterpretq_u8_u64(d0), vreinterpretq_u8_u64(d1) } };
		vst1q_lane_u32((uint32_t *)(void *)(cp + j),
			       vreinterpretq_u32_u8(vqtbl2q_u8(both, low_bytes)), 0);
		/* stack pointers take 31 bits: their difference's zigzag is a 32-bit one */
		uint64x2_t s0 = vorrq_u64(vandq_u64(a.val[0], lo16),
					  vandq_u64(vshrq_n_u64(a.val[1], 31), hi15));
		uint64x2_t s1 = vorrq_u64(vandq_u64(b.val[0], lo16),
					  vandq_u64(vshrq_n_u64(b.val[1], 31), hi15));
		int32x4_t e0 = vreinterpretq_s32_u64(vsubq_u64(s0, vextq_u64(sp_before, s0, 1)));
		int32x4_t e1 = vreinterpretq_s32_u64(vsubq_u64(s1, vextq_u64(s0, s1, 1)));
		sp_before = s1;
		uint64x2_t z0 = vandq_u64(
			vreinterpretq_u64_s32(veorq_s32(vshlq_n_s32(e0, 1), vshrq_n_s32(e0, 31))),
			low32);
		uint64x2_t z1 = vandq_u64(
			vreinterpretq_u64_s32(veorq_s32(vshlq_n_s32(e1, 1), vshrq_n_s32(e1, 31))),
			low32);
		vst1q_u64(zs, z0);
		vst1q_u64(zs + 2, z1);
	}
	g->kinds &= vgetq_lane_u64(kinds, 0) & vgetq_lane_u64(kinds, 1);
	g->far |= vgetq_lane_u64(far, 0) | vgetq_lane_u64(far, 1);
	g->zero |= (vgetq_lane_u64(zero, 0) | vgetq_lane_u64(zero, 1)) != 0;
	g->wide |= wide;
	return j;
}
#endif
