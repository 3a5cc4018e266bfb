/* SPDX-License-Identifier: MIT */
/*
 * The walk on several threads (ct_walk_run with jobs > 1). A thread's calls
 * are built in order and the sink sees one thread after another, so the work
 * is cut in two where it costs about the same on each side:
 *
 *   workers (jobs - 1)  take the selected threads in order, one each at a
 *                       time: read and decompress the thread's blocks, decode
 *                       its records, pair captured values with their calls,
 *                       run the call-tree builder, and write what the builder
 *                       tells (enter, exit, mark) as ops into chunks
 *   the caller's thread takes the chunks of one thread after another: the
 *                       function ids, the filters and the sink, as walk.c
 *                       does on one thread
 *
 * The symbols are only ever touched on the caller's thread, in the order a
 * one-thread walk touches them, so function ids (and whatever depends on
 * them) come out the same, and the sink is called from one thread only.
 * A thread's chunks wait in its queue, a few of them: a worker
 * ahead of the reader waits, so memory stays bounded.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "walk_int.h"

#if defined(__x86_64__)
#include <immintrin.h>
/*
 * The worker's calls and returns go to memory past its cache (non-temporal):
 * the chunk's lines were last read on the other core, and taking each back
 * for a write costs more than the write.
 */
static inline void ct_word_store(uint32_t *word, uint32_t v)
{
	_mm_stream_si32((int *)word, (int)v);
}
static inline void ct_words_fence(void)
{
	_mm_sfence();
}
static inline void ct_cpu_relax(void)
{
	_mm_pause();
}
#else
static inline void ct_word_store(uint32_t *word, uint32_t v)
{
	*word = v;
}
static inline void ct_words_fence(void)
{
}
static inline void ct_cpu_relax(void)
{
#if defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}
#endif

#ifndef CT_PAR_CHUNK
#define CT_PAR_CHUNK 65536 /* 4-byte words in a chunk: 256 KiB */
#endif
/*
 * Chunks the queues hold, shared out among the workers (at least 4 each): 4 MiB,
 * some 12 ms of a report's work, so that a thread of the pipeline the machine's
 * other load preempts for a time slice does not stall the other at once.
 * (CT_PAR_CHUNK, CT_PAR_QUEUED and CT_PAR_SPIN can be set with -D to measure
 * others: 64 and 128 KiB chunks, 8 queued, measured no different.)
 */
#ifndef CT_PAR_QUEUED
#define CT_PAR_QUEUED 16
#endif
/*
 * A side that would wait polls the queue this many times first (some tens of
 * microseconds): on a virtual machine a thread that sleeps lets its vCPU
 * halt, and waking it again costs more than the wait.
 */
#ifndef CT_PAR_SPIN
#define CT_PAR_SPIN 2048
#endif

/*
 * Ops are written as 4-byte words, as many as a trace has calls and returns
 * twice over: what goes from one core to the other is most of the cost the
 * cut adds, so most calls and returns take one word:
 *
 *   ENTER4  bit 0 clear: function index (12 bits) << 1, clock delta (19 bits) << 13
 *   EXIT4   bits 0-1 = 01: how << 2, clock delta (28 bits) << 4
 *
 * Any other op has bits 0-1 set and its type in the low byte: the 8-byte
 * short forms, for a call or a return whose clock is within 2^31 ticks of
 * the op before's, or a struct ct_op (four words), then the words of what
 * it carries: a BLOCK's addresses; ENTER_AT's and NO_ENTRY's address and
 * stack pointer; an EXT's payload; VALUES' address and stack pointer, then
 * its payload. The clock deltas are from the last op with a clock: all but
 * BLOCK and VALUES.
 */
#define CT_WORD_ENTER_FUNCS (1u << 12)
#define CT_WORD_ENTER_DELTA (1u << 19)
#define CT_WORD_EXIT_DELTA  (1u << 28)
#define CT_OP(n)	    ((n) << 2 | 3)

enum ct_op_type {
	CT_OP_ENTER_SHORT = CT_OP(0), /* two words: type, function index << 8, clock delta << 32 */
	CT_OP_EXIT_SHORT = CT_OP(1),  /* two words: type, how << 8, clock delta << 32 */
	CT_OP_BLOCK = CT_OP(2),	      /* the function table of the ENTER ops that follow */
	CT_OP_ENTER = CT_OP(3),	      /* a call record: its function through the block's table */
	CT_OP_ENTER_AT = CT_OP(4),    /* a frame opened otherwise (resume, attach, signal, fork) */
	CT_OP_EXIT = CT_OP(5),
	CT_OP_NO_ENTRY = CT_OP(6), /* a return whose call was never seen */
	CT_OP_EXT = CT_OP(7),	   /* a mark shown where it happened */
	CT_OP_VALUES = CT_OP(8),   /* the captured values of the ENTER or EXIT op that follows */
};

struct ct_op {
	uint8_t type;
	uint8_t flag;	   /* ENTER_AT: before_attach; EXIT: how; VALUES: CT_EV_ENTER or _EXIT */
	uint16_t ext_type; /* EXT */
	uint32_t arg;	   /* ENTER: function index; BLOCK: functions; EXT, VALUES: payload bytes */
	uint64_t clock;	   /* enter or exit clock, the mark's; BLOCK: the block's number */
} __attribute__((packed, aligned(4))); /* it starts on any word */

#define CT_OP_WORDS 4
_Static_assert(sizeof(struct ct_op) == CT_OP_WORDS * 4, "an op is four words");

struct ct_chunk {
	struct ct_chunk *next;
	size_t n, cap;	  /* words */
	uint64_t records; /* records read for it, for the progress line */
	uint32_t *words;
};

/* A selected thread: the chunks made for it, not yet taken. */
struct ct_par_thread {
	const struct ct_thread_info *th;
	struct ct_chunk *head, *tail;
	unsigned queued;
	int done, rc;
};

struct ct_par {
	struct ct_walk *w;
	int marks; /* the sink takes marks */
	struct ct_par_thread *threads;
	size_t nthreads, next; /* next: the first no worker took yet */
	struct ct_chunk *free;
	pthread_mutex_t lock;
	pthread_cond_t ready, room;
	pthread_mutex_t inherit_lock; /* w->inherit is one for all */
	unsigned queue;		      /* chunks a thread's queue holds */
};

static uint32_t ct_words(size_t bytes)
{
	return (uint32_t)((bytes + 3) / 4);
}

static inline uint64_t ct_get64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* A short form's clock delta, if it fits. */
static inline int ct_short_delta(uint64_t clock, uint64_t last, uint64_t *word)
{
	int64_t d = (int64_t)(clock - last);
	*word = (uint64_t)(uint32_t)d << 32;
	return d == (int32_t)d;
}

/* ---- queues ---------------------------------------------------------------------------- */

/* A chunk with room for words (under the lock). */
static struct ct_chunk *ct_chunk_get(struct ct_par *p, size_t words)
{
	struct ct_chunk *c = p->free;
	if (c)
		p->free = c->next;
	else
		c = ct_calloc(1, sizeof(*c));
	size_t cap = words > CT_PAR_CHUNK ? words : CT_PAR_CHUNK;
	if (c->cap < cap) {
		free(c->words);
		c->words = ct_malloc(cap * sizeof(*c->words));
		c->cap = cap;
	}
	c->next = NULL;
	c->n = 0;
	c->records = 0;
	return c;
}

/* Queue c for the reader, once there is room; then a chunk for the next ops. */
static struct ct_chunk *ct_par_publish(struct ct_par *p, struct ct_par_thread *pt,
				       struct ct_chunk *c, size_t words)
{
	ct_words_fence(); /* the chunk's stores seen before it is */
	/* a full queue: wait until the reader took half of it, not just one */
	for (unsigned i = 0;
	     i < CT_PAR_SPIN && __atomic_load_n(&pt->queued, __ATOMIC_RELAXED) >= p->queue; i++)
		ct_cpu_relax();
	pthread_mutex_lock(&p->lock);
	if (pt->queued >= p->queue)
		while (pt->queued > p->queue / 2)
			pthread_cond_wait(&p->room, &p->lock);
	if (pt->tail)
		pt->tail->next = c;
	else
		pt->head = c;
	pt->tail = c;
	__atomic_store_n(&pt->queued, pt->queued + 1, __ATOMIC_RELAXED);
	pthread_cond_signal(&p->ready);
	c = ct_chunk_get(p, words);
	pthread_mutex_unlock(&p->lock);
	return c;
}

/* The next chunk of pt, waiting for it; NULL when the thread has no more. */
static struct ct_chunk *ct_par_take(struct ct_par *p, struct ct_par_thread *pt)
{
	for (unsigned i = 0; i < CT_PAR_SPIN && !__atomic_load_n(&pt->queued, __ATOMIC_RELAXED) &&
			     !__atomic_load_n(&pt->done, __ATOMIC_RELAXED);
	     i++)
		ct_cpu_relax();
	pthread_mutex_lock(&p->lock);
	while (!pt->head && !pt->done)
		pthread_cond_wait(&p->ready, &p->lock);
	struct ct_chunk *c = pt->head;
	if (c) {
		pt->head = c->next;
		if (!pt->head)
			pt->tail = NULL;
		__atomic_store_n(&pt->queued, pt->queued - 1, __ATOMIC_RELAXED);
		if (pt->queued <= p->queue / 2) /* a worker waiting on it waits for this */
			pthread_cond_broadcast(&p->room); /* workers wait on several queues */
	}
	pthread_mutex_unlock(&p->lock);
	return c;
}

static void ct_par_recycle(struct ct_par *p, struct ct_chunk *c)
{
	pthread_mutex_lock(&p->lock);
	c->next = p->free;
	p->free = c;
	pthread_mutex_unlock(&p->lock);
}

/* ---- the workers' side: records to ops --------------------------------------------------- */

/* One thread's records going through the builder, on a worker. */
struct ct_producer {
	struct ct_par *p;
	struct ct_par_thread *pt;
	struct ct_chunk *c;
	struct ct_builder b;
	const struct ct_event *feeding; /* the record the builder is given */
	uint32_t feeding_block;
	const struct ct_event *valued; /* the held call whose values came, while it is fed */
	/* a call record is held until the next, which may carry its values (as walk.c does) */
	struct ct_event held;
	uint32_t held_block;
	int holding, captures;
	struct ct_buf payload; /* the values' payload, aligned */
	struct ct_captured captured;
	/* function tables: of the block being read, and of the held record's if older */
	uint32_t block, emitted_block;
	struct ct_buf table, held_table;
	uint64_t last; /* the clock of the last op with one */
};

/* The chunk is full: publish it, and take one with room for words. */
static __attribute__((noinline)) struct ct_chunk *ct_emit_room(struct ct_producer *k,
							       uint32_t words)
{
	struct ct_chunk *c = k->c;
	if (c->n)
		c = k->c = ct_par_publish(k->p, k->pt, c, words);
	if (c->cap < words) {
		free(c->words);
		c->words = ct_malloc(words * sizeof(*c->words));
		c->cap = words;
	}
	return c;
}

static inline uint32_t *ct_emit(struct ct_producer *k, uint32_t words)
{
	struct ct_chunk *c = k->c;
	if (__builtin_expect(c->n + words > c->cap, 0))
		c = ct_emit_room(k, words);
	uint32_t *s = &c->words[c->n];
	c->n += words;
	return s;
}

/* A short form of two words. */
static void ct_emit_short(struct ct_producer *k, uint64_t w)
{
	uint32_t *s = ct_emit(k, 2);
	s[0] = (uint32_t)w;
	s[1] = (uint32_t)(w >> 32);
}

/* An op of four words, then extra more. */
static struct ct_op *ct_emit_op(struct ct_producer *k, uint8_t type, uint64_t clock, uint32_t extra)
{
	struct ct_op *op = (struct ct_op *)ct_emit(k, CT_OP_WORDS + extra);
	memset(op, 0, sizeof(*op));
	op->type = type;
	op->clock = clock;
	return op;
}

/* An op carrying a frame's address and stack pointer, then len bytes of payload. */
static struct ct_op *ct_emit_with(struct ct_producer *k, uint8_t type, uint64_t clock,
				  uint64_t addr, uint64_t sp, const void *payload, uint32_t len)
{
	struct ct_op *op = ct_emit_op(k, type, clock, 4 + ct_words(len));
	uint8_t *extra = (uint8_t *)(op + 1);
	op->arg = len;
	memcpy(extra, &addr, 8);
	memcpy(extra + 8, &sp, 8);
	if (len)
		memcpy(extra + 16, payload, len);
	return op;
}

static void ct_emit_block(struct ct_producer *k, uint32_t block)
{
	const struct ct_buf *t = block == k->block ? &k->table : &k->held_table;
	struct ct_op *op = ct_emit_op(k, CT_OP_BLOCK, block, ct_words(t->len));
	op->arg = (uint32_t)(t->len / 8); /* addresses: two words each */
	if (t->len)
		memcpy(op + 1, t->data, t->len);
	k->emitted_block = block;
}

/* The held call's values, if they are this frame's (as ct_values_of finds them). */
static void ct_emit_values(struct ct_producer *k, const struct ct_frame *bf, unsigned kind)
{
	const struct ct_event *v = k->valued;
	if (!v || v->kind != kind || v->addr != bf->addr || v->sp != bf->sp)
		return;
	struct ct_op *op = ct_emit_with(k, CT_OP_VALUES, 0, bf->addr, bf->sp, k->payload.data,
					(uint32_t)k->payload.len);
	op->flag = (uint8_t)kind;
}

static __attribute__((noinline)) void ct_produce_enter_slow(struct ct_producer *k,
							    const struct ct_frame *bf)
{
	if (k->valued)
		ct_emit_values(k, bf, CT_EV_ENTER);
	const struct ct_event *ev = k->feeding;
	if (ev && ev->kind == CT_EV_ENTER) { /* the frame of the call record being fed */
		if (k->feeding_block != k->emitted_block)
			ct_emit_block(k, k->feeding_block);
		uint64_t w;
		int fits = ct_short_delta(bf->enter_clock, k->last, &w);
		uint64_t d = bf->enter_clock - k->last;
		k->last = bf->enter_clock;
		if (d < CT_WORD_ENTER_DELTA && ev->fidx < CT_WORD_ENTER_FUNCS)
			*ct_emit(k, 1) = (uint32_t)d << 13 | ev->fidx << 1;
		else if (fits && ev->fidx < (1u << 24))
			ct_emit_short(k, w | (uint64_t)ev->fidx << 8 | CT_OP_ENTER_SHORT);
		else
			ct_emit_op(k, CT_OP_ENTER, bf->enter_clock, 0)->arg = ev->fidx;
		return;
	}
	k->last = bf->enter_clock;
	struct ct_op *op =
		ct_emit_with(k, CT_OP_ENTER_AT, bf->enter_clock, bf->addr, bf->sp, NULL, 0);
	op->flag = (uint8_t)bf->before_attach;
}

/* A call: one word, unless it needs more (values, a new table, a frame not of a record). */
static void ct_produce_enter(void *ctx, struct ct_frame *bf, uint32_t depth)
{
	struct ct_producer *k = ctx;
	const struct ct_event *ev = k->feeding;
	struct ct_chunk *c = k->c;
	uint64_t d = bf->enter_clock - k->last;
	(void)depth;
	if (__builtin_expect(!k->valued && ev && ev->kind == CT_EV_ENTER &&
				     k->feeding_block == k->emitted_block &&
				     ev->fidx < CT_WORD_ENTER_FUNCS && c->n < c->cap &&
				     d < CT_WORD_ENTER_DELTA,
			     1)) {
		ct_word_store(&c->words[c->n++], (uint32_t)d << 13 | ev->fidx << 1);
		k->last = bf->enter_clock;
		return;
	}
	ct_produce_enter_slow(k, bf);
}

static __attribute__((noinline)) void ct_produce_exit_slow(struct ct_producer *k,
							   const struct ct_frame *bf,
							   uint64_t exit_clock, enum ct_close how)
{
	if (k->valued)
		ct_emit_values(k, bf, CT_EV_EXIT);
	uint64_t w, d = exit_clock - k->last;
	int fits = ct_short_delta(exit_clock, k->last, &w);
	k->last = exit_clock;
	if (how == CT_CLOSE_NO_ENTRY)
		ct_emit_with(k, CT_OP_NO_ENTRY, exit_clock, bf->addr, bf->sp, NULL, 0);
	else if (d < CT_WORD_EXIT_DELTA)
		*ct_emit(k, 1) = (uint32_t)d << 4 | (uint32_t)how << 2 | 1;
	else if (fits)
		ct_emit_short(k, w | (uint64_t)how << 8 | CT_OP_EXIT_SHORT);
	else
		ct_emit_op(k, CT_OP_EXIT, exit_clock, 0)->flag = (uint8_t)how;
}

/* A return (or a frame closed otherwise): one word, unless it needs more. */
static void ct_produce_exit(void *ctx, struct ct_frame *bf, uint32_t depth, uint64_t exit_clock,
			    uint64_t ticks, enum ct_close how)
{
	struct ct_producer *k = ctx;
	struct ct_chunk *c = k->c;
	uint64_t d = exit_clock - k->last;
	(void)depth, (void)ticks; /* the reader has the frame's enter clock */
	if (__builtin_expect(!k->valued && how != CT_CLOSE_NO_ENTRY && c->n < c->cap &&
				     d < CT_WORD_EXIT_DELTA,
			     1)) {
		ct_word_store(&c->words[c->n++], (uint32_t)d << 4 | (uint32_t)how << 2 | 1);
		k->last = exit_clock;
		return;
	}
	ct_produce_exit_slow(k, bf, exit_clock, how);
}

static void ct_produce_ext(void *ctx, const struct ct_event *ev, uint32_t depth)
{
	struct ct_producer *k = ctx;
	(void)depth;
	if (!k->p->marks || !ct_shown_ext(ev->ext_type))
		return;
	struct ct_op *op = ct_emit_op(k, CT_OP_EXT, ev->clock, ct_words(ev->ext_len));
	op->ext_type = ev->ext_type;
	op->arg = ev->ext_len;
	if (ev->ext_len)
		memcpy(op + 1, ev->ext, ev->ext_len);
	k->last = ev->clock;
}

static const struct ct_builder_ops ct_produce_ops = {
	.enter = ct_produce_enter,
	.exit = ct_produce_exit,
	.ext = ct_produce_ext,
};

static void ct_produce_feed(struct ct_producer *k, const struct ct_event *ev, uint32_t block)
{
	k->feeding = ev;
	k->feeding_block = block;
	ct_builder_event(&k->b, ev);
	k->feeding = NULL;
}

/* A record, through the hold walk.c's ct_walker_event keeps for captured values. */
static void ct_produce_event(struct ct_producer *k, const struct ct_event *ev)
{
	if (k->holding) {
		k->holding = 0;
		if (ct_values_match(&k->held, ev, &k->payload, &k->captured)) {
			k->valued = &k->held;
			ct_produce_feed(k, &k->held, k->held_block);
			k->valued = NULL;
			return;
		}
		ct_produce_feed(k, &k->held, k->held_block);
	}
	if (k->captures && (ev->kind == CT_EV_ENTER || ev->kind == CT_EV_EXIT)) {
		k->held = *ev;
		k->held.ext = NULL;
		k->held_block = k->block;
		k->holding = 1;
		return;
	}
	ct_produce_feed(k, ev, k->block);
}

/* A new block's table; the held record's, from the block before, kept. */
static void ct_produce_block(struct ct_producer *k, const struct ct_stream *s)
{
	if (k->holding && k->held_block == k->block) {
		struct ct_buf t = k->table;
		k->table = k->held_table;
		k->held_table = t;
	}
	k->block = s->blocks_read;
	k->table.len = 0;
	ct_buf_append(&k->table, s->dec.funcs, (size_t)s->dec.hdr.nfuncs * 8);
}

/* What the forked child's main thread starts in, as walk.c's ct_walker_inherit. */
static void ct_produce_inherited(struct ct_producer *k)
{
	struct ct_frame *frames;
	struct ct_event ev;
	struct ct_ext_fork from;

	pthread_mutex_lock(&k->p->inherit_lock);
	int64_t n = ct_walk_forked(k->p->w, k->pt->th, &frames, &ev, &from);
	pthread_mutex_unlock(&k->p->inherit_lock);
	if (n < 0)
		return;
	ct_builder_seed(&k->b, frames, (uint32_t)n);
	free(frames);
	ct_produce_feed(k, &ev, k->block);
}

static int ct_produce_records(struct ct_producer *k)
{
	struct ct_stream s;
	struct ct_event ev;
	int r;

	ct_stream_open(&s, k->p->w->t, k->pt->th);
	while ((r = ct_stream_next_block(&s)) > 0) {
		uint64_t n = 0;
		ct_produce_block(k, &s);
		if (k->captures) {
			while ((r = ct_decoder_next(&s.dec, &ev)) > 0) {
				n++;
				ct_produce_event(k, &ev);
			}
		} else { /* the common case: each record straight to the builder */
			k->feeding = &ev;
			k->feeding_block = k->block;
			while ((r = ct_decoder_next(&s.dec, &ev)) > 0) {
				n++;
				ct_builder_event(&k->b, &ev);
			}
			k->feeding = NULL;
		}
		k->c->records += n;
		if (r < 0) {
			fprintf(stderr, "calltrace: %s: corrupt trace: bad record\n", s.t->path);
			break;
		}
	}
	ct_stream_close(&s);
	return r < 0 ? -1 : 0;
}

/* A thread's records into its queue, ending with what is left open. */
static int ct_produce(struct ct_par *p, struct ct_par_thread *pt)
{
	struct ct_producer k = { .p = p, .pt = pt, .emitted_block = UINT32_MAX };

	k.captures = p->w->captures;
	pthread_mutex_lock(&p->lock);
	k.c = ct_chunk_get(p, 0);
	pthread_mutex_unlock(&p->lock);
	ct_builder_init(&k.b, &ct_produce_ops, &k);
	ct_produce_inherited(&k);
	int rc = ct_produce_records(&k);
	if (k.holding)
		ct_produce_feed(&k, &k.held, k.held_block);
	ct_builder_finish(&k.b);
	ct_builder_free(&k.b);
	struct ct_chunk *last = ct_par_publish(p, pt, k.c, 0);
	ct_par_recycle(p, last);
	ct_buf_free(&k.payload);
	ct_buf_free(&k.table);
	ct_buf_free(&k.held_table);
	return rc;
}

static void *ct_par_worker(void *arg)
{
	struct ct_par *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		struct ct_par_thread *pt = p->next < p->nthreads ? &p->threads[p->next++] : NULL;
		pthread_mutex_unlock(&p->lock);
		if (!pt)
			return NULL;
		int rc = ct_produce(p, pt);
		pthread_mutex_lock(&p->lock);
		pt->rc = rc;
		__atomic_store_n(&pt->done, 1, __ATOMIC_RELAXED);
		pthread_cond_signal(&p->ready);
		pthread_mutex_unlock(&p->lock);
	}
}

