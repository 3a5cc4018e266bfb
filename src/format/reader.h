/* SPDX-License-Identifier: MIT */
/*
 * Reading a trace: open checks every block, loads the metadata (processes,
 * modules, symbol tables, clock samples) and indexes the event blocks by
 * thread. Events are then streamed thread by thread, block by block, so
 * memory stays bounded whatever the length of the trace.
 */
#ifndef CT_FORMAT_READER_H
#define CT_FORMAT_READER_H

#include <stdint.h>
#include <stdio.h>

#include "events.h"
#include "format.h"

struct ct_meta_kv {
	char *key, *val;
};

struct ct_process_info {
	struct ct_process_rec rec;
	char *exe;
	char *args; /* NUL-separated, rec.args_len bytes */
	uint32_t nthreads;
};

struct ct_module_info {
	struct ct_module_rec rec;
	char *path;
};

struct ct_block_ref {
	uint64_t offset; /* of the payload */
	uint32_t length;
	struct ct_events_hdr hdr;
};

struct ct_thread_info {
	uint32_t instance;
	int32_t pid, tid;
	uint32_t *blocks; /* indexes into ct_trace.events, in thread order */
	uint32_t nblocks, cap;
	uint64_t nrecords;
	uint64_t lost; /* events it dropped (lossy mode) */
	uint64_t first_clock, last_clock;
	uint32_t flags; /* CT_EVENTS_* of any of its blocks */
	uint32_t snapshot;
};

struct ct_trace {
	char *path;
	int fd;
	uint64_t size;
	uint32_t version;
	struct ct_meta_kv *meta;
	size_t nmeta;
	struct ct_clock_sample clock_first, clock_last;
	int nclocks;
	struct ct_process_info *procs;
	size_t nprocs;
	struct ct_module_info *mods;
	size_t nmods;
	struct ct_buf *symtabs; /* decompressed SYMTAB payloads */
	size_t nsymtabs;
	struct ct_buf *protos; /* decompressed PROTOS payloads: u32 instance, entries */
	size_t nprotos;
	struct ct_end_rec end;
	int has_end;
	struct ct_crash_rec *crashes;
	size_t ncrashes;
	struct ct_thread_rec *names; /* thread names, in the order they were given */
	size_t nnames;
	struct ct_unload_rec *unloads; /* modules dlclose unmapped */
	size_t nunloads;
	struct ct_untraced_info *untraced; /* processes that ran untraced, or stopped */
	size_t nuntraced;
	struct ct_block_ref *events;
	size_t nevents;
	struct ct_thread_info *threads;
	size_t nthreads;
	uint64_t torn_bytes;  /* bytes after the last complete block */
	uint64_t next_offset; /* where the next block starts */
	struct ct_map thread_index; /* snapshot, instance, tid -> index in threads */
	double ns_per_tick;
	uint64_t clock_origin;
	struct ct_kernel_rec *krecs; /* record --kernel: every KERNEL record (kernel_recs.c) */
	size_t nkrecs;
	uint64_t klost; /* kernel events its ring buffers dropped */
	int ksorted;	/* krecs sorted by tid, then time */
	struct ct_karg *kargs; /* KARGS: what system calls pointed to (kernel_recs.c) */
	size_t nkargs;
	struct ct_buf kargs_data; /* their bytes */
	struct ct_map kargs_index; /* tid and start -> index + 1 in kargs */
};

struct ct_untraced_info {
	struct ct_untraced_rec rec;
	char *path;
};

/* NULL on failure, with a one-line reason in err. */
struct ct_trace *ct_trace_open(const char *path, char *err, size_t errlen);
/*
 * Read the blocks written since (a trace being recorded, by live): returns how
 * many event blocks came, -1 on a corrupt block. New blocks and threads are
 * appended to t->events and t->threads (which may move: keep indexes).
 */
int ct_trace_follow(struct ct_trace *t, char *err, size_t errlen);
void ct_trace_close(struct ct_trace *t);
const char *ct_trace_meta(const struct ct_trace *t, const char *key);
/* The architecture the program ran on (META arch): "x86_64" for traces from before it was said. */
const char *ct_trace_arch(const struct ct_trace *t);
const struct ct_process_info *ct_trace_process(const struct ct_trace *t, uint32_t instance);
/* The thread's last name (pthread_setname_np, prctl), or NULL if it was never named. */
const char *ct_trace_thread_name(const struct ct_trace *t, const struct ct_thread_info *th);
/* The thread tid of a process image, in one snapshot (0 if not a flight recording), or NULL. */
const struct ct_thread_info *ct_trace_thread(const struct ct_trace *t, uint32_t snapshot,
					     uint32_t instance, int32_t tid);
/* nanoseconds since the start of the recording */
double ct_trace_ns(const struct ct_trace *t, uint64_t clock);

struct ct_stream {
	struct ct_trace *t;
	const struct ct_thread_info *th;
	uint32_t next_block;
	uint32_t blocks_read; /* changes when a new block (and function table) starts */
	int in_block;
	struct ct_decoder dec;
	struct ct_buf payload;
};

void ct_stream_open(struct ct_stream *s, struct ct_trace *t, const struct ct_thread_info *th);
/* The next block of the stream: 1 loaded, 0 none left, -1 unreadable (message printed). */
int ct_stream_next_block(struct ct_stream *s);

/* 1: a record, 0: end of the thread, -1: unreadable block (message printed) */
static inline int ct_stream_next(struct ct_stream *s, struct ct_event *ev)
{
	for (;;) {
		if (s->in_block) {
			int r = ct_decoder_next(&s->dec, ev);
			if (__builtin_expect(r > 0, 1))
				return r;
			if (r < 0) {
				fprintf(stderr, "calltrace: %s: corrupt trace: bad record\n", s->t->path);
				return r;
			}
			s->in_block = 0;
		}
		int b = ct_stream_next_block(s);
		if (b <= 0)
			return b;
	}
}
void ct_stream_close(struct ct_stream *s);

/* kernel_recs.c: a KERNEL payload's records added to t->krecs; -1 if it lies */
int ct_kernel_recs_add(struct ct_trace *t, const uint8_t *p, size_t len);
/* The records of thread tid in time order, *n of them (NULL if none). */
const struct ct_kernel_rec *ct_trace_kernel(struct ct_trace *t, int32_t tid, size_t *n);

/* A KARGS entry: the system call of (tid, start) pointed to data. */
struct ct_karg {
	struct ct_karg_rec rec;
	size_t off; /* its bytes in t->kargs_data */
};
/* kernel_recs.c: a KARGS payload's entries added; -1 if it lies */
int ct_kargs_add(struct ct_trace *t, const uint8_t *p, size_t len);
/*
 * What the system call of tid that started at start pointed to (*data, rec.len
 * bytes, valid until the trace grows), or NULL if not read.
 */
const struct ct_karg_rec *ct_trace_karg(const struct ct_trace *t, int32_t tid, uint64_t start,
					const uint8_t **data);

#endif
