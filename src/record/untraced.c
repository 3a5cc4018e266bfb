/* SPDX-License-Identifier: MIT */
/*
 * Processes of the traced tree that ran untraced: nothing goes untraced
 * without a word.
 *
 * An exec wrapper that sees the new image will not be able to join (it is
 * statically linked, setuid, for another architecture, or there is no pool
 * to hand it) says so in an exec-note record before its exec record. If that
 * image then never announces itself (no PROCESS record names the exec'ing
 * image as its origin) and the exec did not fail, it ran untraced: the
 * recorder writes an UNTRACED block for it at the end. A process whose
 * runtime stops tracing (the program unmapped or write-protected the pool)
 * says so itself, and the block is written at once.
 *
 * All of it comes from the pool, which the program can write: strings are
 * bounded by the record, counts by what the recorder keeps (CT_WATCH_MAX);
 * a program can at worst make up untraced processes of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "untraced.h"
#include "record.h"
#include "../common/event.h"
#include "../common/pool.h"
#include "../format/format.h"
#include "../util/util.h"

#define CT_WATCH_MAX 65536

/* An exec whose new image was expected not to join. */
struct ct_watch {
	uint32_t instance; /* the image that exec'd */
	int32_t pid;
	uint64_t clock;
	uint32_t reason;
	int32_t err;
	int failed; /* the exec failed: the image went on */
	char *path;
};

static struct ct_watch *ct_watches;
static size_t ct_nwatches;
static uint32_t *ct_joined; /* exec instances new images named as their origin */
static size_t ct_njoined;
static uint64_t ct_stopped;

static char *ct_note_path(const uint8_t *p, uint32_t len)
{
	const size_t head = sizeof(struct ct_ext_exec_note);
	return len > head ? ct_strndup((const char *)p + head, len - head) : ct_strdup("?");
}

void ct_untraced_exec_note(uint32_t instance, int32_t pid, uint64_t clock, const uint8_t *p,
			   uint32_t len)
{
	struct ct_ext_exec_note n;
	if (len < sizeof(n) || ct_nwatches >= CT_WATCH_MAX)
		return;
	memcpy(&n, p, sizeof(n));
	for (size_t i = 0; i < ct_nwatches; i++) /* a flight recorder reads a ring again */
		if (ct_watches[i].instance == instance && ct_watches[i].clock == clock)
			return;
	ct_watches = ct_realloc(ct_watches, (ct_nwatches + 1) * sizeof(*ct_watches));
	ct_watches[ct_nwatches++] = (struct ct_watch){ .instance = instance,
						       .pid = pid,
						       .clock = clock,
						       .reason = n.reason,
						       .err = n.err,
						       .path = ct_note_path(p, len) };
}

/* The last exec the image announced failed: that note is void. */
void ct_untraced_exec_failed(uint32_t instance)
{
	for (size_t i = ct_nwatches; i-- > 0;)
		if (ct_watches[i].instance == instance) {
			ct_watches[i].failed = 1;
			return;
		}
}

void ct_untraced_process(const uint8_t *p, uint32_t len)
{
	struct ct_ext_process x;
	if (len < sizeof(x) || ct_njoined >= CT_WATCH_MAX)
		return;
	memcpy(&x, p, sizeof(x));
	if (!(x.flags & CT_PROC_EXECED) || !x.exec_instance)
		return;
	ct_joined = ct_realloc(ct_joined, (ct_njoined + 1) * sizeof(*ct_joined));
	ct_joined[ct_njoined++] = x.exec_instance;
}

static void ct_write_untraced(struct ct_writer *w, uint32_t instance, int32_t pid, uint64_t clock,
			      uint32_t reason, int32_t err, const char *path)
{
	struct ct_untraced_rec r = {
		.instance = instance, .pid = pid, .clock = clock, .reason = reason, .err = err
	};
	ct_writer_block(w, CT_BLOCK_UNTRACED, 0, &r, sizeof(r), path, (uint32_t)strlen(path) + 1);
}

void ct_untraced_stopped(struct ct_writer *w, uint32_t instance, int32_t pid, uint64_t clock,
			 const uint8_t *p, uint32_t len)
{
	struct ct_ext_exec_note n;
	if (len < sizeof(n) || ct_stopped >= CT_WATCH_MAX)
		return;
	memcpy(&n, p, sizeof(n));
	char *path = ct_note_path(p, len);
	ct_write_untraced(w, instance, pid, clock, n.reason, n.err, path);
	free(path);
	ct_stopped++;
}

