/* SPDX-License-Identifier: MIT */
/*
 * calltrace export --format chrome: the Chrome trace event format (JSON),
 * which chrome://tracing, Perfetto's UI and speedscope read.
 *
 *   {"traceEvents":[
 *   {"ph":"M","name":"process_name","pid":P,"tid":P,"args":{"name":"prog"}},
 *   {"ph":"M","name":"thread_name","pid":P,"tid":T,"args":{"name":"prog/T"}},
 *   {"ph":"X","name":"f","ts":12.345,"dur":0.678,"pid":P,"tid":T},
 *   {"ph":"i","s":"t","name":"lost 12 events","ts":13.000,"pid":P,"tid":T},
 *   ...
 *   ],"displayTimeUnit":"ns","otherData":{...}}
 *
 * A call is a complete event ("X"), written when it ends: children come
 * before their parent in the file. Viewers sort by ts and nest by the
 * intervals, so start and end are each rounded to the ns and written as µs
 * with 3 decimals, exactly: a parent's interval contains its children's. When
 * a child starts in the same ns as its parent, viewers keep the file's order,
 * so that child is held back (with its own such children) and written right
 * after its parent. A call that did not return normally says how in its
 * args ("unwound", "unfinished"). Marks, and returns whose call was not
 * seen, are thread-scoped instant events. A thread met again in a flight
 * recorder's later snapshot (its calls overlap) gets a tid of its own,
 * snapshot << 22 | tid, named "prog (snapshot N)". With record --kernel, system
 * calls and off-CPU intervals are complete events of category "kernel" in the
 * call that made them ("read [syscall]", args.call "read(fd=3, ...) = 4096").
 */
#include <stdlib.h>

#include "export_kit.h"
#include "kernel_text.h"
#include "../analysis/kwalk.h"
#include "text.h"
#include "values.h"

/* Copy a string literal (without its NUL) to p and advance p. */
#define CT_PUT_LIT(p, lit)                                                                         \
	do {                                                                                       \
		memcpy((p), (lit), sizeof(lit) - 1);                                               \
		(p) += sizeof(lit) - 1;                                                            \
	} while (0)

struct ct_cr_frame {
	uint64_t ts;	    /* start, ns */
	struct ct_buf held; /* its children that started with it, to write after it */
	struct ct_buf vals; /* record -a: "args":"…","returned":"…" */
};

struct ct_cr {
	struct ct_export *x;
	const struct ct_thread_info *th;
	int started;
	char ids[64]; /* ,"pid":P,"tid":T} */
	size_t ids_len;
	uint32_t open;
	struct ct_cr_frame *stack;
	uint32_t cap;
	char **names; /* per function: its name as a JSON string, quotes included */
	uint32_t *name_len;
	size_t nnames;
	struct ct_map procs;   /* process names written: instance + 1 */
	struct ct_map threads; /* threads named: ct_export_thread_key */
	int any;	       /* some event written */
	struct ct_values_cache values;
};

static void ct_cr_quote_out(struct ct_cr *r, const char *s)
{
	struct ct_buf b = { 0 };
	ct_json_quote(&b, s, 0);
	ct_out_mem(&r->x->out, b.data, b.len);
	ct_buf_free(&b);
}

static const char *ct_cr_name(struct ct_cr *r, uint32_t func, uint32_t *len)
{
	if (func >= r->nnames) {
		r->names = ct_table_fit(r->names, &r->nnames, func, sizeof(*r->names));
		r->name_len = ct_realloc(r->name_len, r->nnames * sizeof(*r->name_len));
	}
	if (!r->names[func]) {
		const struct ct_func *fn = ct_symbols_func(r->x->sym, func);
		struct ct_buf b = { 0 };
		ct_json_quote(&b, fn && fn->name ? fn->name : "?", 0);
		ct_buf_append(&b, "", 1);
		r->names[func] = (char *)b.data;
		r->name_len[func] = (uint32_t)(b.len - 1);
	}
	*len = r->name_len[func];
	return r->names[func];
}

