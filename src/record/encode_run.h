/* SPDX-License-Identifier: MIT */
/*
 * The recorder's loop over a run of calls and returns (encode_run.c) and its
 * first pass, the clocks (encode_clocks.c, with the x86 vector forms in
 * encode_clocks_x86.c): what they share.
 */
#ifndef CT_RECORD_ENCODE_RUN_H
#define CT_RECORD_ENCODE_RUN_H

#include "encode.h"

#define CT_CLOCK_BITS (~UINT64_C(0xffff)) /* word 0's clock, in place */
#define CT_GROUP      64		   /* records: a word of the bits */

/* The state of a run, in registers while it lasts. */
struct ct_run {
	uint8_t *clk, *lo, *hi, *ps; /* the clock plane, the code planes, the stack column's end */
	uint32_t r, x, depth;	     /* records, code plane entries, open calls */
	uint64_t lrel, ls;	     /* the record before: its clock from base, its stack pointer */
	uint64_t base, base16;	     /* the chunk's base clock, and shifted as word 0's clock is */
	const uint64_t *lowest;	     /* the chunk's first word */
};

/* What the first pass learns of a group for the others. */
struct ct_group {
	uint64_t kinds; /* bit 63: every record a call or a return */
	uint64_t far;	/* bit 63: a clock 2^46 ticks or more from the base */
	uint64_t zero;	/* not 0: a clock of 0 (word 0 of an empty slot) */
	uint64_t wide;	/* a bit a record whose clock delta is not 0 to 254 */
	uint64_t sp_before;	   /* the stack pointer of the record before the group */
	uint64_t zs[CT_GROUP];	   /* a record's stack delta from the one before, zigzagged */
	uint8_t matched[CT_GROUP]; /* 1: a return that matched, or a call made again */
	uint8_t ret[CT_GROUP];	   /* 0xff: pass 2 took it for a return */
};

/* A record's clock less the chunk's base (ct_clock_from_base). */
static inline uint64_t ct_rel_clock(const struct ct_run *s, uint64_t w0)
{
	return ct_clock_from_base(s->base16, w0);
}

/*
 * Pass 1 of a group of n records at p (encode_clocks.c): their clock bytes
 * (into s->clk at s->r) and zigzagged stack deltas, which clocks do not fit
 * a byte, and whether the group is plain (1): every record a call or a
 * return with a clock near the chunk's base. It changes no state.
 */
int ct_group_clocks(const struct ct_run *s, const uint64_t *p, uint32_t n, struct ct_group *g);

#ifdef __x86_64__
/*
 * Records j to n of a group in vector registers (encode_clocks_x86.c), the
 * words before record j readable: SSE2 two at a time, AVX2 four, AVX-512
 * eight; each returns where it stopped, the rest being the narrower ones'.
 */
uint32_t ct_clocks_sse2(const uint64_t *p, uint32_t j, uint32_t n, uint8_t *cp, struct ct_group *g,
			uint64_t far_bias);
uint32_t ct_clocks_avx2(const uint64_t *p, uint32_t j, uint32_t n, uint8_t *cp, struct ct_group *g,
			uint64_t far_bias);
uint32_t ct_clocks_avx512(const uint64_t *p, uint32_t j, uint32_t n, uint8_t *cp,
			  struct ct_group *g, uint64_t far_bias);
#elif defined(__aarch64__)
/* The same in NEON registers (encode_clocks_arm64.c), four records a step. */
uint32_t ct_clocks_neon(const uint64_t *p, uint32_t j, uint32_t n, uint8_t *cp, struct ct_group *g,
			uint64_t far_bias);
#endif

#endif
