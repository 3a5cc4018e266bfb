/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "huff.h"

#define CT_HUFF_TABLE_SIZE (1u << CT_HUFF_MAX_LEN)
#define CT_HUFF_PAIR_SHIFT 22 /* two codes of 11 bits at most */

struct ct_huff_leaf {
	uint64_t weight;
	uint32_t sym;
};

static int ct_huff_by_weight(const void *a, const void *b)
{
	const struct ct_huff_leaf *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight < y->weight ? -1 : 1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

/*
 * Huffman code lengths of m leaves sorted by weight (m >= 2), into len[sym]:
 * the two-queue construction (leaves in order, inner nodes made in order of
 * weight), then each node's depth from the root down. Returns the longest.
 */
static unsigned ct_huff_tree(const struct ct_huff_leaf *leaf, uint32_t m, uint8_t *len)
{
	uint64_t weight[512];
	uint16_t parent[512]; /* leaves 0 .. m-1, inner nodes m .. 2m-2 */
	uint8_t depth[512];
	uint32_t next_leaf = 0, next_inner = m, made = m;

	for (uint32_t i = 0; i < m; i++)
		weight[i] = leaf[i].weight;
	while (made < 2 * m - 1) {
		uint32_t pick[2];
		for (int k = 0; k < 2; k++) {
			int from_leaf = next_leaf < m &&
					(next_inner >= made || weight[next_leaf] <= weight[next_inner]);
			pick[k] = from_leaf ? next_leaf++ : next_inner++;
		}
		weight[made] = weight[pick[0]] + weight[pick[1]];
		parent[pick[0]] = parent[pick[1]] = (uint16_t)made;
		made++;
	}
	unsigned longest = 0;
	depth[made - 1] = 0;
	for (uint32_t i = made - 1; i-- > 0;) {
		depth[i] = (uint8_t)(depth[parent[i]] + 1);
		if (i < m) {
			len[leaf[i].sym] = depth[i];
			longest = depth[i] > longest ? depth[i] : longest;
		}
	}
	return longest;
}

/*
 * Code lengths of at most CT_HUFF_MAX_LEN bits for the counts: when the tree
 * is deeper, the counts are halved (none below 1) and the tree made again;
 * at worst all are 1 and the tree is balanced, 8 deep.
 */
static void ct_huff_lengths(const uint32_t *count, uint8_t *len)
{
	struct ct_huff_leaf leaf[256];
	uint32_t m = 0;

	memset(len, 0, 256);
	for (uint32_t s = 0; s < 256; s++)
		if (count[s])
			leaf[m++] = (struct ct_huff_leaf){ count[s], s };
	if (m == 1) {
		len[leaf[0].sym] = 1;
		return;
	}
	for (;;) {
		qsort(leaf, m, sizeof(leaf[0]), ct_huff_by_weight);
		if (ct_huff_tree(leaf, m, len) <= CT_HUFF_MAX_LEN)
			return;
		for (uint32_t i = 0; i < m; i++)
			leaf[i].weight = (leaf[i].weight + 1) / 2;
	}
}

static uint32_t ct_huff_reverse(uint32_t code, unsigned bits)
{
	uint32_t r = 0;
	for (unsigned i = 0; i < bits; i++)
		r |= (code >> i & 1) << (bits - 1 - i);
	return r;
}

/*
 * The canonical codes of the lengths, bit-reversed (streams are read least
 * significant bit first), into code[sym]. -1 if the lengths are not a prefix
 * code (more codes of a length than the shorter ones leave room for).
 */
static int ct_huff_codes(const uint8_t *len, uint32_t *code)
{
	uint32_t per_len[CT_HUFF_MAX_LEN + 1] = { 0 }, next[CT_HUFF_MAX_LEN + 1];
	uint32_t c = 0;

	for (int s = 0; s < 256; s++)
		per_len[len[s]]++;
	per_len[0] = 0;
	for (int l = 1; l <= CT_HUFF_MAX_LEN; l++) {
		c = (c + per_len[l - 1]) << 1;
		next[l] = c;
		if (c + per_len[l] > (1u << l))
			return -1;
	}
	for (int s = 0; s < 256; s++)
		code[s] = len[s] ? ct_huff_reverse(next[len[s]]++, len[s]) : 0;
	return 0;
}

/* One code (or two: a pair's) into the bit buffer; entries hold code | length << shift. */
#define CT_HUFF_PUT(entry, shift)                                         \
	do {                                                              \
		uint32_t e_ = (entry);                                    \
		buf |= (uint64_t)(e_ & ((1u << (shift)) - 1)) << nb;      \
		nb += e_ >> (shift);                                      \
	} while (0)

/* The buffer's whole bytes to o (8 stored: o has room), the rest kept. */
#define CT_HUFF_FLUSH()                     \
	do {                                \
		memcpy(o, &buf, 8);         \
		o += nb >> 3;               \
		buf >>= nb & ~7u;           \
		nb &= 7;                    \
	} while (0)

/*
 * Symbols in[0 .. n) as one stream at o: returns its end. Four codes (44
 * bits at most) between stores keep nb under 52; with pairs, two lookups
 * give them.
 */
static uint8_t *ct_huff_stream(const uint8_t *in, uint32_t n, const uint32_t *enc,
			       const uint32_t *pairs, uint8_t *o)
{
	uint64_t buf = 0;
	unsigned nb = 0;
	uint32_t i = 0;

	for (; pairs && i + 4 <= n; i += 4) {
		uint32_t v;
		memcpy(&v, in + i, 4);
		CT_HUFF_PUT(pairs[v & 0xffff], CT_HUFF_PAIR_SHIFT);
		CT_HUFF_PUT(pairs[v >> 16], CT_HUFF_PAIR_SHIFT);
		CT_HUFF_FLUSH();
	}
	for (; i + 4 <= n; i += 4) {
		uint32_t v;
		memcpy(&v, in + i, 4);
		CT_HUFF_PUT(enc[v & 0xff], 16);
		CT_HUFF_PUT(enc[v >> 8 & 0xff], 16);
		CT_HUFF_PUT(enc[v >> 16 & 0xff], 16);
		CT_HUFF_PUT(enc[v >> 24], 16);
		CT_HUFF_FLUSH();
	}
	for (; i < n; i++)
		CT_HUFF_PUT(enc[in[i]], 16);
	memcpy(o, &buf, 8);
	return o + (nb + 7) / 8;
}

/*
 * The codes of the byte pairs the plane can hold (both bytes occur in it):
 * the first's code then the second's. Worth it when there are a quarter as
 * many such pairs as symbols to code (else NULL: a code at a time): making
 * an entry costs about four times what it saves a symbol.
 */
static const uint32_t *ct_huff_pairs(const uint32_t *enc, const uint8_t *len, uint32_t n,
				     uint32_t *pairs)
{
	uint8_t present[256];
	uint32_t m = 0;

	for (int s = 0; s < 256; s++)
		if (len[s])
			present[m++] = (uint8_t)s;
	if (!pairs || (uint64_t)m * m * 4 > n)
		return NULL;
	for (uint32_t a = 0; a < m; a++)
		for (uint32_t b = 0; b < m; b++) {
			uint32_t x = present[a], y = present[b];
			uint32_t code = (enc[x] & 0xffff) | (enc[y] & 0xffff) << len[x];
			pairs[x | y << 8] = code | (uint32_t)(len[x] + len[y]) << CT_HUFF_PAIR_SHIFT;
		}
	return pairs;
}

/* How often each byte occurs, in four tables: a byte repeated does not wait on its own count. */
static void ct_huff_count(const uint8_t *in, uint32_t n, uint32_t *total)
{
	uint32_t count[4][256] = { { 0 } }, i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v;
		memcpy(&v, in + i, 8);
		count[0][v & 0xff]++;
		count[1][v >> 8 & 0xff]++;
		count[2][v >> 16 & 0xff]++;
		count[3][v >> 24 & 0xff]++;
		count[0][v >> 32 & 0xff]++;
		count[1][v >> 40 & 0xff]++;
		count[2][v >> 48 & 0xff]++;
		count[3][v >> 56]++;
	}
	for (; i < n; i++)
		count[0][in[i]]++;
	for (int s = 0; s < 256; s++)
		total[s] = count[0][s] + count[1][s] + count[2][s] + count[3][s];
}

