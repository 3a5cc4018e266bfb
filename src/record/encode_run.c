/* SPDX-License-Identifier: MIT */
/*
 * A chunk's calls and returns into the encoder's planes (docs/FORMAT.md,
 * the compact codec): the recorder's hot loop. Records go in groups that end
 * at a word of the bits (64 records at most), each group in three passes:
 *
 *   clocks  a byte a record and its stack delta (four records at a time
 *           where the machine has AVX2), which deltas do not fit a byte,
 *           and the test that the group is plain: calls and returns only,
 *           with clocks near the chunk's base. It changes no state.
 *   calls   the open-call stack: a return that matches the newest open call
 *           is a bit. The only serial pass, a few instructions a record,
 *           and it compares records as they are (no function looked up).
 *   codes   the records that are not a bit (calls, mostly): the function's
 *           index from the encoder's direct-mapped cache and the stack
 *           delta into their planes; the escapes, clocks' and codes', in
 *           the records' order.
 *
 * A group that is not plain (a mark, an empty slot) goes record by record
 * through the generic encoder (ct_encoder_event), which the unit tests hold
 * this loop's output to, byte for byte.
 */
#if defined(__GNUC__) && !defined(__clang__)
/*
 * The two words of an open call stored as two, not made into one vector
 * register (two more instructions) that the next record then reads back
 * half by half.
 */
#pragma GCC optimize("no-tree-slp-vectorize")
#endif
#include "encode.h"

/* Word 1 of a call less a return's is this (CT_EV_ENTER 1, CT_EV_EXIT 2 in bits 62-63). */
#define CT_KIND_STEP  (UINT64_C(1) << 62)
#define CT_CLOCK_BITS (~UINT64_C(0xffff)) /* word 0's clock, in place */
#define CT_GROUP      64		   /* records: a word of the bits */

/* The passes, inlined into each build of the run (ct_encode_run's clones). */
#define CT_HOT inline __attribute__((always_inline))

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
	uint8_t matched[CT_GROUP]; /* 1: a return that matched */
};

/* The full clock of a record from word 0 and the chunk's base clock (ct_full_clock). */
static inline uint64_t ct_rel_clock(const struct ct_run *s, uint64_t w0)
{
	return (uint64_t)((int64_t)((w0 & CT_CLOCK_BITS) - s->base16) >> 16);
}

/*
 * Records j to n of a group, one at a time: a clock byte each (the delta
 * from the record before, modulo 2^64: see ct_group_clocks), its stack
 * pointer, and whether it is a call or a return. far_bias: 2^62 less the
 * base, shifted as word 0's clock is.
 */
static CT_HOT void ct_clocks_scalar(const uint64_t *p, uint32_t j, uint32_t n, uint8_t *cp,
				    struct ct_group *g, uint64_t far_bias)
{
	if (j >= n)
		return;
	/* the record before, carried: its clock and stack pointer */
	uint64_t before = (j ? p[2 * j - 2] : p[0]) & CT_CLOCK_BITS;
	uint64_t sp_before = j ? ct_ev_sp(p[2 * j - 2], p[2 * j - 1]) : g->sp_before;
	uint64_t kinds = ~UINT64_C(0), far = 0, least = UINT64_MAX, wide = 0;

	for (; j < n; j++) {
		uint64_t w0 = p[2 * j], w1 = p[2 * j + 1], c = w0 & CT_CLOCK_BITS;
		uint64_t d = (c - before) >> 16, sp = ct_ev_sp(w0, w1);
		kinds &= w1 ^ w1 << 1; /* bit 63: the kind is 1 or 2 */
		far |= c + far_bias;
		least = c < least ? c : least;
		cp[j] = (uint8_t)d;
		wide |= (uint64_t)(d > 0xfe) << j;
		g->zs[j] = ct_zigzag((int64_t)(sp - sp_before));
		before = c;
		sp_before = sp;
	}
	g->kinds &= kinds;
	g->far |= far;
	g->zero |= least == 0;
	g->wide |= wide;
}

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#ifdef __x86_64__
#include <immintrin.h>

/*
 * ct_clocks_scalar from record j (the words before it readable), four
 * records at a time in 256-bit registers, for the machines that have them;
 * returns where it stopped.
 * Records j to j + 3 and, a record earlier, j - 1 to j + 2, unpacked alike,
 * give word 0 and the word 0 before in the same lanes (in the order j,
 * j + 2, j + 1, j + 3, put right where it matters).
 */
