/* SPDX-License-Identifier: MIT */
/*
 * The recorder: creates the pool, starts the program, turns published chunks
 * into blocks while it runs, and when every traced process has ended salvages
 * what is left, saves the symbol tables and closes the trace.
 *
 * It is a subreaper, so processes the program forks and orphans stay its
 * children: recording ends when the last of them ends.
 */
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record.h"
#include "kside.h"
#include "untraced.h"
#include "../util/time_ns.h"
#include "../arch/arch.h"
#include "../ptrace/ptrace.h"

static volatile sig_atomic_t ct_forward_sig, ct_interrupted;

static void ct_on_signal(int sig)
{
	ct_forward_sig = sig;
}

static void ct_on_interrupt(int sig)
{
	(void)sig;
	ct_interrupted = 1;
}

static struct ct_clock_sample ct_sample(uint32_t clock)
{
	struct ct_clock_sample s;
	s.clock = clock == CT_CLOCK_TSC ? ct_arch_clock() : ct_time_ns(CLOCK_MONOTONIC);
	s.monotonic_ns = ct_time_ns(CLOCK_MONOTONIC);
	s.realtime_ns = ct_time_ns(CLOCK_REALTIME);
	if (clock != CT_CLOCK_TSC)
		s.clock = s.monotonic_ns;
	return s;
}

/* A quick estimate of the TSC rate, for traces whose recorder dies before the end sample. */
static double ct_estimate_hz(uint32_t clock)
{
	if (clock != CT_CLOCK_TSC)
		return 1e9;
#if defined(__aarch64__)
	return (double)ct_arch_clock_hz(); /* the counter says its rate */
#endif
	struct ct_clock_sample a = ct_sample(clock);
	struct timespec ts = { 0, 2000000 };
	nanosleep(&ts, NULL);
	struct ct_clock_sample b = ct_sample(clock);
	return (double)(b.clock - a.clock) * 1e9 / (double)(b.monotonic_ns - a.monotonic_ns);
}

static void ct_meta_add(struct ct_buf *b, const char *key, const char *val)
{
	ct_buf_append(b, key, strlen(key) + 1);
	ct_buf_append(b, val, strlen(val) + 1);
}

/* What calls capture (record -a, -A, -R, --srcline): readers then look for it. */
static void ct_meta_captures(struct ct_buf *b)
{
	const char *a = getenv("CALLTRACE_ARGS"), *spec = getenv("CALLTRACE_ARGSPEC");
	const char *cs = getenv("CALLTRACE_CALLSITES");
	int args = (a && *a == '1') || (spec && *spec), sites = cs && *cs == '1';
	if (args || sites)
		ct_meta_add(b, "captures", args && sites ? "args,callsites" : args ? "args" : "callsites");
}

static void ct_write_meta(struct ct_writer *w, const struct ct_record_opts *o, uint32_t clock)
{
	struct ct_buf b = { 0 };
	struct ct_buf cmd = { 0 };
	char tmp[4096];

	for (char **a = o->argv; *a; a++) {
		if (a != o->argv)
			ct_buf_append(&cmd, " ", 1);
		ct_buf_append(&cmd, *a, strlen(*a));
	}
	ct_buf_append(&cmd, "", 1);
	ct_meta_add(&b, "command", (char *)cmd.data);
	ct_meta_add(&b, "calltrace_version", CT_VERSION);
	ct_meta_add(&b, "method", "auto"); /* told at the end, once known */
	if (o->serve_pid)
		ct_meta_add(&b, "started", "standalone");
	else if (o->attach_pid)
		ct_meta_add(&b, "started", "attach");
	ct_meta_add(&b, "arch", CT_ARCH_NAME); /* readers take a trace without it as x86_64 */
	ct_meta_add(&b, "clock", clock == CT_CLOCK_TSC ? CT_ARCH_CLOCK_NAME : "monotonic");
	snprintf(tmp, sizeof(tmp), "%.0f", ct_estimate_hz(clock));
	ct_meta_add(&b, "clock_hz", tmp);
	if (getcwd(tmp, sizeof(tmp)))
		ct_meta_add(&b, "cwd", tmp);
	if (gethostname(tmp, sizeof(tmp)) == 0)
		ct_meta_add(&b, "hostname", tmp);
	snprintf(tmp, sizeof(tmp), "%u", o->chunk_size);
	ct_meta_add(&b, "chunk_size", tmp);
	if (o->ring_size) {
		ct_meta_add(&b, "mode", "ring");
		snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)o->ring_size);
		ct_meta_add(&b, "ring_size", tmp);
	} else {
		ct_meta_add(&b, "mode", o->lossy ? "lossy" : "lossless");
	}
	ct_meta_captures(&b);
	ct_writer_block(w, CT_BLOCK_META, 0, b.data, (uint32_t)b.len, NULL, 0);
	ct_buf_free(&b);
	ct_buf_free(&cmd);
}