static void ct_cr_meta(struct ct_cr *r, const char *what, int32_t tid, const char *name)
{
	char head[128];
	snprintf(head, sizeof(head),
		 "%s{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
		 r->any ? ",\n" : "\n", what, r->th->pid, tid);
	r->any = 1;
	ct_out_str(&r->x->out, head);
	ct_cr_quote_out(r, name);
	ct_out_str(&r->x->out, "}}");
}

/* The thread's metadata, before its first event. */
static void ct_cr_start(struct ct_cr *r)
{
	const struct ct_thread_info *th = r->th;
	char name[512];
	int added;
	int32_t tid = th->tid;

	r->started = 1;
	ct_map_put(&r->procs, (uint64_t)th->instance + 1, &added);
	if (added) {
		const char *p = ct_export_process_name(r->x->t, th->instance);
		if (!p) {
			snprintf(name, sizeof(name), "process %d", th->pid);
			p = name;
		}
		ct_cr_meta(r, "process_name", th->pid, p);
	}
	ct_export_thread_name(r->x->t, th, name, sizeof(name));
	ct_map_put(&r->threads, ct_export_thread_key(th), &added);
	if (!added) {
		/* the thread again, in another snapshot of a flight recorder: its
		 * calls overlap those already written, so a tid of its own */
		size_t n = strlen(name);
		snprintf(name + n, sizeof(name) - n, " (snapshot %u)", th->snapshot);
		tid = (int32_t)(th->snapshot << 22 | ((uint32_t)th->tid & 0x3fffff));
	}
	ct_cr_meta(r, "thread_name", tid, name);
	r->ids_len =
		(size_t)snprintf(r->ids, sizeof(r->ids), ",\"pid\":%d,\"tid\":%d}", th->pid, tid);
}

/* ns as µs with 3 decimals */
static inline uint8_t *ct_put_us(uint8_t *p, uint64_t ns)
{
	uint64_t frac = ns % 1000;
	p = ct_put_u64(p, ns / 1000);
	*p++ = '.';
	*p++ = (uint8_t)('0' + frac / 100);
	*p++ = (uint8_t)('0' + frac / 10 % 10);
	*p++ = (uint8_t)('0' + frac % 10);
	return p;
}

/*
 * Where an event of depth d (a child of the call open at d - 1) goes: the
 * output, or held back after its parent when it starts at its parent's ns.
 */
static struct ct_buf *ct_cr_held_for(struct ct_cr *r, uint32_t d, uint64_t ts)
{
	if (d && d <= r->open && r->stack[d - 1].ts == ts)
		return &r->stack[d - 1].held;
	return NULL;
}

static void ct_cr_put(struct ct_cr *r, struct ct_buf *held, const void *p, size_t n)
{
	if (held)
		ct_buf_append(held, p, n);
	else
		ct_out_mem(&r->x->out, p, n);
}

static void ct_cr_instant(struct ct_cr *r, uint64_t clock, const char *name)
{
	struct ct_buf b = { 0 };
	char ts[48];

	if (!r->started)
		ct_cr_start(r);
	uint64_t ns = ct_xns(r->x->t, clock);
	static const char head[] = ",\n{\"ph\":\"i\",\"s\":\"t\",\"name\":";
	ct_buf_append(&b, head, sizeof(head) - 1);
	ct_json_quote(&b, name, 0);
	ct_buf_append(&b, ",\"ts\":", sizeof(",\"ts\":") - 1);
	ct_buf_append(&b, ts, (size_t)(ct_put_us((uint8_t *)ts, ns) - (uint8_t *)ts));
	ct_buf_append(&b, r->ids, r->ids_len);
	ct_cr_put(r, ct_cr_held_for(r, r->open, ns), b.data, b.len);
	ct_buf_free(&b);
}

static void ct_cr_thread_begin(void *ctx, const struct ct_thread_info *th)
{
	struct ct_cr *r = ctx;
	r->th = th;
	r->started = 0;
	r->open = 0;
	ct_xprogress_thread(&r->x->prog, th);
}