/* ---- the caller's side: ops to the filters and the sink ---------------------------------- */

/* One thread's ops going to the walker, on the caller's thread. */
struct ct_consumer {
	struct ct_walker *tw;
	struct ct_frame *stack; /* the builder's stack, as the ops tell it */
	uint32_t depth, cap;
	uint64_t *table; /* the current block's function addresses */
	uint32_t nfuncs, ntable, block;
	uint64_t last; /* the clock of the last op with one */
	int valued;    /* the next ENTER or EXIT op has the values in tw->held */
};

static struct ct_frame *ct_consumer_push(struct ct_consumer *c)
{
	if (c->depth == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->stack = ct_realloc(c->stack, c->cap * sizeof(*c->stack));
	}
	return &c->stack[c->depth++];
}

static void ct_consume_block(struct ct_consumer *c, const struct ct_op *op)
{
	if (op->arg > c->ntable) {
		c->table = ct_realloc(c->table, op->arg * sizeof(*c->table));
		c->ntable = op->arg;
	}
	memcpy(c->table, op + 1, (size_t)op->arg * 8);
	c->nfuncs = op->arg;
	c->block = (uint32_t)op->clock;
}

/* The values of the call the next op enters or leaves (what walk.c's ct_values_for_held finds). */
static void ct_consume_values(struct ct_consumer *c, const struct ct_op *op)
{
	struct ct_walker *tw = c->tw;
	const uint8_t *extra = (const uint8_t *)(op + 1);
	tw->held.kind = op->flag;
	tw->held.addr = ct_get64(extra);
	tw->held.sp = ct_get64(extra + 8);
	tw->captured_payload.len = 0;
	ct_buf_append(&tw->captured_payload, extra + 16, op->arg);
	if (ct_captured_decode((const uint64_t *)tw->captured_payload.data, op->arg / 8,
			       &tw->captured) < 0)
		return; /* the worker decoded it: cannot happen */
	ct_walker_values_ready(tw);
	c->valued = 1;
}

