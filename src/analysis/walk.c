/* SPDX-License-Identifier: MIT */
/*
 * The walker (see walk.h). It keeps, beside the builder's stack, what each
 * open call is to the filters:
 *
 *   SHOWN    visible, its enter given to the sink
 *   PENDING  visible if it lasts long enough (-t) or a visible call appears
 *            under it: its enter is held back until one of these happens
 *   ELIDED   not shown, but what it calls is, in its place (--no-std, out of
 *            the --since/--until window, outside any -F match)
 *   DROPPED  neither it nor anything under it (-N, -D)
 */
#include <regex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inherit.h"
#include "protomap.h"
#include "walk_int.h"
#include "../common/names.h"

static size_t ct_count(const char **v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

static int ct_compile(regex_t **out, const char **pats, size_t n, char *err, size_t errlen)
{
	*out = ct_calloc(n, sizeof(regex_t));
	for (size_t i = 0; i < n; i++) {
		int r = regcomp(&(*out)[i], pats[i], REG_EXTENDED | REG_NOSUB);
		if (r) {
			char msg[256];
			regerror(r, &(*out)[i], msg, sizeof(msg));
			snprintf(err, errlen, "bad regular expression '%s': %s", pats[i], msg);
			for (size_t k = 0; k < i; k++)
				regfree(&(*out)[k]);
			free(*out);
			*out = NULL;
			return -1;
		}
	}
	return 0;
}

struct ct_walk *ct_walk_new(struct ct_trace *t, struct ct_symbols *sym, const struct ct_filter *f,
			    char *err, size_t errlen)
{
	struct ct_walk *w = ct_calloc(1, sizeof(*w));
	w->t = t;
	w->sym = sym;
	w->f = *f;
	w->nonly = ct_count(f->only);
	w->nhide = ct_count(f->hide);
	if (f->regex && (ct_compile(&w->only_re, f->only, w->nonly, err, errlen) < 0 ||
			 ct_compile(&w->hide_re, f->hide, w->nhide, err, errlen) < 0)) {
		ct_walk_free(w);
		return NULL;
	}
	w->min_ticks = f->min_ns / t->ns_per_tick;
	w->plain = !w->nonly && !w->nhide && !f->no_std && !f->max_depth && !f->min_ns &&
		   !f->since_ns && !f->until_ns;
	w->captures = ct_trace_meta(t, "captures") != NULL;
	return w;
}

void ct_walk_free(struct ct_walk *w)
{
	if (!w)
		return;
	for (size_t i = 0; w->only_re && i < w->nonly; i++)
		regfree(&w->only_re[i]);
	for (size_t i = 0; w->hide_re && i < w->nhide; i++)
		regfree(&w->hide_re[i]);
	free(w->only_re);
	free(w->hide_re);
	free(w->fclass);
	ct_inherit_free(w->inherit);
	ct_protomap_free(w->protos);
	free(w);
}

static int ct_matches(const struct ct_walk *w, const char **pats, const regex_t *re, size_t n,
		      const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (w->f.regex ? !regexec(&re[i], name, 0, NULL, 0) : ct_glob_name(pats[i], name))
			return 1;
	return 0;
}

static int ct_is_std(struct ct_walk *w, uint32_t func)
{
	static const char *const prefixes[] = { "std::", "__gnu_cxx::", "__cxxabiv1::",
						"__gnu_debug::", "__cxx11::" };
	const struct ct_func *f = ct_symbols_func(w->sym, func);
	for (size_t i = 0; i < CT_ARRAY_SIZE(prefixes); i++)
		if (!strncmp(f->name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return ct_symbols_in_system_header(w->sym, func);
}

static uint8_t ct_class_slow(struct ct_walk *w, uint32_t func)
{
	if (func >= w->nfclass) {
		size_t n = w->nfclass ? w->nfclass : 256;
		while (n <= func)
			n *= 2;
		w->fclass = ct_realloc(w->fclass, n);
		memset(w->fclass + w->nfclass, 0, n - w->nfclass);
		w->nfclass = n;
	}
	uint8_t c = w->fclass[func];
	if (c & CT_F_KNOWN)
		return c;
	const char *name = ct_symbols_func(w->sym, func)->name;
	c = CT_F_KNOWN;
	if (w->nonly && ct_matches(w, w->f.only, w->only_re, w->nonly, name))
		c |= CT_F_ONLY;
	if (w->nhide && ct_matches(w, w->f.hide, w->hide_re, w->nhide, name))
		c |= CT_F_HIDE;
	if (w->f.no_std && ct_is_std(w, func))
		c |= CT_F_STD;
	w->fclass[func] = c;
	return c;
}

static inline uint8_t ct_class(struct ct_walk *w, uint32_t func)
{
	if (func < w->nfclass && (w->fclass[func] & CT_F_KNOWN))
		return w->fclass[func];
	return ct_class_slow(w, func);
}

int ct_walk_selects(const struct ct_walk *w, const struct ct_thread_info *th)
{
	int ok = !w->f.tids || !w->f.tids[0];
	for (const int32_t *p = w->f.tids; p && *p && !ok; p++)
		ok = *p == th->tid;
	if (!ok)
		return 0;
	ok = !w->f.pids || !w->f.pids[0];
	for (const int32_t *p = w->f.pids; p && *p && !ok; p++)
		ok = *p == th->pid;
	return ok;
}

/* ---- captured values (record -a, --srcline) ------------------------------------------- */

/* The values of the call the builder is entering (or leaving) now, if they came with it. */
static const struct ct_call_values *ct_values_of(struct ct_walker *tw, const struct ct_frame *bf,
						 unsigned kind)
{
	const struct ct_event *ev = tw->cur;
	if (!ev || ev->kind != kind || ev->addr != bf->addr || ev->sp != bf->sp)
		return NULL;
	return &tw->values;
}

/* A PENDING call keeps a copy of what it was given, for when it is shown. */
static void ct_keep_args(struct ct_wframe *f, const struct ct_call_values *v,
			 const struct ct_buf *payload)
{
	f->args.len = 0;
	f->proto = NULL;
	if (!v || !v->args)
		return;
	ct_buf_append(&f->args, payload->data, payload->len);
	f->proto = v->proto;
	f->proto_len = v->proto_len;
}

static void ct_give_pending_enter(struct ct_walker *tw, struct ct_wframe *f)
{
	struct ct_call c = { .func = f->func, .depth = f->depth, .enter_clock = f->enter_clock };
	struct ct_captured args;
	struct ct_call_values v = { f->proto, f->proto_len, &args, NULL };
	if (f->args.len &&
	    ct_captured_decode((const uint64_t *)f->args.data, f->args.len / 8, &args) == 0)
		c.values = &v;
	tw->sink->enter(tw->ctx, &c);
}

/* Give the sink the enters held back, outermost first. */
static void ct_flush_pending(struct ct_walker *tw, uint32_t depth)
{
	if (!tw->npending)
		return;
	for (uint32_t i = 0; i < depth; i++) {
		struct ct_wframe *f = &tw->stack[i];
		if (f->vis != CT_PENDING)
			continue;
		f->vis = CT_SHOWN;
		tw->npending--;
		ct_give_pending_enter(tw, f);
	}
}

/* The nearest shown-or-pending frame below index i, or NULL. */
static struct ct_wframe *ct_visible_parent(struct ct_walker *tw, uint32_t i)
{
	while (i-- > 0)
		if (tw->stack[i].vis == CT_SHOWN || tw->stack[i].vis == CT_PENDING)
			return &tw->stack[i];
	return NULL;
}

static int ct_in_window(const struct ct_walk *w, uint64_t clock)
{
	if (!w->f.since_ns && !w->f.until_ns)
		return 1;
	double ns = ct_trace_ns(w->t, clock);
	return ns >= w->f.since_ns && (!w->f.until_ns || ns < w->f.until_ns);
}

void ct_walk_enter(void *ctx, struct ct_frame *bf, uint32_t depth)
{
	struct ct_walker *tw = ctx;
	struct ct_walk *w = tw->w;
	if (depth >= tw->cap) {
		uint32_t old = tw->cap;
		tw->cap = tw->cap ? tw->cap * 2 : 64;
		tw->stack = ct_realloc(tw->stack, tw->cap * sizeof(*tw->stack));
		memset(tw->stack + old, 0, (tw->cap - old) * sizeof(*tw->stack));
	}
	const struct ct_wframe *p = depth ? &tw->stack[depth - 1] : NULL;
	struct ct_wframe *f = &tw->stack[depth];
	struct ct_call c;

	f->func = bf->user;
	f->enter_clock = bf->enter_clock;
	f->shown_child = 0;
	f->child_ticks = 0;
	if (w->plain) { /* the common case, kept short */
		f->vis = CT_SHOWN;
		f->in_scope = 1;
		f->depth = depth;
		f->child_depth = depth + 1;
		c.func = f->func;
		c.depth = depth;
		c.enter_clock = f->enter_clock;
		c.values = tw->cur ? ct_values_of(tw, bf, CT_EV_ENTER) : NULL;
		tw->sink->enter(tw->ctx, &c);
		return;
	}
	uint8_t cls = ct_class(w, bf->user);
	f->in_scope = !w->nonly || (cls & CT_F_ONLY) || (p && p->in_scope);
	f->depth = p ? p->child_depth : 0;
	if ((p && p->vis == CT_DROPPED) || (cls & CT_F_HIDE) ||
	    (w->f.max_depth && f->in_scope && f->depth >= w->f.max_depth)) {
		f->vis = CT_DROPPED;
	} else if (!f->in_scope || (cls & CT_F_STD) || !ct_in_window(w, bf->enter_clock)) {
		f->vis = CT_ELIDED;
	} else if (w->f.min_ns) {
		f->vis = CT_PENDING;
		tw->npending++;
		if (tw->cur)
			ct_keep_args(f, ct_values_of(tw, bf, CT_EV_ENTER), &tw->captured_payload);
		else
			f->args.len = 0;
	} else {
		f->vis = CT_SHOWN;
		ct_flush_pending(tw, depth);
		c.func = f->func;
		c.depth = f->depth;
		c.enter_clock = f->enter_clock;
		c.values = tw->cur ? ct_values_of(tw, bf, CT_EV_ENTER) : NULL;
		tw->sink->enter(tw->ctx, &c);
	}
	f->child_depth = f->vis == CT_SHOWN || f->vis == CT_PENDING ? f->depth + 1 : f->depth;
}

void ct_walk_exit(void *ctx, struct ct_frame *bf, uint32_t depth, uint64_t exit_clock,
		  uint64_t ticks, enum ct_close how)
{
	struct ct_walker *tw = ctx;
	struct ct_walk *w = tw->w;

	if (how == CT_CLOSE_NO_ENTRY) {
		/* a return whose call we never saw: shown where it happened, if its place is */
		const struct ct_wframe *p = depth ? &tw->stack[depth - 1] : NULL;
		uint32_t func = ct_symbols_lookup(w->sym, tw->th->instance, bf->addr, exit_clock);
		uint8_t cls = ct_class(w, func);
		if ((p && p->vis == CT_DROPPED) || (cls & (CT_F_HIDE | CT_F_STD)) ||
		    (w->nonly && !(p && p->in_scope) && !(cls & CT_F_ONLY)))
			return;
		ct_flush_pending(tw, depth);
		struct ct_call c = { .func = func,
				     .depth = p ? p->child_depth : 0,
				     .enter_clock = exit_clock,
				     .exit_clock = exit_clock,
				     .how = how };
		c.values = tw->cur ? ct_values_of(tw, bf, CT_EV_EXIT) : NULL;
		tw->sink->exit(tw->ctx, &c);
		return;
	}

	struct ct_wframe *f = &tw->stack[depth];
	if (f->vis == CT_PENDING) {
		tw->npending--;
		if (ticks < w->min_ticks && !f->shown_child && how != CT_CLOSE_UNFINISHED) {
			f->vis = CT_ELIDED; /* too short: not shown, nor was anything under it */
			return;
		}
		f->vis = CT_SHOWN;
		ct_flush_pending(tw, depth);
		ct_give_pending_enter(tw, f);
	}
	if (f->vis == CT_DROPPED && tw->sink->dropped &&
	    !(depth && tw->stack[depth - 1].vis == CT_DROPPED))
		tw->sink->dropped(tw->ctx, f->enter_clock, exit_clock);
	if (f->vis != CT_SHOWN)
		return;
	struct ct_call c;
	c.func = f->func;
	c.depth = f->depth;
	c.enter_clock = f->enter_clock;
	c.exit_clock = exit_clock;
	c.child_ticks = f->child_ticks;
	c.how = how;
	c.has_children = f->shown_child;
	c.before_attach = (int)bf->before_attach;
	c.values = tw->cur && how == CT_CLOSE_RETURN ? ct_values_of(tw, bf, CT_EV_EXIT) : NULL;
	tw->sink->exit(tw->ctx, &c);
	struct ct_wframe *p =
		w->plain ? (depth ? &tw->stack[depth - 1] : NULL) : ct_visible_parent(tw, depth);
	if (p) {
		p->child_ticks += ticks;
		p->shown_child = 1;
	}
}

/* The extended records worth showing where they happened. */
int ct_shown_ext(uint32_t type)
{
	switch (type) {
	case CT_EXT_LOST:
	case CT_EXT_CRASH:
	case CT_EXT_EXEC:
	case CT_EXT_EXEC_FAILED:
	case CT_EXT_UNTRACED:
	case CT_EXT_FORK:
	case CT_EXT_FORKED_FROM:
	case CT_EXT_PAUSE:
	case CT_EXT_RESUME:
	case CT_EXT_USER_MARK:
		return 1;
	default:
		return 0;
	}
}

void ct_walk_ext(void *ctx, const struct ct_event *ev, uint32_t depth)
{
	struct ct_walker *tw = ctx;
	if (!ct_shown_ext(ev->ext_type) || !tw->sink->mark)
		return;
	/* under a call that is not shown, -D or -N: not shown either */
	if (depth && tw->stack[depth - 1].vis == CT_DROPPED)
		return;
	ct_flush_pending(tw, depth);
	tw->sink->mark(tw->ctx, ev, depth ? tw->stack[depth - 1].child_depth : 0);
}

static uint32_t ct_walk_user_of(void *ctx, uint64_t addr, uint64_t clock)
{
	struct ct_walker *tw = ctx;
	return ct_symbols_lookup(tw->w->sym, tw->th->instance, addr, clock);
}

static const struct ct_builder_ops ct_walk_ops = {
	.enter = ct_walk_enter,
	.exit = ct_walk_exit,
	.ext = ct_walk_ext,
	.user_of = ct_walk_user_of,
};

uint32_t ct_walker_func_slow(struct ct_walker *tw, uint32_t block, const struct ct_event *ev,
			     uint32_t nfuncs)
{
	if (tw->fcache_block != block) {
		tw->fcache_block = block;
		if (nfuncs > tw->fcache_len) {
			tw->fcache = ct_realloc(tw->fcache, nfuncs * sizeof(uint32_t));
			tw->fcache_len = nfuncs;
		}
		memset(tw->fcache, 0xff, nfuncs * sizeof(uint32_t));
	}
	uint32_t *slot = &tw->fcache[ev->fidx];
	if (*slot == UINT32_MAX)
		*slot = ct_symbols_lookup(tw->w->sym, tw->th->instance, ev->addr, ev->clock);
	return *slot;
}

/* Past a dlclose: the names the block's table was given may have changed. */
void ct_walker_passed_unload(struct ct_walker *tw, uint64_t clock)
{
	tw->fcache_block = UINT32_MAX;
	tw->next_unload = ct_symbols_next_unload(tw->w->sym, tw->th->instance, clock);
}

int64_t ct_walk_forked(struct ct_walk *w, const struct ct_thread_info *th, struct ct_frame **frames,
		       struct ct_event *ev, struct ct_ext_fork *from)
{
	const struct ct_process_info *self = ct_trace_process(w->t, th->instance), *parent;
	const struct ct_frame *open;

	if (!self || !(self->rec.flags & CT_PROC_FORKED) || th->tid != th->pid)
		return -1;
	if (!w->inherit)
		w->inherit = ct_inherit_new(w->t);
	uint32_t n = ct_inherited(w->inherit, th, &open, &parent, 0);
	*frames = ct_malloc((n + 1) * sizeof(**frames));
	if (n) /* none open in the parent: no array */
		memcpy(*frames, open, n * sizeof(**frames));
	*from = (struct ct_ext_fork){ .child_pid = parent ? parent->rec.pid : self->rec.ppid };
	*ev = (struct ct_event){ .clock = self->rec.fork_clock,
				 .kind = CT_EV_EXT,
				 .ext_type = CT_EXT_FORKED_FROM,
				 .ext = (const uint8_t *)from,
				 .ext_len = sizeof(*from) };
	return n;
}

/*
 * A forked child's main thread starts inside the calls its parent had open
 * when it forked: entered as they were, then a mark says the child goes on.
 */
static void ct_walker_inherit(struct ct_walker *tw)
{
	struct ct_frame *frames;
	struct ct_event ev;
	struct ct_ext_fork from;
	int64_t n = ct_walk_forked(tw->w, tw->th, &frames, &ev, &from);

	if (n < 0)
		return;
	for (int64_t i = 0; i < n; i++)
		frames[i].user = ct_symbols_lookup(tw->w->sym, tw->th->instance, frames[i].addr,
						   frames[i].enter_clock);
	ct_builder_seed(&tw->b, frames, (uint32_t)n);
	free(frames);
	ct_builder_event(&tw->b, &ev);
}

struct ct_walker *ct_walker_create(struct ct_walk *w, const struct ct_thread_info *th,
				   const struct ct_sink *sink, void *ctx)
{
	struct ct_walker *tw = ct_calloc(1, sizeof(*tw));
	tw->w = w;
	tw->th = th;
	tw->sink = sink;
	tw->ctx = ctx;
	tw->fcache_block = UINT32_MAX;
	tw->next_unload = ct_symbols_next_unload(w->sym, th->instance, 0);
	ct_builder_init(&tw->b, &ct_walk_ops, tw);
	if (sink->thread_begin)
		sink->thread_begin(ctx, th);
	return tw;
}

struct ct_walker *ct_walker_new(struct ct_walk *w, const struct ct_thread_info *th,
				const struct ct_sink *sink, void *ctx)
{
	struct ct_walker *tw = ct_walker_create(w, th, sink, ctx);
	ct_walker_inherit(tw);
	return tw;
}

static void ct_walker_feed(struct ct_walker *tw, const struct ct_event *ev, uint32_t block,
			   uint32_t nfuncs)
{
	/* the builder passes next_user to our enter, with the frame */
	if (ev->kind == CT_EV_ENTER) {
		tw->b.next_user = ct_walker_func(tw, block, ev, nfuncs);
	} else if (ev->kind == CT_EV_EXT && ev->ext_type == CT_EXT_SIGNAL) {
		uint64_t sp;
		tw->b.next_user = ct_symbols_lookup(tw->w->sym, tw->th->instance,
						    ct_signal_frame(ev, &sp), ev->clock);
	}
	ct_builder_event(&tw->b, ev);
}

/*
 * The prototype of the function at addr in image instance: a forked child runs
 * its parent's patched code, told once in the parent's image.
 */
static const char *ct_proto_of_call(struct ct_walk *w, uint32_t instance, uint64_t addr,
				    size_t *len)
{
	for (int hops = 0; hops < 64 && instance; hops++) {
		const char *text = ct_protomap_find(w->protos, instance, addr, len);
		const struct ct_process_info *p = ct_trace_process(w->t, instance);
		if (text || !p || !(p->rec.flags & CT_PROC_FORKED))
			return text;
		instance = p->rec.parent_instance;
	}
	return NULL;
}

int ct_values_match(const struct ct_event *held, const struct ct_event *ev, struct ct_buf *payload,
		    struct ct_captured *captured)
{
	uint16_t want = held->kind == CT_EV_ENTER ? CT_EXT_ARGS : CT_EXT_RETVAL;
	if (ev->kind != CT_EV_EXT || ev->ext_type != want || (ev->ext_len & 7))
		return 0;
	payload->len = 0;
	ct_buf_append(payload, ev->ext, ev->ext_len);
	return ct_captured_decode((const uint64_t *)payload->data, ev->ext_len / 8, captured) ==
		       0 &&
	       captured->sp_tag == (uint32_t)held->sp;
}

void ct_walker_values_ready(struct ct_walker *tw)
{
	const struct ct_event *h = &tw->held;
	struct ct_walk *w = tw->w;
	if (w->t->nprotos && (!w->protos || w->t->nprotos != w->nprotos_seen)) {
		ct_protomap_free(w->protos); /* a growing trace (live) told more */
		w->protos = ct_protomap_open(w->t);
		w->nprotos_seen = w->t->nprotos;
	}
	tw->values.proto = ct_proto_of_call(w, tw->th->instance, h->addr, &tw->values.proto_len);
	tw->values.args = h->kind == CT_EV_ENTER ? &tw->captured : NULL;
	tw->values.ret = h->kind == CT_EV_ENTER ? NULL : &tw->captured;
}

/* Does ev carry the values of the held call? Then they are ready in tw->values. */
static int ct_values_for_held(struct ct_walker *tw, const struct ct_event *ev)
{
	if (!ct_values_match(&tw->held, ev, &tw->captured_payload, &tw->captured))
		return 0;
	ct_walker_values_ready(tw);
	return 1;
}

void ct_walker_event(struct ct_walker *tw, const struct ct_event *ev, uint32_t block,
		     uint32_t nfuncs)
{
	if (tw->holding) {
		tw->holding = 0;
		if (ct_values_for_held(tw, ev)) {
			tw->cur = &tw->held;
			ct_walker_feed(tw, &tw->held, tw->held_block, tw->held_nfuncs);
			tw->cur = NULL;
			return;
		}
		ct_walker_feed(tw, &tw->held, tw->held_block, tw->held_nfuncs);
	}
	if (tw->w->captures && (ev->kind == CT_EV_ENTER || ev->kind == CT_EV_EXIT)) {
		tw->held = *ev;
		tw->held.ext = NULL;
		tw->held_block = block;
		tw->held_nfuncs = nfuncs;
		tw->holding = 1;
		return;
	}
	ct_walker_feed(tw, ev, block, nfuncs);
}

void ct_walker_end(struct ct_walker *tw)
{
	if (tw->holding) {
		tw->holding = 0;
		ct_walker_feed(tw, &tw->held, tw->held_block, tw->held_nfuncs);
	}
	ct_builder_finish(&tw->b);
	ct_walker_close(tw);
}

void ct_walker_close(struct ct_walker *tw)
{
	if (tw->sink->thread_end)
		tw->sink->thread_end(tw->ctx, tw->th);
	ct_builder_free(&tw->b);
	for (uint32_t i = 0; i < tw->cap; i++)
		ct_buf_free(&tw->stack[i].args);
	ct_buf_free(&tw->captured_payload);
	free(tw->stack);
	free(tw->fcache);
	free(tw);
}

static int ct_walk_thread(struct ct_walk *w, const struct ct_thread_info *th,
			  const struct ct_sink *sink, void *ctx)
{
	struct ct_walker *tw = ct_walker_new(w, th, sink, ctx);
	struct ct_stream s;
	struct ct_event ev;
	int rc;

	ct_stream_open(&s, w->t, th);
	while ((rc = ct_stream_next(&s, &ev)) > 0) {
		ct_progress_tick(&w->progress);
		ct_walker_event(tw, &ev, s.blocks_read, s.dec.hdr.nfuncs);
	}
	ct_walker_end(tw);
	ct_stream_close(&s);
	return rc;
}

void ct_walk_progress(struct ct_walk *w, const char *what, int streams)
{
	w->progress.what = what;
	w->progress.streams = streams;
}

/*
 * How many threads read: --jobs, or the online cores for a trace long enough
 * to gain (starting threads costs less than a millisecond; below some 100,000
 * records the whole read does too), as many as this process may run on.
 */
static unsigned ct_walk_jobs(const struct ct_walk *w, uint64_t total)
{
	if (w->f.jobs)
		return w->f.jobs;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) < cores)
		cores = CPU_COUNT(&set); /* taskset, a cgroup's cpuset */
	return total >= CT_WALK_PARALLEL_MIN && cores > 1 ? (unsigned)ct_min(cores, 64) : 1;
}

int ct_walk_run(struct ct_walk *w, const struct ct_sink *sink, void *ctx)
{
	int rc = 0;
	uint64_t total = 0;
	for (size_t i = 0; i < w->t->nthreads; i++)
		if (ct_walk_selects(w, &w->t->threads[i]))
			total += w->t->threads[i].nrecords;
	ct_progress_begin(&w->progress, total);
	unsigned jobs = ct_walk_jobs(w, total);
	if (jobs > 1 && (rc = ct_walk_run_parallel(w, sink, ctx, jobs)) <= 0) {
		ct_progress_end(&w->progress);
		return rc;
	}
	rc = 0;
	for (size_t i = 0; i < w->t->nthreads; i++) {
		const struct ct_thread_info *th = &w->t->threads[i];
		if (ct_walk_selects(w, th) && ct_walk_thread(w, th, sink, ctx) < 0)
			rc = -1;
	}
	ct_progress_end(&w->progress);
	return rc;
}

/* The trace and the filters a walk goes by (kwalk.c, which walks through them). */
struct ct_trace *ct_walk_trace(const struct ct_walk *w)
{
	return w->t;
}

const struct ct_filter *ct_walk_filter(const struct ct_walk *w)
{
	return &w->f;
}
