/* SPDX-License-Identifier: MIT */
/*
 * The clock pass of the recorder's loop (encode_run.c): a group's clock
 * bytes, stack deltas and checks, in the widest vector registers the
 * machine has (encode_clocks_x86.c, encode_clocks_arm64.c), one record at a
 * time for the rest.
 */
#include "encode_run.h"

/*
 * Records j to n of a group, one at a time: a clock byte each (the delta
 * from the record before, modulo 2^64: see ct_group_clocks), its stack
 * pointer, and whether it is a call or a return. far_bias: 2^62 less the
 * base, shifted as word 0's clock is.
 */
static void ct_clocks_scalar(const uint64_t *restrict p, uint32_t j, uint32_t n,
			     uint8_t *restrict cp, struct ct_group *restrict g, uint64_t far_bias)
{
	if (j >= n)
		return;
	/* the record before, carried: its clock and stack pointer */
	const uint64_t *q = p + 2 * (size_t)j, *end = p + 2 * (size_t)n;
	uint64_t before = (j ? q[-2] : q[0]) & CT_CLOCK_BITS;
	uint64_t sp_before = j ? ct_ev_sp(q[-2], q[-1]) : g->sp_before;
	uint64_t kinds = ~UINT64_C(0), far = 0, least = UINT64_MAX, wide = 0;
	uint64_t *zs = g->zs + j, bit = UINT64_C(1) << j;

	for (cp += j; q < end; q += 2, bit <<= 1) {
		uint64_t w0 = q[0], w1 = q[1], c = w0 & CT_CLOCK_BITS;
		uint64_t d = (c - before) >> 16, sp = ct_ev_sp(w0, w1);
		kinds &= w1 ^ w1 << 1; /* bit 63: the kind is 1 or 2 */
		far |= c + far_bias;
		least = c < least ? c : least;
		*cp++ = (uint8_t)d;
		wide |= d > 0xfe ? bit : 0;
		*zs++ = ct_zigzag((int64_t)(sp - sp_before));
		before = c;
		sp_before = sp;
	}
	g->kinds &= kinds;
	g->far |= far;
	g->zero |= least == 0;
	g->wide |= wide;
}

static int ct_run_vectors = -1; /* -1: the widest the machine has; CT_RUN_GENERIC */

void ct_encode_run_vectors(int level)
{
	ct_run_vectors = level;
}

/* Records j on, as many as the machine's vectors take: returns where it stopped. */
static uint32_t ct_clocks_wide(const uint64_t *p, uint32_t j, uint32_t n, uint8_t *cp,
			       struct ct_group *g, uint64_t far_bias)
{
#ifdef __x86_64__
	static int widest; /* 0: not asked yet; the same answer in every thread */
	if (!widest) {
		int avx512 = __builtin_cpu_supports("avx512f") &&
			     __builtin_cpu_supports("avx512bw") &&
			     __builtin_cpu_supports("avx512vl");
		widest = avx512 ? 3 : __builtin_cpu_supports("avx2") ? 2 : 1;
	}
	int level = ct_run_vectors < 0 || ct_run_vectors > widest ? widest : ct_run_vectors;
	if (level == 3) /* the group's last records, fewer than eight, four at a time */
		return ct_clocks_avx2(p, ct_clocks_avx512(p, j, n, cp, g, far_bias), n, cp, g,
				      far_bias);
	if (level == 2)
		return ct_clocks_avx2(p, j, n, cp, g, far_bias);
	if (level == 1)
		return ct_clocks_sse2(p, j, n, cp, g, far_bias);
#elif defined(__aarch64__)
	if (ct_run_vectors < 0 || ct_run_vectors >= 1) /* NEON: every aarch64 has it */
		return ct_clocks_neon(p, j, n, cp, g, far_bias);
#endif
	(void)p, (void)n, (void)cp, (void)g, (void)far_bias;
	return j;
}

/*
 * Pass 1 of a group of n records at p: their clock bytes and stack
 * pointers, which clocks do not fit a byte, and whether the group is plain:
 * every record a call or a return with a clock. It changes no state: a group
 * that is not plain is taken again by the generic encoder. The first
 * record's delta is computed as the generic encoder does (the record before
 * may be of another chunk); the others' from word 0 as it is, modulo 2^64,
 * which is the same while the clocks stay within 2^62 of the base, 2^46
 * ticks (the group is not plain otherwise).
 */
int ct_group_clocks(const struct ct_run *s, const uint64_t *p, uint32_t n, struct ct_group *g)
{
	if (ct_run_vectors == CT_RUN_GENERIC)
		return 0;
	uint32_t j = p >= s->lowest + 2 ? 0 : 1; /* the vectors read the record before */
	uint64_t zc = ct_rel_clock(s, p[0]) - s->lrel, far_bias = (UINT64_C(1) << 62) - s->base16;
	uint8_t *cp = s->clk + s->r;

	/*
	 * The next group's lines, on their way while this one is encoded: the
	 * passes after this one read nothing new, so a prefetcher that
	 * follows reads would not see the stream go on.
	 */
	for (uint32_t k = 0; k < 2 * CT_GROUP; k += 8)
		__builtin_prefetch(p + 2 * n + k);
	g->kinds = ~UINT64_C(0);
	g->far = g->zero = g->wide = 0;
	g->sp_before = s->ls;
	ct_clocks_scalar(p, 0, j, cp, g, far_bias);
	ct_clocks_scalar(p, ct_clocks_wide(p, j, n, cp, g, far_bias), n, cp, g, far_bias);
	/* record 0 against the record encoded before it, as the generic encoder has it */
	cp[0] = (uint8_t)zc;
	g->wide = (g->wide & ~UINT64_C(1)) | (zc > 0xfe);
	g->zs[0] = ct_zigzag((int64_t)(ct_ev_sp(p[0], p[1]) - s->ls));
	return (g->kinds >> 63) && !(g->far >> 63) && !g->zero;
}
