/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <sys/mman.h>
#include <zstd.h>

#include "events.h"
#include "huff.h"
#include "inflate.h"

/*
 * Every CT_CLOCK_PROBE_EVERY-th block of an encoder, zstd tries the first
 * CT_CLOCK_SAMPLE bytes of its clock plane (ct_clock_plane_repeats): the
 * answer holds for the blocks until the next probe, which leave the plane to
 * zstd if it did much better, else Huffman-code it.
 */
#ifndef CT_CLOCK_SAMPLE
#define CT_CLOCK_SAMPLE 2048
#endif
#define CT_CLOCK_PROBE_EVERY 8

/* Blocks that name calls made again, when few are (struct ct_encoder's again_on). */
#define CT_AGAIN_PROBE_EVERY 8
static int ct_again_mode = -1; /* -1: as the blocks before say; 0, 1: never, always */

void ct_encoder_again(int mode)
{
	ct_again_mode = mode;
}

static int ct_split_mode = -1; /* ct_encoder_split */

void ct_encoder_split(int mode)
{
	ct_split_mode = mode;
}

void ct_encoder_init(struct ct_encoder *e, uint32_t max_records, int level)
{
	memset(e, 0, sizeof(*e));
	e->nfilled = CT_ENC_FILLED_MAX + 1; /* the first block empties every slot */
	uint32_t cap = 64;
	while (cap < max_records * 2)
		cap *= 2;
	e->dict_mask = cap - 1;
	e->dict = ct_calloc(cap, sizeof(*e->dict));
	e->cctx = ZSTD_createCCtx();
	e->level = level;
	ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_compressionLevel, level);
	/*
	 * At the fast levels, matches of 7 bytes at least: in the byte planes a
	 * short match is mostly a coincidence in the clock's low bytes, costing a
	 * sequence where literals would do. On fib's blocks, 12 % fewer
	 * instructions and 20 % fewer bytes; on yaml-cpp's, 3 % fewer, 5 % more.
	 */
	if (level < 1)
		ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_minMatch, 7);
}

void ct_encoder_free(struct ct_encoder *e)
{
	for (int i = 0; i < 4; i++)
		ct_buf_free(&e->col[i]);
	ct_buf_free(&e->funcs);
	ct_buf_free(&e->body);
	ct_buf_free(&e->huff);
	ct_buf_free(&e->huff_rest);
	ct_buf_free(&e->out);
	free(e->dict);
	free(e->huff_pairs);
	if (e->open)
		munmap(e->open - 1, ((size_t)e->open_alloc + 1) * sizeof(*e->open));
	free(e->bits);
	free(e->again);
	ZSTD_freeCCtx(e->cctx);
	memset(e, 0, sizeof(*e));
}

void ct_encoder_begin(struct ct_encoder *e, uint32_t instance, int32_t pid, int32_t tid,
		      uint64_t thread_seq, uint32_t flags, uint32_t max_records)
{
	memset(&e->hdr, 0, sizeof(e->hdr));
	e->hdr.instance = instance;
	e->hdr.pid = pid;
	e->hdr.tid = tid;
	e->hdr.thread_seq = thread_seq;
	e->hdr.flags = flags;
	e->gen++;
	if (!e->gen) { /* wrapped: forget every generation */
		memset(e->dict, 0, (e->dict_mask + 1) * sizeof(*e->dict));
		e->gen = 1;
	}
	e->funcs.len = 0;
	for (int i = 0; i < 4; i++)
		e->col[i].len = 0;
	e->nexplicit = 0;
	e->depth = 0;
	ct_encoder_grow(e, max_records ? max_records : 1); /* nrecords is 0 */
	memset(e->bits, 0, ((size_t)e->plane_cap + 63) / 64 * 8);
	memset(e->again, 0, ((size_t)e->plane_cap + 63) / 64 * 8);
	e->again_on = ct_again_mode < 0 ? e->again_blocks++ % CT_AGAIN_PROBE_EVERY == 0 || e->again_rich
				       : ct_again_mode;
	if (e->again_on) { /* the floor, and no call made at any depth yet: sp_lo is no record's */
		memset(e->open, 0xff, ((size_t)e->open_hw + 1) * sizeof(*e->open));
		e->open_hw = 0;
	}
	ct_buf_reserve(&e->col[CT_COL_EXT], 64);
	e->last_clock = 0;
	e->last_sp = 0;
	if (e->nfilled > CT_ENC_FILLED_MAX) {
		memset(e->cache, 0xff, sizeof(e->cache));
	} else {
		for (uint32_t i = 0; i < e->nfilled; i++)
			e->cache[e->filled[i]].addr = UINT64_MAX;
	}
	e->nfilled = 0;
}

