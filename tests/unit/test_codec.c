/* SPDX-License-Identifier: MIT */
/* The EVENTS codec: what goes in comes out, and bad input never crashes it. */
#include <pthread.h>
#include <stdlib.h>
#include <zstd.h>

#include "unit.h"
#include "../../src/format/events.h"
#include "../../src/format/huff.h"
#include "../../src/record/encode.h"

struct rec {
	uint64_t clock, addr, sp;
	unsigned kind;
	uint32_t type;
	uint64_t payload;
};

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	return ct_unit_xorshift(&rnd_state);
}

static void make_records(struct rec *r, size_t n)
{
	uint64_t clock = 1ull << 40, sp = 0x7ffd1234;
	for (size_t i = 0; i < n; i++) {
		clock += rnd() % 1000;
		sp += (rnd() % 9) - 4;
		r[i].clock = clock;
		r[i].sp = sp & 0x7fffffff;
		r[i].kind = 1 + (unsigned)(rnd() % 3);
		r[i].addr = 0x555555554000ull + (rnd() % 50) * 64;
		r[i].type = CT_EXT_LOST;
		r[i].payload = rnd();
	}
}

static void encode(struct ct_encoder *e, const struct rec *r, size_t n)
{
	ct_encoder_begin(e, 3, 100, 101, 7, CT_EVENTS_LAST, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		if (r[i].kind == CT_EV_EXT)
			ct_encoder_ext(e, r[i].clock, r[i].type, &r[i].payload, 8);
		else
			ct_encoder_event(e, r[i].clock, r[i].kind, r[i].addr, r[i].sp);
	}
	ct_encoder_finish(e);
}

static void test_round_trip(void)
{
	enum { N = 4096 };
	static struct rec r[N];
	struct ct_encoder e;
	struct ct_decoder d;
	struct ct_event ev;

	make_records(r, N);
	ct_encoder_init(&e, N, 1);
	encode(&e, r, N);
	ct_decoder_init(&d);
	CHECK(ct_decoder_begin(&d, e.out.data, (uint32_t)e.out.len) == 0);
	CHECK(d.hdr.instance == 3 && d.hdr.pid == 100 && d.hdr.tid == 101 && d.hdr.thread_seq == 7);
	CHECK(d.hdr.nrecords == N && d.hdr.first_clock == r[0].clock &&
	      d.hdr.last_clock == r[N - 1].clock);
	for (size_t i = 0; i < N; i++) {
		CHECK(ct_decoder_next(&d, &ev) == 1);
		CHECK(ev.clock == r[i].clock && ev.kind == r[i].kind);
		if (r[i].kind == CT_EV_EXT) {
			uint64_t v;
			CHECK(ev.ext_type == r[i].type && ev.ext_len == 8);
			memcpy(&v, ev.ext, 8);
			CHECK(v == r[i].payload);
		} else {
			CHECK(ev.addr == r[i].addr && ev.sp == r[i].sp);
		}
		if (ct_unit_failed)
			break;
	}
	CHECK(ct_decoder_next(&d, &ev) == 0);
	ct_decoder_free(&d);
	ct_encoder_free(&e);
}

/*
 * Calls and returns as a program makes them (format 5 names a return that
 * matches the newest open call by one bit, format 7 a call that is the last
 * one made at its depth again): nested calls, recursion, loops, returns
 * whose call came before the block, returns that skip frames (longjmp) or
 * name another function or frame (or a stack pointer a few bytes off),
 * calls like the last one at their depth but for the function or the stack
 * pointer, marks between, values past the planes.
 */
