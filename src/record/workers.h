/* SPDX-License-Identifier: MIT */
/*
 * Encoding chunks on worker threads (record --jobs N). Chunks are
 * self-contained, so any worker encodes any chunk; the collector takes the
 * blocks back in the order it handed the chunks out and writes them in that
 * order, so the file is the same as with one thread. At most `cap` jobs (16 a worker)
 * are in flight, each holding one pool chunk and its block: memory stays bounded.
 */
#ifndef CT_RECORD_WORKERS_H
#define CT_RECORD_WORKERS_H

#include <pthread.h>
#include <stdint.h>

#include "encode.h"

struct ct_workers {
	uint32_t n; /* worker threads; 0: the caller encodes */
	pthread_t *threads;
	struct ct_encoder *enc; /* one per worker (one for the caller if none) */
	uint32_t nenc;
	int threaded;		   /* the lock and conditions exist */
	struct ct_chunk_job *jobs; /* a ring, in the order they were handed out */
	uint8_t *done;
	uint32_t cap;
	uint64_t head;	/* the oldest job not taken back */
	uint64_t taken; /* the next job a worker starts */
	uint64_t tail;	/* the next free slot */
	int stop;
	uint32_t idle; /* workers waiting for a job */
	int waiting;   /* the collector waits for the oldest job */
	pthread_mutex_t lock;
	pthread_cond_t work, finished;
};

/* n workers (0: none), each with an encoder for chunks of up to max_records. */
void ct_workers_init(struct ct_workers *w, uint32_t n, uint32_t max_records, int level);
void ct_workers_free(struct ct_workers *w);
/* A slot for the next job, or NULL if cap jobs are in flight (take one back first). */
struct ct_chunk_job *ct_workers_slot(struct ct_workers *w);
/* Hand out the job ct_workers_slot gave. */
void ct_workers_submit(struct ct_workers *w);
/* The oldest job, once encoded, or NULL if none is in flight. */
struct ct_chunk_job *ct_workers_oldest(struct ct_workers *w);
/* Done with the job ct_workers_oldest gave: its slot is free. */
void ct_workers_retire(struct ct_workers *w);
/* Encoding threads the machine has beyond the traced program's one: at least 1. */
uint32_t ct_workers_default(void);

#endif
