/* SPDX-License-Identifier: MIT */
/*
 * The codec of EVENTS blocks: a thread's records as four columns (clock
 * deltas, codes, stack-pointer deltas, extended payloads) of varints after a
 * table of the block's distinct function addresses, compressed with zstd.
 * Self-contained per block, so any block decodes on its own.
 */
#ifndef CT_FORMAT_EVENTS_H
#define CT_FORMAT_EVENTS_H

#include <stdint.h>

#include "format.h"
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

struct ct_encoder {
	struct ct_events_hdr hdr;
	struct ct_buf col[4];
	struct ct_buf funcs;
	struct ct_buf body;
	struct ct_buf out; /* hdr + compressed body, ready to write */
	uint64_t *dict_keys;
	uint32_t *dict_vals;
	uint32_t *dict_gen;
	uint32_t dict_mask, gen;
	uint64_t last_clock, last_sp;
	struct ZSTD_CCtx_s *cctx;
	int level;
};

void ct_encoder_init(struct ct_encoder *e, uint32_t max_records, int level);
void ct_encoder_free(struct ct_encoder *e);
void ct_encoder_begin(struct ct_encoder *e, uint32_t instance, int32_t pid, int32_t tid,
		      uint64_t thread_seq, uint32_t flags, uint32_t max_records);
void ct_encoder_ext(struct ct_encoder *e, uint64_t clock, uint32_t type, const void *p,
		    uint32_t len);
/* Finish the block: e->out holds its payload. */
void ct_encoder_finish(struct ct_encoder *e);

static inline uint32_t ct_encoder_func(struct ct_encoder *e, uint64_t addr)
{
	uint32_t i = (uint32_t)(ct_hash64(addr) & e->dict_mask);
	while (e->dict_gen[i] == e->gen) {
		if (e->dict_keys[i] == addr)
			return e->dict_vals[i];
		i = (i + 1) & e->dict_mask;
	}
	uint32_t idx = e->hdr.nfuncs++;
	e->dict_gen[i] = e->gen;
	e->dict_keys[i] = addr;
	e->dict_vals[i] = idx;
	ct_buf_append(&e->funcs, &addr, sizeof(addr));
	return idx;
}

/* Append a call (CT_EV_ENTER) or return (CT_EV_EXIT). Columns have room reserved. */
static inline void ct_encoder_event(struct ct_encoder *e, uint64_t clock, unsigned kind,
				    uint64_t addr, uint64_t sp)
{
	uint32_t f = ct_encoder_func(e, addr);
	struct ct_buf *c = e->col;

	if (!e->hdr.nrecords++)
		e->hdr.first_clock = e->last_clock = clock;
	c[CT_COL_CLOCK].len = (size_t)(ct_put_varint(c[CT_COL_CLOCK].data + c[CT_COL_CLOCK].len,
						     ct_zigzag((int64_t)(clock - e->last_clock))) -
				       c[CT_COL_CLOCK].data);
	c[CT_COL_CODE].len = (size_t)(ct_put_varint(c[CT_COL_CODE].data + c[CT_COL_CODE].len,
						    (uint64_t)f << 2 | (kind == CT_EV_EXIT)) -
				      c[CT_COL_CODE].data);
	c[CT_COL_SP].len = (size_t)(ct_put_varint(c[CT_COL_SP].data + c[CT_COL_SP].len,
						  ct_zigzag((int64_t)(sp - e->last_sp))) -
				    c[CT_COL_SP].data);
	e->last_clock = clock;
	e->last_sp = sp;
}

struct ct_decoder {
	struct ct_events_hdr hdr;
	const uint8_t *funcs; /* nfuncs little-endian u64, maybe unaligned */
	const uint8_t *col[4], *col_end[4];
	uint32_t left;
	uint64_t clock, sp;
	struct ct_buf raw;
	struct ZSTD_DCtx_s *dctx;
};

void ct_decoder_init(struct ct_decoder *d);
void ct_decoder_free(struct ct_decoder *d);
/* Start on one EVENTS payload; -1 if it is malformed. */
int ct_decoder_begin(struct ct_decoder *d, const uint8_t *payload, uint32_t len);
/* 1: a record in *ev, 0: end of block, -1: malformed. Inline: readers call it per record. */
static inline int ct_decoder_next(struct ct_decoder *d, struct ct_event *ev)
{
	uint64_t delta, code, v;

	if (!d->left)
		return 0;
	d->left--;
	if (!(d->col[CT_COL_CLOCK] =
		      ct_get_varint(d->col[CT_COL_CLOCK], d->col_end[CT_COL_CLOCK], &delta)) ||
	    !(d->col[CT_COL_CODE] =
		      ct_get_varint(d->col[CT_COL_CODE], d->col_end[CT_COL_CODE], &code)))
		return -1;
	d->clock += (uint64_t)ct_unzigzag(delta);
	ev->clock = d->clock;
	if ((code & 3) == CT_CODE_EXT) {
		if (!(d->col[CT_COL_EXT] =
			      ct_get_varint(d->col[CT_COL_EXT], d->col_end[CT_COL_EXT], &v)) ||
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
	if ((code >> 2) >= d->hdr.nfuncs || (code & 3) > CT_CODE_EXIT ||
	    !(d->col[CT_COL_SP] = ct_get_varint(d->col[CT_COL_SP], d->col_end[CT_COL_SP], &v)))
		return -1;
	d->sp += (uint64_t)ct_unzigzag(v);
	ev->sp = d->sp;
	ev->kind = (code & 3) == CT_CODE_EXIT ? CT_EV_EXIT : CT_EV_ENTER;
	ev->fidx = (uint32_t)(code >> 2);
	memcpy(&ev->addr, d->funcs + (code >> 2) * 8, 8);
	ev->ext = NULL;
	ev->ext_len = 0;
	ev->ext_type = 0;
	return 1;
}


#endif