static size_t make_nested_from(struct rec *r, size_t n, uint64_t clock, int quiet)
{
	uint64_t open[512][2], last[512][2] = { { 0 } };
	size_t depth = 0, i = 0;
	while (i < n) {
		uint64_t roll = rnd() % 100;
		if (quiet && rnd() % 64) /* a program's steady stream: calls and returns that match */
			roll = 7 + rnd() % 93;
		clock += roll < 2 ? 300 + rnd() % 100000 : rnd() % 200;
		r[i].clock = clock;
		r[i].type = CT_EXT_LOST;
		r[i].payload = rnd();
		if (roll < 3) {
			r[i].kind = CT_EV_EXT;
		} else if (depth && roll < 5) { /* a return that matches nothing open */
			r[i].kind = CT_EV_EXIT;
			r[i].addr = open[depth - 1][0] + (roll < 4 ? 16 : 0);
			r[i].sp = open[depth - 1][1] ^ (roll < 4 ? 0 : 1 + rnd() % 15);
		} else if (depth > 3 && roll < 7) { /* a longjmp over two frames */
			depth -= 2;
			r[i].kind = CT_EV_EXIT;
			r[i].addr = open[depth - 1][0];
			r[i].sp = open[depth - 1][1];
			depth--;
		} else if (depth && (roll < 50 || depth == 512)) {
			depth--;
			r[i].kind = CT_EV_EXIT;
			r[i].addr = open[depth][0];
			r[i].sp = open[depth][1];
		} else if (!depth && roll < 50) { /* a return whose call came before */
			r[i].kind = CT_EV_EXIT;
			r[i].addr = 0x555555554000ull + (rnd() % 300) * 48;
			r[i].sp = 0x7ffd0000 + rnd() % 64;
		} else {
			uint64_t sp = depth ? open[depth - 1][1] - (roll < 10 ? 300 : 1 + rnd() % 8)
					    : 0x7ffd1234;
			r[i].kind = CT_EV_ENTER;
			r[i].addr = 0x555555554000ull + (rnd() % (roll < 9 ? 20000 : 300)) * 48;
			r[i].sp = sp & 0x7fffffff;
			uint64_t again = rnd() % 8;
			if (last[depth][0] && again < 5) { /* a loop's call again, or nearly */
				r[i].addr = last[depth][0] + (again == 3 ? 48 : 0);
				r[i].sp = last[depth][1] ^ (again == 4 ? 1 + rnd() % 15 : 0);
			}
			last[depth][0] = r[i].addr;
			last[depth][1] = r[i].sp;
			open[depth][0] = r[i].addr;
			open[depth][1] = r[i].sp;
			depth++;
		}
		i++;
	}
	return i;
}

static size_t make_nested(struct rec *r, size_t n)
{
	return make_nested_from(r, n, 1ull << 40, 0);
}

static void check_decodes_to(const struct ct_buf *out, const struct rec *r, size_t n)
{
	struct ct_decoder d;
	struct ct_event ev;

	ct_decoder_init(&d);
	CHECK(ct_decoder_begin(&d, out->data, (uint32_t)out->len) == 0);
	CHECK(d.compact && d.hdr.nrecords == n);
	for (size_t i = 0; i < n && !ct_unit_failed; i++) {
		CHECK(ct_decoder_next(&d, &ev) == 1);
		CHECK(ev.clock == r[i].clock && ev.kind == r[i].kind);
		if (r[i].kind == CT_EV_EXT)
			CHECK(ev.ext_type == r[i].type && ev.ext_len == 8);
		else
			CHECK(ev.addr == r[i].addr && ev.sp == r[i].sp);
	}
	CHECK(ct_decoder_next(&d, &ev) == 0);
	ct_decoder_free(&d);
}

/*
 * r[0 .. n) into the words of one chunk, as the runtime writes them, with an
 * empty slot (a signal handler's jump left it, skipped) after every
 * empty_every-th record if not 0: returns the words.
 */
static size_t chunk_words(const struct rec *r, size_t n, uint64_t *w, size_t empty_every)
{
	size_t nw = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t cfa = r[i].sp << 4;
		if (r[i].kind == CT_EV_EXT) { /* a lost record, one word of payload */
			w[nw++] = ct_ev_word0(r[i].clock & CT_EV_CLOCK_MASK, 0);
			w[nw++] = ct_ev_ext_word1(r[i].type, 1);
			w[nw++] = r[i].payload;
			continue;
		}
		w[nw++] = ct_ev_word0(r[i].clock & CT_EV_CLOCK_MASK, cfa);
		w[nw++] = ct_ev_word1(r[i].kind, r[i].addr, cfa);
		if (empty_every && i % empty_every == 0) {
			w[nw++] = 0;
			w[nw++] = 0;
		}
	}
	return nw;
}

