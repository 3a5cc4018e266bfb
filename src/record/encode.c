/* SPDX-License-Identifier: MIT */
/*
 * A chunk's records into an EVENTS block. The loop's common case, a call or a
 * return, takes no branch but the loop's and two tests that hold: the clock's
 * high bits come from the chunk's base clock, the function's index from the
 * encoder's direct-mapped cache, the fields go to byte planes (docs/FORMAT.md,
 * format 5's compact codec). Everything else (empty slots, extended records)
 * leaves that path.
 */
#include <stdlib.h>

#include "encode.h"

void ct_chunk_job_free(struct ct_chunk_job *j)
{
	ct_buf_free(&j->out);
	ct_buf_free(&j->funcs);
	free(j->side);
	memset(j, 0, sizeof(*j));
}

/*
 * The full clock of a record from its low 48 bits and the chunk's base
 * clock. A record can be a little older than its chunk (the hook reads the
 * clock before it reserves its slot), so the difference is signed.
 */
static inline uint64_t ct_full_clock(uint64_t base, uint64_t w0)
{
	int64_t delta = (int64_t)((ct_ev_clock48(w0) - base) << 16) >> 16;
	return base + (uint64_t)delta;
}

static int ct_valid(uint64_t w0, uint64_t w1)
{
	return w0 && ct_ev_kind(w1);
}

/*
 * At an empty slot: how many slots to skip, or 0 to stop. In a published
 * chunk every slot was reserved, and an empty one belongs to a hook a signal
 * handler jumped out of. In a salvaged chunk, empty slots end what the thread
 * wrote, unless a plausible record follows a few abandoned ones.
 */
static uint64_t ct_skip_empty(const uint64_t *w, uint64_t i, uint64_t nwords, uint64_t last,
			      uint64_t base, uint32_t flags)
{
	if (flags & CT_EVENTS_LIVE)
		return 0; /* its thread may fill it yet */
	if (!(flags & (CT_EVENTS_SALVAGED | CT_EVENTS_SNAPSHOT)))
		return 2;
	for (uint64_t k = 2; k <= 8 && i + k + 2 <= nwords; k += 2) {
		if (!ct_valid(w[i + k], w[i + k + 1]))
			continue;
		uint64_t clock = ct_full_clock(base, w[i + k]);
		uint64_t gap = clock > last ? clock - last : last - clock;
		return gap < (UINT64_C(1) << 36) ? k : 0;
	}
	return 0;
}

/*
 * Staged entries of the code planes and the stack column, one word each (code
 * | stack byte << 16), into their planes. Storing three bytes at three places
 * in the loop that makes them would cost the stores and the registers to
 * address them; here sixteen at a time are transposed in vector registers.
 */
static void ct_scatter_scalar(const uint64_t *t, uint32_t n, uint8_t *lo, uint8_t *hi, uint8_t *sp)
{
	for (uint32_t m = 0; m < n; m++) {
		lo[m] = (uint8_t)t[m];
		hi[m] = (uint8_t)(t[m] >> 8);
		sp[m] = (uint8_t)(t[m] >> 16);
	}
}

#ifdef __SSE2__
#include <emmintrin.h>

/*
 * Sixteen staged words (8 registers, byte b of entry m at register m / 2,
 * byte (m % 2) * 8 + b) into planes: each round of unpacks rotates the
 * 7-bit index (m, b) left by one, so four rounds leave byte b of entry m
 * at register b, byte m.
 */
static inline __attribute__((always_inline)) void ct_unpack_round(__m128i *a)
{
	__m128i b0 = _mm_unpacklo_epi8(a[0], a[4]), b1 = _mm_unpackhi_epi8(a[0], a[4]);
	__m128i b2 = _mm_unpacklo_epi8(a[1], a[5]), b3 = _mm_unpackhi_epi8(a[1], a[5]);
	__m128i b4 = _mm_unpacklo_epi8(a[2], a[6]), b5 = _mm_unpackhi_epi8(a[2], a[6]);
	__m128i b6 = _mm_unpacklo_epi8(a[3], a[7]), b7 = _mm_unpackhi_epi8(a[3], a[7]);
	a[0] = b0, a[1] = b1, a[2] = b2, a[3] = b3, a[4] = b4, a[5] = b5, a[6] = b6, a[7] = b7;
}