/* A valued frame is the held call's: the frame matches it, as it did in the worker. */
static void ct_consume_valued(struct ct_consumer *c, struct ct_frame *f)
{
	f->addr = c->tw->held.addr;
	f->sp = c->tw->held.sp;
	c->tw->cur = &c->tw->held;
}

static void ct_consume_enter(struct ct_consumer *c, uint32_t fidx, uint64_t clock)
{
	struct ct_walker *tw = c->tw;
	struct ct_event ev = { .clock = clock, .fidx = fidx };
	ev.addr = c->table[fidx];
	struct ct_frame *f = ct_consumer_push(c);
	f->addr = ev.addr;
	f->sp = 0;
	f->enter_clock = clock;
	f->before_attach = 0;
	f->user = ct_walker_func(tw, c->block, &ev, c->nfuncs);
	if (__builtin_expect(c->valued, 0))
		ct_consume_valued(c, f);
	ct_walk_enter(tw, f, c->depth - 1);
}

static void ct_consume_enter_at(struct ct_consumer *c, const struct ct_op *op)
{
	struct ct_walker *tw = c->tw;
	const uint8_t *extra = (const uint8_t *)(op + 1);
	struct ct_frame *f = ct_consumer_push(c);
	f->addr = ct_get64(extra);
	f->sp = ct_get64(extra + 8);
	f->enter_clock = op->clock;
	f->before_attach = op->flag;
	f->user = ct_symbols_lookup(tw->w->sym, tw->th->instance, f->addr, f->enter_clock);
	if (c->valued)
		ct_consume_valued(c, f);
	ct_walk_enter(tw, f, c->depth - 1);
}