/* The same records through the generic encoder and through the recorder's chunk loop. */
static void test_nested(void)
{
	enum { N = 30000 };
	static struct rec r[N];
	static uint64_t w[3 * N];
	struct ct_encoder e;
	struct ct_chunk_job j;

	for (int round = 0; round < 4; round++) {
		size_t n = make_nested(r, N);
		ct_encoder_init(&e, N, -1);
		encode(&e, r, n);
		CHECK(e.hdr.codec & CT_CODEC_AGAIN); /* calls made again are bits */
		check_decodes_to(&e.out, r, n);
		memset(&j, 0, sizeof(j));
		j.d.base_clock = r[0].clock;
		j.w = w;
		j.nwords = chunk_words(r, n, w, 97);
		ct_chunk_encode(&e, &j);
		check_decodes_to(&j.out, r, n);
		ct_chunk_job_free(&j);
		ct_encoder_free(&e);
	}
}

/* A record's full clock as the recorder rebuilds it from 48 bits and its chunk's base. */
static uint64_t full_clock(uint64_t base, uint64_t c48)
{
	return base + (uint64_t)((int64_t)((c48 - base) << 16) >> 16);
}

/*
 * r[0 .. n) as the runtime writes them into three chunks (an empty slot now
 * and then), encoded by the recorder's loop: the block must be the generic
 * encoder's, byte for byte, for the records as the recorder reads them back.
 * A chunk's base clock is base_back ticks before its first record's, so that
 * its records can wander past 2^47 ticks from it.
 */
static void check_chunk_encoding(struct rec *r, size_t n, uint64_t base_back)
{
	static uint64_t w[3 * 40000];
	static struct rec seen[40000];
	struct ct_encoder ref, e;
	struct ct_chunk_job j;
	size_t nw = 0, ns = 0, cut[3] = { 0, n / 3, 2 * n / 3 }, word_cut[3] = { 0 };
	uint64_t base[3];

	for (size_t i = 0, part = 0; i < n; i++) {
		if (part < 3 && i == cut[part]) {
			word_cut[part] = nw;
			base[part++] = r[i].clock - base_back;
		}
		uint64_t cfa = r[i].sp << 4, b = base[part - 1];
		seen[ns] = r[i];
		seen[ns].clock = full_clock(b, r[i].clock & CT_EV_CLOCK_MASK);
		if (r[i].kind == CT_EV_EXT) { /* a lost record, one word of payload */
			w[nw++] = ct_ev_word0(r[i].clock & CT_EV_CLOCK_MASK, 0);
			w[nw++] = ct_ev_ext_word1(r[i].type, 1);
			w[nw++] = r[i].payload;
			ns++;
			continue;
		}
		w[nw++] = ct_ev_word0(r[i].clock & CT_EV_CLOCK_MASK, cfa);
		w[nw++] = ct_ev_word1(r[i].kind, r[i].addr, cfa);
		ns += w[nw - 2] != 0; /* a word 0 of zero: an empty slot, skipped */
		if (i % 997 == 0) { /* a slot a signal handler's jump left empty */
			w[nw++] = 0;
			w[nw++] = 0;
		}
	}
	ct_encoder_init(&ref, (uint32_t)n, -1);
	encode(&ref, seen, ns);
	ct_encoder_init(&e, (uint32_t)n, -1);
	memset(&j, 0, sizeof(j));
	j.d = (struct ct_desc_view){ .instance = 3, .pid = 100, .tid = 101, .thread_seq = 7,
				     .base_clock = base[0] };
	j.flags = CT_EVENTS_LAST;
	j.w = w;
	j.nwords = word_cut[1];
	j.nmore = 2;
	for (int k = 1; k < 3; k++)
		j.more[k - 1] = (struct ct_chunk_more){
			.d = { .base_clock = base[k] },
			.w = w + word_cut[k],
			.nwords = (k < 2 ? word_cut[k + 1] : nw) - word_cut[k],
		};
	ct_chunk_encode(&e, &j);
	CHECK(j.hdr.nrecords == ns);
	CHECK(memcmp(&j.hdr, &ref.hdr, sizeof(j.hdr)) == 0);
	CHECK(j.out.len == ref.out.len && memcmp(j.out.data, ref.out.data, ref.out.len) == 0);
	CHECK(j.funcs.len == ref.funcs.len && memcmp(j.funcs.data, ref.funcs.data, ref.funcs.len) == 0);
	check_decodes_to(&j.out, seen, ns);
	ct_chunk_job_free(&j);
	ct_encoder_free(&e);
	ct_encoder_free(&ref);
}