struct ct_session {
	struct ct_pool pool;
	struct ct_writer w;
	struct ct_collector col;
	pid_t child;
	int child_status;
	int child_done;
	uint32_t clock;
	uint64_t start_ns;
	const char *argv0;
	int write_failed; /* said so already */
	const struct ct_record_opts *o;
	uint64_t last_alive_check; /* standalone: when we last looked for live processes */
	uint32_t shorts_seen;	   /* lossy: ctl->short_count at the last look */
	uint64_t starved;	   /* times we said the pool was starved */
	uint64_t last_progress;	   /* when a pass last collected a chunk */
	struct ct_end_rec end;	   /* as written */
	struct ct_kernel *kernel;  /* record --kernel */
};

/* Reap whatever ended; true when no traced process is left. */
static int ct_reap(struct ct_session *s)
{
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG | __WALL);
		if (p == 0)
			return 0;
		if (p < 0)
			return errno == ECHILD;
		if (p == s->child) {
			s->child_status = st;
			s->child_done = 1;
		}
	}
}

/* Standalone: is pid running (not gone, not a zombie)? */
static int ct_pid_alive(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/*
 * Standalone: the recording ends when the last traced process said goodbye,
 * or, should some die without saying it (killed), when none is left.
 */
static int ct_serve_over(struct ct_session *s)
{
	struct ct_pool_ctl *ctl = s->pool.ctl;
	if (atomic_load(&ctl->live_procs) <= 0)
		return 1;
	uint64_t now = ct_time_ns(CLOCK_MONOTONIC);
	if (now - s->last_alive_check < 100 * 1000 * 1000)
		return 0;
	s->last_alive_check = now;
	if (ct_pid_alive(s->o->serve_pid))
		return 0;
	for (size_t i = 0; i < s->col.ninsts; i++)
		if (ct_pid_alive(s->col.insts[i].pid))
			return 0;
	for (uint32_t i = 0; i < s->pool.released; i++) {
		int32_t pid = __atomic_load_n(&ctl->desc[i].pid, __ATOMIC_RELAXED);
		if (atomic_load(&ctl->desc[i].state) == CT_CHUNK_OWNED && pid > 0 &&
		    ct_pid_alive(pid))
			return 0;
	}
	return 1;
}

/*
 * Dozing, how many chunks to wait for: what the blocks gathered lack, as the
 * chunks left for later (full_left) are all a thread's. Woken at every
 * eighth chunk instead, the recorder looked at what it left there again: some
 * 190 wakes of 20 us for yaml-cpp, 4 % of its CPU. Never more than the free
 * chunks less a batch, so that threads do not run out first (the pool would
 * grow), nor fewer than a batch.
 */
static uint32_t ct_wake_batch(struct ct_session *s)
{
	/* in 64 bits: the program can write the count (the pool is its too) */
	int64_t spare = (int64_t)atomic_load(&s->pool.ctl->free_count) - CT_WAKE_BATCH;
	uint32_t want = s->col.block_chunks > s->col.full_left
				? s->col.block_chunks - s->col.full_left
				: CT_WAKE_BATCH;
	if (spare < (int64_t)want)
		want = spare > 0 ? (uint32_t)spare : 0;
	return want > CT_WAKE_BATCH ? want : CT_WAKE_BATCH;
}

static void ct_sleep(struct ct_session *s)
{
	struct ct_pool_ctl *ctl = s->pool.ctl;
	uint32_t seq = atomic_load(&ctl->wake_seq);

	/* blocks held back go out before we wait, if they waited 50 ms already */
	ct_writer_flush_stale(&s->w, 50 * 1000 * 1000);
	atomic_store(&ctl->full_pending, 0); /* a chunk published from here on counts */
	/*
	 * woken by each chunk published (asleep), or by a batch of them (dozing,
	 * pool.h): live views and flight recorders want each chunk as it comes, a
	 * lossy recording's threads drop what finds no chunk
	 */
	int dozing = ct_collector_unhurried(&s->col);
	if (dozing)
		atomic_store(&ctl->wake_batch, ct_wake_batch(s));
	atomic_store(&ctl->recorder_sleeping, dozing ? CT_RECORDER_DOZING : CT_RECORDER_ASLEEP);
	/* published since the last pass? (those it left for later do not count) */
	uint32_t full = 0;
	for (uint32_t i = 0; i < s->pool.released && full <= s->col.full_left; i++)
		full += atomic_load(&ctl->desc[i].state) == CT_CHUNK_FULL;
	if (full <= s->col.full_left) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		syscall(SYS_futex, &ctl->wake_seq, FUTEX_WAIT, seq, &ts, NULL, 0);
	}
	atomic_store(&ctl->recorder_sleeping, CT_RECORDER_AWAKE);
}

