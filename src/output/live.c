/* SPDX-License-Identifier: MIT */
/*
 * calltrace live: the tree printed while the program runs. The recorder
 * writes the trace as usual, reading what threads write into chunks they are
 * still filling every few tens of milliseconds; after each of those passes it
 * calls us, and we read the blocks the file has gained and print them: one
 * walker and one replay part per thread, kept from pass to pass, their lines
 * interleaved as they come (each line says its thread).
 */
#include <stdlib.h>
#include <unistd.h>

#include "live.h"
#include "output.h"
#include "../analysis/walk.h"

struct ct_live_thread {
	struct ct_thread_info info; /* a copy: the trace's array moves as it grows */
	struct ct_walker *walker;
	void *replay;
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
	ct_decoder_init(&l->dec);
	return l;
}

static int ct_live_open(struct ct_live *l)
{
	char err[512];
	l->t = ct_trace_open(l->path, err, sizeof(err));
	if (!l->t)
		return -1; /* nothing written yet */
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
	uint64_t key = ((uint64_t)h->snapshot << 48 ^ (uint64_t)h->instance << 32 ^
			(uint32_t)h->tid) |
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
	th->walker = ct_walker_new(l->walk, &th->info, &ct_replay_sink, th->replay);
	return th;
}

static void ct_live_block(struct ct_live *l, size_t i)
{
	const struct ct_block_ref *b = &l->t->events[i];
	struct ct_live_thread *th = ct_live_thread_of(l, &b->hdr);
	struct ct_event ev;

	if (!th)
		return;
	l->payload.len = 0;
	ct_buf_reserve(&l->payload, b->length);
	if (pread(l->t->fd, l->payload.data, b->length, (off_t)b->offset) != (ssize_t)b->length ||
	    ct_decoder_begin(&l->dec, l->payload.data, b->length) < 0)
		return;
	th->info.lost += b->hdr.lost;
	while (ct_decoder_next(&l->dec, &ev) > 0)
		ct_walker_event(th->walker, &ev, (uint32_t)i, l->dec.hdr.nfuncs);
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
	for (; l->blocks_done < l->t->nevents; l->blocks_done++)
		ct_live_block(l, l->blocks_done);
	if (ct_replay_out_flush(l->ro) < 0)
		l->failed = 1; /* the reader went away (a closed pipe): keep recording */
}

int ct_live_end(struct ct_live *l)
{
	ct_live_tick(l);
	for (size_t i = 0; i < l->nth; i++) {
		ct_walker_end(l->th[i]->walker);
		ct_replay_thread_free(l->ro, l->th[i]->replay);
		free(l->th[i]);
	}
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