/*
 * The recorder's loop against the generic encoder, byte for byte, with and
 * without vector registers, with calls made again as bits and as codes: a
 * steady stream with a rare escape, unmatched
 * return or mark, a rough one, and clocks that cross 2^48, that wander past
 * 2^47 ticks from the chunk's base, that start at zero.
 */
static void test_chunk_loop_exact(void)
{
	enum { N = 30000 };
	static struct rec r[N];
	const uint64_t starts[] = { 1ull << 40, (1ull << 48) - 20000, 1ull << 40, 0 };
	const uint64_t back[] = { 0, 0, (1ull << 47) - 100000, 0 };

	for (int vectors = 0; vectors <= 3; vectors++) { /* none, SSE2, AVX2, AVX-512: as it has */
		ct_encode_run_vectors(vectors);
		for (int again = 0; again <= 1; again++) { /* calls made again: bits or codes */
			ct_encoder_again(again);
			for (int quiet = 1; quiet >= 0; quiet--)
				for (size_t k = 0; k < sizeof(starts) / sizeof(starts[0]); k++) {
					size_t n = make_nested_from(r, N, starts[k], quiet);
					check_chunk_encoding(r, n, back[k]);
				}
		}
	}
	ct_encode_run_vectors(-1);
	ct_encoder_again(-1);
}

/*
 * Blocks one after the other through the same encoders, the loop's and the
 * generic one's: streams of loops (calls made again, as bits) and of calls
 * that seldom repeat (the blocks after a probe name them by their codes). A
 * block must not see the open calls of the one before, whichever way it
 * was encoded.
 */
static void test_again_blocks(void)
{
	enum { N = 8000 };
	static struct rec r[N];
	static uint64_t w[3 * N];
	struct ct_encoder ref, e;
	int kinds = 0;

	ct_encoder_init(&ref, N, -1);
	ct_encoder_init(&e, N, -1);
	for (int b = 0; b < 40 && !ct_unit_failed; b++) {
		size_t n = b % 5 < 2 ? make_nested_from(r, N, 1ull << 40, 1) : (make_records(r, N), N);
		struct ct_chunk_job j[2];
		for (int k = 0; k < 2; k++) {
			memset(&j[k], 0, sizeof(j[k]));
			j[k].d.base_clock = r[0].clock;
			j[k].w = w;
			j[k].nwords = chunk_words(r, n, w, 0);
			ct_encode_run_vectors(k ? -1 : CT_RUN_GENERIC);
			ct_chunk_encode(k ? &e : &ref, &j[k]);
		}
		CHECK(j[0].out.len == j[1].out.len &&
		      memcmp(j[0].out.data, j[1].out.data, j[0].out.len) == 0);
		check_decodes_to(&j[1].out, r, n);
		kinds |= j[1].hdr.codec & CT_CODEC_AGAIN ? 1 : 2;
		ct_chunk_job_free(&j[0]);
		ct_chunk_job_free(&j[1]);
	}
	CHECK(kinds == 3); /* blocks with calls made again as bits, and without */
	ct_encode_run_vectors(-1);
	ct_encoder_free(&e);
	ct_encoder_free(&ref);
}

/*
 * The block of out with its body stored raw (codec without zstd): a
 * corruption lands in the planes (or in the Huffman-coded clock plane after
 * them, format 6).
 */
static uint8_t *raw_block(const struct ct_buf *out, uint32_t *len)
{
	struct ct_events_hdr h;
	memcpy(&h, out->data, sizeof(h));
	size_t tail = h.codec & CT_CODEC_HUFF ? h.col_len[CT_COL_CLOCK] : 0;
	size_t body = out->len - sizeof(h) - tail;
	uint8_t *b = malloc(sizeof(h) + h.raw_len + tail);
	if (h.codec & CT_CODEC_ZSTD) {
		size_t n = ZSTD_decompress(b + sizeof(h), h.raw_len, out->data + sizeof(h), body);
		CHECK(n == h.raw_len);
		h.codec &= ~CT_CODEC_ZSTD;
	} else {
		memcpy(b + sizeof(h), out->data + sizeof(h), h.raw_len);
	}
	memcpy(b + sizeof(h) + h.raw_len, out->data + sizeof(h) + body, tail);
	memcpy(b, &h, sizeof(h));
	*len = (uint32_t)(sizeof(h) + h.raw_len + tail);
	return b;
}