/* Threads wait, every chunk is out and none was published for this long: starved. */
#define CT_STARVED_AFTER (100 * 1000 * 1000)

/* Free chunks came back: waiting threads may wait again. */
static void ct_wake_waiters(struct ct_pool_ctl *ctl)
{
	atomic_fetch_add(&ctl->free_seq, 1);
	syscall(SYS_futex, &ctl->free_seq, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

/* Do threads lack chunks: some wait for one, or (lossy) dropped for want of one? */
static int ct_lacking(struct ct_session *s)
{
	struct ct_pool_ctl *ctl = s->pool.ctl;
	uint32_t shorts = atomic_load(&ctl->short_count);
	int lacking = atomic_load(&ctl->free_waiters) || shorts != s->shorts_seen;

	s->shorts_seen = shorts;
	return lacking;
}

/*
 * Threads lack chunks, the free stack is empty and we had nothing to collect:
 * threads hold every chunk released, and one that holds a chunk may be
 * waiting for one that waits for a chunk (a barrier). Release more, up to the
 * cap; at the cap, once a scan for dead threads gave nothing back either and
 * no chunk was published for 100 ms (threads busy filling theirs would have),
 * say the pool is starved: threads that wait drop their events, counted, instead
 * of waiting for ever. A program that lies in the free stack's head only makes
 * us release its own memory sooner, or its own threads drop.
 */
static int ct_relieve(struct ct_session *s, int scanned)
{
	struct ct_pool_ctl *ctl = s->pool.ctl;

	if ((uint32_t)atomic_load(&ctl->free_head))
		return 0;
	if (ct_pool_release_more(&s->pool)) {
		ct_wake_waiters(ctl);
		return 1;
	}
	/* no chunk published for a while either: not threads busy filling theirs */
	if (!scanned || !atomic_load(&ctl->free_waiters) || atomic_load(&ctl->starved) ||
	    ct_time_ns(CLOCK_MONOTONIC) - s->last_progress < CT_STARVED_AFTER)
		return 0;
	atomic_store(&ctl->starved, 1);
	s->starved++;
	ct_wake_waiters(ctl);
	return 1;
}

/* Starved, and an eighth of the chunks are back: threads may wait for chunks again. */
static void ct_end_starvation(struct ct_session *s)
{
	struct ct_pool_ctl *ctl = s->pool.ctl;

	if (atomic_load_explicit(&ctl->starved, memory_order_relaxed) &&
	    atomic_load(&ctl->free_count) >= (int32_t)ct_max(s->pool.released / 8, 1))
		atomic_store(&ctl->starved, 0);
}

static void ct_run(struct ct_session *s)
{
	struct ct_pool_ctl *ctl = s->pool.ctl;
	uint64_t last_scan = 0, last_tick = 0;
	uint32_t snapshots = 0;
	int noted = 0;

	for (;;) {
		/* live: what threads wrote so far, every 50 ms */
		if (s->o->tick) {
			uint64_t now = ct_time_ns(CLOCK_MONOTONIC);
			if (now - last_tick >= 50 * 1000 * 1000) {
				last_tick = now;
				ct_collect(&s->col, CT_TAKE_FULL);
				ct_collect_partial(&s->col);
				s->o->tick(s->o->tick_arg);
			}
		}
		/* flight recorder: a snapshot for every request (SIGUSR2, calltrace snapshot) */
		uint32_t asked = atomic_load(&ctl->snapshot_requests);
		if (s->col.ring && asked != snapshots) {
			snapshots = asked;
			ct_snapshot(&s->col);
			ct_writer_flush(&s->w); /* whoever asked may read it now */
		}
		if (ct_forward_sig) {
			if (!s->child_done)
				kill(s->child, ct_forward_sig);
			ct_forward_sig = 0;
		}
		if (ct_interrupted && s->o->attach_pid && !s->child_done) {
			kill(s->child, SIGINT); /* attach: the tracer detaches */
			ct_interrupted = 0;
		}
		size_t n = ct_collect(&s->col, CT_TAKE_FULL);
		ct_kside_poll(s->kernel, &s->w);
		ct_untraced_drain_started(s->pool.ctl);
		ct_end_starvation(s);
		if (s->w.error && !s->write_failed) {
			s->write_failed = 1;
			ct_error("cannot write the trace: %s; the program goes on untraced",
				 strerror(s->w.error));
			atomic_store(&ctl->state, CT_POOL_DETACHED);
		}
		if (s->o->serve_pid ? ct_serve_over(s) : ct_reap(s))
			return;
		if (s->child_done && !noted && !s->o->keep_quiet && !s->o->serve_pid) {
			noted = 1;
			ct_error("%s ended; still recording the processes it started (Ctrl-C to "
				 "stop)",
				 s->argv0);
		}
		if (s->child_done && (ct_interrupted || ct_forward_sig)) {
			atomic_store(&ctl->state, CT_POOL_DETACHED);
			return;
		}
		if (n) {
			s->last_progress = ct_time_ns(CLOCK_MONOTONIC);
			continue;
		}
		/*
		 * Threads wait for chunks: some may be held by threads that are gone.
		 * A flight recorder's threads never wait, so look for those regularly.
		 */
		uint64_t now = ct_time_ns(CLOCK_MONOTONIC);
		int lacking = ct_lacking(s), scanned = 0;
		if ((lacking || s->col.ring) && now - last_scan > 50 * 1000 * 1000) {
			last_scan = now;
			if (ct_collect(&s->col, CT_TAKE_DEAD))
				continue;
			scanned = 1;
		}
		if (lacking && ct_relieve(s, scanned))
			continue;
		ct_sleep(s);
	}
}

static uint64_t ct_cpu_ns(int who, uint64_t *maxrss)
{
	struct rusage ru;
	getrusage(who, &ru);
	if (maxrss)
		*maxrss = (uint64_t)ru.ru_maxrss * 1024;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
}

static const char *const ct_skip_names[CT_SKIP_N] = {
	[CT_SKIP_NOT_NOPS] = "not the expected nops",
	[CT_SKIP_TOO_SHORT] = "too short",
	[CT_SKIP_UNDECODABLE] = "undecodable",
	[CT_SKIP_BRANCH_IN] = "a branch into the patched bytes",
	[CT_SKIP_INDIRECT_JUMP] = "jump table",
	[CT_SKIP_INSTRUCTION] = "an instruction that cannot move",
	[CT_SKIP_OUT_OF_REACH] = "no memory within reach",
	[CT_SKIP_NO_SIZE] = "no symbol size",
	[CT_SKIP_UNWRITABLE] = "code not writable",
};

/*
 * Libraries a patched program used but that were left unpatched: "path\tcount"
 * lines, each library once (every process that loads it says so). From the
 * program's memory: read within its bounds, a line with a NUL or no count is
 * dropped.
 */
static void ct_meta_unpatched(struct ct_buf *b, char *text, uint32_t used)
{
	struct ct_buf list = { 0 };
	for (uint32_t at = 0; at < used && at < CT_UNPATCHED_TEXT;) {
		char *nl = memchr(text + at, '\n', CT_UNPATCHED_TEXT - at);
		if (!nl)
			break;
		*nl = 0;
		char *line = text + at, *end;
		unsigned long n = line[0] == CT_UNPATCHED_CODE && line[1] == ' ' ?
					  strtoul(line + 2, &end, 10) : 0;
		at = (uint32_t)(nl - text) + 1;
		if (!n || *end != ' ' || nl - end < 2 || memchr(line, 0, (size_t)(nl - line)))
			continue;
		char entry[4200];
		snprintf(entry, sizeof(entry), "%s\t%lu\n", end + 1, n);
		if (!list.len || !strstr((const char *)list.data, entry))
			ct_buf_append(&list, entry, strlen(entry));
		ct_buf_append(&list, "", 1);
		list.len--; /* kept terminated for strstr */
	}
	if (list.len) {
		ct_buf_append(&list, "", 1);
		ct_meta_add(b, "unpatched_modules", (const char *)list.data);
	}
	ct_buf_free(&list);
}

/* Functions left unpatched: counts by reason, and their names ("name\treason" lines). */
static void ct_meta_skips(struct ct_buf *b, const struct ct_pool *pool)
{
	struct ct_pool_ctl *ctl = pool->ctl;
	char line[4096] = "";
	for (int r = 1; r < CT_SKIP_N; r++) {
		uint32_t n = atomic_load(&ctl->skips[r]);
		if (n)
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%u %s",
				 *line ? ", " : "", n, ct_skip_names[r]);
	}
	ct_meta_add(b, "patch_skip_reasons", line);

	/* the text is the program's to write: a copy, read within its bounds, no NUL kept */
	char *text = ct_malloc(CT_SKIP_TEXT);
	memcpy(text, ct_rec_skip_text(pool), CT_SKIP_TEXT);
	uint32_t used = atomic_load(&ctl->skip_text_used);
	struct ct_buf list = { 0 };
	const uint32_t names_end = CT_SKIP_TEXT - CT_UNPATCHED_TEXT;
	for (uint32_t at = 0; at < used && at < names_end;) {
		char *nl = memchr(text + at, '\n', names_end - at);
		if (!nl)
			break;
		int r = text[at] - 'a';
		if (r > 0 && r < CT_SKIP_N && nl - text - at >= 2) {
			for (char *ch = text + at + 2; ch < nl; ch++)
				if (!*ch)
					*ch = '?';
			ct_buf_append(&list, text + at + 2, (size_t)(nl - text - at - 2));
			ct_buf_append(&list, "\t", 1);
			ct_buf_append(&list, ct_skip_names[r], strlen(ct_skip_names[r]));
			ct_buf_append(&list, "\n", 1);
		}
		at = (uint32_t)(nl - text) + 1;
	}
	if (used > names_end)
		ct_buf_append(&list, "...\tmore than the list holds\n", 30);
	ct_buf_append(&list, "", 1);
	ct_meta_add(b, "patch_skipped_functions", (const char *)list.data);
	ct_buf_free(&list);
	ct_meta_unpatched(b, text + names_end, atomic_load(&ctl->unpatched_text_used));
	free(text);
}

/* How many processes there were, how many ran traced code, and which images did not. */
static void ct_meta_processes(struct ct_buf *b, struct ct_session *s)
{
	struct ct_process_counts n;
	char num[32];
	ct_untraced_count(&s->col, &n);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)n.total);
	ct_meta_add(b, "processes", num);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)n.traced);
	ct_meta_add(b, "processes_traced", num);
	if (n.unnamed) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)n.unnamed);
		ct_meta_add(b, "processes_unnamed", num);
	}
	ct_meta_add(b, "quiet_instances", (const char *)n.quiet.data);
	ct_buf_free(&n.quiet);
}

