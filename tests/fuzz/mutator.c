/* SPDX-License-Identifier: MIT */
/*
 * The structure-aware mutator of fuzz_reader (LLVMFuzzerCustomMutator and
 * LLVMFuzzerCustomCrossOver). A byte-level mutation of a trace almost always
 * breaks a block's CRC-32C or its zstd frame, and the reader stops there; so
 * this one parses the trace into its blocks (docs/FORMAT.md,
 * src/format/format.h), picks one, decompresses it, changes what it holds (a
 * header field, a varint of an EVENTS column, an entry of the function table,
 * an extended record, a count, a length, a string's NUL, the codec), encodes
 * it again (zstd or stored raw) and recomputes every CRC, so that the change
 * reaches the code behind the checksums. Whole blocks are also duplicated
 * (a thread's second block), dropped, swapped and taken from another trace.
 * Now and then it leaves a length stale or a CRC wrong on purpose, and one
 * mutation in eight is libFuzzer's own (LLVMFuzzerMutate) on the raw bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "../../src/format/format.h"
#include "../../src/util/util.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
				 size_t size2, uint8_t *out, size_t max_out, unsigned int seed);

#define MAX_BLOCKS 1024
#define MAX_RAW	   (1u << 20) /* blocks decompressed to more than this are mutated as bytes */
#define FILE_HDR   sizeof(struct ct_file_header)
#define BLOCK_HDR  sizeof(struct ct_block_header)

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? (uint32_t)(rng_state % n) : 0;
}

/* A block of the input: its header and a copy of its payload, as stored. */
struct mblock {
	struct ct_block_header h;
	struct ct_buf payload;
	int keep_crc; /* leave the CRC as it was (wrong, if the payload changed) */
};

struct mtrace {
	uint8_t fh[FILE_HDR];
	struct mblock b[MAX_BLOCKS];
	size_t n;
	struct ct_buf tail; /* bytes after the last whole block (a torn trace) */
};

static void mtrace_free(struct mtrace *t)
{
	for (size_t i = 0; i < t->n; i++)
		ct_buf_free(&t->b[i].payload);
	ct_buf_free(&t->tail);
	t->n = 0;
}

static int mtrace_parse(struct mtrace *t, const uint8_t *data, size_t size)
{
	memset(t, 0, sizeof(*t));
	if (size < FILE_HDR || memcmp(data, CT_FILE_MAGIC, 8))
		return -1;
	memcpy(t->fh, data, FILE_HDR);
	size_t off = FILE_HDR;
	while (t->n < MAX_BLOCKS && size - off >= BLOCK_HDR) {
		struct mblock *b = &t->b[t->n];
		memcpy(&b->h, data + off, BLOCK_HDR);
		if (b->h.length > size - off - BLOCK_HDR)
			break;
		memset(&b->payload, 0, sizeof(b->payload));
		ct_buf_append(&b->payload, data + off + BLOCK_HDR, b->h.length);
		b->keep_crc = 0;
		t->n++;
		off += BLOCK_HDR + b->h.length;
	}
	ct_buf_append(&t->tail, data + off, size - off);
	return t->n ? 0 : -1;
}

/* The trace again, CRCs recomputed; 0 if it does not fit in max. */
static size_t mtrace_write(struct mtrace *t, uint8_t *out, size_t max)
{
	size_t len = FILE_HDR;
	if (max < FILE_HDR)
		return 0;
	memcpy(out, t->fh, FILE_HDR);
	for (size_t i = 0; i < t->n; i++) {
		struct mblock *b = &t->b[i];
		if (!b->keep_crc) {
			b->h.length = (uint32_t)b->payload.len;
			b->h.crc = ct_crc32c(ct_crc32c(0, &b->h, 12), b->payload.data, b->payload.len);
		}
		if (max - len < BLOCK_HDR + b->payload.len)
			return 0;
		memcpy(out + len, &b->h, BLOCK_HDR);
		if (b->payload.len)
			memcpy(out + len + BLOCK_HDR, b->payload.data, b->payload.len);
		len += BLOCK_HDR + b->payload.len;
	}
	if (t->tail.len && max - len >= t->tail.len) {
		memcpy(out + len, t->tail.data, t->tail.len);
		len += t->tail.len;
	}
	return len;
}

