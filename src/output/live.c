/* SPDX-License-Identifier: MIT */
/*
 * calltrace live: the tree printed while the program runs. The recorder
 * writes the trace as usual, reading what threads write into chunks they are
 * still filling every few tens of milliseconds; after each of those passes it
 * calls us, and we read the blocks the file has gained and print them: one
 * walker and one replay part per thread, kept from pass to pass, their lines
 * interleaved as they come (each line says its thread).
 *
 * live --kernel: a thread's system calls and off-CPU intervals come later
 * than its calls (the recorder pairs the kernel's events 2 ms behind, and
 * writes one when it ends), so each thread's blocks wait until the recorder
 * says its kernel records up to their last call are written; then the
 * walker's calls go through kwalk, as in replay, with the thread's records.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live.h"
#include "output.h"
#include "../analysis/kwalk.h"
#include "../analysis/walk.h"

/* live --kernel: a tid's records not passed yet, in time order (the instances of a tid share it) */
struct ct_live_krecs {
	struct ct_kernel_rec *r;
	size_t n, cap, next;	      /* next: the first not passed */
	int sorted;		      /* r[next..n) in time order */
	struct ct_live_thread *owner; /* the tid's latest thread */
};

struct ct_live_thread {
	struct ct_thread_info info; /* a copy: the trace's array moves as it grows */
	struct ct_walker *walker;
	void *replay;
	struct ct_kwrap kw;	     /* live --kernel: between the walker and replay */
	struct ct_live_krecs *krecs; /* live --kernel: its tid's */
	size_t *held;		     /* live --kernel: its blocks not shown yet */
	size_t nheld, capheld;
};

struct ct_live {
	const char *path;
	FILE *out;
	const struct ct_filter *filter;
	const struct ct_replay_opts *ropts;
	int demangle;
	struct ct_trace *t;
	struct ct_symbols *sym;
	struct ct_walk *walk;
	struct ct_replay_out *ro;
	struct ct_map threads; /* snapshot, instance, tid -> index + 1 in th (0: not shown) */
	struct ct_live_thread **th;
	size_t nth;
	size_t blocks_done;
	struct ct_decoder dec;
	struct ct_buf payload;
	int failed;
	/* live --kernel */
	uint64_t (*complete)(void *arg, int32_t tid);
	void *complete_arg;
	struct ct_map ktids; /* tid -> index + 1 in krecs */
	struct ct_live_krecs **krecs;
	size_t nkrecs;
	size_t krecs_done; /* the trace's kernel records taken */
};

struct ct_live *ct_live_new(const char *trace_path, FILE *out, const struct ct_filter *f,
			    const struct ct_replay_opts *o, int demangle)
{
	struct ct_live *l = ct_calloc(1, sizeof(*l));
	l->path = trace_path;
	l->out = out;
	l->filter = f;
	l->ropts = o;
	l->demangle = demangle;
	ct_map_init(&l->threads, 64);
	ct_map_init(&l->ktids, 64);
	ct_decoder_init(&l->dec);
	return l;
}

void ct_live_kernel(struct ct_live *l, uint64_t (*complete)(void *arg, int32_t tid), void *arg)
{
	if (l->filter->no_kernel)
		return;
	l->complete = complete;
	l->complete_arg = arg;
}

static struct ct_live_krecs *ct_live_krecs_of(struct ct_live *l, int32_t tid)
{
	int added;
	uint64_t *slot = ct_map_put(&l->ktids, (uint64_t)(uint32_t)tid | UINT64_C(1) << 63, &added);
	if (added) {
		l->krecs = ct_realloc(l->krecs, (l->nkrecs + 1) * sizeof(*l->krecs));
		l->krecs[l->nkrecs] = ct_calloc(1, sizeof(**l->krecs));
		l->krecs[l->nkrecs]->sorted = 1;
		*slot = ++l->nkrecs;
	}
	return l->krecs[*slot - 1];
}

/*
 * The kernel records the trace gained, to their tids. A record is written
 * when it ends: one may start before another written earlier (a system call
 * around an off-CPU interval), never before a record already passed (those
 * started before the thread's last call shown, and what started then was
 * complete, so written, when it was shown).
 */
