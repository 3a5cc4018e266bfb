/* SPDX-License-Identifier: MIT */
/*
 * A chunk's records into an EVENTS block: runs of calls and returns through
 * the recorder's loop (encode_run.c), everything else (empty slots, extended
 * records) one at a time here.
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

/* The full clock of a record from word 0 and its chunk's base clock. */
static inline uint64_t ct_full_clock(uint64_t base, uint64_t w0)
{
	return base + ct_clock_from_base(base << 16, w0);
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

/*
 * A chunk taken for good, zeroed for its reuse as soon as its records are
 * in the block, while they are still in cache (a block gathers 4 MiB: by
 * the time the collector gives the chunks back, their first ones are out
 * of it), unless a record of it waits for the collector (a side record
 * points into it). The chunk is the recorder's until given back, so w is
 * written here though the encoder only reads it. Returns 1 if it did.
 */
static int ct_zero_read(struct ct_chunk_job *j, const uint64_t *w, uint64_t read, uint64_t used,
			uint32_t *side)
{
	int kept = j->nside != *side;
	*side = j->nside;
	if (kept || !j->zero_read)
		return 0;
	memset((void *)(uintptr_t)(w - j->read_before / 8), 0, ct_chunk_dirty(read, used));
	return 1;
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
	uint32_t side = 0;
	j->used = ct_encode_chunk(e, j, j->w, j->nwords, j->d.base_clock);
	j->zeroed = ct_zero_read(j, j->w, j->read_before + j->used, j->d.used, &side);
	for (uint32_t k = 0; k < j->nmore; k++) {
		struct ct_chunk_more *m = &j->more[k];
		m->used = ct_encode_chunk(e, j, m->w, m->nwords, m->d.base_clock);
		m->zeroed = ct_zero_read(j, m->w, m->read_before + m->used, m->d.used, &side);
	}
	if (e->hdr.nrecords)
		ct_encoder_finish(e);
	ct_take_block(e, j);
}
