/* SPDX-License-Identifier: MIT */
/*
 * The codec of EVENTS blocks: a thread's records as four columns (clock
 * deltas, codes, stack-pointer deltas, extended payloads) after a table of
 * the block's distinct function addresses, compressed with zstd. Formats 1-3
 * wrote varints, format 4 byte planes; format 5 (the encoder here) compact
 * planes, where a return of the call opened last is one bit (docs/FORMAT.md).
 * Self-contained per block, so any block decodes on its own.
 */
#ifndef CT_FORMAT_EVENTS_H
#define CT_FORMAT_EVENTS_H

#include <stdint.h>

#include "format.h"
#include "huff.h"
#include "../common/event.h"
#include "../util/util.h"

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

/* One decoded record. */
struct ct_event {
	uint64_t clock;
	uint64_t addr; /* function entry address (calls and returns) */
	uint64_t sp;   /* caller's stack pointer, in 16-byte units, 31 bits */
	uint8_t kind;  /* CT_EV_ENTER, CT_EV_EXIT or CT_EV_EXT */
	uint16_t ext_type;
	uint32_t fidx; /* index of addr in its block's function table (calls, returns) */
	uint32_t ext_len;
	const uint8_t *ext; /* payload of an extended record, valid until the next call */
};

/* An extended record's payload into out (n bytes): what it lacks reads as zero. */
static inline void ct_event_payload(const struct ct_event *ev, void *out, size_t n)
{
	memset(out, 0, n);
	memcpy(out, ev->ext, ev->ext_len < n ? ev->ext_len : n);
}

/*
 * The encoder's direct-mapped cache in front of the block's dictionary: most
 * records are of a function seen a few records earlier, found here with a
 * shift, a mask and one compare (the dictionary costs a 64-bit hash and a
 * probe). 8,192 slots: a block of yaml-cpp's has some 800 functions, and
 * 512 slots cost it 8 % more time, 4,096 slots 1.5 % (two functions in a
 * slot push each other out). Slots are emptied at each block's start, only
 * those the block before filled unless it filled many (emptying 128 KiB
 * would cost a small block more than it encodes).
 */
#define CT_ENC_CACHE_BITS   13
#define CT_ENC_FILLED_MAX   512 /* slots remembered as filled; past it, all are emptied */
struct ct_enc_slot {
	uint64_t addr; /* UINT64_MAX: empty (no address has the high bits) */
	uint64_t code; /* the function's index << 2 */
};

/* A slot of the dictionary: key, generation and index on one cache line. */
struct ct_enc_entry {
	uint64_t addr;
	uint32_t gen; /* the block it was put in: older ones are empty */
	uint32_t idx;
};

/* An open call: see ct_enc_open_of. In the order of a record's words, to compare it whole. */
struct ct_enc_open {
	uint64_t sp_lo, id;
};

struct ct_encoder {
	struct ct_events_hdr hdr;
	struct ct_buf col[4];
	struct ct_buf funcs; /* the block's function addresses, u64 each */
	struct ct_buf body;
	struct ct_buf huff;	   /* the clock plane, Huffman-coded (src/format/huff.h) */
	uint32_t *huff_pairs;	   /* its scratch: CT_HUFF_PAIRS codes of byte pairs */
	uint32_t clock_blocks;	   /* blocks finished, for the probes of events.c */
	int clock_zstd;		   /* the last probe: leave clock planes to zstd */
	struct ct_buf huff_rest;   /* a split plane's other bytes (ct_huff_encode_split) */
	uint32_t clock_split;	   /* the last plane coded: split the next on this many modes */
	uint8_t clock_modes[CT_HUFF_MODES]; /* its most frequent bytes, in that order */
	struct ct_buf out;	   /* hdr + compressed body, ready to write */
	struct ct_enc_entry *dict; /* the block's functions, open addressing */
	uint32_t dict_mask, gen;
	uint64_t last_clock, last_sp;
	uint32_t plane_cap; /* records the planes have room for */
	uint32_t nexplicit; /* entries of the code planes: records not named by their bit */
	/*
	 * The block's open calls, for the returns that match them: the top at
	 * open[depth], open[0] what no record is (a call's kind bits are 01).
	 * Above the top, each entry is the last call made at its depth in this
	 * block (returns leave them), so that a call made again there, same
	 * function and stack pointer, is a bit too (format 7). Entries past
	 * open_hw hold no call. Only a block that makes such calls bits reads
	 * the entries above the top: it empties those of the blocks before as
	 * it starts (open_hw: as far as they were written since), the others
	 * leave them (yaml-cpp's deepest blocks are some 44,000 calls deep).
	 * bits: a bit a record, set for a return that matched or a call made
	 * again; again: set for the latter.
	 */
	struct ct_enc_open *open;
	uint64_t *bits, *again;
	uint32_t depth, open_hw;
	uint32_t open_cap;   /* entries open has filled (ct_encoder_open_room), the floor aside */
	uint32_t open_alloc; /* ... and has mapped */
	/*
	 * Whether this block names calls made again: a block in eight does (a
	 * probe), and the blocks after one where they were an eighth of the
	 * records or more. Elsewhere it would cost more than it saves.
	 */
	int again_on, again_rich;
	uint32_t again_blocks;
	struct ZSTD_CCtx_s *cctx;
	int level;
	uint32_t nfilled; /* slots filled in this block (past CT_ENC_FILLED_MAX: many) */
	uint16_t filled[CT_ENC_FILLED_MAX];
	struct ct_enc_slot cache[1u << CT_ENC_CACHE_BITS];
};