/* Where the patch method's plans came from (the runtime counts them in the pool). */
static void ct_meta_plans(struct ct_buf *b, struct ct_pool_ctl *ctl)
{
	uint32_t made = atomic_load(&ctl->plans_made), saved = atomic_load(&ctl->plans_saved);
	uint32_t counts[] = { atomic_load(&ctl->plans_cached), saved,
			      made > saved ? made - saved : 0 };
	static const char *const keys[] = { "plans_cached", "plans_saved", "plans_unsaved" };
	char n[32];
	for (size_t i = 0; i < CT_ARRAY_SIZE(keys); i++)
		if (counts[i]) {
			snprintf(n, sizeof(n), "%u", counts[i]);
			ct_meta_add(b, keys[i], n);
		}
}

/* The ptrace method's breakpoints: set, without an out-of-line copy, stops stepped over in place. */
static void ct_meta_breakpoints(struct ct_buf *b, struct ct_pool_ctl *ctl)
{
	uint32_t set = atomic_load(&ctl->pt_breakpoints);
	uint32_t counts[] = { set, atomic_load(&ctl->pt_in_place), atomic_load(&ctl->pt_stepped) };
	static const char *const keys[] = { "breakpoints", "breakpoints_in_place",
					    "breakpoints_stepped" };
	char n[32];
	for (size_t i = 0; set && i < CT_ARRAY_SIZE(keys); i++) {
		snprintf(n, sizeof(n), "%u", counts[i]);
		ct_meta_add(b, keys[i], n);
	}
}