static void ct_scatter_planes(const uint64_t *t, uint32_t n, uint8_t *lo, uint8_t *hi, uint8_t *sp)
{
	uint32_t m = 0;
	for (; m + 16 <= n; m += 16) {
		__m128i a[8];
		for (int k = 0; k < 8; k++)
			a[k] = _mm_loadu_si128((const __m128i *)(t + m) + k);
		for (int round = 0; round < 4; round++)
			ct_unpack_round(a);
		_mm_storeu_si128((__m128i *)(lo + m), a[0]);
		_mm_storeu_si128((__m128i *)(hi + m), a[1]);
		_mm_storeu_si128((__m128i *)(sp + m), a[2]);
	}
	ct_scatter_scalar(t + m, n - m, lo + m, hi + m, sp + m);
}
#else
#define ct_scatter_planes ct_scatter_scalar
#endif

/* The bits of m[from .. from + n), 0 or 0xff each, as bits from .. from + n of a word. */
static inline uint64_t ct_mask_bits(const uint8_t *m, uint32_t from, uint32_t n)
{
	uint64_t bits = 0;
#ifdef __SSE2__
	if (from == 0 && n == 64) {
		for (int k = 0; k < 4; k++)
			bits |= (uint64_t)(uint16_t)_mm_movemask_epi8(
					_mm_loadu_si128((const __m128i *)(m + 16 * k)))
				<< (16 * k);
		return bits;
	}
#endif
	for (uint32_t k = from; k < from + n; k++) /* from + n <= 64: the mask only says so */
		bits |= (uint64_t)(m[k & 63] & 1) << (k & 63);
	return bits;
}

/*
 * Calls and returns from w[i] on, while they last: returns where the first
 * other record (or the end) is. A record's clock delta is a byte of the
 * clock plane; a return that matches the newest open call is a bit and
 * nothing else (half the records: its code and stack pointer are the
 * call's); the others stage their code and stack delta (ct_scatter_planes).
 * No branch but one test for the rare value that does not fit. Records go
 * in groups that end at a word of the bits; the previous clock and stack
 * pointer, and the open calls' depth, live in registers for the run.
 */
