/* SPDX-License-Identifier: MIT */
#include <sched.h>
#include <stdlib.h>

#include "workers.h"

struct ct_worker_arg {
	struct ct_workers *w;
	uint32_t self;
};

/*
 * Enough done to wake the collector: the oldest job and those after it, a
 * quarter of the ring (or all in flight). Waking it for every job would cost
 * two context switches a chunk; a batch costs them once per quarter ring, and
 * the three quarters still in flight keep the workers busy while it wakes
 * (on a busy machine that takes longer than encoding a chunk).
 */
static int ct_batch_done(const struct ct_workers *w)
{
	uint64_t want = ct_min(w->cap / 4, w->tail - w->head), n = 0;
	while (n < want && w->done[(w->head + n) % w->cap])
		n++;
	return n && n == want;
}

static void *ct_worker_main(void *p)
{
	struct ct_worker_arg *a = p;
	struct ct_workers *w = a->w;
	struct ct_encoder *e = &w->enc[a->self];

	free(a);
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (w->taken == w->tail && !w->stop) {
			w->idle++;
			pthread_cond_wait(&w->work, &w->lock);
			w->idle--;
		}
		if (w->taken == w->tail)
			break;
		uint32_t slot = (uint32_t)(w->taken++ % w->cap);
		pthread_mutex_unlock(&w->lock);
		ct_chunk_encode(e, &w->jobs[slot]);
		pthread_mutex_lock(&w->lock);
		w->done[slot] = 1;
		if (w->waiting && ct_batch_done(w))
			pthread_cond_signal(&w->finished);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

void ct_workers_init(struct ct_workers *w, uint32_t n, uint32_t max_records, int level)
{
	memset(w, 0, sizeof(*w));
	w->cap = n ? 16 * n : 1;
	w->jobs = ct_calloc(w->cap, sizeof(*w->jobs));
	w->done = ct_calloc(w->cap, 1);
	w->nenc = n ? n : 1;
	w->enc = ct_calloc(w->nenc, sizeof(*w->enc));
	for (uint32_t i = 0; i < w->nenc; i++)
		ct_encoder_init(&w->enc[i], max_records, level);
	if (!n)
		return;
	w->threaded = 1;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->finished, NULL);
	w->threads = ct_calloc(n, sizeof(*w->threads));
	for (uint32_t i = 0; i < n; i++) {
		struct ct_worker_arg *a = ct_malloc(sizeof(*a));
		*a = (struct ct_worker_arg){ w, i };
		if (pthread_create(&w->threads[i], NULL, ct_worker_main, a)) {
			free(a);
			break; /* fewer workers: as many as started */
		}
		w->n++;
	}
}

void ct_workers_free(struct ct_workers *w)
{
	if (w->n) {
		pthread_mutex_lock(&w->lock);
		w->stop = 1;
		pthread_cond_broadcast(&w->work);
		pthread_mutex_unlock(&w->lock);
		for (uint32_t i = 0; i < w->n; i++)
			pthread_join(w->threads[i], NULL);
	}
	if (w->threaded) {
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->work);
		pthread_cond_destroy(&w->finished);
	}
	for (uint32_t i = 0; i < w->nenc; i++)
		ct_encoder_free(&w->enc[i]);
	for (uint32_t i = 0; i < w->cap; i++)
		ct_chunk_job_free(&w->jobs[i]);
	free(w->threads);
	free(w->enc);
	free(w->jobs);
	free(w->done);
	memset(w, 0, sizeof(*w));
}

struct ct_chunk_job *ct_workers_slot(struct ct_workers *w)
{
	if (w->tail - w->head == w->cap)
		return NULL;
	return &w->jobs[w->tail % w->cap];
}

void ct_workers_submit(struct ct_workers *w)
{
	uint32_t slot = (uint32_t)(w->tail % w->cap);
	if (!w->n) { /* no workers: encoded here, now */
		ct_chunk_encode(&w->enc[0], &w->jobs[slot]);
		w->done[slot] = 1;
		w->tail++;
		return;
	}
	pthread_mutex_lock(&w->lock);
	w->done[slot] = 0;
	w->tail++;
	if (w->idle) /* a busy worker takes it when it is done with its own */
		pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
}

struct ct_chunk_job *ct_workers_oldest(struct ct_workers *w)
{
	if (w->head == w->tail)
		return NULL;
	uint32_t slot = (uint32_t)(w->head % w->cap);
	if (w->n) {
		pthread_mutex_lock(&w->lock);
		while (!w->done[slot] && !ct_batch_done(w)) {
			w->waiting = 1;
			pthread_cond_wait(&w->finished, &w->lock);
			w->waiting = 0;
		}
		pthread_mutex_unlock(&w->lock);
	}
	return &w->jobs[slot];
}

void ct_workers_retire(struct ct_workers *w)
{
	w->done[w->head % w->cap] = 0;
	w->head++;
}

uint32_t ct_workers_default(void)
{
	cpu_set_t set;
	int cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
	return cpus > 2 ? (uint32_t)cpus - 1 : 1;
}