/* Which hooks the threads were traced by (a later META block overrides the first). */
static void ct_write_method(struct ct_session *s)
{
	uint32_t m = atomic_load(&s->pool.ctl->methods);
	struct ct_buf b = { 0 };
	char methods[96] = "", n[32];
	if (m & CT_METHOD_PATCHABLE) /* the entries we patched call __fentry__ */
		m &= ~CT_METHOD_FENTRY;
	static const char *const names[] = { "finstrument", "fentry", "patchable", "mcount",
					     "patch",	    "ptrace" };
	for (unsigned i = 0; i < CT_ARRAY_SIZE(names); i++)
		if (m & (1u << i))
			snprintf(methods + strlen(methods), sizeof(methods) - strlen(methods), "%s%s",
				 *methods ? "+" : "", names[i]);
	ct_meta_add(&b, "method", *methods ? methods : "none");
	if (atomic_load(&s->pool.ctl->patched) || atomic_load(&s->pool.ctl->patch_skipped)) {
		snprintf(n, sizeof(n), "%u", atomic_load(&s->pool.ctl->patched));
		ct_meta_add(&b, "patched", n);
		snprintf(n, sizeof(n), "%u", atomic_load(&s->pool.ctl->patch_skipped));
		ct_meta_add(&b, "patch_skipped", n);
		ct_meta_skips(&b, &s->pool);
	}
	ct_meta_plans(&b, s->pool.ctl);
	if (s->col.symtabs_cached) {
		snprintf(n, sizeof(n), "%u", s->col.symtabs_cached);
		ct_meta_add(&b, "symtabs_cached", n);
	}
	ct_meta_breakpoints(&b, s->pool.ctl);
	if (atomic_load(&s->pool.ctl->libcall_sites)) {
		snprintf(n, sizeof(n), "%u", atomic_load(&s->pool.ctl->libcalls));
		ct_meta_add(&b, "libcalls", n);
		snprintf(n, sizeof(n), "%u", atomic_load(&s->pool.ctl->libcall_sites));
		ct_meta_add(&b, "libcall_sites", n);
	}
	ct_meta_processes(&b, s);
	ct_writer_block(&s->w, CT_BLOCK_META, 0, b.data, (uint32_t)b.len, NULL, 0);
	ct_buf_free(&b);
}