static uint64_t ct_encode_run(struct ct_encoder *e, const uint64_t *w, uint64_t i, uint64_t nwords,
			      uint64_t base, uint64_t *last)
{
	ct_encoder_grow(e, (uint32_t)((nwords - i) / 2));

	uint8_t *clk = e->col[CT_COL_CLOCK].data, *lo = e->col[CT_COL_CODE].data;
	uint8_t *hi = lo + e->plane_cap, *ps = e->col[CT_COL_SP].data + e->col[CT_COL_SP].len;
	uint64_t *stack = e->stack;
	uint32_t r = e->hdr.nrecords, x = e->nexplicit, depth = e->depth;
	uint64_t lc = e->last_clock, ls = e->last_sp;
	struct ct_enc_slot *cache = e->cache;
	uint64_t t[64];
	uint8_t matched[64]; /* 0xff for a record that is a bit (ct_mask_bits) */
	/* clocks as differences from base: ct_full_clock's shifts made one mask */
	const uint64_t base16 = base << 16;
	uint64_t lrel;
	const uint64_t *p = w + i, *end = w + (i + (nwords - i) / 2 * 2);

	if (!r && p < end && p[0])
		e->hdr.first_clock = lc = ct_full_clock(base, p[0]);
	lrel = lc - base;
	while (p < end) {
		uint32_t r0 = r, group = 64 - (r & 63);
		const uint64_t *stop = (uint64_t)(end - p) > 2 * group ? p + 2 * group : end;
		uint64_t *tp = t;
		uint8_t *cp = clk + r, *mp = matched + (r & 63);
		for (; p < stop; p += 2) {
			uint64_t w0 = p[0], w1 = p[1];
			unsigned kind = ct_ev_kind(w1);
			if (__builtin_expect(!w0 || kind - 1 > 1, 0))
				break; /* not a call or a return (CT_EV_ENTER 1, CT_EV_EXIT 2) */
			uint64_t rel =
				(uint64_t)((int64_t)((w0 & ~UINT64_C(0xffff)) - base16) >> 16);
			uint64_t addr = ct_ev_addr(w1);
			uint64_t sp = ct_ev_sp(w0, w1);
			struct ct_enc_slot *slot = ct_enc_slot_of(cache, addr);
			if (__builtin_expect(slot->addr != addr, 0))
				ct_enc_fill(e, slot, addr, ct_encoder_func_slow(e, addr));
			uint64_t exit = w1 >> 63; /* CT_EV_EXIT */
			uint64_t key = ct_enc_key(slot->code, sp);
			uint64_t match = exit & (stack[depth] == key);
			stack[depth + 1] = key; /* a call's, kept only if it is one */
			depth = depth + (uint32_t)(exit ^ 1) - (uint32_t)match;
			uint64_t zc = rel - lrel, k = slot->code | exit; /* ct_enc_clock_byte */
			uint64_t zs = ct_zigzag((int64_t)(sp - ls));
			/* a matched return's code and stack are not stored: a test too many is harmless */
			if (__builtin_expect(((zc | zs) > 0xfe) | (k > 0xfffe), 0)) {
				zc = ct_enc_clock_byte(e, zc);
				if (!match) {
					k = ct_encoder_escape(e, k, 0xffff);
					zs = ct_encoder_escape(e, zs, 0xff);
				}
			}
			*cp++ = (uint8_t)zc;
			*mp++ = (uint8_t)-match;
			*tp = k | zs << 16;
			tp += match ^ 1;
			lrel = rel;
			ls = sp;
		}
		uint32_t n = (uint32_t)(tp - t);
		ct_scatter_planes(t, n, lo + x, hi + x, ps);
		x += n;
		ps += n;
		r = (uint32_t)(cp - clk);
		if (r != r0)
			e->bits[r0 >> 6] |= ct_mask_bits(matched, r0 & 63, r - r0);
		if (p < stop)
			break;
	}
	e->col[CT_COL_SP].len = (size_t)(ps - e->col[CT_COL_SP].data);
	lc = base + lrel;
	if (r != e->hdr.nrecords)
		*last = lc;
	e->hdr.nrecords = r;
	e->nexplicit = x;
	e->depth = depth;
	e->last_clock = lc;
	e->last_sp = ls;
	return (uint64_t)(p - w);
}

static void ct_add_side(struct ct_chunk_job *j, uint32_t type, uint64_t clock, const uint8_t *p,
			uint32_t len)
{
	if (j->nside == j->side_cap) {
		j->side_cap = j->side_cap ? j->side_cap * 2 : 8;
		j->side = ct_realloc(j->side, j->side_cap * sizeof(*j->side));
	}
	j->side[j->nside++] = (struct ct_side){ type, len, clock, p };
}

/*
 * An extended record with a payload: into the stream, or for the collector
 * (ct_on_side in collect.c), or both.
 */