static void ct_consume_exit(struct ct_consumer *c, enum ct_close how, uint64_t clock)
{
	if (!c->depth)
		return; /* the worker's builder pops only what it pushed */
	struct ct_frame *f = &c->stack[--c->depth];
	uint64_t ticks = clock > f->enter_clock ? clock - f->enter_clock : 0;
	if (__builtin_expect(c->valued, 0))
		ct_consume_valued(c, f);
	ct_walk_exit(c->tw, f, c->depth, clock, ticks, how);
}

static void ct_consume_no_entry(struct ct_consumer *c, const struct ct_op *op)
{
	const uint8_t *extra = (const uint8_t *)(op + 1);
	struct ct_frame f = { .addr = ct_get64(extra),
			      .sp = ct_get64(extra + 8),
			      .enter_clock = op->clock };
	if (c->valued)
		ct_consume_valued(c, &f);
	ct_walk_exit(c->tw, &f, c->depth, op->clock, 0, CT_CLOSE_NO_ENTRY);
}

static void ct_consume_ext(struct ct_consumer *c, const struct ct_op *op)
{
	struct ct_event ev = { .clock = op->clock,
			       .kind = CT_EV_EXT,
			       .ext_type = op->ext_type,
			       .ext = (const uint8_t *)(op + 1),
			       .ext_len = op->arg };
	ct_walk_ext(c->tw, &ev, c->depth);
}

