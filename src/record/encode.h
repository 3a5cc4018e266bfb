/* SPDX-License-Identifier: MIT */
/*
 * One chunk into one EVENTS block: the part of collecting that needs only the
 * chunk and an encoder, so that any thread can do it (workers.c). What the
 * collector must act on itself (a process, a module, a crash, lost events)
 * is listed, in the chunk's order, for it to do when it writes the block.
 */
#ifndef CT_RECORD_ENCODE_H
#define CT_RECORD_ENCODE_H

#include <stdint.h>

#include "../format/events.h"
#include "../util/util.h"

/*
 * A chunk descriptor as the recorder read it, once, from shared memory: what
 * it checks and then goes by, whatever the program writes there meanwhile.
 */
struct ct_desc_view {
	uint32_t idx, state, instance, flags, used;
	int32_t pid, tid;
	uint64_t thread_seq, base_clock;
};

/* An extended record for the collector: its payload stays in the chunk until it is recycled. */
struct ct_side {
	uint32_t type, len;
	uint64_t clock;
	const uint8_t *p;
};

/* What becomes of the chunk once its block is written (collect.c). */
enum ct_job_kind {
	CT_JOB_TAKE,	 /* a chunk taken from its thread: recycled */
	CT_JOB_LIVE,	 /* live: read so far, the thread goes on filling it */
	CT_JOB_SNAPSHOT, /* a copy of a ring: nothing to give back */
};

/*
 * Chunks of one thread that follow the job's first, encoded into the same
 * block: a larger block compresses better and costs less a record (one
 * function table, one zstd frame whose matches reach further back).
 * Published chunks only (not salvaged, not live, not snapshots). A block
 * gathers CT_BLOCK_BYTES of chunks at most (ct_block_chunks): 64 of the
 * default 64 KiB, 262,144 records. yaml-cpp's recorder spends about a
 * tenth less CPU than with blocks of 8 chunks, for 40 % fewer bytes
 * (docs/PERFORMANCE.md).
 */
#define CT_BLOCK_BYTES (4u << 20)
#define CT_JOB_MORE    63

/* Chunks of chunk_size bytes a block gathers, from 1 to CT_JOB_MORE + 1. */
static inline uint32_t ct_block_chunks(uint32_t chunk_size)
{
	uint32_t n = chunk_size ? CT_BLOCK_BYTES / chunk_size : 1;
	return n < 1 ? 1 : n > CT_JOB_MORE + 1 ? CT_JOB_MORE + 1 : n;
}
/* Bytes of a chunk to zero: as far as we read it or its thread says it wrote, whichever is more. */
static inline uint64_t ct_chunk_dirty(uint64_t read, uint64_t used)
{
	return read > used / 8 * 8 ? read : used / 8 * 8;
}

struct ct_chunk_more {
	struct ct_desc_view d;
	const uint64_t *w;
	uint64_t nwords;
	uint64_t read_before;
	uint64_t used; /* out: bytes of w read */
	int zeroed;    /* out: the chunk is zeroed already */
};

struct ct_chunk_job {
	/* in: the first chunk, and nmore after it */
	struct ct_desc_view d;
	const uint64_t *w;
	uint64_t nwords;
	struct ct_chunk_more more[CT_JOB_MORE];
	uint32_t nmore;
	uint32_t flags;	     /* CT_EVENTS_* */
	uint32_t generation; /* flight recorder: the snapshot */
	enum ct_job_kind kind;
	int salvage;
	uint64_t read_before; /* live: bytes of the chunk read already */
	int zero_read;	      /* zero each chunk once its records are in (ct_zero_read) */
	/* out */
	uint64_t used; /* bytes of w read (of the first chunk) */
	int zeroed;    /* the first chunk is zeroed already */
	uint64_t calls, abandoned;
	struct ct_events_hdr hdr; /* hdr.nrecords == 0: no block */
	struct ct_buf out;	  /* the block's payload */
	struct ct_buf funcs;	  /* its function table, nfuncs u64 */
	struct ct_side *side;
	uint32_t nside, side_cap;
};

/* Encode j's chunks with e; the block (if any) and the side records end up in j. */
void ct_chunk_encode(struct ct_encoder *e, struct ct_chunk_job *j);
void ct_chunk_job_free(struct ct_chunk_job *j);

/*
 * A record's clock less its chunk's base, from word 0 and the base shifted
 * as word 0's clock is (base << 16): the clock holds 48 bits, and a record
 * can be a little older than its chunk (the hook reads the clock before it
 * reserves its slot), so the difference is signed.
 */
static inline uint64_t ct_clock_from_base(uint64_t base16, uint64_t w0)
{
	return (uint64_t)((int64_t)((w0 & ~UINT64_C(0xffff)) - base16) >> 16);
}

/*
 * Calls and returns from w[i] on, while they last, into e's block (encode_run.c):
 * returns where the first other record (or the end) is; *last: the clock of
 * the last record encoded, if any.
 */
uint64_t ct_encode_run(struct ct_encoder *e, const uint64_t *w, uint64_t i, uint64_t nwords,
		       uint64_t base, uint64_t *last);
/*
 * The vector registers that loop's first pass may use: 0 none, 1 SSE2 (on
 * aarch64 NEON), 2 AVX2, 3 AVX-512 (as far as the machine has them), -1 the
 * widest it has (the default);
 * CT_RUN_GENERIC, no loop: every record through the generic encoder, the
 * reference the others must give byte for byte. For the tests, the fuzzer
 * and the benchmark, before any encoding.
 */
#define CT_RUN_GENERIC (-2)
void ct_encode_run_vectors(int level);

#endif
