/* SPDX-License-Identifier: MIT */
/*
 * The Huffman coder of format 6's clock plane, and format 8's split of it on
 * its most frequent bytes: what goes in comes out, whatever the distribution
 * and the length; codes stay within 11 bits; every vector form splits as
 * the bytes say; bad input is refused or decodes to garbage, never read past.
 */
#include <stdlib.h>

#include "unit.h"
#include "../../src/format/huff.h"

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	return ct_unit_xorshift(&rnd_state);
}

/* n symbols: 0 one symbol, 1 uniform bytes, 2 a clock's deltas (a few values), 3 geometric */
static void make_plane(uint8_t *p, uint32_t n, int shape)
{
	for (uint32_t i = 0; i < n; i++) {
		uint64_t r = rnd();
		switch (shape) {
		case 0:
			p[i] = 26;
			break;
		case 1:
			p[i] = (uint8_t)r;
			break;
		case 2:
			p[i] = r % 100 < 70 ? 26 : r % 100 < 98 ? 52 : (uint8_t)(r >> 8);
			break;
		default: /* symbol k with probability 2^-(k+1): a tree 30 deep unless limited */
			p[i] = (uint8_t)(r ? __builtin_ctzll(r) : 63);
		}
	}
}

/* Encode, decode, compare; the coded length, or 0 if the round trip failed. */
static size_t round_trip(const uint8_t *in, uint32_t n)
{
	uint8_t *coded = malloc(ct_huff_bound(n)), *back = malloc(n + 1);
	struct ct_buf scratch = { 0 };
	static uint32_t pairs[CT_HUFF_PAIRS];
	size_t len = ct_huff_encode(in, n, coded, n % 2 ? pairs : NULL, NULL);
	int ok = len <= ct_huff_bound(n) && ct_huff_decode(coded, len, back, n, &scratch) == 0 &&
		 !memcmp(in, back, n);
	free(coded);
	free(back);
	ct_buf_free(&scratch);
	return ok ? len : 0;
}

static void test_round_trips(void)
{
	static const uint32_t sizes[] = { 1, 2, 3, 4, 5, 7, 8, 9, 255, 256, 4097, 100003 };
	uint8_t *p = malloc(100003);

	for (int shape = 0; shape < 4; shape++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			make_plane(p, sizes[s], shape);
			CHECK(round_trip(p, sizes[s]) != 0);
		}
	/* a clock's deltas: about the bits their frequencies say (1.3 a byte here) */
	make_plane(p, 100000, 2);
	size_t len = round_trip(p, 100000);
	CHECK(len > 0 && len < 100000 / 8 * 1.5);
	/* one symbol: a bit each */
	make_plane(p, 100000, 0);
	len = round_trip(p, 100000);
	CHECK(len > 0 && len <= CT_HUFF_HEAD + 100000 / 8 + 4);
	free(p);
}

/* Two bytes at a time (a plane of few distinct bytes) or one: the same stream. */
static void test_pairs_same(void)
{
	static uint32_t pairs[CT_HUFF_PAIRS];
	enum { N = 100003 };
	uint8_t *p = malloc(N), *a = malloc(ct_huff_bound(N)), *b = malloc(ct_huff_bound(N));

	for (int shape = 0; shape < 4; shape++) {
		make_plane(p, N, shape);
		size_t la = ct_huff_encode(p, N, a, pairs, NULL),
		       lb = ct_huff_encode(p, N, b, NULL, NULL);
		CHECK(la == lb && !memcmp(a, b, la));
	}
	free(p);
	free(a);
	free(b);
}

/* Lengths past 11 bits are limited: every code length in the table is 1 to 11. */
static void test_length_limit(void)
{
	uint8_t *p = malloc(200000), *coded = malloc(ct_huff_bound(200000));

	make_plane(p, 200000, 3);
	ct_huff_encode(p, 200000, coded, NULL, NULL);
	int longest = 0;
	for (int k = 0; k < 128; k++) {
		int a = coded[k] & 15, b = coded[k] >> 4;
		longest = a > longest ? a : longest;
		longest = b > longest ? b : longest;
	}
	CHECK(longest == CT_HUFF_MAX_LEN);
	CHECK(round_trip(p, 200000) != 0);
	free(p);
	free(coded);
}