static void ct_live_take_kernel(struct ct_live *l)
{
	for (; l->krecs_done < l->t->nkrecs; l->krecs_done++) {
		const struct ct_kernel_rec *r = &l->t->krecs[l->krecs_done];
		struct ct_live_krecs *k = ct_live_krecs_of(l, r->tid);
		if (k->n == k->cap) {
			k->cap = k->cap ? k->cap * 2 : 256;
			k->r = ct_realloc(k->r, k->cap * sizeof(*k->r));
		}
		k->r[k->n++] = *r;
		k->sorted = 0;
	}
}

static int ct_live_krec_order(const void *a, const void *b)
{
	const struct ct_kernel_rec *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind); /* a system call, then the wait in it */
}

/* Give th's kwalk its tid's records not passed yet. */
static void ct_live_feed(struct ct_live_thread *th)
{
	struct ct_live_krecs *k = th->krecs;
	if (!k->sorted) {
		qsort(k->r + k->next, k->n - k->next, sizeof(*k->r), ct_live_krec_order);
		k->sorted = 1;
	}
	ct_kwrap_feed(&th->kw, k->r + k->next, k->r + k->n);
}

static void ct_live_fed(struct ct_live_thread *th)
{
	th->krecs->next = (size_t)(th->kw.next - th->krecs->r);
}

static int ct_live_open(struct ct_live *l)
{
	char err[512];
	l->t = ct_trace_open(l->path, err, sizeof(err));
	if (!l->t)
		return -1; /* nothing written yet */
	if (!l->t->nclocks) {
		/*
		 * The start's clock sample is not written yet (the writer holds
		 * small blocks back): the trace's clock origin is fixed when it
		 * opens, so opening now would stamp lines from the clock's zero,
		 * not from the start as replay does.
		 */
		ct_trace_close(l->t);
		l->t = NULL;
		return -1;
	}
	l->sym = ct_symbols_open(l->t, l->demangle);
	l->walk = ct_walk_new(l->t, l->sym, l->filter, err, sizeof(err));
	if (!l->walk) {
		ct_error("%s", err);
		l->failed = 1;
		return -1;
	}
	l->ro = ct_replay_out_new(l->t, l->sym, l->out, l->ropts, 1);
	return 0;
}

/* The state of a block's thread, made at its first block; NULL if it is not shown. */
static struct ct_live_thread *ct_live_thread_of(struct ct_live *l, const struct ct_events_hdr *h)
{
	uint64_t key =
		((uint64_t)h->snapshot << 48 ^ (uint64_t)h->instance << 32 ^ (uint32_t)h->tid) |
		UINT64_C(1) << 63;
	int added;
	uint64_t *slot = ct_map_put(&l->threads, key, &added);
	if (!added)
		return *slot ? l->th[*slot - 1] : NULL;

	struct ct_live_thread *th = ct_calloc(1, sizeof(*th));
	th->info.instance = h->instance;
	th->info.pid = h->pid;
	th->info.tid = h->tid;
	th->info.snapshot = h->snapshot;
	th->info.first_clock = h->first_clock;
	if (!ct_walk_selects(l->walk, &th->info)) {
		free(th);
		return NULL; /* *slot stays 0 */
	}
	l->th = ct_realloc(l->th, (l->nth + 1) * sizeof(*l->th));
	l->th[l->nth++] = th;
	*slot = l->nth;
	th->replay = ct_replay_thread_new(l->ro);
	if (!l->complete) {
		th->walker = ct_walker_new(l->walk, &th->info, &ct_replay_sink, th->replay);
		return th;
	}
	th->krecs = ct_live_krecs_of(l, th->info.tid);
	if (th->krecs->owner) /* an exec: the tid's records from now on are this thread's */
		th->krecs->owner->kw.superseded = 1;
	th->krecs->owner = th;
	ct_kwrap_init_fed(&th->kw, l->t, l->filter, &ct_replay_sink, th->replay, ct_replay_kernel);
	ct_live_feed(th);
	th->walker = ct_walker_new(l->walk, &th->info, &ct_kwrap_sink, &th->kw);
	ct_live_fed(th);
	return th;
}