/* The clock of a short form. */
static inline uint64_t ct_short_clock(struct ct_consumer *c, uint64_t word)
{
	return c->last += (uint64_t)(int64_t)(int32_t)(word >> 32);
}

/* The ops of a long form; how many words it took. */
static size_t ct_consume_op(struct ct_consumer *c, const struct ct_op *op)
{
	switch (op->type) {
	case CT_OP_BLOCK:
		ct_consume_block(c, op);
		return CT_OP_WORDS + 2 * op->arg;
	case CT_OP_VALUES:
		ct_consume_values(c, op);
		return CT_OP_WORDS + 4 + ct_words(op->arg);
	case CT_OP_ENTER:
		ct_consume_enter(c, op->arg, c->last = op->clock);
		break;
	case CT_OP_EXIT:
		ct_consume_exit(c, (enum ct_close)op->flag, c->last = op->clock);
		break;
	case CT_OP_ENTER_AT:
		c->last = op->clock;
		ct_consume_enter_at(c, op);
		break;
	case CT_OP_NO_ENTRY:
		c->last = op->clock;
		ct_consume_no_entry(c, op);
		break;
	case CT_OP_EXT:
		c->last = op->clock;
		ct_consume_ext(c, op);
		return CT_OP_WORDS + ct_words(op->arg);
	}
	c->valued = 0; /* a call or return took the values, if any */
	c->tw->cur = NULL;
	return CT_OP_WORDS + (op->type == CT_OP_ENTER_AT || op->type == CT_OP_NO_ENTRY ? 4 : 0);
}