/* 20,000 damaged copies of a coded plane through decode: cut short, or a few bytes flipped. */
static void damage_rounds(const uint8_t *coded, size_t len, uint8_t *copy, uint8_t *back,
			  uint32_t n, struct ct_buf *scratch,
			  int (*decode)(const uint8_t *, size_t, uint8_t *, uint32_t,
					struct ct_buf *))
{
	for (int round = 0; round < 20000; round++) {
		size_t l = len;
		memcpy(copy, coded, len);
		if (round % 5 == 0)
			l = rnd() % len;
		else
			for (int k = 0; k < 1 + round % 4; k++)
				copy[rnd() % len] ^= (uint8_t)(1 + rnd() % 255);
		decode(copy, l, back, n, scratch);
	}
	CHECK(1); /* no crash, nothing read past: ASan says so */
}

/* Malformed: lengths that are no prefix code, short streams, flipped bytes, truncations. */
static void test_bad_input(void)
{
	enum { N = 5000 };
	uint8_t *p = malloc(N), *coded = malloc(ct_huff_bound(N)), *copy = malloc(ct_huff_bound(N));
	uint8_t *back = malloc(N + 1000);
	struct ct_buf scratch = { 0 };

	make_plane(p, N, 2);
	size_t len = ct_huff_encode(p, N, coded, NULL, NULL);
	memcpy(copy, coded, len);
	memset(copy, 0x11, 128); /* 256 codes of 1 bit */
	CHECK(ct_huff_decode(copy, len, back, N, &scratch) < 0);
	memcpy(copy, coded, len);
	memset(copy, 0xcc, 128); /* 12-bit codes */
	CHECK(ct_huff_decode(copy, len, back, N, &scratch) < 0);
	CHECK(ct_huff_decode(coded, CT_HUFF_HEAD - 1, back, N, &scratch) < 0);
	CHECK(ct_huff_decode(coded, len - 1, back, N, &scratch) < 0);
	CHECK(ct_huff_decode(coded, len, back, N + 1000, &scratch) < 0); /* more than it holds */
	damage_rounds(coded, len, copy, back, N, &scratch, ct_huff_decode);
	ct_buf_free(&scratch);
	free(p);
	free(coded);
	free(copy);
	free(back);
}

/* The split as the bytes say, one at a time: what every vector form must give. */
static uint32_t split_reference(const uint8_t *in, uint32_t n, uint8_t mode, uint8_t *bits,
				uint8_t *rest)
{
	uint32_t r = 0;
	memset(bits, 0, ((size_t)n + 63) / 64 * 8);
	for (uint32_t i = 0; i < n; i++) {
		if (in[i] == mode)
			bits[i / 8] |= (uint8_t)(1u << (i % 8));
		else
			rest[r++] = in[i];
	}
	return r;
}

/* Every vector form (as far as the machine has them) splits as the reference, at any length. */
static void test_split_vectors(void)
{
	enum { N = 5000 };
	uint8_t *p = malloc(N), *bits = malloc(N / 8 + 16), *rest = malloc(N + 64);
	uint8_t *want_bits = malloc(N / 8 + 16), *want_rest = malloc(N + 64);

	for (int level = 0; level <= 2; level++) {
		ct_huff_split_vectors(level);
		for (uint32_t n = 1; n < N; n += n < 200 ? 1 : 997) {
			make_plane(p, n, (int)(n % 4));
			uint8_t mode = n % 5 ? 26 : 7; /* 7: a byte no plane has, or few */
			uint32_t want = split_reference(p, n, mode, want_bits, want_rest);
			uint32_t got = ct_split_plane(p, n, mode, bits, rest);
			CHECK(got == want && !memcmp(bits, want_bits, (n + 63) / 64 * 8) &&
			      !memcmp(rest, want_rest, want));
		}
	}
	ct_huff_split_vectors(-1);
	free(p);
	free(bits);
	free(rest);
	free(want_bits);
	free(want_rest);
}

/*
 * Split on one to four modes: the plane's own, a byte it lacks, its first
 * byte, one mode twice (the second takes nothing): what goes in comes out.
 */