static void ct_cr_enter(void *ctx, const struct ct_call *c)
{
	struct ct_cr *r = ctx;

	ct_xprogress_tick(&r->x->prog, c->enter_clock);
	if (__builtin_expect(!r->started, 0))
		ct_cr_start(r);
	if (r->open == r->cap) {
		uint32_t n = r->cap ? r->cap * 2 : 64;
		r->stack = ct_realloc(r->stack, n * sizeof(*r->stack));
		memset(r->stack + r->cap, 0, (n - r->cap) * sizeof(*r->stack));
		r->cap = n;
	}
	struct ct_cr_frame *fr = &r->stack[r->open++];
	fr->ts = ct_xns(r->x->t, c->enter_clock);
	fr->held.len = 0;
	fr->vals.len = 0;
	char args[1024];
	if (__builtin_expect(c->values != NULL, 0) &&
	    ct_call_args_text(&r->values, c->values, args, sizeof(args))) {
		ct_buf_append(&fr->vals, "\"args\":", 7);
		ct_json_quote(&fr->vals, args, 0);
	}
}

/* record -a: the value returned joins the arguments in the event's args. */
static void ct_cr_returned(struct ct_cr *r, struct ct_cr_frame *fr, const struct ct_call *c)
{
	char ret[1024];
	if (!ct_call_ret_text(&r->values, c->values, ret, sizeof(ret)))
		return;
	if (fr->vals.len)
		ct_buf_append(&fr->vals, ",", 1);
	ct_buf_append(&fr->vals, "\"returned\":", 11);
	ct_json_quote(&fr->vals, ret, 0);
}

static void ct_cr_exit(void *ctx, const struct ct_call *c)
{
	struct ct_cr *r = ctx;
	uint32_t nlen;

	ct_xprogress_tick(&r->x->prog, c->exit_clock);
	if (__builtin_expect(!r->open || (c->how == CT_CLOSE_NO_ENTRY && c->depth >= r->open), 0)) {
		const struct ct_func *fn = ct_symbols_func(r->x->sym, c->func);
		char name[1024];
		snprintf(name, sizeof(name), "%s returned (entered before tracing)",
			 fn && fn->name ? fn->name : "?");
		ct_cr_instant(r, c->exit_clock, name);
		return;
	}
	struct ct_cr_frame *fr = &r->stack[--r->open];
	const char *name = ct_cr_name(r, c->func, &nlen);
	if (__builtin_expect(c->values != NULL, 0))
		ct_cr_returned(r, fr, c);
	uint64_t end = ct_xns(r->x->t, c->exit_clock);
	if (end < fr->ts)
		end = fr->ts;

	uint8_t ev[256], *p = ev;
	struct ct_buf *held = ct_cr_held_for(r, r->open, fr->ts);
	struct ct_out *o = &r->x->out;
	if (!held) /* straight into the output */
		p = ct_out_room(o, 200 + nlen + fr->vals.len + fr->held.len);
	else if (nlen > 64 || fr->vals.len)
		p = NULL;
	uint8_t *start = p;
	struct ct_buf big = { 0 };
	if (!p) {
		ct_buf_reserve(&big, 200 + nlen + fr->vals.len);
		p = start = big.data;
	}
	CT_PUT_LIT(p, ",\n{\"ph\":\"X\",\"name\":");
	memcpy(p, name, nlen);
	p += nlen;
	CT_PUT_LIT(p, ",\"ts\":");
	p = ct_put_us(p, fr->ts);
	CT_PUT_LIT(p, ",\"dur\":");
	p = ct_put_us(p, end - fr->ts);
	if (c->how == CT_CLOSE_UNWOUND || c->how == CT_CLOSE_UNFINISHED || fr->vals.len) {
		CT_PUT_LIT(p, ",\"args\":{");
		if (c->how == CT_CLOSE_UNWOUND)
			CT_PUT_LIT(p, "\"close\":\"unwound\"");
		else if (c->how == CT_CLOSE_UNFINISHED)
			CT_PUT_LIT(p, "\"close\":\"unfinished\"");
		if (fr->vals.len && c->how != CT_CLOSE_RETURN)
			*p++ = ',';
		if (fr->vals.len) /* a call without values has no buffer: memcpy from NULL */
			memcpy(p, fr->vals.data, fr->vals.len);
		p += fr->vals.len;
		*p++ = '}';
	}
	memcpy(p, r->ids, r->ids_len);
	p += r->ids_len;
	if (!held) {
		if (fr->held.len)
			memcpy(p, fr->held.data, fr->held.len);
		ct_out_commit(o, p + fr->held.len);
	} else {
		ct_buf_append(held, start, (size_t)(p - start));
		if (fr->held.len)
			ct_buf_append(held, fr->held.data, fr->held.len);
	}
	fr->held.len = 0;
	ct_buf_free(&big);
}