/*
 * A call on the open-call stack as its record names it (src/common/event.h):
 * word 1 (the kind, the stack pointer's high 15 bits, the address) and the
 * stack pointer's low 16 bits (word 0's). A return is the newest open call's
 * when both are its own (its word 1 as a call's): same function, same stack
 * pointer. The recorder's loop (src/record/encode_run.c) compares them as it
 * reads them, without looking the function up.
 */
static inline struct ct_enc_open ct_enc_open_of(uint64_t addr, uint64_t sp)
{
	return (struct ct_enc_open){ sp & 0xffff, ct_ev_word1(CT_EV_ENTER, addr, sp << 4) };
}

void ct_encoder_init(struct ct_encoder *e, uint32_t max_records, int level);
/* For the tests: -1 (the default) as the blocks before say, 0 never, 1 always. */
void ct_encoder_again(int mode);
/*
 * For the tests, whether Huffman-coded clock planes are split on their most
 * frequent bytes: -1 (the default) where the machine splits fast and the
 * plane before was 40 % one byte or more, 0 never, 1 always (on the plane's
 * own, whatever the plane before).
 */
void ct_encoder_split(int mode);
void ct_encoder_free(struct ct_encoder *e);
void ct_encoder_begin(struct ct_encoder *e, uint32_t instance, int32_t pid, int32_t tid,
		      uint64_t thread_seq, uint32_t flags, uint32_t max_records);
void ct_encoder_ext(struct ct_encoder *e, uint64_t clock, uint32_t type, const void *p,
		    uint32_t len);
/* Finish the block: e->out holds its payload. */
void ct_encoder_finish(struct ct_encoder *e);

/* The function's index in the block's table, a new one if it is not there yet. */
uint32_t ct_encoder_func_slow(struct ct_encoder *e, uint64_t addr);

/* The cache slot of a function (entries are 16-byte aligned, mostly). */
static inline struct ct_enc_slot *ct_enc_slot_of(struct ct_enc_slot *cache, uint64_t addr)
{
	return &cache[(addr ^ addr >> 11) >> 4 & ((1u << CT_ENC_CACHE_BITS) - 1)];
}

/* A cache miss: the slot now names addr's function (index idx), and is remembered as filled. */
static inline void ct_enc_fill(struct ct_encoder *e, struct ct_enc_slot *s, uint64_t addr,
			       uint32_t idx)
{
	if (e->nfilled < CT_ENC_FILLED_MAX)
		e->filled[e->nfilled] = (uint16_t)(s - e->cache);
	e->nfilled++;
	s->addr = addr;
	s->code = (uint64_t)idx << 2;
}

static inline uint32_t ct_encoder_func(struct ct_encoder *e, uint64_t addr)
{
	struct ct_enc_slot *s = ct_enc_slot_of(e->cache, addr);
	if (__builtin_expect(s->addr == addr, 1))
		return (uint32_t)(s->code >> 2);
	uint32_t idx = ct_encoder_func_slow(e, addr);
	ct_enc_fill(e, s, addr, idx);
	return idx;
}

/* Room for records more records past what ct_encoder_begin was told. */
void ct_encoder_grow(struct ct_encoder *e, uint32_t records);

/*
 * Room for open calls up to depth `depth`, and the entry above it (a call is
 * stored there before it is known to be one). The stack grows with the
 * depth calls reach, not with the records a block holds: a group of records
 * checks once for the most it can add, then runs without a bound.
 */
