/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the recorder's encoder (src/record/encode*.c) on chunks
 * as a hostile or broken program could leave them in the shared pool. Its
 * loop (each vector form) must give the generic encoder's block byte for
 * byte, and every block it makes must decode to as many records as it says.
 *
 * Input: u64 base clock, u8 mode, then the chunk's words. Mode bit 0 shapes
 * the words into calls and returns (a kind of 1 or 2, clocks a few ticks
 * apart from the base, the other bits as given), so that most groups take
 * the loop's passes; bits 1-2 pick the chunk's flags (published, salvaged,
 * live, a snapshot's); bit 3 whether calls made again are bits (format 7);
 * bit 4 makes loops of the shaped records: a quarter of them take the
 * function and stack pointer of one 2 to 5 records before; bit 5 starts the
 * encoder with a dictionary of 32 slots, to grow with the chunk's functions;
 * bit 6 splits Huffman-coded clock planes on their most frequent bytes
 * (format 8), else they stay whole: both encodes of the chunk must agree,
 * and the encoder's own choice follows the block before.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/format/events.h"
#include "../../src/record/encode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_WORDS 8192

/* Calls and returns: each record's kind from a bit of word 1, its clock a byte's worth on. */
static void shape(uint64_t *w, size_t nw, uint64_t base, int loops)
{
	uint64_t clock = base;
	for (size_t i = 0; i + 1 < nw; i += 2) {
		size_t back = 2 * (2 + (w[i] >> 54 & 3));
		if (loops && !(w[i] >> 52 & 3) && i >= back) { /* a call or return again */
			w[i] = (w[i] & ~UINT64_C(0xffff)) | (w[i - back] & 0xffff);
			uint64_t top = UINT64_C(1) << 63; /* the kind's bit, the record's own */
			w[i + 1] = (w[i + 1] & top) | (w[i + 1 - back] & ~top);
		}
		clock += w[i] >> 56; /* 0 to 255 ticks: some do not fit a byte */
		w[i] = (clock & CT_EV_CLOCK_MASK) << 16 | (w[i] & 0xffff);
		w[i + 1] = (w[i + 1] & ~(UINT64_C(3) << 62)) | (1 + (w[i + 1] >> 63)) << 62;
	}
}

static void encode(struct ct_encoder *e, struct ct_chunk_job *j, const uint64_t *w, size_t nw,
		   uint64_t base, uint32_t flags, int level)
{
	memset(j, 0, sizeof(*j));
	j->d.base_clock = base;
	j->d.tid = 1;
	j->w = w;
	j->nwords = nw;
	j->flags = flags;
	ct_encode_run_vectors(level);
	ct_chunk_encode(e, j);
}

static int same_bytes(const struct ct_buf *a, const struct ct_buf *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
}

static int same_block(const struct ct_chunk_job *a, const struct ct_chunk_job *b)
{
	return a->used == b->used && !memcmp(&a->hdr, &b->hdr, sizeof(a->hdr)) &&
	       same_bytes(&a->out, &b->out) && same_bytes(&a->funcs, &b->funcs);
}

static void decodes(const struct ct_chunk_job *j)
{
	struct ct_decoder d;
	struct ct_event ev;
	uint32_t n = 0;

	if (!j->hdr.nrecords)
		return;
	ct_decoder_init(&d);
	if (ct_decoder_begin(&d, j->out.data, (uint32_t)j->out.len) != 0)
		abort(); /* the encoder made a block its decoder refuses */
	while (ct_decoder_next(&d, &ev) == 1)
		n++;
	if (n != j->hdr.nrecords)
		abort();
	ct_decoder_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t flags[4] = { 0, CT_EVENTS_SALVAGED, CT_EVENTS_LIVE,
					   CT_EVENTS_SNAPSHOT };
	static uint64_t w[MAX_WORDS];
	struct ct_encoder e;
	struct ct_chunk_job ref, j;
	uint64_t base;

	if (size < 9)
		return 0;
	memcpy(&base, data, 8);
	uint8_t mode = data[8];
	size_t nw = (size - 9) / 8 < MAX_WORDS ? (size - 9) / 8 : MAX_WORDS;
	memcpy(w, data + 9, nw * 8);
	if (mode & 1)
		shape(w, nw, base, mode >> 4 & 1);
	ct_encoder_again(mode >> 3 & 1);
	ct_encoder_split(mode >> 6 & 1);

	ct_encoder_init(&e, mode >> 5 & 1 ? 16 : (uint32_t)(nw / 2 + 1), -1);
	encode(&e, &ref, w, nw, base, flags[mode >> 1 & 3], CT_RUN_GENERIC);
	decodes(&ref);
	for (int level = 0; level <= 3; level++) {
		encode(&e, &j, w, nw, base, flags[mode >> 1 & 3], level);
		if (!same_block(&ref, &j))
			abort(); /* the loop and the generic encoder disagree */
		ct_chunk_job_free(&j);
	}
	ct_chunk_job_free(&ref);
	ct_encoder_free(&e);
	ct_encode_run_vectors(-1);
	ct_encoder_again(-1);
	ct_encoder_split(-1);
	return 0;
}