static uint32_t interesting32(uint32_t old, uint32_t hint)
{
	static const uint32_t values[] = { 0,	   1,	       2,	   7,	       8,
					   16,	   0x7f,       0x80,	   0xff,       0x100,
					   0xffff, 0x10000,    0x7fffffff, 0x80000000, 0xfffffff0,
					   0xfffffff8, 0xfffffffe, 0xffffffff };
	switch (rnd(8)) {
	case 0:
		return old + 1;
	case 1:
		return old - 1;
	case 2:
		return old * 2 + rnd(2);
	case 3:
		return hint + rnd(17) - 8;
	case 4:
		return (uint32_t)rng_state;
	default:
		return values[rnd(sizeof(values) / sizeof(values[0]))];
	}
}

static uint64_t interesting64(uint64_t old)
{
	switch (rnd(6)) {
	case 0:
		return old + 1 + rnd(16);
	case 1:
		return old - 1 - rnd(16);
	case 2:
		return ~UINT64_C(0) - rnd(16);
	case 3:
		return UINT64_C(1) << rnd(64);
	case 4:
		return rng_state;
	default:
		return interesting32((uint32_t)old, 0);
	}
}

/* A field of n bytes (4 or 8) at off in p (of len bytes). */
static void mutate_field(uint8_t *p, size_t len, size_t off, unsigned n, uint32_t hint)
{
	if (off + n > len)
		return;
	if (n == 8) {
		uint64_t v;
		memcpy(&v, p + off, 8);
		v = interesting64(v);
		memcpy(p + off, &v, 8);
	} else {
		uint32_t v;
		memcpy(&v, p + off, 4);
		v = interesting32(v, hint);
		memcpy(p + off, &v, 4);
	}
}

/* libFuzzer's byte mutation of b, with room to grow by a quarter. */
static void mutate_bytes(struct ct_buf *b)
{
	size_t max = b->len + b->len / 4 + 16;
	ct_buf_reserve(b, max - b->len);
	b->len = LLVMFuzzerMutate(b->data, b->len, max);
}

/* Strings end at a NUL: take one away (an unterminated string), or add one. */
static void mutate_nul(struct ct_buf *b)
{
	if (!b->len)
		return;
	size_t start = rnd((uint32_t)b->len);
	for (size_t i = 0; i < b->len; i++) {
		size_t at = (start + i) % b->len;
		if (!b->data[at]) {
			b->data[at] = rnd(2) ? 'A' : 0xff;
			return;
		}
	}
	b->data[start] = 0;
}

/*
 * ---- EVENTS: header, function table, four columns (varints, byte planes, or
 * format 5's compact planes with, in format 6, the clock column coded after
 * the compressed body) ----
 */

struct mevents {
	struct ct_events_hdr h;
	struct ct_buf funcs;
	struct ct_buf col[4];
};

static void mevents_free(struct mevents *e)
{
	ct_buf_free(&e->funcs);
	for (int i = 0; i < 4; i++)
		ct_buf_free(&e->col[i]);
}

/* The function table's bytes: nfuncs u64, or (compact) a varint each in funcs_len bytes. */
static uint64_t mevents_table_len(const struct ct_events_hdr *h)
{
	return h->codec & CT_CODEC_COMPACT ? h->funcs_len : (uint64_t)h->nfuncs * 8;
}

/*
 * Split the body (and a Huffman-coded clock column, already in e->col[0]);
 * -1 if its lengths do not add up (then it is mutated as bytes).
 */
static int mevents_split(struct mevents *e, const uint8_t *body, size_t len)
{
	int from = e->h.codec & CT_CODEC_HUFF ? CT_COL_CODE : CT_COL_CLOCK;
	uint64_t want = mevents_table_len(&e->h);
	for (int i = from; i < 4; i++)
		want += e->h.col_len[i];
	if (want != len)
		return -1;
	ct_buf_append(&e->funcs, body, (size_t)mevents_table_len(&e->h));
	body += mevents_table_len(&e->h);
	for (int i = from; i < 4; i++) {
		ct_buf_append(&e->col[i], body, e->h.col_len[i]);
		body += e->h.col_len[i];
	}
	return 0;
}

/* Offsets of the varints of a column (at most max of them); how many. */
static size_t varint_offsets(const struct ct_buf *c, size_t *offs, size_t max)
{
	size_t n = 0, off = 0;
	while (off < c->len && n < max) {
		offs[n++] = off;
		while (off < c->len && (c->data[off] & 0x80))
			off++;
		off++;
	}
	return n;
}

