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
 *           the records' order. A record's kind is the one pass 2 took:
 *           the program may write a chunk while it is read (ct_group_plain).
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
#include "encode_run.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Word 1 of a call less a return's is this (CT_EV_ENTER 1, CT_EV_EXIT 2 in bits 62-63). */
#define CT_KIND_STEP (UINT64_C(1) << 62)

/* The passes, inlined into each build of the run (ct_encode_run's clones). */
#define CT_HOT inline __attribute__((always_inline))

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
 * Each record is stored above the top, kept if it is a call.
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
		g->ret[j] = (uint8_t)ret; /* what it took the record for (ct_group_plain) */
		o += step + 2 * step * ret; /* below the floor (open[-1]) only until the branch */
		if (__builtin_expect((miss & (uint64_t)ret) != 0, 0)) {
			__asm__ volatile("" ::: "memory"); /* a branch, not a select */
			o += step;
		}
	}
	s->depth = (uint32_t)(((struct ct_enc_open *)o) - open);
}

/*
 * Pass 2 in a block that names calls made again (format 7): a call is
 * marked too if it is the last call made at its depth again, the entry
 * above the top. Word 1's kind bits (62, 63) are left out of the compare:
 * where a record is compared tells calls from returns. Nothing matches an
 * entry that no call of the block reached (a stack pointer no record has).
 *
 * Each record is stored where it was compared: a call over the last one
 * made at its depth, a return over the call it closes (the same but for
 * the kind bits if it matched), so that the entries above the top stay the
 * last calls made there. The branch puts back what an unmatched return
 * wrote over. Which records are returns goes to ret. Four instructions a
 * record more than ct_group_calls, paid only in such blocks.
 */
static CT_HOT void ct_group_calls_again(struct ct_run *s, struct ct_enc_open *open,
					const uint64_t *p, uint32_t n, struct ct_group *g)
{
	const int64_t step = (int64_t)sizeof(*open);
	char *o = (char *)(open + s->depth);

	for (uint32_t j = 0; j < n; j++) {
		uint64_t w1 = p[2 * j + 1], lo = p[2 * j] & 0xffff;
		int64_t ret = (int64_t)w1 >> 63, back = ret & -step; /* -1, -step: a return */
		/* a call against the entry above the top, a return against the top */
		uint64_t *with = (uint64_t *)(o + step + back);
		uint64_t was_lo = with[0], was = with[1], miss = (was ^ w1) << 2 | (was_lo ^ lo);
		with[0] = lo;
		with[1] = w1;
		g->matched[j] = miss == 0;
		g->ret[j] = (uint8_t)ret;
		o = (char *)with + back;
		if (__builtin_expect((miss & (uint64_t)ret) != 0, 0)) {
			__asm__ volatile("" ::: "memory");
			with[0] = was_lo;
			with[1] = was;
			o += step;
		}
	}
	s->depth = (uint32_t)(((struct ct_enc_open *)o) - open);
}

/* Bit b (0 or 7) of the bytes m[0 .. n), as bits 0 .. n of a word. */
static CT_HOT uint64_t ct_byte_bits(const uint8_t *m, uint32_t n, int b)
{
	uint64_t bits = 0;
#ifdef __SSE2__
	if (n == CT_GROUP) {
		for (int k = 0; k < 4; k++) {
			__m128i v = _mm_loadu_si128((const __m128i *)(m + 16 * k));
			v = _mm_slli_epi16(v, 7 - b); /* a byte's bit b to its bit 7 */
			bits |= (uint64_t)(uint16_t)_mm_movemask_epi8(v) << (16 * k);
		}
		return bits;
	}
#endif
	for (uint32_t k = 0; k < n; k++)
		bits |= (uint64_t)(m[k] >> b & 1) << k;
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
				  const struct ct_group *g, uint64_t todo, uint64_t wide,
				  uint64_t rets)
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
		uint64_t k = slot->code | (rets >> j & 1), zs = g->zs[j];
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

	/* at most this deep in the group: the entries its calls may fill */
	ct_encoder_open_room(e, s->depth + n);
	e->open_hw = s->depth + n > e->open_hw ? s->depth + n : e->open_hw;
	if (e->again_on)
		ct_group_calls_again(s, e->open, p, n, g);
	else
		ct_group_calls(s, e->open, p, n, g);
	/*
	 * Which records pass 2 took for returns: passes 1 and 3 read the records
	 * again, and the program may have written them meanwhile (a hostile one,
	 * or two threads given one chunk), so pass 3 takes a record's kind from
	 * here, never from the record, and a bit is a return's only, where calls
	 * made again are codes: what the block says then stays what the decoder
	 * can follow, whatever the records became.
	 */
	uint64_t rets = ct_byte_bits(g->ret, n, 7), bits = ct_byte_bits(g->matched, n, 0);
	if (e->again_on) /* the calls among them were made again */
		e->again[s->r >> 6] |= (bits & ~rets) << (s->r & 63);
	else
		bits &= rets;
	uint64_t todo = ~bits & all;
	if (__builtin_expect(g->wide != 0, 0))
		ct_group_codes(e, s, p, g, todo, g->wide, rets); /* a walk of its own, with clocks */
	else
		ct_group_codes(e, s, p, g, todo, 0, rets);
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