/* Why a program recorded no call at all. */
static void ct_say_nothing_recorded(struct ct_session *s)
{
	const char *prog = s->o->argv[0];
	uint32_t skipped = atomic_load(&s->pool.ctl->patch_skipped);
	uint32_t patched = atomic_load(&s->pool.ctl->patched);
	if (s->o->attach_pid && (patched || !skipped) && !getenv("CALLTRACE_PATTERNS"))
		ct_error("process %d called none of its functions while calltrace was attached "
			 "(only what runs between the attach and the detach is seen)",
			 (int)s->o->attach_pid);
	else if (skipped && !patched)
		ct_error("%s recorded no function calls: none of its functions could be patched "
			 "(%u left alone: calltrace info --skipped says why)", prog, skipped);
	else if (getenv("CALLTRACE_PATTERNS"))
		ct_error("%s recorded no function calls: no function matched -P", prog);
	else
		ct_error("%s recorded no function calls: it has no tracing hooks and no symbol "
			 "table to patch from (stripped?)", prog);
}

/* attach: the process's own end and CPU time, as the tracer saw them, not the tracer's. */
static void ct_end_attach(struct ct_session *s, struct ct_end_rec *rec)
{
	struct ct_pool_ctl *ctl = s->pool.ctl;
	uint32_t f = atomic_load(&ctl->attach_flags);

	rec->flags |= CT_END_ATTACHED;
	rec->exit_status = 0;
	if (f & CT_ATTACH_DETACHED)
		rec->flags |= CT_END_DETACHED;
	else if (f & CT_ATTACH_ENDED)
		rec->exit_status = ctl->attach_status;
	else
		rec->flags |= CT_END_NO_STATUS;
	rec->program_cpu_ns = ctl->attach_cpu_ns;
	if (!(f & CT_ATTACH_CPU))
		rec->flags |= CT_END_NO_CPU;
}

static void ct_finish(struct ct_session *s)
{
	if (s->o->serve_pid) /* threads still running in the last process stop writing */
		atomic_store(&s->pool.ctl->state, CT_POOL_DETACHED);
	uint64_t pool_used = ct_pool_resident(&s->pool); /* before salvage gives pages back */
	ct_collect(&s->col, CT_TAKE_ALL);
	ct_untraced_finish(&s->w);
	ct_untraced_drain_started(s->pool.ctl);
	ct_write_symtabs(&s->col);
	ct_write_method(s);
	if (s->o->kernel_at)
		*s->o->kernel_at = NULL;
	ct_kside_finish(s->kernel, &s->w);

	/* a calibration over less than 10 ms would be imprecise */
	uint64_t elapsed = ct_time_ns(CLOCK_MONOTONIC) - s->start_ns;
	if (elapsed < 10 * 1000 * 1000) {
		struct timespec ts = { 0, (long)(10 * 1000 * 1000 - elapsed) };
		nanosleep(&ts, NULL);
	}
	struct ct_clock_sample end = ct_sample(s->clock);
	ct_writer_block(&s->w, CT_BLOCK_CLOCK, 0, &end, sizeof(end), NULL, 0);

	struct ct_end_rec rec = {
		.events = s->col.events,
		.lost = s->col.lost,
		.salvaged = s->col.salvaged,
		.abandoned = s->col.abandoned,
		.waits = atomic_load(&s->pool.ctl->wait_count),
		.exit_status = s->child_status,
		.program_cpu_ns = ct_cpu_ns(RUSAGE_CHILDREN, NULL),
		.flags = s->o->serve_pid ? CT_END_STANDALONE : 0,
		.refused = s->col.refused,
		.starved = s->starved,
		.pool_cap = (uint64_t)s->pool.geo.nchunks * s->pool.geo.chunk_size,
		.pool_used = pool_used,
	};
	if (s->o->attach_pid)
		ct_end_attach(s, &rec);
	rec.recorder_cpu_ns = ct_cpu_ns(RUSAGE_SELF, &rec.recorder_maxrss);
	ct_writer_block(&s->w, CT_BLOCK_END, 0, &rec, sizeof(rec), NULL, 0);
	s->end = rec;
}