/* Replace bytes [off, off + old) of b with the varint v (old 0: insert). */
static void splice_varint(struct ct_buf *b, size_t off, size_t old, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = (size_t)(ct_put_varint(tmp, v) - tmp);
	if (off + old > b->len)
		old = b->len - off;
	ct_buf_reserve(b, n + 1);
	memmove(b->data + off + n, b->data + off + old, b->len - off - old);
	memcpy(b->data + off, tmp, n);
	b->len = b->len - old + n;
}

static uint64_t varint_value(void)
{
	switch (rnd(5)) {
	case 0:
		return rnd(64);
	case 1: /* a code: func index << 2 | op */
		return (uint64_t)rnd(40) << 2 | rnd(4);
	case 2:
		return ct_zigzag(-(int64_t)rnd(1000));
	case 3:
		return UINT64_C(1) << rnd(64);
	default:
		return interesting64(0);
	}
}

/* Change one varint of a column: replace, insert or delete. */
static void mutate_column(struct ct_buf *c)
{
	size_t offs[4096];
	size_t n = varint_offsets(c, offs, 4096);
	if (!n) {
		splice_varint(c, 0, 0, varint_value());
		return;
	}
	size_t i = rnd((uint32_t)n);
	size_t end = i + 1 < n ? offs[i + 1] : c->len;
	switch (rnd(4)) {
	case 0: /* insert */
		splice_varint(c, offs[i], 0, varint_value());
		break;
	case 1: /* delete */
		memmove(c->data + offs[i], c->data + end, c->len - end);
		c->len -= end - offs[i];
		break;
	case 2: /* an unterminated varint at the end, or an overlong one */
		splice_varint(c, offs[i], end - offs[i], ~UINT64_C(0));
		if (rnd(2))
			c->data[c->len - 1] |= 0x80;
		break;
	default:
		splice_varint(c, offs[i], end - offs[i], varint_value());
	}
}

/* The extended records' column: a varint length, then the payload. Mutate a payload. */
static void mutate_ext_payload(struct ct_buf *c)
{
	size_t off = 0, starts[256], lens[256], n = 0;
	while (off < c->len && n < 256) {
		uint64_t v;
		const uint8_t *p = ct_get_varint(c->data + off, c->data + c->len, &v);
		if (!p || v > (uint64_t)(c->data + c->len - p))
			break;
		starts[n] = (size_t)(p - c->data);
		lens[n++] = (size_t)v;
		off = starts[n - 1] + (size_t)v;
	}
	if (!n) {
		mutate_column(c);
		return;
	}
	size_t i = rnd((uint32_t)n);
	struct ct_buf one = { 0 };
	ct_buf_append(&one, c->data + starts[i], lens[i]);
	if (rnd(2) && one.len >= 8)
		mutate_field(one.data, one.len, rnd((uint32_t)one.len / 8) * 8, rnd(2) ? 8 : 4, 0);
	else
		mutate_bytes(&one);
	/* the length varint first: rebuild that record in place */
	size_t lstart = i ? starts[i - 1] + lens[i - 1] : 0;
	struct ct_buf rest = { 0 };
	ct_buf_append(&rest, c->data, lstart);
	uint8_t tmp[10];
	ct_buf_append(&rest, tmp, (size_t)(ct_put_varint(tmp, one.len) - tmp));
	ct_buf_append(&rest, one.data, one.len);
	ct_buf_append(&rest, c->data + starts[i] + lens[i], c->len - starts[i] - lens[i]);
	ct_buf_free(&one);
	ct_buf_free(c);
	*c = rest;
}