static void test_split_round_trips(void)
{
	static const uint32_t sizes[] = { 1, 2, 63, 64, 65, 128, 255, 4097, 100003 };
	static const uint8_t sets[][CT_HUFF_MODES] = {
		{ 26 }, { 200 }, { 0 }, { 26, 52 }, { 52, 26, 200, 3 }, { 26, 26 }, { 1, 2, 3 },
	};
	static const uint32_t nsets[] = { 1, 1, 1, 2, 4, 2, 3 };
	static uint32_t pairs[CT_HUFF_PAIRS];
	uint32_t count[256];
	struct ct_buf scratch = { 0 };
	uint8_t *p = malloc(100003), *coded = malloc(ct_huff_split_bound(100003));
	uint8_t *rest = malloc(2 * (100003 + 64)), *back = malloc(100003);

	for (int shape = 0; shape < 4; shape++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			uint32_t n = sizes[s];
			make_plane(p, n, shape);
			for (size_t m = 0; m < sizeof(nsets) / sizeof(nsets[0]); m++) {
				uint8_t modes[CT_HUFF_MODES];
				memcpy(modes, sets[m], sizeof(modes));
				if (m == 2)
					modes[0] = p[0];
				size_t len =
					ct_huff_encode_split(p, n, modes, nsets[m], coded, rest,
							     n % 2 ? pairs : NULL, count);
				uint64_t total = 0;
				for (int k = 0; k < 256; k++)
					total += count[k];
				CHECK(len <= ct_huff_split_bound(n) && total == n);
				CHECK(ct_huff_decode_split(coded, len, back, n, &scratch) == 0 &&
				      !memcmp(p, back, n));
			}
		}
	/*
	 * a clock's deltas (70 % one, 28 % another): split on the first, on
	 * both, no larger than the plain code
	 */
	make_plane(p, 100000, 2);
	size_t whole = ct_huff_encode(p, 100000, coded, NULL, NULL);
	size_t one = ct_huff_encode_split(p, 100000, (const uint8_t[]){ 26 }, 1, coded, rest, NULL,
					  NULL);
	size_t two = ct_huff_encode_split(p, 100000, (const uint8_t[]){ 26, 52 }, 2, coded, rest,
					  NULL, NULL);
	CHECK(one <= whole + 16 && two <= whole + 32);
	ct_buf_free(&scratch);
	free(p);
	free(coded);
	free(rest);
	free(back);
}

/*
 * A split plane malformed: no modes or too many, a bit past the end at
 * either level, the others missing or left over, flipped bytes.
 */
static void test_split_bad_input(void)
{
	enum { N = 5000 };
	const uint8_t modes[] = { 26, 52 };
	uint8_t *p = malloc(N), *coded = malloc(ct_huff_split_bound(N));
	uint8_t *copy = malloc(ct_huff_split_bound(N)), *rest = malloc(2 * (N + 64)),
		*back = malloc(N);
	struct ct_buf scratch = { 0 };
	size_t nbits = (N + 63) / 64 * 8;

	make_plane(p, N, 2);
	size_t len = ct_huff_encode_split(p, N, modes, 1, coded, rest, NULL, NULL);
	CHECK(ct_huff_decode_split(coded, len, back, N, &scratch) == 0);
	CHECK(ct_huff_decode_split(coded, len, back, N - 1, &scratch) < 0); /* a bit past the end */
	CHECK(ct_huff_decode_split(coded, 2 + nbits, back, N, &scratch) < 0); /* others missing */
	CHECK(ct_huff_decode_split(coded, len, back, 0, &scratch) < 0);
	memcpy(copy, coded, len);
	copy[0] = 0;
	CHECK(ct_huff_decode_split(copy, len, back, N, &scratch) < 0); /* no mode */
	copy[0] = CT_HUFF_MODES + 1;
	CHECK(ct_huff_decode_split(copy, len, back, N, &scratch) < 0);
	/* two levels: the second's bits say more than the first left */
	len = ct_huff_encode_split(p, N, modes, 2, coded, rest, NULL, NULL);
	CHECK(ct_huff_decode_split(coded, len, back, N, &scratch) == 0 && !memcmp(p, back, N));
	memcpy(copy, coded, len);
	memset(copy + 3 + nbits, 0xff, 8 * ((N - 2800) / 64 + 1));
	CHECK(ct_huff_decode_split(copy, len, back, N, &scratch) < 0);
	memset(p, 26, N); /* all the first mode: the second has nothing, and nothing follows */
	len = ct_huff_encode_split(p, N, modes, 2, coded, rest, NULL, NULL);
	CHECK(len == 3 + nbits && ct_huff_decode_split(coded, len, back, N, &scratch) == 0);
	coded[len] = 0;
	CHECK(ct_huff_decode_split(coded, len + 1, back, N, &scratch) < 0);
	make_plane(p, N, 3);
	len = ct_huff_encode_split(p, N, (const uint8_t[]){ 0, 1, 2 }, 3, coded, rest, NULL, NULL);
	damage_rounds(coded, len, copy, back, N, &scratch, ct_huff_decode_split);
	ct_buf_free(&scratch);
	free(p);
	free(coded);
	free(copy);
	free(rest);
	free(back);
}

int main(void)
{
	int failures = 0;
	RUN(test_round_trips);
	RUN(test_pairs_same);
	RUN(test_length_limit);
	RUN(test_bad_input);
	RUN(test_split_vectors);
	RUN(test_split_round_trips);
	RUN(test_split_bad_input);
	return failures != 0;
}