void ct_encoder_open_grow(struct ct_encoder *e, uint32_t depth);
static inline void ct_encoder_open_room(struct ct_encoder *e, uint32_t depth)
{
	if (__builtin_expect((uint64_t)depth + 2 > e->open_cap, 0))
		ct_encoder_open_grow(e, depth);
}
/* v if it is under max; else max, and v goes to the ext column as a varint. */
uint64_t ct_encoder_escape(struct ct_encoder *e, uint64_t v, uint64_t max);

/*
 * Whether an entry is call c: the same function at the same stack pointer,
 * whatever the kind bits (62, 63) of its word 1 (the recorder's loop leaves
 * a return's there).
 */
static inline int ct_enc_same_call(const struct ct_enc_open *o, struct ct_enc_open c)
{
	return !((o->id ^ c.id) << 2 | (o->sp_lo ^ c.sp_lo));
}

/* What a call or return is to the open-call stack (ct_enc_open_calls). */
enum { CT_ENC_EXPLICIT, CT_ENC_MATCHED, CT_ENC_AGAIN };

/*
 * A call or return through the open-call stack: a return that matches the
 * newest open call (same function, same stack pointer) is named by its bit
 * (CT_ENC_MATCHED), and so is a call that is the last one made at its depth
 * again (CT_ENC_AGAIN). The recorder's loop (src/record/encode_run.c) does
 * the same for a group of records at a time.
 */
static inline int ct_enc_open_calls(struct ct_encoder *e, uint64_t addr, uint64_t sp, int exit)
{
	struct ct_enc_open c = ct_enc_open_of(addr, sp);
	if (!exit) {
		ct_encoder_open_room(e, e->depth + 1);
		struct ct_enc_open *o = &e->open[++e->depth];
		int again = e->again_on && ct_enc_same_call(o, c);
		*o = c;
		e->open_hw = e->depth > e->open_hw ? e->depth : e->open_hw;
		return again ? CT_ENC_AGAIN : CT_ENC_EXPLICIT;
	}
	if (!ct_enc_same_call(&e->open[e->depth], c))
		return CT_ENC_EXPLICIT;
	e->depth--;
	return CT_ENC_MATCHED;
}

/*
 * A compact block's clock byte: the difference from the record before, when
 * it is 0 to 254 ticks (mostly; a clock a little behind the one before goes
 * to the escape too); else 0xff, and the ext column gets it zigzagged.
 */
static inline uint64_t ct_enc_clock_byte(struct ct_encoder *e, uint64_t delta)
{
	if (delta < 0xff)
		return delta;
	ct_encoder_escape(e, ct_zigzag((int64_t)delta), 0);
	return 0xff;
}

/* Record r's clock byte, and unless it is a bit (CT_ENC_MATCHED, CT_ENC_AGAIN), its code. */
static inline void ct_enc_put(struct ct_encoder *e, uint64_t zc, uint64_t k, int is)
{
	uint32_t r = e->hdr.nrecords++;
	e->col[CT_COL_CLOCK].data[r] = (uint8_t)zc;
	if (is != CT_ENC_EXPLICIT) {
		e->bits[r >> 6] |= UINT64_C(1) << (r & 63);
		e->again[r >> 6] |= (uint64_t)(is == CT_ENC_AGAIN) << (r & 63);
		return;
	}
	e->col[CT_COL_CODE].data[e->nexplicit] = (uint8_t)k;
	e->col[CT_COL_CODE].data[e->plane_cap + e->nexplicit++] = (uint8_t)(k >> 8);
}

/* Append a call (CT_EV_ENTER) or return (CT_EV_EXIT). */
static inline void ct_encoder_event(struct ct_encoder *e, uint64_t clock, unsigned kind,
				    uint64_t addr, uint64_t sp)
{
	ct_encoder_grow(e, 1);
	uint64_t code = (uint64_t)ct_encoder_func(e, addr) << 2;
	if (__builtin_expect(!e->hdr.nrecords, 0))
		e->hdr.first_clock = e->last_clock = clock;
	int is = ct_enc_open_calls(e, addr, sp, kind == CT_EV_EXIT);
	uint64_t zc = ct_enc_clock_byte(e, clock - e->last_clock);
	uint64_t k = code | (kind == CT_EV_EXIT);
	if (is == CT_ENC_EXPLICIT) {
		k = ct_encoder_escape(e, k, 0xffff);
		uint64_t zs = ct_encoder_escape(e, ct_zigzag((int64_t)(sp - e->last_sp)), 0xff);
		e->col[CT_COL_SP].data[e->col[CT_COL_SP].len++] = (uint8_t)zs;
	}
	ct_enc_put(e, zc, k, is);
	e->last_clock = clock;
	e->last_sp = sp;
}