static void ct_consume_chunk(struct ct_consumer *c, const struct ct_chunk *ch)
{
	const uint32_t *words = ch->words;
	for (size_t i = 0; i < ch->n;) {
		uint32_t w = words[i];
		if (!(w & 1)) {
			ct_consume_enter(c, (w >> 1) & (CT_WORD_ENTER_FUNCS - 1),
					 c->last += w >> 13);
			i++;
		} else if (!(w & 2)) {
			ct_consume_exit(c, (enum ct_close)((w >> 2) & 3), c->last += w >> 4);
			i++;
		} else {
			uint64_t w64 = w | (uint64_t)words[i + 1] << 32;
			switch (w & 0xff) {
			case CT_OP_ENTER_SHORT:
				ct_consume_enter(c, (uint32_t)(w64 >> 8) & 0xffffff,
						 ct_short_clock(c, w64));
				break;
			case CT_OP_EXIT_SHORT:
				ct_consume_exit(c, (enum ct_close)((w64 >> 8) & 0xff),
						ct_short_clock(c, w64));
				break;
			default:
				i += ct_consume_op(c, (const struct ct_op *)&words[i]);
				continue;
			}
			i += 2;
		}
		if (__builtin_expect(c->valued, 0)) {
			c->valued = 0;
			c->tw->cur = NULL;
		}
	}
}