static void ct_encode_ext(struct ct_encoder *e, struct ct_chunk_job *j, uint64_t clock,
			  uint32_t type, const uint8_t *p, uint32_t len)
{
	switch (type) {
	case CT_EXT_PROCESS:
	case CT_EXT_EXEC_NOTE: /* for the recorder only (untraced.c) */
	case CT_EXT_MODULE:
	case CT_EXT_THREAD_NAME:
	case CT_EXT_UNLOAD:
	case CT_EXT_PROTOS:
		ct_add_side(j, type, clock, p, len);
		break;
	case CT_EXT_EXEC_FAILED:
	case CT_EXT_UNTRACED:
	case CT_EXT_CRASH:
		ct_add_side(j, type, clock, p, len);
		ct_encoder_ext(e, clock, type, p, len);
		break;
	case CT_EXT_LOST: {
		uint64_t n = 0;
		memcpy(&n, p, len < 8 ? len : 8);
		ct_add_side(j, type, clock, p, len);
		ct_encoder_ext(e, clock, type, &n, sizeof(n));
		break;
	}
	default:
		ct_encoder_ext(e, clock, type, p, len);
		break;
	}
}

/* Swap the encoder's block into the job: the buffers trade places, nothing is copied. */
static void ct_take_block(struct ct_encoder *e, struct ct_chunk_job *j)
{
	struct ct_buf t = j->out;
	j->out = e->out;
	e->out = t;
	t = j->funcs;
	j->funcs = e->funcs;
	e->funcs = t;
	j->hdr = e->hdr;
}

/*
 * One chunk's records into the encoder's block: calls and returns through
 * the run, the rest one at a time. Returns the bytes of w read; calls and
 * abandoned slots are added to j.
 */
static uint64_t ct_encode_chunk(struct ct_encoder *e, struct ct_chunk_job *j, const uint64_t *w,
				uint64_t nwords, uint64_t base)
{
	uint64_t i = 0, last = base;

	while (i + 2 <= nwords) {
		uint64_t from = i;
		i = ct_encode_run(e, w, i, nwords, base, &last);
		j->calls += (i - from) / 2;
		if (i + 2 > nwords)
			break;
		uint64_t w0 = w[i], w1 = w[i + 1];
		if (!ct_valid(w0, w1)) {
			uint64_t skip = ct_skip_empty(w, i, nwords, last, base, j->flags);
			if (!skip)
				break;
			j->abandoned += skip / 2;
			i += skip;
			continue;
		}
		uint64_t clock = last = ct_full_clock(base, w0);
		if (ct_ev_ext_words(w1) == 0 && ct_ext_is_mark(ct_ev_ext_type(w1))) {
			/* payload: the stack pointer (16-byte units), then the argument if any */
			uint64_t pl[2] = { ct_ev_sp(w0, w1), ct_ev_mark_arg(w1) };
			ct_encoder_ext(e, clock, ct_ev_ext_type(w1), pl, pl[1] ? 16 : 8);
			i += 2;
			continue;
		}
		uint32_t n = ct_ev_ext_words(w1);
		if (i + 2 + n > nwords)
			break;
		ct_encode_ext(e, j, clock, ct_ev_ext_type(w1), (const uint8_t *)(w + i + 2), n * 8);
		i += 2 + n;
	}
	return i * 8;
}

void ct_chunk_encode(struct ct_encoder *e, struct ct_chunk_job *j)
{
	uint64_t words = j->nwords;
	for (uint32_t k = 0; k < j->nmore; k++)
		words += j->more[k].nwords;

	j->nside = 0;
	j->abandoned = 0;
	j->calls = 0;
	ct_encoder_begin(e, j->d.instance, j->d.pid, j->d.tid, j->d.thread_seq, j->flags,
			 (uint32_t)(words / 2));
	e->hdr.snapshot = j->generation;
	j->used = ct_encode_chunk(e, j, j->w, j->nwords, j->d.base_clock);
	for (uint32_t k = 0; k < j->nmore; k++) {
		struct ct_chunk_more *m = &j->more[k];
		m->used = ct_encode_chunk(e, j, m->w, m->nwords, m->d.base_clock);
	}
	if (e->hdr.nrecords)
		ct_encoder_finish(e);
	ct_take_block(e, j);
}