/* An open call of a compact block: what a return named by its bit is. */
struct ct_dec_open {
	uint64_t sp;
	uint32_t fidx;
};

struct ct_decoder {
	struct ct_events_hdr hdr;
	const uint8_t *funcs; /* nfuncs little-endian u64, maybe unaligned */
	const uint8_t *col[4], *col_end[4];
	uint32_t left;
	uint32_t planes;  /* CT_CODEC_PLANES: byte planes, else varint columns */
	uint32_t compact; /* CT_CODEC_COMPACT (format 5) */
	uint64_t clock, sp;
	/*
	 * compact: the bits, the code planes, the open calls; format 7: which
	 * bits are calls made again (else NULL), and how many entries of the
	 * open calls hold one (those at depth and above are the last calls made
	 * at their depth)
	 */
	const uint8_t *bits, *again, *code_lo, *code_hi;
	uint32_t nexplicit, next_explicit, depth, open_hw;
	struct ct_buf raw, table, open;
	struct ct_buf clocks, huff; /* format 6: the clock plane decoded, and scratch */
	struct ZSTD_DCtx_s *dctx;
};

void ct_decoder_init(struct ct_decoder *d);
void ct_decoder_free(struct ct_decoder *d);
/* Start on one EVENTS payload; -1 if it is malformed. */
int ct_decoder_begin(struct ct_decoder *d, const uint8_t *payload, uint32_t len);

/* A field stored at its limit: its value is the ext column's next varint. */
static inline int ct_dec_escaped(struct ct_decoder *d, uint64_t *v, uint64_t max)
{
	if (__builtin_expect(*v != max, 1))
		return 0;
	d->col[CT_COL_EXT] = ct_get_varint(d->col[CT_COL_EXT], d->col_end[CT_COL_EXT], v);
	return d->col[CT_COL_EXT] ? 0 : -1;
}

/* Record r's clock delta and code from the byte planes (format 4); -1: malformed. */
static inline int ct_dec_planes(struct ct_decoder *d, uint64_t *delta, uint64_t *code)
{
	uint32_t n = d->hdr.nrecords, r = n - d->left;
	const uint8_t *c = d->col[CT_COL_CLOCK], *k = d->col[CT_COL_CODE];
	*delta = c[r] | (uint64_t)c[n + r] << 8;
	*code = k[r] | (uint64_t)k[n + r] << 8;
	if (ct_dec_escaped(d, delta, 0xffff) < 0) /* the clock's escape comes first */
		return -1;
	return ct_dec_escaped(d, code, 0xffff);
}

/* The next call's or return's stack delta; -1: malformed. */
static inline int ct_dec_sp(struct ct_decoder *d, uint64_t *v)
{
	if (d->planes) {
		if (d->col[CT_COL_SP] >= d->col_end[CT_COL_SP])
			return -1;
		*v = *d->col[CT_COL_SP]++;
		return ct_dec_escaped(d, v, 0xff);
	}
	d->col[CT_COL_SP] = ct_get_varint(d->col[CT_COL_SP], d->col_end[CT_COL_SP], v);
	return d->col[CT_COL_SP] ? 0 : -1;
}

/* A call or return of function fidx at stack pointer sp into *ev. */
static inline void ct_dec_call(const struct ct_decoder *d, struct ct_event *ev, uint32_t fidx,
			       uint64_t sp, int exit)
{
	ev->sp = sp;
	ev->kind = exit ? CT_EV_EXIT : CT_EV_ENTER;
	ev->fidx = fidx;
	memcpy(&ev->addr, d->funcs + (size_t)fidx * 8, 8);
	ev->ext = NULL;
	ev->ext_len = 0;
	ev->ext_type = 0;
}