static void ct_live_block(struct ct_live *l, struct ct_live_thread *th, size_t i)
{
	const struct ct_block_ref *b = &l->t->events[i];
	struct ct_event ev;

	l->payload.len = 0;
	ct_buf_reserve(&l->payload, b->length);
	if (pread(l->t->fd, l->payload.data, b->length, (off_t)b->offset) != (ssize_t)b->length ||
	    ct_decoder_begin(&l->dec, l->payload.data, b->length) < 0)
		return;
	th->info.lost += b->hdr.lost;
	if (th->krecs)
		ct_live_feed(th);
	while (ct_decoder_next(&l->dec, &ev) > 0)
		ct_walker_event(th->walker, &ev, (uint32_t)i, l->dec.hdr.nfuncs);
	if (th->krecs)
		ct_live_fed(th);
}

/* A new block: shown now, or (live --kernel) held until its thread's kernel side is in. */
static void ct_live_new_block(struct ct_live *l, size_t i)
{
	struct ct_live_thread *th = ct_live_thread_of(l, &l->t->events[i].hdr);
	if (!th)
		return;
	if (!l->complete) {
		ct_live_block(l, th, i);
		return;
	}
	if (th->nheld == th->capheld) {
		th->capheld = th->capheld ? th->capheld * 2 : 16;
		th->held = ct_realloc(th->held, th->capheld * sizeof(*th->held));
	}
	th->held[th->nheld++] = i;
}

/* live --kernel: th's blocks whose calls all came before its kernel side's watermark (all: final) */
static void ct_live_release(struct ct_live *l, struct ct_live_thread *th, int final)
{
	uint64_t upto = final ? UINT64_MAX : l->complete(l->complete_arg, th->info.tid);
	size_t done = 0;
	while (done < th->nheld && l->t->events[th->held[done]].hdr.last_clock < upto)
		ct_live_block(l, th, th->held[done++]);
	memmove(th->held, th->held + done, (th->nheld - done) * sizeof(*th->held));
	th->nheld -= done;
}

void ct_live_tick(struct ct_live *l)
{
	char err[512];

	if (l->failed)
		return;
	if (!l->t) {
		if (ct_live_open(l) < 0)
			return;
	} else if (ct_trace_follow(l->t, err, sizeof(err)) < 0) {
		ct_error("%s", err);
		l->failed = 1;
		return;
	}
	ct_symbols_refresh(l->sym);
	if (l->complete)
		ct_live_take_kernel(l);
	for (; l->blocks_done < l->t->nevents; l->blocks_done++)
		ct_live_new_block(l, l->blocks_done);
	for (size_t i = 0; l->complete && i < l->nth; i++)
		ct_live_release(l, l->th[i], 0);
	if (ct_replay_out_flush(l->ro) < 0)
		l->failed = 1; /* the reader went away (a closed pipe): keep recording */
}

int ct_live_end(struct ct_live *l)
{
	ct_live_tick(l);
	/* the recording is over: every kernel record is in */
	for (size_t i = 0; l->complete && !l->failed && i < l->nth; i++)
		ct_live_release(l, l->th[i], 1);
	for (size_t i = 0; i < l->nth; i++) {
		if (l->th[i]->krecs)
			ct_live_feed(l->th[i]);
		ct_walker_end(l->th[i]->walker);
		ct_replay_thread_free(l->ro, l->th[i]->replay);
		free(l->th[i]->held);
		free(l->th[i]);
	}
	for (size_t i = 0; i < l->nkrecs; i++) {
		free(l->krecs[i]->r);
		free(l->krecs[i]);
	}
	free(l->krecs);
	ct_map_free(&l->ktids);
	int rc = l->failed ? -1 : 0;
	if (l->ro) {
		if (ct_replay_out_flush(l->ro) < 0)
			rc = -1;
		ct_replay_out_free(l->ro);
	}
	ct_walk_free(l->walk);
	ct_symbols_close(l->sym);
	ct_trace_close(l->t);
	ct_decoder_free(&l->dec);
	ct_buf_free(&l->payload);
	ct_map_free(&l->threads);
	free(l->th);
	free(l);
	return rc;
}