/*
 * Flipped bytes and truncations must give an error or garbage, never a crash:
 * in a compressed block, and in raw bodies of random records and of nested
 * calls (format 5's bits and open calls).
 */
static void test_corruption(void)
{
	enum { N = 512 };
	static struct rec r[N];
	struct ct_encoder e;
	struct ct_decoder d;
	struct ct_event ev;
	uint8_t *block[3];
	uint32_t size[3];

	ct_encoder_init(&e, N, 1);
	make_records(r, N);
	encode(&e, r, N);
	size[0] = (uint32_t)e.out.len;
	block[0] = malloc(size[0]);
	memcpy(block[0], e.out.data, size[0]);
	block[1] = raw_block(&e.out, &size[1]);
	make_nested(r, N);
	encode(&e, r, N);
	block[2] = raw_block(&e.out, &size[2]);
	ct_decoder_init(&d);
	uint8_t *copy = malloc(size[0] + size[1] + size[2]);
	for (int round = 0; round < 6000; round++) {
		uint32_t len = size[round % 3];
		memcpy(copy, block[round % 3], len);
		if (round % 7 == 0)
			len = (uint32_t)(rnd() % len);
		else
			for (int k = 0; k < 1 + round % 5; k++)
				copy[rnd() % len] ^= (uint8_t)(1 + rnd() % 255);
		if (ct_decoder_begin(&d, copy, len) == 0) {
			int n = 0;
			while (ct_decoder_next(&d, &ev) == 1 && n < 100000)
				n++;
		}
	}
	free(copy);
	for (int i = 0; i < 3; i++)
		free(block[i]);
	ct_decoder_free(&d);
	ct_encoder_free(&e);
	CHECK(1);
}

/*
 * Values past what the byte planes hold go to the ext column: clock deltas
 * of 2^16 ticks and more, stack deltas of 128 units and more, function
 * indexes past 16382; and an encoder told fewer records than it gets grows.
 */
static void test_escapes(void)
{
	enum { N = 40000 };
	static struct rec r[N];
	struct ct_encoder e;
	uint64_t clock = 1ull << 40, sp = 0x7ffd1234;

	for (size_t i = 0; i < N; i++) {
		clock += i % 7 == 0 ? 65535 + rnd() % 5000000 : rnd() % 300;
		clock -= i % 101 == 0 ? 3 : 0; /* a clock that went back a little */
		sp += i % 5 == 0 ? (rnd() % 4000) - 2000 : (rnd() % 9) - 4;
		r[i].clock = clock;
		r[i].sp = sp & 0x7fffffff;
		r[i].kind = i % 13 == 0 ? CT_EV_EXT : 1 + (unsigned)(i % 2);
		r[i].addr = 0x555555554000ull + (i % 20000) * 16; /* 20000 functions */
		r[i].type = i % 26 == 0 ? 0x3fff : CT_EXT_LOST; /* the largest code that fits */
		r[i].payload = rnd();
	}
	ct_encoder_init(&e, N, 1); /* the dictionary's size */
	ct_encoder_begin(&e, 3, 100, 101, 7, 0, 100);
	for (size_t i = 0; i < N; i++) {
		if (r[i].kind == CT_EV_EXT)
			ct_encoder_ext(&e, r[i].clock, r[i].type, &r[i].payload, 8);
		else
			ct_encoder_event(&e, r[i].clock, r[i].kind, r[i].addr, r[i].sp);
	}
	ct_encoder_finish(&e);
	CHECK(e.hdr.nfuncs == 20000);
	check_decodes_to(&e.out, r, N);
	ct_encoder_free(&e);
}

/*
 * Calls 3,000 deep, then their returns: the open-call stack grows with the
 * depth (it starts with room for 128), in the recorder's loop as in the
 * generic encoder, and the two agree byte for byte.
 */