size_t ct_huff_encode(const uint8_t *in, uint32_t n, uint8_t *out, uint32_t *pairs,
		      uint32_t *count)
{
	uint32_t own[256], code[256], enc[256], *total = count ? count : own;
	uint8_t len[256];
	uint32_t q = (n + 3) / 4;

	ct_huff_count(in, n, total);
	ct_huff_lengths(total, len);
	ct_huff_codes(len, code); /* lengths made here are a prefix code */
	for (int s = 0; s < 256; s++) {
		enc[s] = code[s] | (uint32_t)len[s] << 16;
		if (!(s & 1))
			out[s / 2] = (uint8_t)(len[s] | len[s + 1] << 4);
	}

	const uint32_t *pair_codes = ct_huff_pairs(enc, len, n, pairs);
	uint8_t *o = out + CT_HUFF_HEAD;
	for (int k = 0; k < CT_HUFF_STREAMS; k++) {
		uint32_t from = k * q < n ? k * q : n, to = (k + 1) * q < n ? (k + 1) * q : n;
		uint8_t *start = o;
		o = ct_huff_stream(in + from, to - from, enc, pair_codes, o);
		if (k < CT_HUFF_STREAMS - 1) {
			uint32_t bytes = (uint32_t)(o - start);
			memcpy(out + 128 + 4 * k, &bytes, 4);
		}
	}
	return (size_t)(o - out);
}

