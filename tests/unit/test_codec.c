/* SPDX-License-Identifier: MIT */
/* The EVENTS codec: what goes in comes out, and bad input never crashes it. */
#include <stdlib.h>

#include "unit.h"
#include "../../src/format/events.h"

struct rec {
	uint64_t clock, addr, sp;
	unsigned kind;
	uint32_t type;
	uint64_t payload;
};

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
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

/* Flipped bytes and truncations must give an error or garbage, never a crash. */
static void test_corruption(void)
{
	enum { N = 512 };
	static struct rec r[N];
	struct ct_encoder e;
	struct ct_decoder d;
	struct ct_event ev;

	make_records(r, N);
	ct_encoder_init(&e, N, 1);
	encode(&e, r, N);
	ct_decoder_init(&d);
	uint8_t *copy = malloc(e.out.len);
	for (int round = 0; round < 2000; round++) {
		memcpy(copy, e.out.data, e.out.len);
		uint32_t len = (uint32_t)e.out.len;
		if (round % 3 == 0)
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
	struct ct_decoder d;
	struct ct_event ev;
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
	ct_decoder_init(&d);
	CHECK(ct_decoder_begin(&d, e.out.data, (uint32_t)e.out.len) == 0);
	CHECK(d.hdr.nrecords == N && d.hdr.nfuncs == 20000);
	for (size_t i = 0; i < N && !ct_unit_failed; i++) {
		CHECK(ct_decoder_next(&d, &ev) == 1);
		CHECK(ev.clock == r[i].clock && ev.kind == r[i].kind);
		if (r[i].kind == CT_EV_EXT)
			CHECK(ev.ext_type == r[i].type && ev.ext_len == 8);
		else
			CHECK(ev.addr == r[i].addr && ev.sp == r[i].sp);
	}
	CHECK(ct_decoder_next(&d, &ev) == 0);
	ct_decoder_free(&d);
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

int main(void)
{
	int failures = 0;
	RUN(test_round_trip);
	RUN(test_corruption);
	RUN(test_escapes);
	RUN(test_varint_columns);
	RUN(test_varint);
	RUN(test_crc);
	return failures != 0;
}