static void test_deep_stack(void)
{
	enum { D = 3000 };
	static struct rec r[2 * D];

	for (size_t i = 0; i < 2 * D; i++) {
		size_t depth = i < D ? i : 2 * D - 1 - i;
		r[i].clock = (1ull << 40) + 7 * i;
		r[i].kind = i < D ? CT_EV_ENTER : CT_EV_EXIT;
		r[i].addr = 0x555555554000ull + (depth % 50) * 16;
		r[i].sp = 0x7ffd0000 - 4 * depth;
	}
	check_chunk_encoding(r, 2 * D, 1000);
}

/*
 * Blocks of more functions than the encoder was sized for (a dictionary of
 * 32 slots, 5,000 functions called once each): the dictionary grows. Full,
 * it used to probe for ever, and the recorder hung.
 */
static void test_dictionary_grows(void)
{
	enum { M = 5000 };
	static struct rec r[2 * M];
	struct ct_encoder e;

	ct_encoder_init(&e, 16, -1);
	for (uint32_t block = 0; block < 2; block++) {
		for (size_t i = 0; i < 2 * M; i++) {
			r[i].clock = (1ull << 40) + 10 * i;
			r[i].sp = 0x7ffd1000; /* each call returns at once */
			r[i].kind = i % 2 ? CT_EV_EXIT : CT_EV_ENTER;
			r[i].addr = 0x555555554000ull + (i / 2 + block * 777) * 16;
		}
		ct_encoder_begin(&e, 3, 100, 101, block, 0, 16);
		for (size_t i = 0; i < 2 * M; i++)
			ct_encoder_event(&e, r[i].clock, r[i].kind, r[i].addr, r[i].sp);
		ct_encoder_finish(&e);
		CHECK(e.hdr.nfuncs == M);
		check_decodes_to(&e.out, r, 2 * M);
	}
	ct_encoder_free(&e);
}

/*
 * A block as format 3 and before wrote it (varint columns, codec 0): two
 * calls of one function, a return, a lost record. Old traces must still read.
 */
static void test_varint_columns(void)
{
	static const uint8_t clock[] = { 0, 20, 0xe8, 0x07, 6 }; /* 0, +10, +500, +3 */
	static const uint8_t code[] = { 0, 0, 1, 3 << 2 | 2 };
	static const uint8_t sp[] = { 0x80, 0x20, 1, 2 }; /* 2048, -1, +1 */
	static const uint8_t ext[] = { 8, 5, 0, 0, 0, 0, 0, 0, 0 };
	struct ct_events_hdr h = { .instance = 1, .pid = 2, .tid = 2, .first_clock = 1000,
				   .last_clock = 1513, .nrecords = 4, .nfuncs = 1, .codec = 0 };
	uint64_t fn = 0x401000;
	uint8_t buf[256], *p = buf + sizeof(h);
	h.col_len[0] = sizeof(clock);
	h.col_len[1] = sizeof(code);
	h.col_len[2] = sizeof(sp);
	h.col_len[3] = sizeof(ext);
	h.raw_len = 8 + sizeof(clock) + sizeof(code) + sizeof(sp) + sizeof(ext);
	memcpy(p, &fn, 8), p += 8;
	memcpy(p, clock, sizeof(clock)), p += sizeof(clock);
	memcpy(p, code, sizeof(code)), p += sizeof(code);
	memcpy(p, sp, sizeof(sp)), p += sizeof(sp);
	memcpy(p, ext, sizeof(ext)), p += sizeof(ext);
	memcpy(buf, &h, sizeof(h));

	struct ct_decoder d;
	struct ct_event ev;
	ct_decoder_init(&d);
	CHECK(ct_decoder_begin(&d, buf, (uint32_t)(p - buf)) == 0);
	CHECK(ct_decoder_next(&d, &ev) == 1 && ev.kind == CT_EV_ENTER && ev.clock == 1000 &&
	      ev.addr == fn && ev.sp == 2048);
	CHECK(ct_decoder_next(&d, &ev) == 1 && ev.kind == CT_EV_ENTER && ev.clock == 1010 &&
	      ev.sp == 2047);
	CHECK(ct_decoder_next(&d, &ev) == 1 && ev.kind == CT_EV_EXIT && ev.clock == 1510 &&
	      ev.sp == 2048);
	CHECK(ct_decoder_next(&d, &ev) == 1 && ev.kind == CT_EV_EXT && ev.clock == 1513 &&
	      ev.ext_type == CT_EXT_LOST && ev.ext_len == 8 && ev.ext[0] == 5);
	CHECK(ct_decoder_next(&d, &ev) == 0);
	ct_decoder_free(&d);
}