static const struct {
	size_t off;
	unsigned size;
} events_fields[] = {
	{ offsetof(struct ct_events_hdr, instance), 4 },
	{ offsetof(struct ct_events_hdr, tid), 4 },
	{ offsetof(struct ct_events_hdr, flags), 4 },
	{ offsetof(struct ct_events_hdr, thread_seq), 8 },
	{ offsetof(struct ct_events_hdr, first_clock), 8 },
	{ offsetof(struct ct_events_hdr, last_clock), 8 },
	{ offsetof(struct ct_events_hdr, nrecords), 4 },
	{ offsetof(struct ct_events_hdr, nfuncs), 4 },
	{ offsetof(struct ct_events_hdr, codec), 4 },
	{ offsetof(struct ct_events_hdr, raw_len), 4 },
	{ offsetof(struct ct_events_hdr, col_len[0]), 4 },
	{ offsetof(struct ct_events_hdr, col_len[1]), 4 },
	{ offsetof(struct ct_events_hdr, col_len[2]), 4 },
	{ offsetof(struct ct_events_hdr, col_len[3]), 4 },
	{ offsetof(struct ct_events_hdr, lost), 8 },
	{ offsetof(struct ct_events_hdr, snapshot), 4 },
	{ offsetof(struct ct_events_hdr, funcs_len), 4 },
};

/* Mutate an EVENTS payload p (len bytes) into out. */
static void mutate_events(const uint8_t *p, size_t len, struct ct_buf *out)
{
	static ZSTD_CCtx *cctx;
	struct mevents e = { 0 };
	struct ct_buf body = { 0 };
	int stale = 0; /* a length field was the mutation: do not recompute it */

	if (len < sizeof(e.h))
		goto bytes;
	memcpy(&e.h, p, sizeof(e.h));
	size_t body_len = len - sizeof(e.h);
	if (e.h.codec & CT_CODEC_HUFF) { /* the coded clock column ends the payload */
		if (e.h.col_len[CT_COL_CLOCK] > body_len)
			goto bytes;
		body_len -= e.h.col_len[CT_COL_CLOCK];
		ct_buf_append(&e.col[CT_COL_CLOCK], p + sizeof(e.h) + body_len,
			      e.h.col_len[CT_COL_CLOCK]);
	}
	if (e.h.codec & CT_CODEC_ZSTD) {
		if (e.h.raw_len > MAX_RAW)
			goto bytes;
		ct_buf_reserve(&body, e.h.raw_len + 1);
		size_t n = ZSTD_decompress(body.data, e.h.raw_len, p + sizeof(e.h), body_len);
		if (ZSTD_isError(n) || n != e.h.raw_len)
			goto bytes;
		body.len = n;
	} else {
		ct_buf_append(&body, p + sizeof(e.h), body_len);
	}
	if (mevents_split(&e, body.data, body.len) < 0)
		goto bytes;

	switch (rnd(10)) {
	case 0:
	case 1: {
		size_t f = rnd(sizeof(events_fields) / sizeof(events_fields[0]));
		mutate_field((uint8_t *)&e.h, sizeof(e.h), events_fields[f].off,
			     events_fields[f].size, (uint32_t)body.len);
		stale = (events_fields[f].off >= offsetof(struct ct_events_hdr, nfuncs) &&
			 events_fields[f].off < offsetof(struct ct_events_hdr, lost)) ||
			events_fields[f].off == offsetof(struct ct_events_hdr, funcs_len);
		break;
	}
	case 2:
	case 3:
	case 4:
		mutate_column(&e.col[rnd(3)]);
		break;
	case 5:
		if (e.funcs.len >= 8)
			mutate_field(e.funcs.data, e.funcs.len, rnd((uint32_t)e.funcs.len / 8) * 8, 8,
				     0);
		else
			mutate_column(&e.col[CT_COL_CODE]);
		break;
	case 6:
	case 7:
		mutate_ext_payload(&e.col[CT_COL_EXT]);
		break;
	case 8: /* one more record than the columns hold, or one less */
		e.h.nrecords += rnd(2) ? 1 : -1;
		break;
	default:
		mutate_bytes(&e.col[rnd(4)]);
	}

	int huff = e.h.codec & CT_CODEC_HUFF, from = huff ? CT_COL_CODE : CT_COL_CLOCK;
	if (!stale) {
		if (e.h.codec & CT_CODEC_COMPACT)
			e.h.funcs_len = (uint32_t)e.funcs.len; /* nfuncs: the varints, as they were */
		else
			e.h.nfuncs = (uint32_t)(e.funcs.len / 8);
		e.h.raw_len = (uint32_t)e.funcs.len;
		for (int i = 0; i < 4; i++) {
			e.h.col_len[i] = (uint32_t)e.col[i].len;
			if (i >= from)
				e.h.raw_len += (uint32_t)e.col[i].len;
		}
		/*
		 * the layout kept (varints, byte planes, compact, coded clocks, split
		 * or not, calls made again), compressed or not
		 */
		e.h.codec = (e.h.codec & (CT_CODEC_PLANES | CT_CODEC_COMPACT | CT_CODEC_HUFF |
					  CT_CODEC_SPLIT | CT_CODEC_AGAIN)) |
			    (rnd(3) ? CT_CODEC_ZSTD : 0);
	}
	body.len = 0;
	ct_buf_append(&body, e.funcs.data, e.funcs.len);
	for (int i = from; i < 4; i++)
		ct_buf_append(&body, e.col[i].data, e.col[i].len);

	out->len = 0;
	ct_buf_append(out, &e.h, sizeof(e.h));
	if (e.h.codec & CT_CODEC_ZSTD) {
		if (!cctx)
			cctx = ZSTD_createCCtx();
		size_t bound = ZSTD_compressBound(body.len);
		ct_buf_reserve(out, bound);
		size_t n = ZSTD_compressCCtx(cctx, out->data + out->len, bound, body.data, body.len,
					     1);
		if (!ZSTD_isError(n))
			out->len += n;
	} else {
		ct_buf_append(out, body.data, body.len);
	}
	if (huff)
		ct_buf_append(out, e.col[CT_COL_CLOCK].data, e.col[CT_COL_CLOCK].len);
	mevents_free(&e);
	ct_buf_free(&body);
	return;
bytes:
	mevents_free(&e);
	ct_buf_free(&body);
	out->len = 0;
	ct_buf_append(out, p, len);
	if (len >= sizeof(e.h) && rnd(2))
		mutate_field(out->data, out->len,
			     events_fields[rnd(sizeof(events_fields) / sizeof(events_fields[0]))].off,
			     4, (uint32_t)len);
	else
		mutate_bytes(out);
}