/*
 * Room for more records than the planes have: the clock plane (a byte a
 * record), the code planes (low bytes at 0, high bytes at plane_cap, an entry
 * a record at most), the stack column, the open calls and the bits.
 */
void ct_encoder_grow(struct ct_encoder *e, uint32_t records)
{
	uint32_t cap = e->plane_cap ? e->plane_cap : 64, n = e->hdr.nrecords;
	if (e->plane_cap && n + records <= cap)
		return;
	while (cap < n + records)
		cap *= 2;
	struct ct_buf *code = &e->col[CT_COL_CODE];
	ct_buf_reserve(code, (size_t)cap * 2 - code->len);
	if (e->plane_cap)
		memmove(code->data + cap, code->data + e->plane_cap, e->nexplicit);
	ct_buf_reserve(&e->col[CT_COL_CLOCK], cap);
	ct_buf_reserve(&e->col[CT_COL_SP], cap - e->col[CT_COL_SP].len);
	size_t old_words = ((size_t)e->plane_cap + 63) / 64, words = ((size_t)cap + 63) / 64;
	e->bits = ct_realloc(e->bits, words * 8);
	memset(e->bits + old_words, 0, (words - old_words) * 8);
	e->again = ct_realloc(e->again, words * 8);
	memset(e->again + old_words, 0, (words - old_words) * 8);
	ct_encoder_open_room(e, 64);
	/*
	 * The block's body at its largest (the planes one after the other, and
	 * room for the function table and escapes): grown by doubling as the
	 * first blocks got larger, it was copied each time.
	 */
	size_t body = 2 * (words * 8) + 3 * (size_t)cap + (64u << 10);
	if (body > e->body.cap)
		ct_buf_reserve(&e->body, body - e->body.len);
	e->plane_cap = cap;
}

/*
 * The open calls' memory, n entries and the one below the floor: mapped, and
 * moved by the kernel as it grows (mremap), never copied. Pages come as the
 * depth reaches them: a call whose return matches nothing stays open until
 * the block ends (a runtime older than the tail-called exit hooks' fix left
 * yaml-cpp's blocks 44,000 deep), which a realloc copied at every doubling
 * and a fill of each new half touched twice over.
 */
