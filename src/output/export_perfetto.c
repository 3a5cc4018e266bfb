/* SPDX-License-Identifier: MIT */
/*
 * calltrace export --format perfetto: Perfetto's native protobuf trace,
 * written with a small encoder of our own (varints and length-delimited
 * fields, no library).
 *
 * The file is a Trace: repeated TracePacket, each a length-delimited field 1.
 * A process track (TrackDescriptor with a ProcessDescriptor) per traced
 * process image, a thread track (TrackDescriptor with a ThreadDescriptor,
 * parent: its process track) per thread, and per call a TYPE_SLICE_BEGIN and
 * a TYPE_SLICE_END TrackEvent on the thread's track. Marks (lost events,
 * crashes) and returns whose call was not seen are TYPE_INSTANT events. A
 * thread met again in a flight recorder's later snapshot (its calls overlap)
 * gets a track of its own under the thread's, named "snapshot N". With record
 * --kernel, system calls and off-CPU intervals are slices too, on the thread's
 * track in the call that made them ("read [syscall]", "[off-cpu: blocked in
 * read]" inside it), their text in a debug annotation "call".
 *
 * Each thread is a packet sequence (trusted_packet_sequence_id) whose first
 * packet clears the incremental state and sets the sequence's defaults: its
 * track (TrackEventDefaults.track_uuid) and its clock, a sequence-scoped
 * incremental clock (id 64, declared in a ClockSnapshot as equal to BOOTTIME
 * at 0), so TracePacket.timestamp is the time in ns since the sequence's
 * previous packet: one byte for most events. Function names are interned:
 * InternedData.event_names (EventName{iid, name}) the first time a sequence
 * uses a name, TrackEvent.name_iid after that. iid = function id + 1, the
 * same in every sequence. Packets that rely on the incremental state (all
 * events) carry SEQ_NEEDS_INCREMENTAL_STATE. Times are ns since the start of
 * the recording.
 *
 * Field numbers, from Perfetto's protos (protos/perfetto/...):
 *
 *   message              field                        no.  wire    file
 *   Trace                packet                        1   len     trace/trace.proto
 *   TracePacket          clock_snapshot                6   len     trace/trace_packet.proto
 *                        timestamp                     8   varint
 *                        trusted_packet_sequence_id   10   varint
 *                        track_event                  11   len
 *                        interned_data                12   len
 *                        sequence_flags               13   varint  1 INCREMENTAL_STATE_CLEARED,
 *                                                                  2 NEEDS_INCREMENTAL_STATE
 *                        timestamp_clock_id           58   varint
 *                        trace_packet_defaults        59   len
 *                        track_descriptor             60   len
 *   TracePacketDefaults  track_event_defaults         11   len     trace/trace_packet_defaults.proto
 *                        timestamp_clock_id           58   varint
 *   TrackEventDefaults   track_uuid                   11   varint  trace/track_event/track_event.proto
 *   ClockSnapshot        clocks                        1   len     trace/clock_snapshot.proto
 *   ClockSnapshot.Clock  clock_id                      1   varint  6 BOOTTIME, 64..127 per sequence
 *                        timestamp                     2   varint
 *                        is_incremental                3   varint
 *   TrackDescriptor      uuid                          1   varint  trace/track_event/track_descriptor.proto
 *                        name                          2   len
 *                        process                       3   len
 *                        thread                        4   len
 *                        parent_uuid                   5   varint
 *   ProcessDescriptor    pid                           1   varint  trace/track_event/process_descriptor.proto
 *                        cmdline                       2   len     repeated
 *                        process_name                  6   len
 *   ThreadDescriptor     pid                           1   varint  trace/track_event/thread_descriptor.proto
 *                        tid                           2   varint
 *                        thread_name                   5   len
 *   TrackEvent           type                          9   varint  1 SLICE_BEGIN, 2 SLICE_END, 3 INSTANT
 *                        name_iid                     10   varint  trace/track_event/track_event.proto
 *                        name                         23   len
 *   InternedData         event_names                   2   len     trace/interned_data/interned_data.proto
 *   EventName            iid                           1   varint  trace/track_event/track_event.proto
 *                        name                          2   len
 *   TracePacket          ftrace_events                 1   len     (record --kernel, below)
 *   FtraceEventBundle    cpu                           1   varint  trace/ftrace/ftrace_event_bundle.proto
 *                        event                         2   len
 *   FtraceEvent          timestamp                     1   varint  trace/ftrace/ftrace_event.proto
 *                        pid                           2   varint
 *                        sched_switch                  4   len
 *   SchedSwitchFtraceEvent prev_comm 1, prev_pid 2, prev_prio 3, prev_state 4, next_comm 5,
 *                        next_pid 6, next_prio 7               trace/ftrace/sched.proto
 *
 * With record --kernel, the off-CPU intervals are also told as the
 * scheduler's own switches, on the CPUs they happened on (a thread out,
 * with the state it left in, the idle task in; and back), so that Perfetto
 * draws the threads' states (Running, Sleeping, Uninterruptible, Runnable).
 * Only the traced threads are in them: the CPUs look idle in between.
 */