/* An extended record's payload from the ext column into *ev; -1: malformed. */
static inline int ct_dec_ext(struct ct_decoder *d, struct ct_event *ev, uint64_t code)
{
	uint64_t v;

	if (!(d->col[CT_COL_EXT] = ct_get_varint(d->col[CT_COL_EXT], d->col_end[CT_COL_EXT], &v)) ||
	    v > (uint64_t)(d->col_end[CT_COL_EXT] - d->col[CT_COL_EXT]))
		return -1;
	ev->kind = CT_EV_EXT;
	ev->ext_type = (uint16_t)(code >> 2);
	ev->ext = d->col[CT_COL_EXT];
	ev->ext_len = (uint32_t)v;
	d->col[CT_COL_EXT] += v;
	ev->addr = 0;
	ev->sp = 0;
	return 1;
}

/*
 * The next record of a compact block (format 5): a clock byte each; a
 * return whose bit is set is the newest open call's, the others have a code
 * (and calls and returns a stack delta); a call opens.
 */
static inline int ct_decoder_next_compact(struct ct_decoder *d, struct ct_event *ev)
{
	uint32_t r = d->hdr.nrecords - d->left;
	uint64_t delta = d->col[CT_COL_CLOCK][r], code, v;

	if (delta == 0xff) { /* escaped, zigzagged */
		if (ct_dec_escaped(d, &delta, 0xff) < 0)
			return -1;
		delta = (uint64_t)ct_unzigzag(delta);
	}
	d->left--;
	d->clock += delta;
	ev->clock = d->clock;
	struct ct_dec_open *open = (struct ct_dec_open *)d->open.data;
	if (d->bits[r >> 3] >> (r & 7) & 1) {
		if (d->again && (d->again[r >> 3] >> (r & 7) & 1)) { /* the last call at its depth */
			if (d->depth >= d->open_hw)
				return -1;
			const struct ct_dec_open *o = &open[d->depth++];
			d->sp = o->sp;
			ct_dec_call(d, ev, o->fidx, o->sp, 0);
			return 1;
		}
		if (!d->depth)
			return -1;
		const struct ct_dec_open *o = &open[--d->depth];
		d->sp = o->sp;
		ct_dec_call(d, ev, o->fidx, o->sp, 1);
		return 1;
	}
	if (d->next_explicit >= d->nexplicit)
		return -1;
	code = d->code_lo[d->next_explicit] | (uint64_t)d->code_hi[d->next_explicit] << 8;
	d->next_explicit++;
	if (ct_dec_escaped(d, &code, 0xffff) < 0)
		return -1;
	if ((code & 3) == CT_CODE_EXT)
		return ct_dec_ext(d, ev, code);
	if ((code >> 2) >= d->hdr.nfuncs || (code & 3) > CT_CODE_EXIT || ct_dec_sp(d, &v) < 0)
		return -1;
	d->sp += (uint64_t)ct_unzigzag(v);
	if ((code & 3) == CT_CODE_ENTER) { /* the stack has room: ct_begin_compact */
		open[d->depth++] = (struct ct_dec_open){ d->sp, (uint32_t)(code >> 2) };
		d->open_hw = d->depth > d->open_hw ? d->depth : d->open_hw;
	}
	ct_dec_call(d, ev, (uint32_t)(code >> 2), d->sp, (code & 3) == CT_CODE_EXIT);
	return 1;
}

/* 1: a record in *ev, 0: end of block, -1: malformed. Inline: readers call it per record. */
static inline int ct_decoder_next(struct ct_decoder *d, struct ct_event *ev)
{
	uint64_t delta, code, v;

	if (!d->left)
		return 0;
	if (d->compact)
		return ct_decoder_next_compact(d, ev);
	if (d->planes) {
		if (ct_dec_planes(d, &delta, &code) < 0)
			return -1;
	} else if (!(d->col[CT_COL_CLOCK] = ct_get_varint(d->col[CT_COL_CLOCK],
							  d->col_end[CT_COL_CLOCK], &delta)) ||
		   !(d->col[CT_COL_CODE] =
			     ct_get_varint(d->col[CT_COL_CODE], d->col_end[CT_COL_CODE], &code))) {
		return -1;
	}
	d->left--;
	d->clock += (uint64_t)ct_unzigzag(delta);
	ev->clock = d->clock;
	if ((code & 3) == CT_CODE_EXT)
		return ct_dec_ext(d, ev, code);
	if ((code >> 2) >= d->hdr.nfuncs || (code & 3) > CT_CODE_EXIT || ct_dec_sp(d, &v) < 0)
		return -1;
	d->sp += (uint64_t)ct_unzigzag(v);
	ct_dec_call(d, ev, (uint32_t)(code >> 2), d->sp, (code & 3) == CT_CODE_EXIT);
	return 1;
}

#endif