static struct ct_enc_open *ct_open_map(struct ct_enc_open *open, size_t old_n, size_t n)
{
	void *p = open ? mremap(open - 1, (old_n + 1) * sizeof(*open), (n + 1) * sizeof(*open),
				MREMAP_MAYMOVE)
		       : mmap(NULL, (n + 1) * sizeof(*open), PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		ct_die(1, "out of memory");
	return (struct ct_enc_open *)p + 1;
}

/* Entries filled past the depth asked for, so that the loop asks seldom: as many, 64 KiB at most. */
#define CT_OPEN_FILL_AHEAD 4096

void ct_encoder_open_grow(struct ct_encoder *e, uint32_t depth)
{
	uint64_t need = (uint64_t)depth + 2, alloc = e->open_alloc ? e->open_alloc : 4096;
	if (need > e->open_alloc) {
		while (alloc < need)
			alloc *= 2;
		e->open = ct_open_map(e->open, e->open_alloc, alloc);
		e->open_alloc = (uint32_t)alloc;
	}
	/*
	 * An entry below the floor: the recorder's loop may point there before
	 * it looks. The new entries hold no call (ct_encoder_begin empties the
	 * others, up to open_hw).
	 */
	uint64_t ahead = need < CT_OPEN_FILL_AHEAD ? need : CT_OPEN_FILL_AHEAD;
	uint64_t cap = need + ahead < alloc ? need + ahead : alloc;
	ptrdiff_t old = e->open_cap ? (ptrdiff_t)e->open_cap : -1;
	memset(e->open + old, 0xff, (size_t)((ptrdiff_t)cap - old) * sizeof(*e->open));
	e->open_cap = (uint32_t)cap;
}

uint64_t ct_encoder_escape(struct ct_encoder *e, uint64_t v, uint64_t max)
{
	if (v < max)
		return v;
	struct ct_buf *x = &e->col[CT_COL_EXT];
	ct_buf_reserve(x, 10);
	x->len = (size_t)(ct_put_varint(x->data + x->len, v) - x->data);
	return max;
}

/*
 * The dictionary grown to twice its slots, the block's entries moved: it
 * is kept at most half full, so that a probe always ends at an empty slot
 * (a block may name more functions than its first records said: one of
 * 262,144 records, a program's start calling 10,000 functions once each).
 */
static void ct_encoder_dict_grow(struct ct_encoder *e)
{
	uint32_t old = e->dict_mask + 1, mask = old * 2 - 1;
	struct ct_enc_entry *dict = ct_calloc((size_t)mask + 1, sizeof(*dict)); /* gen 0: empty */

	for (uint32_t k = 0; k < old; k++) {
		if (e->dict[k].gen != e->gen)
			continue;
		uint32_t i = (uint32_t)(ct_hash64(e->dict[k].addr) & mask);
		while (dict[i].gen)
			i = (i + 1) & mask;
		dict[i] = e->dict[k];
	}
	free(e->dict);
	e->dict = dict;
	e->dict_mask = mask;
}

uint32_t ct_encoder_func_slow(struct ct_encoder *e, uint64_t addr)
{
	if (__builtin_expect((uint64_t)e->hdr.nfuncs * 2 >= (uint64_t)e->dict_mask + 1, 0))
		ct_encoder_dict_grow(e);
	uint32_t i = (uint32_t)(ct_hash64(addr) & e->dict_mask);
	while (e->dict[i].gen == e->gen) {
		if (e->dict[i].addr == addr)
			return e->dict[i].idx;
		i = (i + 1) & e->dict_mask;
	}
	uint32_t idx = e->hdr.nfuncs++;
	e->dict[i] = (struct ct_enc_entry){ addr, e->gen, idx };
	/* a store, not a call: a block of yaml-cpp adds some 340 functions */
	if (__builtin_expect(e->funcs.len + sizeof(addr) > e->funcs.cap, 0))
		ct_buf_reserve(&e->funcs, sizeof(addr));
	memcpy(e->funcs.data + e->funcs.len, &addr, sizeof(addr));
	e->funcs.len += sizeof(addr);
	return idx;
}

void ct_encoder_ext(struct ct_encoder *e, uint64_t clock, uint32_t type, const void *p,
		    uint32_t len)
{
	uint8_t tmp[10];

	ct_encoder_grow(e, 1);
	if (!e->hdr.nrecords)
		e->hdr.first_clock = e->last_clock = clock;
	uint64_t zc = ct_enc_clock_byte(e, clock - e->last_clock);
	uint64_t code = ct_encoder_escape(e, (uint64_t)type << 2 | CT_CODE_EXT, 0xffff);
	ct_enc_put(e, zc, code, 0);
	ct_buf_append(&e->col[CT_COL_EXT], tmp, (size_t)(ct_put_varint(tmp, len) - tmp));
	ct_buf_append(&e->col[CT_COL_EXT], p, len);
	e->last_clock = clock;
	if (type == CT_EXT_LOST && len >= 8) {
		uint64_t n;
		memcpy(&n, p, 8);
		e->hdr.lost += n;
	}
}

/* A compact block's bits: a bit a record, in bytes (64-bit: nrecords comes from the file). */
static uint64_t ct_bits_len(uint32_t nrecords)
{
	return ((uint64_t)nrecords + 7) / 8;
}

/* The function table as zigzag varints, each the difference from the one before. */
static void ct_put_func_table(struct ct_buf *out, const struct ct_buf *funcs)
{
	uint64_t prev = 0, a;
	size_t n = funcs->len / 8;

	if (!n)
		return; /* out may have no memory yet */
	ct_buf_reserve(out, n * 10);
	uint8_t *p = out->data + out->len;
	for (size_t i = 0; i < n; i++) {
		memcpy(&a, funcs->data + i * 8, 8);
		p = ct_put_varint(p, ct_zigzag((int64_t)(a - prev)));
		prev = a;
	}
	out->len = (size_t)(p - out->data);
}

/*
 * Does zstd take this clock plane far below its Huffman code? When calls
 * come in the same rhythm (a quiet machine, a regular program), the clock
 * bytes repeat in runs that zstd's matches store at a fraction of a bit a
 * record, which a code of a bit a record at least cannot. zstd on the first
 * CT_CLOCK_SAMPLE bytes tells, at a few percent of its cost on the whole.
 */
static int ct_clock_plane_repeats(struct ct_encoder *e, uint32_t nrec, size_t coded)
{
	uint32_t n = nrec < CT_CLOCK_SAMPLE ? nrec : CT_CLOCK_SAMPLE;
	size_t bound = ZSTD_compressBound(n);

	e->out.len = 0; /* scratch until the block is made */
	ct_buf_reserve(&e->out, bound);
	size_t z = ZSTD_compress2(e->cctx, e->out.data, bound, e->col[CT_COL_CLOCK].data, n);
	/* zstd's bytes a record on the sample against 3/4 of the code's on the whole */
	return !ZSTD_isError(z) && (uint64_t)z * nrec * 4 < (uint64_t)coded * n * 3;
}

/*
 * Split the next plane on the modes of this one? Its most frequent byte if
 * that was 40 % of it or more, then the most frequent of what is left if
 * that was 40 % of that, and so on (CT_HUFF_MODES at most): below a half a
 * split takes a little more room than the plain code, which gives such a
 * byte a bit too, but it still saves most of the time. How many: 0 for none.
 */
static uint32_t ct_split_next(struct ct_encoder *e, const uint32_t *count, uint32_t nrec)
{
	uint32_t left = nrec, k = 0, c[256];

	memcpy(c, count, sizeof(c)); /* a byte made a mode counts 0 from then on */
	for (; k < CT_HUFF_MODES; k++) {
		uint32_t best = 0;
		for (uint32_t s = 1; s < 256; s++)
			best = c[s] > c[best] ? s : best;
		e->clock_modes[k] = (uint8_t)best; /* the first at least: the tests split on it */
		if (!left || (uint64_t)c[best] * 5 < (uint64_t)left * 2)
			break;
		left -= c[best];
		c[best] = 0;
	}
	if (ct_split_mode >= 0)
		return ct_split_mode ? (k ? k : 1) : 0;
	return ct_huff_split_fast() ? k : 0;
}

/*
 * The clock plane Huffman-coded into e->huff (format 6), split on the mode
 * where the plane before says so (format 8): the codec bits that say how.
 * 0: it stays raw, the coded plane being no smaller, or zstd doing better;
 * blocks of a few records keep it raw too (the code's table would outweigh
 * it).
 */
static uint32_t ct_encode_clock_plane(struct ct_encoder *e)
{
	uint32_t nrec = e->hdr.nrecords, count[256];
	int probe = e->clock_blocks++ % CT_CLOCK_PROBE_EVERY == 0;
	uint32_t split = e->clock_split;
	const uint8_t *plane = e->col[CT_COL_CLOCK].data;

	if (nrec < CT_HUFF_MIN_RECORDS || (!probe && e->clock_zstd))
		return 0;
	e->huff.len = 0;
	ct_buf_reserve(&e->huff, ct_huff_split_bound(nrec));
	if (!e->huff_pairs)
		e->huff_pairs = ct_calloc(CT_HUFF_PAIRS, sizeof(*e->huff_pairs));
	if (ct_split_mode > 0) { /* the tests': on this plane's modes, whatever came before */
		memset(count, 0, sizeof(count));
		for (uint32_t i = 0; i < nrec; i++)
			count[plane[i]]++;
		split = ct_split_next(e, count, nrec);
	}
	if (split) {
		e->huff_rest.len = 0;
		ct_buf_reserve(&e->huff_rest, 2 * ((size_t)nrec + 64));
		e->huff.len = ct_huff_encode_split(plane, nrec, e->clock_modes, split, e->huff.data,
						   e->huff_rest.data, e->huff_pairs, count);
	} else {
		e->huff.len = ct_huff_encode(plane, nrec, e->huff.data, e->huff_pairs, count);
	}
	e->clock_split = ct_split_next(e, count, nrec);
	if (probe)
		e->clock_zstd = ct_clock_plane_repeats(e, nrec, e->huff.len);
	if (e->huff.len >= nrec || e->clock_zstd)
		return 0;
	return CT_CODEC_HUFF | (split ? CT_CODEC_SPLIT : 0);
}

void ct_encoder_finish(struct ct_encoder *e)
{
	struct ct_events_hdr *h = &e->hdr;
	struct ct_buf *code = &e->col[CT_COL_CODE];
	uint32_t nrec = h->nrecords, nbits = (uint32_t)ct_bits_len(nrec);
	uint32_t clocks = ct_encode_clock_plane(e);
	int huff = clocks != 0;
	uint64_t again = 0;

	for (uint32_t i = 0; e->again_on && i < (nrec + 63) / 64; i++)
		again += ct_popcount64(e->again[i]);
	if (e->again_on)
		e->again_rich = again * 8 >= nrec;
	h->last_clock = e->last_clock;
	h->codec = CT_CODEC_PLANES | CT_CODEC_COMPACT | clocks |
		   (again ? CT_CODEC_AGAIN : 0);
	e->body.len = 0;
	ct_put_func_table(&e->body, &e->funcs);
	h->funcs_len = (uint32_t)e->body.len;
	/* Huffman-coded, the clock plane follows the (compressed) body */
	h->col_len[CT_COL_CLOCK] = huff ? (uint32_t)e->huff.len : nrec;
	if (!huff)
		ct_buf_append(&e->body, e->col[CT_COL_CLOCK].data, nrec);
	/* the bits, little-endian, which of them are calls made again, the low and the high plane */
	h->col_len[CT_COL_CODE] = (again ? 2 : 1) * nbits + 2 * e->nexplicit;
	ct_buf_append(&e->body, e->bits, nbits);
	if (again)
		ct_buf_append(&e->body, e->again, nbits);
	ct_buf_append(&e->body, code->data, e->nexplicit);
	ct_buf_append(&e->body, code->data + e->plane_cap, e->nexplicit);
	for (int i = CT_COL_SP; i <= CT_COL_EXT; i++) {
		h->col_len[i] = (uint32_t)e->col[i].len;
		ct_buf_append(&e->body, e->col[i].data, e->col[i].len);
	}
	h->raw_len = (uint32_t)e->body.len;

	size_t bound = ZSTD_compressBound(e->body.len), tail = huff ? e->huff.len : 0;
	e->out.len = 0;
	ct_buf_reserve(&e->out, sizeof(*h) + bound + tail);
	size_t n =
		ZSTD_compress2(e->cctx, e->out.data + sizeof(*h), bound, e->body.data, e->body.len);
	if (ZSTD_isError(n) || n >= e->body.len) {
		memcpy(e->out.data + sizeof(*h), e->body.data, e->body.len);
		n = e->body.len;
	} else {
		h->codec |= CT_CODEC_ZSTD;
	}
	if (tail)
		memcpy(e->out.data + sizeof(*h) + n, e->huff.data, tail);
	memcpy(e->out.data, h, sizeof(*h));
	e->out.len = sizeof(*h) + n + tail;
}

void ct_decoder_init(struct ct_decoder *d)
{
	memset(d, 0, sizeof(*d));
	d->dctx = ZSTD_createDCtx();
}

void ct_decoder_free(struct ct_decoder *d)
{
	ct_buf_free(&d->raw);
	ct_buf_free(&d->clocks);
	ct_buf_free(&d->huff);
	ct_buf_free(&d->table);
	ct_buf_free(&d->open);
	ZSTD_freeDCtx(d->dctx);
	memset(d, 0, sizeof(*d));
}

/* The column lengths a block's codec allows; 0 if they are. */
static int ct_check_columns(const struct ct_events_hdr *h)
{
	uint64_t want = h->codec & CT_CODEC_COMPACT ? h->funcs_len : (uint64_t)h->nfuncs * 8;
	int huff = h->codec & CT_CODEC_HUFF;
	for (int i = huff ? CT_COL_CODE : CT_COL_CLOCK; i < 4; i++)
		want += h->col_len[i];
	if (want != h->raw_len)
		return -1;
	if (h->codec & CT_CODEC_COMPACT) {
		/*
		 * a byte a record (Huffman-coded: a bit a record at least, and
		 * only in blocks of CT_HUFF_MIN_RECORDS or more); the bits (and
		 * in format 7 which are calls made again), then two planes of
		 * the records that have a code
		 */
		uint64_t nbits = ct_bits_len(h->nrecords) * (h->codec & CT_CODEC_AGAIN ? 2 : 1);
		uint64_t codes = h->col_len[CT_COL_CODE];
		if ((huff ? (uint64_t)h->col_len[CT_COL_CLOCK] * 8 < h->nrecords ||
				    h->nrecords < CT_HUFF_MIN_RECORDS
			  : h->col_len[CT_COL_CLOCK] != h->nrecords) ||
		    codes < nbits ||
		    (codes - nbits) % 2 || h->col_len[CT_COL_SP] > (codes - nbits) / 2)
			return -1;
		/* each entry of the table is a varint of one byte at least */
		return h->nfuncs > h->funcs_len ? -1 : 0;
	}
	/* planes: the clock and code columns hold two bytes a record, the stack's one at most */
	if ((h->codec & CT_CODEC_PLANES) &&
	    ((uint64_t)h->col_len[CT_COL_CLOCK] != (uint64_t)h->nrecords * 2 ||
	     (uint64_t)h->col_len[CT_COL_CODE] != (uint64_t)h->nrecords * 2 ||
	     h->col_len[CT_COL_SP] > h->nrecords))
		return -1;
	return 0;
}

/* A compact block's function table into d->table, u64 each; -1: malformed. */
static int ct_read_func_table(struct ct_decoder *d, const uint8_t *p, const uint8_t *end)
{
	uint64_t prev = 0, v;

	d->table.len = 0;
	ct_buf_reserve(&d->table, (size_t)d->hdr.nfuncs * 8);
	for (uint32_t i = 0; i < d->hdr.nfuncs; i++) {
		if (!(p = ct_get_varint(p, end, &v)))
			return -1;
		prev += (uint64_t)ct_unzigzag(v);
		memcpy(d->table.data + (size_t)i * 8, &prev, 8);
	}
	return p == end ? 0 : -1;
}

/* How many records are calls made again: a bit in both planes. */
static uint64_t ct_count_again(const uint8_t *bits, const uint8_t *again, uint64_t len)
{
	uint64_t n = 0, i = 0, a, b;

	for (; i + 8 <= len; i += 8) {
		memcpy(&a, bits + i, 8);
		memcpy(&b, again + i, 8);
		n += ct_popcount64(a & b);
	}
	for (; i < len; i++)
		n += ct_popcount64((uint64_t)(bits[i] & again[i]));
	return n;
}

/*
 * The compact codec's parts of the code column, and room for its open
 * calls: a call pushes one, and each has a code or is a call made again.
 */
static int ct_begin_compact(struct ct_decoder *d, const uint8_t *body)
{
	const struct ct_events_hdr *h = &d->hdr;
	uint64_t nbits = ct_bits_len(h->nrecords); /* ct_check_columns: within the code column */
	int again = (h->codec & CT_CODEC_AGAIN) != 0;

	if (ct_read_func_table(d, body, body + h->funcs_len) < 0)
		return -1;
	d->funcs = d->table.data;
	d->bits = d->col[CT_COL_CODE];
	d->again = again ? d->bits + nbits : NULL;
	d->nexplicit = (uint32_t)((h->col_len[CT_COL_CODE] - (again ? 2 : 1) * nbits) / 2);
	d->code_lo = d->bits + (again ? 2 : 1) * nbits;
	d->code_hi = d->code_lo + d->nexplicit;
	d->next_explicit = 0;
	d->depth = 0;
	d->open_hw = 0;
	d->open.len = 0;
	uint64_t pushes = d->nexplicit + (again ? ct_count_again(d->bits, d->again, nbits) : 0);
	ct_buf_reserve(&d->open, (size_t)(pushes + 1) * sizeof(struct ct_dec_open));
	return 0;
}

/* A Huffman-coded clock plane (format 6), split or not (format 8), into d->clocks; -1: malformed. */
static int ct_begin_clock_plane(struct ct_decoder *d, const uint8_t *p, size_t len)
{
	uint32_t n = d->hdr.nrecords; /* ct_check_columns: at most 8 a byte of p */
	int split = (d->hdr.codec & CT_CODEC_SPLIT) != 0;

	d->clocks.len = 0;
	ct_buf_reserve(&d->clocks, n);
	if ((split ? ct_huff_decode_split : ct_huff_decode)(p, len, d->clocks.data, n, &d->huff) <
	    0)
		return -1;
	d->col[CT_COL_CLOCK] = d->clocks.data;
	d->col_end[CT_COL_CLOCK] = d->clocks.data + n;
	return 0;
}

int ct_decoder_begin(struct ct_decoder *d, const uint8_t *payload, uint32_t len)
{
	if (len < sizeof(d->hdr))
		return -1;
	memcpy(&d->hdr, payload, sizeof(d->hdr));
	const uint8_t *body = payload + sizeof(d->hdr);
	size_t body_len = len - sizeof(d->hdr), clock_len = 0;
	const struct ct_events_hdr *h = &d->hdr;
	uint32_t codec = h->codec;

	/*
	 * 0-3; compact (format 5) only with planes, Huffman clocks (format 6)
	 * and calls made again (format 7) only compact, a split clock plane
	 * (format 8) only Huffman-coded
	 */
	if ((codec & ~(CT_CODEC_PLANES | CT_CODEC_ZSTD | CT_CODEC_COMPACT | CT_CODEC_HUFF |
		       CT_CODEC_AGAIN | CT_CODEC_SPLIT)) ||
	    ((codec & CT_CODEC_COMPACT) && !(codec & CT_CODEC_PLANES)) ||
	    ((codec & (CT_CODEC_HUFF | CT_CODEC_AGAIN)) && !(codec & CT_CODEC_COMPACT)) ||
	    ((codec & CT_CODEC_SPLIT) && !(codec & CT_CODEC_HUFF)))
		return -1;
	if (ct_check_columns(h) < 0)
		return -1;
	if (codec & CT_CODEC_HUFF) { /* the coded clock plane ends the payload */
		clock_len = h->col_len[CT_COL_CLOCK];
		if (clock_len > body_len)
			return -1;
		body_len -= clock_len;
		if (ct_begin_clock_plane(d, body + body_len, clock_len) < 0)
			return -1;
	}
	d->planes = codec & CT_CODEC_PLANES;
	d->compact = codec & CT_CODEC_COMPACT;
	if (codec & CT_CODEC_ZSTD) {
		if (ct_inflate(d->dctx, &d->raw, h->raw_len, body, body_len) < 0)
			return -1;
		body = d->raw.data;
	} else if (body_len != h->raw_len) {
		return -1;
	}
	d->funcs = body;
	const uint8_t *p = body + (d->compact ? h->funcs_len : (size_t)h->nfuncs * 8);
	for (int i = clock_len ? CT_COL_CODE : CT_COL_CLOCK; i < 4; i++) {
		d->col[i] = p;
		p += h->col_len[i];
		d->col_end[i] = p;
	}
	d->left = h->nrecords;
	d->clock = h->first_clock;
	d->sp = 0;
	return d->compact ? ct_begin_compact(d, body) : 0;
}