/* ---- the other blocks: records, counts, lengths, strings ---- */

static void mutate_record(struct ct_buf *raw, uint16_t type)
{
	switch (rnd(6)) {
	case 0:
	case 1: /* a u32 of the fixed part: counts and lengths are there */
		mutate_field(raw->data, raw->len, rnd(16) * 4, 4, (uint32_t)raw->len);
		break;
	case 2:
		mutate_field(raw->data, raw->len, rnd(8) * 8, 8, 0);
		break;
	case 3:
		mutate_nul(raw);
		break;
	case 4: /* cut short, or longer */
		if (raw->len && rnd(2))
			raw->len = rnd((uint32_t)raw->len);
		else
			ct_buf_append(raw, "\0\0\0\0\xff\xff\xff\xff", 8);
		break;
	default:
		mutate_bytes(raw);
	}
	(void)type;
}

/* A block's payload: decompressed (zstd blocks), mutated, encoded again. */
static void mutate_payload(struct mblock *b)
{
	struct ct_buf out = { 0 }, raw = { 0 };

	if (b->h.type == CT_BLOCK_EVENTS && rnd(8)) {
		mutate_events(b->payload.data, b->payload.len, &out);
		goto done;
	}
	if (!(b->h.flags & CT_BLOCK_ZSTD) || b->payload.len < 4) {
		ct_buf_append(&out, b->payload.data, b->payload.len);
		mutate_record(&out, b->h.type);
		goto done;
	}
	uint32_t raw_len;
	memcpy(&raw_len, b->payload.data, 4);
	if (raw_len <= MAX_RAW) {
		ct_buf_reserve(&raw, raw_len + 1);
		size_t n = ZSTD_decompress(raw.data, raw_len, b->payload.data + 4,
					   b->payload.len - 4);
		if (!ZSTD_isError(n) && n == raw_len) {
			raw.len = n;
			mutate_record(&raw, b->h.type);
			uint32_t claim = (uint32_t)raw.len;
			if (!rnd(8))
				claim = interesting32(claim, claim);
			size_t bound = ZSTD_compressBound(raw.len);
			ct_buf_append(&out, &claim, 4);
			ct_buf_reserve(&out, bound);
			n = ZSTD_compress(out.data + 4, bound, raw.data, raw.len, 1);
			if (!ZSTD_isError(n)) {
				out.len += n;
				goto done;
			}
			out.len = 0;
		}
	}
	ct_buf_append(&out, b->payload.data, b->payload.len);
	mutate_record(&out, b->h.type);
done:
	ct_buf_free(&raw);
	ct_buf_free(&b->payload);
	b->payload = out;
	b->keep_crc = !rnd(32);
}