#include <stdlib.h>

#include "export_kit.h"
#include "kernel_text.h"
#include "../analysis/kwalk.h"
#include "text.h"
#include "values.h"

enum {
	PB_VARINT = 0,
	PB_LEN = 2,
};

enum {
	F_TRACE_PACKET = 1,
	F_PKT_CLOCK_SNAPSHOT = 6,
	F_PKT_TIMESTAMP = 8,
	F_PKT_SEQ_ID = 10,
	F_PKT_TRACK_EVENT = 11,
	F_PKT_INTERNED_DATA = 12,
	F_PKT_SEQ_FLAGS = 13,
	F_PKT_TIMESTAMP_CLOCK_ID = 58,
	F_PKT_DEFAULTS = 59,
	F_PKT_TRACK_DESCRIPTOR = 60,
	F_DEF_TRACK_EVENT_DEFAULTS = 11,
	F_DEF_TIMESTAMP_CLOCK_ID = 58,
	F_TED_TRACK_UUID = 11,
	F_CS_CLOCKS = 1,
	F_CLK_ID = 1,
	F_CLK_TIMESTAMP = 2,
	F_CLK_INCREMENTAL = 3,
	F_TD_UUID = 1,
	F_TD_NAME = 2,
	F_TD_PROCESS = 3,
	F_TD_THREAD = 4,
	F_TD_PARENT_UUID = 5,
	F_PD_PID = 1,
	F_PD_CMDLINE = 2,
	F_PD_NAME = 6,
	F_THD_PID = 1,
	F_THD_TID = 2,
	F_THD_NAME = 5,
	F_TE_DEBUG_ANNOTATIONS = 4,
	F_DA_STRING_VALUE = 6,
	F_DA_NAME = 10,
	F_TE_TYPE = 9,
	F_TE_NAME_IID = 10,
	F_TE_NAME = 23,
	F_ID_EVENT_NAMES = 2,
	F_EN_IID = 1,
	F_EN_NAME = 2,
	F_PKT_FTRACE_EVENTS = 1,
	F_FB_CPU = 1,
	F_FB_EVENT = 2,
	F_FE_TIMESTAMP = 1,
	F_FE_PID = 2,
	F_FE_SCHED_SWITCH = 4,
	F_SW_PREV_COMM = 1,
	F_SW_PREV_PID = 2,
	F_SW_PREV_PRIO = 3,
	F_SW_PREV_STATE = 4,
	F_SW_NEXT_COMM = 5,
	F_SW_NEXT_PID = 6,
	F_SW_NEXT_PRIO = 7,
};

enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3 };
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };
enum { CLOCK_BOOTTIME = 6, CLOCK_SEQ_INCREMENTAL = 64 };

#define CT_PF_PROCESS_UUID(instance) ((UINT64_C(1) << 32) | (instance))
#define CT_PF_THREAD_UUID(seq)	     ((UINT64_C(2) << 32) | (seq))

/* ---- the encoder ----------------------------------------------------------- */