static void ct_cr_mark(void *ctx, const struct ct_event *ev, uint32_t depth)
{
	struct ct_cr *r = ctx;
	char name[1024];
	(void)depth;

	if (ct_export_mark_name(r->x, r->th, ev, name, sizeof(name)))
		ct_cr_instant(r, ev->clock, name);
}

static void ct_cr_thread_end(void *ctx, const struct ct_thread_info *th)
{
	struct ct_cr *r = ctx;

	/* the walker closes every call; should one be left, it ends with the thread */
	while (r->open) {
		struct ct_call c = { .func = 0,
				     .depth = r->open - 1,
				     .exit_clock = th->last_clock,
				     .how = CT_CLOSE_UNFINISHED };
		ct_cr_exit(r, &c);
	}
}

/* record --kernel: a complete event nested, by its times, in the call that made it */
static void ct_cr_kernel(void *ctx, const struct ct_kernel_rec *k, uint32_t depth)
{
	struct ct_cr *r = ctx;
	struct ct_buf b = { 0 };
	char name[128], text[512], us[48];
	(void)depth;

	if (!r->started)
		ct_cr_start(r);
	uint64_t ts = ct_xns(r->x->t, k->start), end = ct_xns(r->x->t, k->end);
	if (end < ts)
		end = ts;
	ct_kernel_name(name, sizeof(name), k, r->x->t);
	ct_kernel_text(text, sizeof(text), k, r->x->t);
	static const char head[] = ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":";
	ct_buf_append(&b, head, sizeof(head) - 1);
	ct_json_quote(&b, name, 0);
	ct_buf_append(&b, ",\"ts\":", 6);
	ct_buf_append(&b, us, (size_t)(ct_put_us((uint8_t *)us, ts) - (uint8_t *)us));
	ct_buf_append(&b, ",\"dur\":", 7);
	ct_buf_append(&b, us, (size_t)(ct_put_us((uint8_t *)us, end - ts) - (uint8_t *)us));
	ct_buf_append(&b, ",\"args\":{\"call\":", 16);
	ct_json_quote(&b, text, 0);
	ct_buf_append(&b, "}", 1);
	ct_buf_append(&b, r->ids, r->ids_len);
	ct_cr_put(r, ct_cr_held_for(r, r->open, ts), b.data, b.len);
	ct_buf_free(&b);
}

static const struct ct_sink ct_cr_sink = {
	.thread_begin = ct_cr_thread_begin,
	.enter = ct_cr_enter,
	.exit = ct_cr_exit,
	.mark = ct_cr_mark,
	.thread_end = ct_cr_thread_end,
};

int ct_export_chrome(struct ct_export *x)
{
	struct ct_cr r = { .x = x };
	const char *cmd = ct_trace_meta(x->t, "command");
	int rc;

	ct_map_init(&r.procs, 16);
	ct_map_init(&r.threads, 16);
	ct_out_str(&x->out, "{\"traceEvents\":[");
	rc = ct_walk_run_kernel(x->w, &ct_cr_sink, &r, ct_cr_kernel);
	ct_out_str(&x->out, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"producer\":");
	ct_cr_quote_out(&r, "calltrace " CT_VERSION);
	if (cmd) {
		ct_out_str(&x->out, ",\"command\":");
		ct_cr_quote_out(&r, cmd);
	}
	ct_out_str(&x->out, "}}\n");

	for (size_t i = 0; i < r.nnames; i++)
		free(r.names[i]);
	free(r.names);
	free(r.name_len);
	for (uint32_t i = 0; i < r.cap; i++) {
		ct_buf_free(&r.stack[i].held);
		ct_buf_free(&r.stack[i].vals);
	}
	free(r.stack);
	ct_map_free(&r.procs);
	ct_map_free(&r.threads);
	return rc < 0 ? -1 : 0;
}