/* The decoding table: the next 11 bits of a stream to symbol | length << 8 (0: no code). */
static int ct_huff_table(const uint8_t *head, uint16_t *table)
{
	uint8_t len[256];
	uint32_t code[256];

	for (int s = 0; s < 256; s++)
		len[s] = s & 1 ? head[s / 2] >> 4 : head[s / 2] & 15;
	for (int s = 0; s < 256; s++)
		if (len[s] > CT_HUFF_MAX_LEN)
			return -1;
	if (ct_huff_codes(len, code) < 0)
		return -1;
	memset(table, 0, CT_HUFF_TABLE_SIZE * sizeof(*table));
	for (int s = 0; s < 256; s++)
		for (uint32_t i = code[s]; len[s] && i < CT_HUFF_TABLE_SIZE; i += 1u << len[s])
			table[i] = (uint16_t)(s | len[s] << 8);
	return 0;
}

struct ct_huff_reader {
	const uint8_t *p; /* the stream, padded with CT_HUFF_PAD zero bytes */
	uint64_t pos, bits; /* read so far; the stream's length */
	uint8_t *out;
};

/*
 * Zero bytes after each stream: a code is read 8 bytes at a time, and a
 * stream is checked for running past its end every 8 codes (88 bits).
 */
#define CT_HUFF_PAD 24

/* The code at bit pos of p: symbol | length << 8 (length 0: not a code); pos moves past it. */
static inline uint32_t ct_huff_at(const uint8_t *p, uint64_t *pos, const uint16_t *table)
{
	uint64_t w;
	memcpy(&w, p + (*pos >> 3), 8);
	uint32_t e = table[(w >> (*pos & 7)) & (CT_HUFF_TABLE_SIZE - 1)];
	*pos += e >> 8;
	return e;
}

/* A stream's codes from i to count alone; bit 31 of the result: a code it has not. */
static uint32_t ct_huff_rest(struct ct_huff_reader *r, uint32_t i, uint32_t count,
			     const uint16_t *table)
{
	uint32_t bad = 0;
	for (; i < count && r->pos <= r->bits; i++) {
		uint32_t e = ct_huff_at(r->p, &r->pos, table);
		r->out[i] = (uint8_t)e;
		bad |= e - 0x100;
	}
	return bad | (uint32_t)(r->pos > r->bits) << 31;
}

/*
 * Four streams at once, then what is left of the longer ones. A code the
 * table does not have reads as length 0 (caught at the end); a stream that
 * runs past its end stops the loop before its reads leave the padding.
 */