static int ct_image_joined(uint32_t exec_instance)
{
	for (size_t i = 0; i < ct_njoined; i++)
		if (ct_joined[i] == exec_instance)
			return 1;
	return 0;
}

uint64_t ct_untraced_finish(struct ct_writer *w)
{
	uint64_t n = ct_stopped;
	for (size_t i = 0; i < ct_nwatches; i++) {
		struct ct_watch *x = &ct_watches[i];
		if (!x->failed && !ct_image_joined(x->instance)) {
			ct_write_untraced(w, x->instance, x->pid, x->clock, x->reason, x->err,
					  x->path);
			n++;
		}
		free(x->path);
	}
	free(ct_watches);
	free(ct_joined);
	ct_watches = NULL;
	ct_joined = NULL;
	ct_nwatches = ct_njoined = 0;
	ct_stopped = 0;
	return n;
}

/* ---- processes that ran no traced code --------------------------------------- */

static struct ct_map ct_started; /* pid -> ppid of every image that said it started */
static uint32_t ct_started_read;
static uint64_t ct_started_unnamed;   /* images the ring lost before we read them */
static uint32_t ct_started_processes; /* the runtime's count of processes started */

/*
 * Take what images noted as they started (the ring in the control area).
 * Called every pass of the recorder: a ring of 1,024 outruns it only if that
 * many programs start within one pass. Their pids are lost then, not their
 * count: the runtime also counts each process once as it starts
 * (started_processes), and that count is the total when it is the larger.
 * The pool is the program's to write: a pid out of range is dropped, at
 * worst a program makes up processes of its own.
 */
void ct_untraced_drain_started(struct ct_pool_ctl *ctl)
{
	uint32_t now = atomic_load(&ctl->started_count);
	ct_started_processes = atomic_load(&ctl->started_processes);
	if (!ct_started.cap)
		ct_map_init(&ct_started, 64);
	if (now - ct_started_read > CT_STARTED_RING) {
		ct_started_unnamed += now - ct_started_read - CT_STARTED_RING;
		ct_started_read = now - CT_STARTED_RING;
	}
	for (; ct_started_read != now; ct_started_read++) {
		uint32_t at = ct_started_read % CT_STARTED_RING;
		int32_t pid = atomic_load(&ctl->started[at].pid);
		int32_t ppid = atomic_load(&ctl->started[at].ppid);
		int added;
		if (pid > 0 && pid < (1 << 22))
			*ct_map_put(&ct_started, (uint64_t)pid, &added) = (uint64_t)(uint32_t)ppid;
	}
}

static int ct_instance_called(const struct ct_collector *c, uint32_t instance)
{
	return ct_map_find(&c->called, instance) != NULL;
}

void ct_untraced_count(const struct ct_collector *c, struct ct_process_counts *n)
{
	struct ct_map all, traced;
	int added;

	ct_map_init(&all, 64);
	ct_map_init(&traced, 64);
	for (size_t i = 0; i < ct_started.cap; i++)
		if (ct_started.keys[i])
			ct_map_put(&all, ct_started.keys[i], &added);
	memset(n, 0, sizeof(*n));
	for (size_t i = 0; i < c->ninsts; i++) {
		const struct ct_rec_instance *x = &c->insts[i];
		ct_map_put(&all, (uint64_t)x->pid, &added);
		if (ct_instance_called(c, x->instance)) {
			ct_map_put(&traced, (uint64_t)x->pid, &added);
		} else {
			char num[16];
			snprintf(num, sizeof(num), "%s%u", n->quiet.len ? "," : "", x->instance);
			ct_buf_append(&n->quiet, num, strlen(num));
		}
	}
	ct_buf_append(&n->quiet, "", 1);
	/* images that never note a start (ptrace, attach) have only their pids to count */
	n->total = all.count > ct_started_processes ? all.count : ct_started_processes;
	n->traced = traced.count;
	n->unnamed = ct_started_unnamed;
	ct_map_free(&all);
	ct_map_free(&traced);
	ct_map_free(&ct_started);
	memset(&ct_started, 0, sizeof(ct_started));
	ct_started_read = 0;
	ct_started_unnamed = 0;
	ct_started_processes = 0;
}