static int ct_exit_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 1;
}

static void ct_setup_signals(void)
{
	struct sigaction sa = { .sa_handler = ct_on_signal };
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	/*
	 * The terminal's ^C and ^\ reach the program too: we record until it
	 * ends. Once it has, ^C stops waiting for processes it left behind.
	 */
	struct sigaction si = { .sa_handler = ct_on_interrupt };
	sigemptyset(&si.sa_mask);
	si.sa_flags = SA_RESTART;
	sigaction(SIGINT, &si, NULL);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* The output and the pool; 0, or the exit status to give up with. */
static int ct_session_open(struct ct_session *s, const struct ct_record_opts *o, uint32_t flags)
{
	if (ct_writer_open(&s->w, o->output) < 0) {
		ct_error("cannot write %s: %s", o->output, strerror(errno));
		return CT_EXIT_USAGE;
	}
	s->clock = ct_pick_clock();
	uint32_t nchunks = (uint32_t)(o->buffer_size / o->chunk_size);
	flags |= (o->lossy ? CT_POOL_LOSSY : 0) | (o->ring_size ? CT_POOL_RING : 0);
	uint32_t ring_chunks = (uint32_t)ct_max(o->ring_size / o->chunk_size, 2);
	if (ct_pool_create(&s->pool, o->chunk_size, nchunks, flags, s->clock, ring_chunks) <
	    0) {
		ct_error("cannot create a %llu-byte shared buffer: %s",
			 (unsigned long long)o->buffer_size, strerror(errno));
		ct_writer_abandon(&s->w, o->output);
		return 1;
	}
	s->start_ns = ct_time_ns(CLOCK_MONOTONIC);
	return 0;
}

/* attach: the process's name, for the first and last lines. */
static const char *ct_attach_name(const struct ct_session *s)
{
	const char *slash = strrchr(s->argv0, '/');
	return slash ? slash + 1 : s->argv0;
}

/* attach: what it traces, in one line; how to stop it. */
static void ct_say_attached(struct ct_session *s)
{
	struct ct_pool_ctl *ctl = s->pool.ctl;
	uint32_t f = atomic_load(&ctl->attach_flags), fns = ctl->attach_functions;
	uint32_t mods = ctl->attach_modules;
	char n[32], until[64] = "Ctrl-C to detach";

	ct_fmt_count(n, sizeof(n), fns);
	if (s->o->duration_ms)
		snprintf(until, sizeof(until), "detaching after %.1f s (or at Ctrl-C)",
			 (double)s->o->duration_ms / 1e3);
	fprintf(stderr,
		"calltrace: attached to process %d (%s): %s function%s in %u module%s %s; %s\n",
		(int)s->o->attach_pid, ct_attach_name(s), n, fns == 1 ? "" : "s", mods,
		mods == 1 ? "" : "s",
		f & CT_ATTACH_BREAKPOINTS ? "traced through breakpoints (--method=ptrace)" :
					    "patched in memory by the runtime (--method=runtime)",
		until);
}

/* attach: how it ended, and what the trace holds. */
static void ct_say_detached(struct ct_session *s, uint64_t ran_ns)
{
	char how[96], events[32];
	const struct ct_end_rec *e = &s->end;
	int st = e->exit_status;

	if (e->flags & CT_END_DETACHED)
		snprintf(how, sizeof(how), "detached from process %d", (int)s->o->attach_pid);
	else if (e->flags & CT_END_NO_STATUS)
		snprintf(how, sizeof(how), "process %d ended", (int)s->o->attach_pid);
	else if (WIFSIGNALED(st))
		snprintf(how, sizeof(how), "process %d was killed by %s", (int)s->o->attach_pid,
			 ct_signal_name(WTERMSIG(st)));
	else
		snprintf(how, sizeof(how), "process %d exited with status %d",
			 (int)s->o->attach_pid, WEXITSTATUS(st));
	ct_fmt_count(events, sizeof(events), s->col.events);
	size_t threads = s->col.next_seq.count;
	fprintf(stderr, "calltrace: %s after %.1f s: %s events in %zu thread%s written to %s\n",
		how, (double)ran_ns / 1e9, events, threads, threads == 1 ? "" : "s", s->o->output);
}

/* The program runs: record until it ends, then close the trace. */
static void ct_session_run(struct ct_session *s, const struct ct_clock_sample *start)
{
	const struct ct_record_opts *o = s->o;

	/* only now does the old content of the output go */
	if (ct_writer_start(&s->w) < 0)
		ct_error("cannot write %s: %s; the program runs untraced", o->output,
			 strerror(s->w.error));
	ct_collector_init(&s->col, &s->pool, &s->w, o->level,
			  o->jobs ? o->jobs : ct_workers_default());
	s->col.ring = o->ring_size != 0;
	s->col.generation = s->col.ring; /* snapshots count from 1 */
	s->col.gather = !s->col.ring && !o->tick && !o->lossy;
	ct_write_meta(&s->w, o, s->clock);
	ct_writer_block(&s->w, CT_BLOCK_CLOCK, 0, start, sizeof(*start), NULL, 0);
	ct_run(s);
	uint64_t ran_ns = ct_time_ns(CLOCK_MONOTONIC) - s->start_ns;
	ct_finish(s);
	if (o->attach_pid && !o->quiet)
		ct_say_detached(s, ran_ns);

	if (!s->col.events && !s->col.ninsts)
		ct_say_nothing_recorded(s);
	if (s->w.error && !s->write_failed)
		ct_error("%s is incomplete: %s", o->output, strerror(s->w.error));
	if (ct_writer_close(&s->w) < 0 && !s->w.error)
		ct_error("cannot write %s: %s", o->output, strerror(errno));
	if (o->crashes)
		*o->crashes = s->col.crashes;
	ct_collector_free(&s->col);
}

int ct_record(const struct ct_record_opts *o)
{
	struct ct_session s = { .child = -1, .argv0 = o->argv[0], .o = o };
	int status = 0;

	char *runtime = ct_find_runtime();
	if (!runtime) {
		ct_error("cannot find libcalltrace.so next to calltrace (set CALLTRACE_RUNTIME)");
		return CT_EXIT_USAGE;
	}
	status = ct_session_open(&s, o, 0);
	if (status) {
		free(runtime);
		return status;
	}
	struct ct_clock_sample start = ct_sample(s.clock);

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* the events follow the next exec, or the threads attached to and their children */
	if (o->kernel)
		s.kernel = ct_kside_open(s.clock, o->attach_pid);
	if (o->kernel_at)
		*o->kernel_at = s.kernel;
	if (o->attach_pid) {
		struct ct_attach_opts a = { .pid = o->attach_pid, .ctl = s.pool.ctl,
					    .pool_path = s.pool.path,
					    .runtime = o->ptrace ? NULL : runtime,
					    .fallback = o->attach_fallback, .follow = !o->no_follow,
					    .duration_ms = o->duration_ms };
		s.child = ct_ptrace_attach(&a, &status);
	}
	else if (o->ptrace)
		s.child = ct_ptrace_launch(o->argv, s.pool.ctl, !o->no_follow, &status);
	else
		s.child = ct_launch(o->argv, runtime, s.pool.path, o->no_follow, &status);
	free(runtime);
	if (s.child < 0) {
		if (o->kernel_at)
			*o->kernel_at = NULL;
		ct_kside_finish(s.kernel, NULL);
		ct_pool_destroy(&s.pool);
		ct_writer_abandon(&s.w, o->output);
		return status;
	}
	ct_setup_signals();
	if (o->attach_pid && !o->quiet)
		ct_say_attached(&s);
	ct_session_run(&s, &start);
	ct_pool_destroy(&s.pool);
	return s.child_done ? ct_exit_status(s.child_status) : 1;
}

/*
 * Standalone: a program's runtime started us (it had no recorder). Tell it
 * where the pool is through fd, record until the last traced process says
 * goodbye (or none is left), then tell the one waiting that the trace is
 * written.
 */
int ct_serve(const struct ct_record_opts *o, int fd)
{
	struct ct_session s = { .child = -1, .argv0 = o->argv[0], .o = o };

	int status = ct_session_open(&s, o, CT_POOL_STANDALONE);
	if (status) {
		close(fd);
		return status;
	}
	struct ct_pool_ctl *ctl = s.pool.ctl;
	atomic_store(&ctl->live_procs, 1); /* the process that started us */
	struct ct_clock_sample start = ct_sample(s.clock);
	dprintf(fd, "P%s\n", s.pool.path);
	close(fd);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	ct_session_run(&s, &start);
	atomic_store(&ctl->finished, 1);
	syscall(SYS_futex, &ctl->finished, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	ct_pool_destroy(&s.pool);
	return 0;
}