static inline unsigned ct_vlen(uint64_t v)
{
	unsigned n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static inline uint8_t *pb_tag(uint8_t *p, unsigned field, unsigned wire)
{
	return ct_put_varint(p, (uint64_t)field << 3 | wire);
}

static inline uint8_t *pb_varint(uint8_t *p, unsigned field, uint64_t v)
{
	return ct_put_varint(pb_tag(p, field, PB_VARINT), v);
}

/* A message under construction: nested length-delimited fields. */
struct pb_msg {
	struct ct_buf b;
	size_t open[8];
	int depth;
};

static void pb_put_varint(struct pb_msg *m, unsigned field, uint64_t v)
{
	ct_buf_reserve(&m->b, 20);
	m->b.len = (size_t)(pb_varint(m->b.data + m->b.len, field, v) - m->b.data);
}

static void pb_put_bytes(struct pb_msg *m, unsigned field, const void *p, size_t n)
{
	ct_buf_reserve(&m->b, 20 + n);
	uint8_t *d = pb_tag(m->b.data + m->b.len, field, PB_LEN);
	d = ct_put_varint(d, n);
	memcpy(d, p, n);
	m->b.len = (size_t)(d + n - m->b.data);
}

/* A string field: protobuf strings are UTF-8, so a byte that is not becomes U+FFFD. */
static void pb_put_text(struct pb_msg *m, unsigned field, const char *s, size_t n)
{
	if (ct_utf8_valid(s, n)) {
		pb_put_bytes(m, field, s, n);
		return;
	}
	struct ct_buf b = { 0 };
	ct_utf8_append(&b, s, n);
	pb_put_bytes(m, field, b.data, b.len);
	ct_buf_free(&b);
}

static void pb_put_str(struct pb_msg *m, unsigned field, const char *s)
{
	pb_put_text(m, field, s, strlen(s));
}

/* Open a nested message; its length is put in front of it by pb_close(). */
static void pb_open(struct pb_msg *m, unsigned field)
{
	ct_buf_reserve(&m->b, 10);
	m->b.len = (size_t)(pb_tag(m->b.data + m->b.len, field, PB_LEN) - m->b.data);
	m->open[m->depth++] = m->b.len;
}

static void pb_close(struct pb_msg *m)
{
	size_t start = m->open[--m->depth];
	size_t n = m->b.len - start;
	unsigned vl = ct_vlen(n);

	ct_buf_reserve(&m->b, vl);
	memmove(m->b.data + start + vl, m->b.data + start, n);
	ct_put_varint(m->b.data + start, n);
	m->b.len += vl;
}

/* ---- the sink -------------------------------------------------------------- */

struct ct_pf {
	struct ct_export *x;
	const struct ct_thread_info *th;
	int started;	  /* this thread's sequence has begun */
	uint32_t seq;	  /* its trusted_packet_sequence_id */
	uint32_t nseq;	  /* sequences so far */
	uint64_t last_ts; /* of its previous packet, ns */
	uint32_t open;	  /* slices open on its track */
	uint32_t *named;  /* per function: the sequence that has its name interned */
	size_t nnamed;
	struct ct_map procs;   /* process images described: instance + 1 */
	struct ct_map threads; /* threads described: ct_export_thread_key -> track uuid */
	struct pb_msg m;
	struct ct_values_cache values; /* record -a: arguments and return values as text */
	uint64_t kend[4]; /* record --kernel: ends of the kernel slices open, innermost last */
	uint32_t nkend;
};

/* Write m as one TracePacket and empty it. */
static void ct_pf_emit(struct ct_pf *f)
{
	struct ct_out *o = &f->x->out;
	uint8_t *p = ct_out_room(o, 16 + f->m.b.len);

	p = pb_tag(p, F_TRACE_PACKET, PB_LEN);
	p = ct_put_varint(p, f->m.b.len);
	memcpy(p, f->m.b.data, f->m.b.len);
	ct_out_commit(o, p + f->m.b.len);
	f->m.b.len = 0;
}

static void ct_pf_process(struct ct_pf *f, const struct ct_thread_info *th)
{
	const struct ct_process_info *p = ct_trace_process(f->x->t, th->instance);
	const char *name = ct_export_process_name(f->x->t, th->instance);
	char buf[64];

	pb_put_varint(&f->m, F_PKT_SEQ_ID, f->seq);
	pb_open(&f->m, F_PKT_TRACK_DESCRIPTOR);
	pb_put_varint(&f->m, F_TD_UUID, CT_PF_PROCESS_UUID(th->instance));
	pb_open(&f->m, F_TD_PROCESS);
	pb_put_varint(&f->m, F_PD_PID, (uint64_t)(int64_t)th->pid);
	if (p && p->args) {
		const char *a = p->args, *end = p->args + p->rec.args_len;
		while (a < end) {
			size_t n = strnlen(a, (size_t)(end - a));
			pb_put_text(&f->m, F_PD_CMDLINE, a, n);
			a += n + 1;
		}
	}
	if (!name) {
		snprintf(buf, sizeof(buf), "process %d", th->pid);
		name = buf;
	}
	pb_put_str(&f->m, F_PD_NAME, name);
	pb_close(&f->m);
	pb_close(&f->m);
	ct_pf_emit(f);
}

/* The thread's first packets: its sequence, its process's and its own track, its clock. */
static void ct_pf_start(struct ct_pf *f)
{
	const struct ct_thread_info *th = f->th;
	uint64_t uuid;
	char name[512];
	int added;

	f->started = 1;
	f->seq = ++f->nseq;
	f->last_ts = 0;
	f->open = 0;
	uuid = CT_PF_THREAD_UUID(f->seq);

	pb_put_varint(&f->m, F_PKT_SEQ_ID, f->seq);
	pb_put_varint(&f->m, F_PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_open(&f->m, F_PKT_DEFAULTS);
	pb_put_varint(&f->m, F_DEF_TIMESTAMP_CLOCK_ID, CLOCK_SEQ_INCREMENTAL);
	pb_open(&f->m, F_DEF_TRACK_EVENT_DEFAULTS);
	pb_put_varint(&f->m, F_TED_TRACK_UUID, uuid);
	pb_close(&f->m);
	pb_close(&f->m);
	ct_pf_emit(f);

	ct_map_put(&f->procs, (uint64_t)th->instance + 1, &added);
	if (added)
		ct_pf_process(f, th);

	uint64_t *thread_uuid = ct_map_put(&f->threads, ct_export_thread_key(th), &added);
	pb_put_varint(&f->m, F_PKT_SEQ_ID, f->seq);
	pb_open(&f->m, F_PKT_TRACK_DESCRIPTOR);
	pb_put_varint(&f->m, F_TD_UUID, uuid);
	if (added) {
		*thread_uuid = uuid;
		ct_export_thread_name(f->x->t, th, name, sizeof(name));
		pb_put_varint(&f->m, F_TD_PARENT_UUID, CT_PF_PROCESS_UUID(th->instance));
		pb_open(&f->m, F_TD_THREAD);
		pb_put_varint(&f->m, F_THD_PID, (uint64_t)(int64_t)th->pid);
		pb_put_varint(&f->m, F_THD_TID, (uint64_t)(int64_t)th->tid);
		pb_put_str(&f->m, F_THD_NAME, name);
		pb_close(&f->m);
	} else {
		/* the thread again, in another snapshot of a flight recorder: its
		 * calls overlap those on the thread's track, so a track under it */
		snprintf(name, sizeof(name), "snapshot %u", th->snapshot);
		pb_put_varint(&f->m, F_TD_PARENT_UUID, *thread_uuid);
		pb_put_str(&f->m, F_TD_NAME, name);
	}
	pb_close(&f->m);
	ct_pf_emit(f);

	/* clock 64 of this sequence = BOOTTIME, both at 0; it counts in deltas */
	pb_put_varint(&f->m, F_PKT_SEQ_ID, f->seq);
	pb_put_varint(&f->m, F_PKT_TIMESTAMP, 0);
	pb_put_varint(&f->m, F_PKT_TIMESTAMP_CLOCK_ID, CLOCK_BOOTTIME);
	pb_open(&f->m, F_PKT_CLOCK_SNAPSHOT);
	pb_open(&f->m, F_CS_CLOCKS);
	pb_put_varint(&f->m, F_CLK_ID, CLOCK_BOOTTIME);
	pb_put_varint(&f->m, F_CLK_TIMESTAMP, 0);
	pb_close(&f->m);
	pb_open(&f->m, F_CS_CLOCKS);
	pb_put_varint(&f->m, F_CLK_ID, CLOCK_SEQ_INCREMENTAL);
	pb_put_varint(&f->m, F_CLK_TIMESTAMP, 0);
	pb_put_varint(&f->m, F_CLK_INCREMENTAL, 1);
	pb_close(&f->m);
	pb_close(&f->m);
	ct_pf_emit(f);
}

static inline uint64_t ct_pf_delta(struct ct_pf *f, uint64_t clock)
{
	uint64_t ts = ct_xns(f->x->t, clock);
	if (ts < f->last_ts)
		ts = f->last_ts; /* never backwards on a sequence */
	uint64_t d = ts - f->last_ts;
	f->last_ts = ts;
	return d;
}

/*
 * The common packet: timestamp, sequence, a TrackEvent of a type with an
 * interned name (iid) or none (0), the flags. Written straight to the output.
 */
static inline void ct_pf_event(struct ct_pf *f, uint64_t delta, unsigned type, uint64_t iid)
{
	unsigned te = 2 + (iid ? 1 + ct_vlen(iid) : 0);
	unsigned body = 1 + ct_vlen(delta) + 1 + ct_vlen(f->seq) + 2 + te + 2;
	uint8_t *p = ct_out_room(&f->x->out, 40);

	*p++ = F_TRACE_PACKET << 3 | PB_LEN;
	p = ct_put_varint(p, body);
	*p++ = F_PKT_TIMESTAMP << 3 | PB_VARINT;
	p = ct_put_varint(p, delta);
	*p++ = F_PKT_SEQ_ID << 3 | PB_VARINT;
	p = ct_put_varint(p, f->seq);
	*p++ = F_PKT_TRACK_EVENT << 3 | PB_LEN;
	*p++ = (uint8_t)te;
	*p++ = F_TE_TYPE << 3 | PB_VARINT;
	*p++ = (uint8_t)type;
	if (iid) {
		*p++ = F_TE_NAME_IID << 3 | PB_VARINT;
		p = ct_put_varint(p, iid);
	}
	*p++ = F_PKT_SEQ_FLAGS << 3 | PB_VARINT;
	*p++ = SEQ_NEEDS_INCREMENTAL_STATE;
	ct_out_commit(&f->x->out, p);
}

/* A debug annotation "key": "text" of the TrackEvent being built (record -a's values). */
static void ct_pf_annotate(struct ct_pf *f, const char *key, const char *text)
{
	pb_open(&f->m, F_TE_DEBUG_ANNOTATIONS);
	pb_put_str(&f->m, F_DA_NAME, key);
	pb_put_str(&f->m, F_DA_STRING_VALUE, text);
	pb_close(&f->m);
}

/*
 * A slice begin or end with what the call was given or returned, and its
 * name interned first if the sequence has not seen it (func: UINT32_MAX for none).
 */
static void ct_pf_event_values(struct ct_pf *f, uint64_t delta, unsigned type, uint32_t func,
			       const char *key, const char *text)
{
	pb_put_varint(&f->m, F_PKT_TIMESTAMP, delta);
	pb_put_varint(&f->m, F_PKT_SEQ_ID, f->seq);
	pb_open(&f->m, F_PKT_TRACK_EVENT);
	pb_put_varint(&f->m, F_TE_TYPE, type);
	if (func != UINT32_MAX)
		pb_put_varint(&f->m, F_TE_NAME_IID, (uint64_t)func + 1);
	ct_pf_annotate(f, key, text);
	pb_close(&f->m);
	pb_put_varint(&f->m, F_PKT_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	ct_pf_emit(f);
}

/* A slice begin whose name the sequence has not interned yet: intern it in the same packet. */
static void ct_pf_begin_named(struct ct_pf *f, uint64_t delta, uint32_t func, const char *args)
{
	const struct ct_func *fn = ct_symbols_func(f->x->sym, func);
	uint64_t iid = (uint64_t)func + 1;

	if (func >= f->nnamed)
		f->named = ct_table_fit(f->named, &f->nnamed, func, sizeof(*f->named));
	f->named[func] = f->seq;
	pb_put_varint(&f->m, F_PKT_TIMESTAMP, delta);
	pb_put_varint(&f->m, F_PKT_SEQ_ID, f->seq);
	pb_open(&f->m, F_PKT_TRACK_EVENT);
	pb_put_varint(&f->m, F_TE_TYPE, TYPE_SLICE_BEGIN);
	pb_put_varint(&f->m, F_TE_NAME_IID, iid);
	if (args)
		ct_pf_annotate(f, "args", args);
	pb_close(&f->m);
	pb_open(&f->m, F_PKT_INTERNED_DATA);
	pb_open(&f->m, F_ID_EVENT_NAMES);
	pb_put_varint(&f->m, F_EN_IID, iid);
	pb_put_str(&f->m, F_EN_NAME, fn && fn->name ? fn->name : "?");
	pb_close(&f->m);
	pb_close(&f->m);
	pb_put_varint(&f->m, F_PKT_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	ct_pf_emit(f);
}

/* An instant event with a name of its own (not interned: marks are rare). */
static void ct_pf_instant(struct ct_pf *f, uint64_t clock, const char *name)
{
	if (!f->started)
		ct_pf_start(f);
	pb_put_varint(&f->m, F_PKT_TIMESTAMP, ct_pf_delta(f, clock));
	pb_put_varint(&f->m, F_PKT_SEQ_ID, f->seq);
	pb_open(&f->m, F_PKT_TRACK_EVENT);
	pb_put_varint(&f->m, F_TE_TYPE, TYPE_INSTANT);
	pb_put_str(&f->m, F_TE_NAME, name);
	pb_close(&f->m);
	pb_put_varint(&f->m, F_PKT_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	ct_pf_emit(f);
}

/* End the kernel slices open that end by clock (UINT64_MAX: all). */
static void ct_pf_kflush(struct ct_pf *f, uint64_t clock)
{
	while (f->nkend && f->kend[f->nkend - 1] <= clock)
		ct_pf_event(f, ct_pf_delta(f, f->kend[--f->nkend]), TYPE_SLICE_END, 0);
}

/*
 * record --kernel: a slice in the call that made it. Its end waits for what
 * may nest in it (an off-CPU interval in a system call) or the next call.
 */
static void ct_pf_kernel(void *ctx, const struct ct_kernel_rec *k, uint32_t depth)
{
	struct ct_pf *f = ctx;
	char name[128], text[512];
	(void)depth;

	if (!f->started)
		ct_pf_start(f);
	ct_pf_kflush(f, k->start);
	uint64_t end = k->end;
	if (f->nkend && end > f->kend[f->nkend - 1])
		end = f->kend[f->nkend - 1]; /* within the slice it began in */
	if (f->nkend == CT_ARRAY_SIZE(f->kend))
		ct_pf_kflush(f, UINT64_MAX);
	ct_kernel_name(name, sizeof(name), k, f->x->t);
	ct_kernel_text(text, sizeof(text), k, f->x->t);
	pb_put_varint(&f->m, F_PKT_TIMESTAMP, ct_pf_delta(f, k->start));
	pb_put_varint(&f->m, F_PKT_SEQ_ID, f->seq);
	pb_open(&f->m, F_PKT_TRACK_EVENT);
	pb_put_varint(&f->m, F_TE_TYPE, TYPE_SLICE_BEGIN);
	pb_put_str(&f->m, F_TE_NAME, name);
	ct_pf_annotate(f, "call", text);
	pb_close(&f->m);
	pb_put_varint(&f->m, F_PKT_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	ct_pf_emit(f);
	f->kend[f->nkend++] = end;
}

static void ct_pf_thread_begin(void *ctx, const struct ct_thread_info *th)
{
	struct ct_pf *f = ctx;
	f->th = th;
	f->started = 0; /* the sequence begins with the thread's first event */
	ct_xprogress_thread(&f->x->prog, th);
}

static void ct_pf_enter(void *ctx, const struct ct_call *c)
{
	struct ct_pf *f = ctx;

	ct_xprogress_tick(&f->x->prog, c->enter_clock);
	if (__builtin_expect(!f->started, 0))
		ct_pf_start(f);
	if (__builtin_expect(f->nkend != 0, 0))
		ct_pf_kflush(f, UINT64_MAX);
	uint64_t d = ct_pf_delta(f, c->enter_clock);
	char args[1024];
	int has_args = c->values && ct_call_args_text(&f->values, c->values, args, sizeof(args));
	f->open++;
	if (__builtin_expect(c->func < f->nnamed && f->named[c->func] == f->seq, 1)) {
		if (__builtin_expect(!has_args, 1))
			ct_pf_event(f, d, TYPE_SLICE_BEGIN, (uint64_t)c->func + 1);
		else
			ct_pf_event_values(f, d, TYPE_SLICE_BEGIN, c->func, "args", args);
	} else {
		ct_pf_begin_named(f, d, c->func, has_args ? args : NULL);
	}
}

static void ct_pf_exit(void *ctx, const struct ct_call *c)
{
	struct ct_pf *f = ctx;

	ct_xprogress_tick(&f->x->prog, c->exit_clock);
	if (__builtin_expect(f->nkend != 0, 0))
		ct_pf_kflush(f, UINT64_MAX);
	if (__builtin_expect(!f->open || (c->how == CT_CLOSE_NO_ENTRY && c->depth >= f->open), 0)) {
		/* a return whose call was not seen: no slice to end */
		const struct ct_func *fn = ct_symbols_func(f->x->sym, c->func);
		char name[1024];
		snprintf(name, sizeof(name), "%s returned (entered before tracing)",
			 fn && fn->name ? fn->name : "?");
		ct_pf_instant(f, c->exit_clock, name);
		return;
	}
	f->open--;
	char ret[1024];
	if (__builtin_expect(!c->values, 1) ||
	    !ct_call_ret_text(&f->values, c->values, ret, sizeof(ret)))
		ct_pf_event(f, ct_pf_delta(f, c->exit_clock), TYPE_SLICE_END, 0);
	else /* the end's annotations join the slice's */
		ct_pf_event_values(f, ct_pf_delta(f, c->exit_clock), TYPE_SLICE_END, UINT32_MAX,
				   "returned", ret);
}

static void ct_pf_mark(void *ctx, const struct ct_event *ev, uint32_t depth)
{
	struct ct_pf *f = ctx;
	char name[1024];
	(void)depth;

	ct_pf_kflush(f, UINT64_MAX);
	if (ct_export_mark_name(f->x, f->th, ev, name, sizeof(name)))
		ct_pf_instant(f, ev->clock, name);
}

static void ct_pf_thread_end(void *ctx, const struct ct_thread_info *th)
{
	struct ct_pf *f = ctx;

	ct_pf_kflush(f, UINT64_MAX);
	/* the walker closes every call; should one be left, end it with the thread */
	while (f->open) {
		f->open--;
		ct_pf_event(f, ct_pf_delta(f, th->last_clock), TYPE_SLICE_END, 0);
	}
	if (f->x->out.len >= (1u << 20))
		ct_out_flush(&f->x->out);
}

static const struct ct_sink ct_pf_sink = {
	.thread_begin = ct_pf_thread_begin,
	.enter = ct_pf_enter,
	.exit = ct_pf_exit,
	.mark = ct_pf_mark,
	.thread_end = ct_pf_thread_end,
};

/* ---- record --kernel: off-CPU intervals as the scheduler's switches ---------------- */

struct ct_pf_switch {
	uint64_t ts;
	const struct ct_kernel_rec *r;
	uint32_t cpu;
	int in; /* the thread comes back (else it leaves) */
};

static int ct_pf_switch_cmp(const void *a, const void *b)
{
	const struct ct_pf_switch *x = a, *y = b;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->in - y->in; /* one leaves before another comes */
}

/* The thread's name for the switches ("comm"): its process's, as the kernel has it. */
static const char *ct_pf_comm(struct ct_pf *f, int32_t tid)
{
	for (size_t i = 0; i < f->x->t->nthreads; i++)
		if (f->x->t->threads[i].tid == tid) {
			const char *name = ct_export_process_name(f->x->t,
								  f->x->t->threads[i].instance);
			return name ? name : "?";
		}
	return "?";
}

static void ct_pf_switch_event(struct ct_pf *f, const struct ct_pf_switch *s)
{
	const struct ct_kernel_rec *r = s->r;
	const char *comm = ct_pf_comm(f, r->tid);
	/* prev_state as the kernel's report bits; not known: asleep (S) */
	int64_t state = r->ret >= 0 ? r->ret : 1;
	pb_open(&f->m, F_FB_EVENT);
	pb_put_varint(&f->m, F_FE_TIMESTAMP, s->ts);
	pb_put_varint(&f->m, F_FE_PID, s->in ? 0 : (uint64_t)(uint32_t)r->tid);
	pb_open(&f->m, F_FE_SCHED_SWITCH);
	pb_put_str(&f->m, F_SW_PREV_COMM, s->in ? "swapper" : comm);
	pb_put_varint(&f->m, F_SW_PREV_PID, s->in ? 0 : (uint64_t)(uint32_t)r->tid);
	pb_put_varint(&f->m, F_SW_PREV_PRIO, 120);
	pb_put_varint(&f->m, F_SW_PREV_STATE, s->in ? 0 : (uint64_t)state);
	pb_put_str(&f->m, F_SW_NEXT_COMM, s->in ? comm : "swapper");
	pb_put_varint(&f->m, F_SW_NEXT_PID, s->in ? (uint64_t)(uint32_t)r->tid : 0);
	pb_put_varint(&f->m, F_SW_NEXT_PRIO, 120);
	pb_close(&f->m);
	pb_close(&f->m);
}

/* Is the record's thread one the walk selects (--tid, --pid)? */
static int ct_pf_selected(const struct ct_filter *flt, const struct ct_kernel_rec *r)
{
	int ok = !flt->tids || !flt->tids[0];
	for (const int32_t *p = flt->tids; p && *p && !ok; p++)
		ok = *p == r->tid;
	int pok = !flt->pids || !flt->pids[0];
	for (const int32_t *p = flt->pids; p && *p && !pok; p++)
		pok = *p == r->pid;
	return ok && pok;
}

/* Every off-CPU interval whose CPUs are known: out and back, by CPU and time, 512 a packet. */
static void ct_pf_sched(struct ct_pf *f)
{
	const struct ct_trace *t = f->x->t;
	const struct ct_filter *flt = ct_walk_filter(f->x->w);
	if (!t->nkrecs || flt->no_kernel)
		return;
	struct ct_pf_switch *sw = ct_malloc(2 * t->nkrecs * sizeof(*sw));
	size_t n = 0;
	for (size_t i = 0; i < t->nkrecs; i++) {
		const struct ct_kernel_rec *r = &t->krecs[i];
		if (r->kind != CT_KREC_OFFCPU || !r->cpu_out || !r->cpu_in ||
		    !ct_pf_selected(flt, r))
			continue;
		sw[n++] = (struct ct_pf_switch){ ct_xns(t, r->start), r, r->cpu_out - 1, 0 };
		sw[n++] = (struct ct_pf_switch){ ct_xns(t, r->end), r, r->cpu_in - 1, 1 };
	}
	qsort(sw, n, sizeof(*sw), ct_pf_switch_cmp);
	for (size_t i = 0; i < n;) {
		uint32_t cpu = sw[i].cpu;
		pb_open(&f->m, F_PKT_FTRACE_EVENTS);
		pb_put_varint(&f->m, F_FB_CPU, cpu);
		for (size_t k = 0; i < n && sw[i].cpu == cpu && k < 512; i++, k++)
			ct_pf_switch_event(f, &sw[i]);
		pb_close(&f->m);
		ct_pf_emit(f);
	}
	free(sw);
}

int ct_export_perfetto(struct ct_export *x)
{
	struct ct_pf f = { .x = x };
	int rc;

	ct_map_init(&f.procs, 16);
	ct_map_init(&f.threads, 16);
	rc = ct_walk_run_kernel(x->w, &ct_pf_sink, &f, ct_pf_kernel);
	if (rc >= 0)
		ct_pf_sched(&f);
	ct_map_free(&f.procs);
	ct_map_free(&f.threads);
	ct_buf_free(&f.m.b);
	free(f.named);
	return rc < 0 ? -1 : 0;
}