static int ct_huff_run(struct ct_huff_reader *r, const uint32_t *count, const uint16_t *table)
{
	uint32_t both = count[CT_HUFF_STREAMS - 1], bad = 0; /* bit 31: a code it has not */
	const uint8_t *p0 = r[0].p, *p1 = r[1].p, *p2 = r[2].p, *p3 = r[3].p;
	uint8_t *o0 = r[0].out, *o1 = r[1].out, *o2 = r[2].out, *o3 = r[3].out;
	uint64_t q0 = 0, q1 = 0, q2 = 0, q3 = 0;

	for (uint32_t i = 0; i < both; i++) {
		uint32_t e0 = ct_huff_at(p0, &q0, table), e1 = ct_huff_at(p1, &q1, table);
		uint32_t e2 = ct_huff_at(p2, &q2, table), e3 = ct_huff_at(p3, &q3, table);
		o0[i] = (uint8_t)e0;
		o1[i] = (uint8_t)e1;
		o2[i] = (uint8_t)e2;
		o3[i] = (uint8_t)e3;
		bad |= (e0 - 0x100) | (e1 - 0x100) | (e2 - 0x100) | (e3 - 0x100);
		if ((i & 7) == 7 && ((q0 > r[0].bits) | (q1 > r[1].bits) | (q2 > r[2].bits) |
				     (q3 > r[3].bits)))
			return -1;
	}
	r[0].pos = q0, r[1].pos = q1, r[2].pos = q2, r[3].pos = q3;
	for (int k = 0; k < CT_HUFF_STREAMS; k++)
		bad |= ct_huff_rest(&r[k], both, count[k], table);
	if (bad >> 31)
		return -1;
	for (int k = 0; k < CT_HUFF_STREAMS; k++) /* each stream ends in its last byte */
		if ((r[k].pos + 7) / 8 != r[k].bits / 8)
			return -1;
	return 0;
}

int ct_huff_decode(const uint8_t *in, size_t len, uint8_t *out, uint32_t n,
		   struct ct_buf *scratch)
{
	uint16_t table[CT_HUFF_TABLE_SIZE];
	uint64_t stream_len[CT_HUFF_STREAMS], from[CT_HUFF_STREAMS], rest;
	uint32_t count[CT_HUFF_STREAMS], q = (uint32_t)(((uint64_t)n + 3) / 4);
	struct ct_huff_reader r[CT_HUFF_STREAMS];

	if (!n || len < CT_HUFF_HEAD || ct_huff_table(in, table) < 0)
		return -1;
	rest = len - CT_HUFF_HEAD;
	for (int k = 0; k < CT_HUFF_STREAMS; k++) {
		uint32_t l32;
		memcpy(&l32, in + 128 + 4 * k, 4);
		stream_len[k] = k < CT_HUFF_STREAMS - 1 ? l32 : rest;
		if (stream_len[k] > rest)
			return -1;
		rest -= stream_len[k];
		uint64_t to = (uint64_t)(k + 1) * q < n ? (uint64_t)(k + 1) * q : n;
		from[k] = (uint64_t)k * q < n ? (uint64_t)k * q : n;
		count[k] = (uint32_t)(to - from[k]);
	}
	/* each stream padded (CT_HUFF_PAD) */
	scratch->len = 0;
	ct_buf_reserve(scratch, len - CT_HUFF_HEAD + CT_HUFF_PAD * CT_HUFF_STREAMS);
	const uint8_t *src = in + CT_HUFF_HEAD;
	for (int k = 0; k < CT_HUFF_STREAMS; k++) {
		uint8_t *dst = scratch->data + scratch->len;
		memcpy(dst, src, stream_len[k]);
		memset(dst + stream_len[k], 0, CT_HUFF_PAD);
		r[k] = (struct ct_huff_reader){ dst, 0, stream_len[k] * 8, out + from[k] };
		src += stream_len[k];
		scratch->len += stream_len[k] + CT_HUFF_PAD;
	}
	return ct_huff_run(r, count, table);
}