static void mutate_trace(struct mtrace *t)
{
	size_t i = rnd((uint32_t)t->n), j = rnd((uint32_t)t->n);
	struct mblock tmp;

	switch (rnd(16)) {
	case 0: /* duplicate a block: a thread's second block, a second END ... */
		if (t->n < MAX_BLOCKS) {
			memmove(&t->b[j + 1], &t->b[j], (t->n - j) * sizeof(t->b[0]));
			t->n++;
			if (i > j)
				i++;
			t->b[j] = t->b[i];
			memset(&t->b[j].payload, 0, sizeof(t->b[j].payload));
			ct_buf_append(&t->b[j].payload, t->b[i].payload.data, t->b[i].payload.len);
			if (rnd(2))
				mutate_payload(&t->b[j]);
		}
		break;
	case 1: /* drop one */
		if (t->n > 1) {
			ct_buf_free(&t->b[i].payload);
			memmove(&t->b[i], &t->b[i + 1], (t->n - i - 1) * sizeof(t->b[0]));
			t->n--;
		}
		break;
	case 2:
		tmp = t->b[i];
		t->b[i] = t->b[j];
		t->b[j] = tmp;
		break;
	case 3: /* another type or flags for the same payload */
		if (rnd(2))
			t->b[i].h.type = (uint16_t)(rnd(3) ? 1 + rnd(11) : rnd(65536));
		else
			t->b[i].h.flags ^= (uint16_t)(1u << rnd(3));
		break;
	case 4: /* a torn end */
		if (t->tail.len)
			t->tail.len = rnd((uint32_t)t->tail.len);
		else
			ct_buf_append(&t->tail, "CTBK\5\0\0\0\xff\xff", 10);
		break;
	case 5:
		if (!rnd(4)) /* the file's version */
			t->fh[8] = (uint8_t)rnd(4);
		else
			mutate_payload(&t->b[i]);
		break;
	default:
		mutate_payload(&t->b[i]);
	}
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	static struct mtrace t;

	rng_state = (uint64_t)seed * 0x9e3779b97f4a7c15u | 1;
	if (!rnd(8) || mtrace_parse(&t, data, size) < 0) {
		mtrace_free(&t);
		return LLVMFuzzerMutate(data, size, max_size);
	}
	unsigned rounds = 1 + (rnd(4) ? 0 : rnd(3));
	for (unsigned r = 0; r < rounds; r++)
		mutate_trace(&t);
	uint8_t *out = malloc(max_size ? max_size : 1);
	size_t n = mtrace_write(&t, out, max_size);
	mtrace_free(&t);
	if (!n) {
		free(out);
		return LLVMFuzzerMutate(data, size, max_size);
	}
	memcpy(data, out, n);
	free(out);
	return n;
}

/* The blocks of the first trace with a run of blocks of the second put in among them. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
				 size_t size2, uint8_t *out, size_t max_out, unsigned int seed)
{
	static struct mtrace a, b;
	size_t n = 0;

	rng_state = (uint64_t)seed * 0x9e3779b97f4a7c15u | 1;
	if (mtrace_parse(&a, data1, size1) == 0 && mtrace_parse(&b, data2, size2) == 0) {
		size_t at = rnd((uint32_t)a.n + 1), from = rnd((uint32_t)b.n);
		size_t count = 1 + rnd(4);
		if (count > b.n - from)
			count = b.n - from;
		if (count > MAX_BLOCKS - a.n)
			count = MAX_BLOCKS - a.n;
		memmove(&a.b[at + count], &a.b[at], (a.n - at) * sizeof(a.b[0]));
		for (size_t k = 0; k < count; k++) {
			a.b[at + k] = b.b[from + k];
			memset(&b.b[from + k].payload, 0, sizeof(b.b[0].payload));
		}
		a.n += count;
		n = mtrace_write(&a, out, max_out);
	}
	mtrace_free(&a);
	mtrace_free(&b);
	if (!n) {
		n = size1 < max_out ? size1 : max_out;
		memcpy(out, data1, n);
		n = LLVMFuzzerMutate(out, n, max_out);
	}
	return n;
}