static void test_varint(void)
{
	uint8_t buf[16];
	uint64_t vals[] = { 0, 1, 127, 128, 300, 1ull << 35, UINT64_MAX };
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint8_t *end = ct_put_varint(buf, vals[i]);
		uint64_t v = 0;
		CHECK(ct_get_varint(buf, end, &v) == end && v == vals[i]);
		CHECK(ct_get_varint(buf, end - 1, &v) == NULL);
	}
	int64_t z[] = { 0, -1, 1, INT64_MIN, INT64_MAX };
	for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++)
		CHECK(ct_unzigzag(ct_zigzag(z[i])) == z[i]);
}

static void test_crc(void)
{
	CHECK(ct_crc32c(0, "123456789", 9) == 0xe3069283u);
	CHECK(ct_crc32c(ct_crc32c(0, "1234", 4), "56789", 5) == 0xe3069283u);
}

/*
 * Format 6's probe: a clock column in long runs of one rhythm is left to
 * zstd (its matches beat a code of a bit a record), a noisy one is
 * Huffman-coded; both decode to what went in.
 */
static void test_clock_probe(void)
{
	enum { N = 20000 };
	static struct rec r[N];
	struct ct_encoder e;

	for (int noisy = 0; noisy < 2; noisy++) {
		uint64_t clock = 1ull << 40;
		for (size_t i = 0; i < N; i++) {
			clock += noisy ? 20 + rnd() % 40 : (i % 3 == 2 ? 52 : 26);
			r[i] = (struct rec){ .clock = clock,
					     .addr = 0x555555554000ull + (i / 2 % 7) * 64,
					     .sp = 0x7ffd1234,
					     .kind = i % 2 ? CT_EV_EXIT : CT_EV_ENTER };
		}
		ct_encoder_init(&e, N, -1);
		encode(&e, r, N);
		CHECK(!!(e.hdr.codec & CT_CODEC_HUFF) == noisy);
		check_decodes_to(&e.out, r, N);
		ct_encoder_free(&e);
	}
}

/*
 * Clock deltas mostly one value (calls and returns as fast as the hooks go):
 * the plane after the first is split on it (format 8) where the machine
 * splits fast, always when asked to, never when told not to; every block
 * decodes to its records, and the split one is no larger.
 */
static void test_split_clock_plane(void)
{
	enum { N = 20000 };
	static struct rec r[2][N];
	struct ct_encoder e;
	size_t size[3][2]; /* [mode + 1][block]: the block's bytes */

	for (int block = 0; block < 2; block++) {
		uint64_t clock = 1ull << 40;
		for (size_t i = 0; i < N; i++) {
			uint64_t roll = rnd() % 100;
			clock += roll < 60 ? 26 : roll < 90 ? 52 : rnd() % 200;
			r[block][i] = (struct rec){ .clock = clock,
						    .addr = 0x555555554000ull + rnd() % 300 * 64,
						    .sp = 0x7ffd1234 - rnd() % 4 * 16,
						    .kind = 1 + (unsigned)(rnd() % 2) };
		}
	}
	for (int mode = -1; mode <= 1; mode++) {
		ct_encoder_split(mode);
		ct_encoder_init(&e, N, -1);
		for (int block = 0; block < 2; block++) {
			encode(&e, r[block], N);
			int split = (e.hdr.codec & CT_CODEC_SPLIT) != 0;
			int want = mode == 1 || (mode < 0 && block && ct_huff_split_fast());
			CHECK((e.hdr.codec & CT_CODEC_HUFF) && split == want);
			check_decodes_to(&e.out, r[block], N);
			size[mode + 1][block] = e.out.len;
		}
		ct_encoder_free(&e);
	}
	ct_encoder_split(-1);
	/* 60 % one byte: the split plane within a few bytes of the whole one, or smaller */
	/*
	 * split on the mode of the block before (60 % one byte), the second
	 * block takes no more room than whole (the first, split on a byte with
	 * nothing to go by, can)
	 */
	CHECK(size[2][1] <= size[1][1] + 64);
}

/*
 * What writes over a chunk while the recorder encodes it: a call made a
 * return and back (kinds), or any bits of either word (anything).
 */