__attribute__((target("avx2"))) static uint32_t ct_clocks_avx2(const uint64_t *p, uint32_t j,
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
#endif

static int ct_run_vectors = -1; /* -1: as the machine can */

void ct_encode_run_vectors(int on)
{
	ct_run_vectors = on;
}

/* Records j on, as many as the machine's vectors take: returns where it stopped. */
static uint32_t ct_clocks_wide(const uint64_t *p, uint32_t j, uint32_t n, uint8_t *cp,
			       struct ct_group *g, uint64_t far_bias)
{
#ifdef __x86_64__
	if (ct_run_vectors < 0) /* the same answer in every thread */
		ct_run_vectors = __builtin_cpu_supports("avx2") != 0;
	if (ct_run_vectors)
		return ct_clocks_avx2(p, j, n, cp, g, far_bias);
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
static CT_HOT int ct_group_clocks(const struct ct_run *s, const uint64_t *p, uint32_t n,
				  struct ct_group *g)
{
	uint32_t j = p - 2 >= s->lowest ? 0 : 1; /* the vectors read the record before */
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

/*
 * Pass 2: the open calls through the n records at p. A call opens; a return
 * that is the newest open call's closes it and is marked matched (1). A call
 * never matches (its word 1 less CT_KIND_STEP has kind 0), nor does anything
 * the stack's floor (open[0], a stack pointer no record has).
 *
 * The depth moves as if every return matched (most do), so that the next
 * record's top is known without waiting for this one's compare: a return
 * that did not match puts it back, on a branch that is rarely taken. Left to
 * wait, the loop would be a chain of a load, a compare and an add a record.
 */
static CT_HOT void ct_group_calls(struct ct_run *s, struct ct_enc_open *open, const uint64_t *p,
				  uint32_t n, struct ct_group *g)
{
	const int64_t step = (int64_t)sizeof(*open);
	char *o = (char *)(open + s->depth); /* the top: sp_lo, then id */

	for (uint32_t j = 0; j < n; j++) {
		uint64_t w1 = p[2 * j + 1], lo = p[2 * j] & 0xffff;
		int64_t ret = (int64_t)w1 >> 63; /* -1: a return */
		uint64_t miss = (((const uint64_t *)o)[1] ^ (w1 - CT_KIND_STEP)) |
				(((const uint64_t *)o)[0] ^ lo);
		((uint64_t *)o)[2] = lo; /* kept if a call */
		((uint64_t *)o)[3] = w1;
		g->matched[j] = miss == 0;
		o += step + 2 * step * ret; /* below the floor (open[-1]) only until the branch */
		if (__builtin_expect((miss & (uint64_t)ret) != 0, 0)) {
			__asm__ volatile("" ::: "memory"); /* a branch, not a select */
			o += step;
		}
	}
	s->depth = (uint32_t)(((struct ct_enc_open *)o) - open);
}

/* The bits of matched[0 .. n), 0 or 1 each, as bits 0 .. n of a word. */
static CT_HOT uint64_t ct_matched_bits(const uint8_t *m, uint32_t n)
{
	uint64_t bits = 0;
#ifdef __SSE2__
	if (n == CT_GROUP) {
		for (int k = 0; k < 4; k++) {
			__m128i v = _mm_loadu_si128((const __m128i *)(m + 16 * k));
			v = _mm_slli_epi16(v, 7); /* a byte's bit 0 to its bit 7 */
			bits |= (uint64_t)(uint16_t)_mm_movemask_epi8(v) << (16 * k);
		}
		return bits;
	}
#endif
	for (uint32_t k = 0; k < n; k++)
		bits |= (uint64_t)(m[k] & 1) << k;
	return bits;
}

/*
 * Pass 3: the records of the group that are not a bit (todo: a bit each):
 * their function's index (kind in the low bits) and their stack delta from
 * the record before, into the planes; values that do not fit go to the ext
 * column, in the records' order, after the clock delta of any record in
 * wide (then walked too: a clock byte 0xff, its delta to the ext column).
 */
static CT_HOT void ct_group_codes(struct ct_encoder *e, struct ct_run *s, const uint64_t *p,
				  const struct ct_group *g, uint64_t todo, uint64_t wide)
{
	struct ct_enc_slot *cache = e->cache;
	uint8_t *lo = s->lo + s->x, *hi = s->hi + s->x, *ps = s->ps;
	uint32_t x = 0;

	for (uint64_t walk = todo | wide; walk; walk &= walk - 1) {
		uint32_t j = (uint32_t)__builtin_ctzll(walk);
		if (wide && (wide >> j & 1)) {
			uint64_t before = j ? ct_rel_clock(s, p[2 * j - 2]) : s->lrel;
			s->clk[s->r + j] = (uint8_t)ct_enc_clock_byte(e, ct_rel_clock(s, p[2 * j]) - before);
			if (!(todo >> j & 1))
				continue;
		}
		uint64_t w1 = p[2 * j + 1], addr = ct_ev_addr(w1);
		struct ct_enc_slot *slot = ct_enc_slot_of(cache, addr);
		if (__builtin_expect(slot->addr != addr, 0))
			ct_enc_fill(e, slot, addr, ct_encoder_func_slow(e, addr));
		uint64_t k = slot->code | w1 >> 63, zs = g->zs[j];
		if (__builtin_expect((zs > 0xfe) | (k > 0xfffe), 0)) {
			k = ct_encoder_escape(e, k, 0xffff);
			zs = ct_encoder_escape(e, zs, 0xff);
		}
		lo[x] = (uint8_t)k;
		hi[x] = (uint8_t)(k >> 8);
		ps[x++] = (uint8_t)zs;
	}
	s->x += x;
	s->ps += x;
}

/* Passes 2 and 3 of a plain group of n records (ct_group_clocks said so). */
static CT_HOT void ct_group_plain(struct ct_encoder *e, struct ct_run *s, const uint64_t *p,
				  uint32_t n, struct ct_group *g)
{
	uint64_t all = n == CT_GROUP ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;

	ct_group_calls(s, e->open, p, n, g);
	uint64_t bits = ct_matched_bits(g->matched, n), todo = ~bits & all;
	if (__builtin_expect(g->wide != 0, 0))
		ct_group_codes(e, s, p, g, todo, g->wide); /* a walk of its own, with clocks */
	else
		ct_group_codes(e, s, p, g, todo, 0);
	e->bits[s->r >> 6] |= bits << (s->r & 63);
	s->r += n;
	s->lrel = ct_rel_clock(s, p[2 * n - 2]);
	s->ls = ct_ev_sp(p[2 * n - 2], p[2 * n - 1]);
}

/* The run's state into the encoder, and back: the generic encoder works on the encoder. */
static void ct_run_save(struct ct_encoder *e, const struct ct_run *s)
{
	e->hdr.nrecords = s->r;
	e->nexplicit = s->x;
	e->depth = s->depth;
	e->col[CT_COL_SP].len = (size_t)(s->ps - e->col[CT_COL_SP].data);
	e->last_clock = s->base + s->lrel;
	e->last_sp = s->ls;
}

static void ct_run_load(const struct ct_encoder *e, struct ct_run *s)
{
	s->r = e->hdr.nrecords;
	s->x = e->nexplicit;
	s->depth = e->depth;
	s->ps = e->col[CT_COL_SP].data + e->col[CT_COL_SP].len;
	s->lrel = e->last_clock - s->base;
	s->ls = e->last_sp;
}

/*
 * A group that is not plain, record by record through the generic encoder,
 * up to the first record that is not a call or a return: returns where it
 * stopped.
 */
static const uint64_t *ct_group_generic(struct ct_encoder *e, struct ct_run *s, const uint64_t *p,
					const uint64_t *stop)
{
	ct_run_save(e, s);
	for (; p < stop; p += 2) {
		unsigned kind = ct_ev_kind(p[1]);
		if (!p[0] || (kind != CT_EV_ENTER && kind != CT_EV_EXIT))
			break;
		uint64_t clock = s->base + ct_rel_clock(s, p[0]);
		ct_encoder_event(e, clock, kind, ct_ev_addr(p[1]), ct_ev_sp(p[0], p[1]));
	}
	ct_run_load(e, s);
	return p;
}

/* How many records of a group that is not plain are calls or returns with a clock. */
static uint32_t ct_plain_prefix(const uint64_t *p, uint32_t n)
{
	for (uint32_t j = 0; j < n; j++) {
		unsigned kind = ct_ev_kind(p[2 * j + 1]);
		if (!(p[2 * j] & CT_CLOCK_BITS) || (kind != CT_EV_ENTER && kind != CT_EV_EXIT))
			return j;
	}
	return n;
}

/*
 * Built twice, for the machines of the last decade (AVX2, BMI2: the bit
 * tricks in one instruction each, the SSE in three-operand form) and for
 * the others, chosen when the program loads. gcc only: clang 14 names the
 * chooser apart from the function.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
uint64_t ct_encode_run(struct ct_encoder *e, const uint64_t *w, uint64_t i, uint64_t nwords,
		       uint64_t base, uint64_t *last)
{
	ct_encoder_grow(e, (uint32_t)((nwords - i) / 2)); /* the planes stay where they are */

	struct ct_run s = { .clk = e->col[CT_COL_CLOCK].data,
			    .lo = e->col[CT_COL_CODE].data,
			    .hi = e->col[CT_COL_CODE].data + e->plane_cap,
			    .base = base,
			    .base16 = base << 16,
			    .lowest = w };
	const uint64_t *p = w + i, *end = w + (i + (nwords - i) / 2 * 2);
	uint32_t r0 = e->hdr.nrecords;

	if (!r0 && p < end && p[0])
		e->hdr.first_clock = e->last_clock = base + ct_rel_clock(&s, p[0]);
	ct_run_load(e, &s);
	while (p < end) {
		struct ct_group g;
		uint32_t n = CT_GROUP - (s.r & (CT_GROUP - 1));
		if ((uint64_t)(end - p) < 2 * (uint64_t)n)
			n = (uint32_t)((end - p) / 2);
		if (ct_group_clocks(&s, p, n, &g)) {
			ct_group_plain(e, &s, p, n, &g);
			p += 2 * n;
			continue;
		}
		/* the plain records before the first that is not; that one alone */
		uint32_t k = ct_plain_prefix(p, n);
		if (k && ct_group_clocks(&s, p, k, &g)) {
			ct_group_plain(e, &s, p, k, &g);
			p += 2 * k;
			k = 0;
		}
		const uint64_t *stop = p + 2 * (k < n ? k + 1 : n);
		p = ct_group_generic(e, &s, p, stop);
		if (p < stop)
			break;
	}
	ct_run_save(e, &s);
	if (s.r != r0)
		*last = e->last_clock;
	return (uint64_t)(p - w);
}