static int ct_consume(struct ct_par *p, struct ct_par_thread *pt, const struct ct_sink *sink,
		      void *ctx)
{
	struct ct_progress *progress = &p->w->progress;
	struct ct_consumer c = { .tw = ct_walker_create(p->w, pt->th, sink, ctx) };
	struct ct_chunk *ch;

	while ((ch = ct_par_take(p, pt))) {
		ct_consume_chunk(&c, ch);
		if (progress->enabled) {
			progress->done += ch->records;
			ct_progress_update(progress);
		}
		ct_par_recycle(p, ch);
	}
	ct_walker_close(c.tw);
	free(c.stack);
	free(c.table);
	return pt->rc; /* read under the lock by ct_par_take, which saw done */
}

/* ---- the run ----------------------------------------------------------------------------- */

static void ct_par_free(struct ct_par *p)
{
	while (p->free) {
		struct ct_chunk *c = p->free;
		p->free = c->next;
		free(c->words);
		free(c);
	}
	free(p->threads);
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->inherit_lock);
	pthread_cond_destroy(&p->ready);
	pthread_cond_destroy(&p->room);
}

int ct_walk_run_parallel(struct ct_walk *w, const struct ct_sink *sink, void *ctx, unsigned jobs)
{
	struct ct_par p = { .w = w, .marks = sink->mark != NULL };
	int rc = 0;

	p.threads = ct_calloc(w->t->nthreads + 1, sizeof(*p.threads));
	for (size_t i = 0; i < w->t->nthreads; i++)
		if (ct_walk_selects(w, &w->t->threads[i]))
			p.threads[p.nthreads++].th = &w->t->threads[i];
	pthread_mutex_init(&p.lock, NULL);
	pthread_mutex_init(&p.inherit_lock, NULL);
	pthread_cond_init(&p.ready, NULL);
	pthread_cond_init(&p.room, NULL);

	size_t nworkers = ct_min((size_t)jobs - 1, p.nthreads), started = 0;
	p.queue = nworkers ? (unsigned)ct_max(4, CT_PAR_QUEUED / nworkers) : 4;
	pthread_t *workers = ct_calloc(nworkers + 1, sizeof(*workers));
	while (started < nworkers && !pthread_create(&workers[started], NULL, ct_par_worker, &p))
		started++;
	if (!started && p.nthreads) { /* no thread to be had: the caller walks on its own */
		free(workers);
		ct_par_free(&p);
		return 1;
	}
	for (size_t i = 0; i < p.nthreads; i++)
		if (ct_consume(&p, &p.threads[i], sink, ctx) < 0)
			rc = -1;
	for (size_t i = 0; i < started; i++)
		pthread_join(workers[i], NULL);
	free(workers);
	ct_par_free(&p);
	return rc;
}