struct ct_flipper {
	uint64_t *w;
	size_t nrec;
	int stop, anything;
	uint64_t flips;
};

static void *flip_kinds(void *arg)
{
	struct ct_flipper *f = arg;
	uint64_t s = 0x9e3779b97f4a7c15ull;

	while (!__atomic_load_n(&f->stop, __ATOMIC_RELAXED)) {
		uint64_t x = ct_unit_xorshift(&s), m = UINT64_C(3) << 62, *at;
		size_t i = (size_t)(x >> 11) % f->nrec;
		at = &f->w[2 * i + 1];
		if (__atomic_load_n(&f->anything, __ATOMIC_RELAXED)) {
			m = ct_unit_xorshift(&s);
			at -= x & 1;
		}
		__atomic_xor_fetch(at, m, __ATOMIC_RELAXED);
		f->flips++;
	}
	return NULL;
}

/*
 * A chunk is the program's to write while the recorder encodes it (a
 * hostile program; a free stack looped so that two threads share a chunk).
 * The loop reads a record in more than one pass: whatever changes between
 * them, the block it makes must decode, its records all there. Another
 * thread flips records between call and return, then any bits of them, as
 * the same chunk is encoded again and again, with calls made again as bits
 * and as codes. (Before pass 3 took a record's kind from pass 2, the first
 * rounds made blocks whose returns closed calls the decoder never opened.)
 */
static void test_concurrent_writer(void)
{
	enum { N = 4096, ROUNDS = 1500 };
	static struct rec r[N];
	static uint64_t w[2 * N];
	struct ct_flipper f = { .w = w };
	struct ct_encoder e;
	struct ct_chunk_job j;
	struct ct_decoder d;
	struct ct_event ev;
	pthread_t t;
	int bad = 0;

	size_t n = make_nested_from(r, N, 1ull << 40, 1), nw = 0;
	for (size_t i = 0; i < n; i++) {
		if (r[i].kind == CT_EV_EXT)
			continue; /* two words a record: the flipper's stride */
		w[nw++] = ct_ev_word0(r[i].clock & CT_EV_CLOCK_MASK, r[i].sp << 4);
		w[nw++] = ct_ev_word1(r[i].kind, r[i].addr, r[i].sp << 4);
	}
	f.nrec = nw / 2;
	ct_encoder_init(&e, N, -1);
	ct_decoder_init(&d);
	CHECK(pthread_create(&t, NULL, flip_kinds, &f) == 0);
	for (int round = 0; round < 2 * ROUNDS && !bad; round++) {
		ct_encoder_again(round & 1);
		if (round == ROUNDS)
			__atomic_store_n(&f.anything, 1, __ATOMIC_RELAXED);
		memset(&j, 0, sizeof(j));
		j.d.base_clock = r[0].clock;
		j.w = w;
		j.nwords = nw;
		ct_chunk_encode(&e, &j);
		uint32_t got = 0;
		int st = 0;
		if (!j.out.len) { /* nothing readable at the chunk's start: no block */
			ct_chunk_job_free(&j);
			continue;
		}
		if (ct_decoder_begin(&d, j.out.data, (uint32_t)j.out.len) != 0)
			st = -1;
		while (st == 0 && (st = ct_decoder_next(&d, &ev)) == 1 && ++got)
			st = 0;
		bad = st != 0 || got != j.hdr.nrecords;
		if (bad)
			fprintf(stderr, "round %d: decoder %d after %u of %u records\n", round, st, got,
				j.hdr.nrecords);
		ct_chunk_job_free(&j);
	}
	__atomic_store_n(&f.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	ct_encoder_again(-1);
	CHECK(!bad);
	CHECK(f.flips > 0);
	ct_decoder_free(&d);
	ct_encoder_free(&e);
}

int main(void)
{
	int failures = 0;
	RUN(test_round_trip);
	RUN(test_nested);
	RUN(test_chunk_loop_exact);
	RUN(test_again_blocks);
	RUN(test_clock_probe);
	RUN(test_split_clock_plane);
	RUN(test_corruption);
	RUN(test_concurrent_writer);
	RUN(test_escapes);
	RUN(test_dictionary_grows);
	RUN(test_deep_stack);
	RUN(test_varint_columns);
	RUN(test_varint);
	RUN(test_crc);
	return failures != 0;
}
