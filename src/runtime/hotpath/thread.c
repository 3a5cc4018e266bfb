/* SPDX-License-Identifier: MIT */
/*
 * The slow path of the runtime: taking and publishing chunks, waiting for the
 * recorder when the pool is empty, extended records, thread end and fork.
 *
 * It runs about once per chunk (4096 events by default), always with every
 * signal blocked and errno preserved, so a signal handler never sees a thread's
 * state half changed and the program never sees errno change under it.
 *
 * Signal nesting: a handler can interrupt a hook after the hook reserved its
 * slot and before it wrote it. If the handler's own events then fill the chunk,
 * the chunk must not be handed to the recorder yet; it is kept as "pending"
 * and published when the outermost hook finishes (ct_after_nested()).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../runtime.h"
#include "hotpath.h"
#include "../process/process.h"
#include "shadow.h"

#define CT_NO_CHUNK 0

struct ct_saved {
	sigset_t mask;
	int err;
};

/*
 * The slow path's system calls (this one first) are made in libc, where a
 * detaching tracer does not see a hook under way: in_slowpath tells
 * calltrace_attach_stop (modes/attached.c) to leave our shadow stack be.
 */
static void ct_enter_slow(struct ct_saved *s)
{
	sigset_t all;

	ct_self.in_slowpath++;
	__asm__ volatile("" ::: "memory");
	s->err = errno;
	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &s->mask, sizeof(long));
}

static void ct_leave_slow(struct ct_saved *s)
{
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &s->mask, NULL, sizeof(long));
	errno = s->err;
	__asm__ volatile("" ::: "memory");
	ct_self.in_slowpath--;
}

static long ct_futex(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

static void ct_wake_recorder(struct ct_pool_ctl *ctl, int force)
{
	if (force || atomic_load(&ctl->recorder_sleeping) != CT_RECORDER_AWAKE)
		ct_pool_wake_recorder(ctl);
}

/*
 * Is the recorder still there? Gone, or a zombie nobody reaps (a standalone
 * recorder is the child of a process that may never wait for it), it will
 * never give a chunk back. Only asked after a wait timed out.
 */
static int ct_recorder_alive(struct ct_pool_ctl *ctl)
{
	char path[40], buf[256];
	int pid = ctl->recorder_pid;

	if (kill(pid, 0) == -1 && errno == ESRCH)
		return 0;
	int n = snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	int fd = n > 0 ? (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return 1; /* no /proc to ask: it exists */
	long got = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
	syscall(SYS_close, fd);
	if (got <= 0)
		return 1;
	buf[got] = 0;
	const char *paren = strrchr(buf, ')');
	return !(paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X'));
}

static int ct_tracing(void)
{
	return atomic_load_explicit(&ct_state, memory_order_acquire) == CT_RT_READY &&
	       atomic_load_explicit(&ct_ctl->state, memory_order_relaxed) == CT_POOL_RECORDING;
}

static void ct_publish(struct ct_pool_ctl *ctl, int32_t idx)
{
	struct ct_chunk_desc *d = &ctl->desc[idx];

	atomic_store(&d->state, CT_CHUNK_FULL);
	uint32_t pending = atomic_fetch_add(&ctl->full_pending, 1) + 1;
	uint32_t sleeping = atomic_load(&ctl->recorder_sleeping);
	uint32_t batch = atomic_load_explicit(&ctl->wake_batch, memory_order_relaxed);
	if (sleeping == CT_RECORDER_ASLEEP ||
	    (sleeping == CT_RECORDER_DOZING && pending >= (batch ? batch : CT_WAKE_BATCH)))
		ct_pool_wake_recorder(ctl);
}

/* Give up the owned chunk: publish it now, or later if a hook below us may still write to it. */
static void ct_retire_chunk(struct ct_thread *t, uint32_t flags)
{
	int32_t chunk = t->chunk;
	uint64_t *pos = t->pos;

	t->chunk = CT_NO_CHUNK;
	t->pos = t->end = t->start = NULL;
	if (chunk == CT_NO_CHUNK)
		return;

	int32_t idx = chunk - 1;
	struct ct_pool_ctl *ctl = ct_ctl;
	struct ct_chunk_desc *d = &ctl->desc[idx];
	uint64_t *start = ct_rt_chunk((uint32_t)idx);
	uint64_t used = (uint64_t)((char *)pos - (char *)start);

	d->used = used > ct_geo.chunk_size ? ct_geo.chunk_size : (uint32_t)used;
	d->flags |= flags;
	if (t->in_ring) {
		t->in_ring = 0;
		return; /* it stays in the ring, for the next snapshot */
	}
	if ((t->nest & (CT_NEST_PENDING - 1)) > 1 && t->npending < CT_MAX_PENDING) {
		if (!t->npending)
			t->nest += CT_NEST_PENDING;
		t->pending[t->npending++] = idx;
		return;
	}
	ct_publish(ctl, idx);
}

/*
 * ct_pool_pop_free() against our copy of the geometry: a damaged free stack
 * stops tracing (the recorder could not give us a chunk back either); the
 * program goes on. This runs once per chunk, never per call.
 */
int64_t ct_rt_pop_free(struct ct_pool_ctl *ctl)
{
	int64_t idx = ct_pool_pop_free(ctl, ct_geo.nchunks);
	if (idx == -2 && ctl == ct_ctl)
		atomic_store(&ctl->state, CT_POOL_DETACHED);
	return idx < 0 ? -1 : idx;
}

/*
 * A free chunk, waiting for the recorder if there is none, unless the thread
 * must not wait: lossy mode or a flight recorder (and not must), or the pool
 * is starved (every chunk held; even must: a chunk's holder may be waiting
 * for us). Then -1: the caller drops and counts.
 */
static int64_t ct_acquire_free(struct ct_pool_ctl *ctl, int must)
{
	for (;;) {
		if (ctl != ct_ctl) /* attach stopped while we waited: this pool is gone */
			return -1;
		int64_t idx = ct_rt_pop_free(ctl);
		if (idx >= 0)
			return idx;
		if (!ct_tracing())
			return -1;
		if ((ctl->flags & (CT_POOL_LOSSY | CT_POOL_RING)) && !must) {
			if (ctl->flags & CT_POOL_LOSSY) { /* the recorder may release more */
				atomic_fetch_add_explicit(&ctl->short_count, 1,
							  memory_order_relaxed);
				ct_wake_recorder(ctl, 0);
			}
			return -1;
		}
		if (atomic_load(&ctl->starved))
			return -1;

		uint32_t seq = atomic_load(&ctl->free_seq);
		atomic_fetch_add(&ctl->free_waiters, 1);
		atomic_fetch_add(&ctl->wait_count, 1);
		ct_wake_recorder(ctl, 1);
		idx = ct_rt_pop_free(ctl);
		if (idx < 0) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };
			long r = ct_futex(&ctl->free_seq, FUTEX_WAIT, seq, &ts);
			if (r == -1 && errno == ETIMEDOUT && !ct_recorder_alive(ctl))
				atomic_store(&ctl->state, CT_POOL_DETACHED);
		}
		atomic_fetch_sub(&ctl->free_waiters, 1);
		if (idx >= 0)
			return idx;
	}
}

/* Learn this thread's ids, once (and again in a forked child). */
void ct_identify(struct ct_thread *t)
{
	if (!t->tid) {
		t->tid = (int32_t)syscall(SYS_gettid);
		t->pid = (int32_t)getpid();
		ct_register_thread(t->tid);
	}
}

/* Make chunk idx this thread's current chunk, stamped with its identity and the clock. */
void ct_make_current(struct ct_thread *t, uint32_t idx, int in_ring)
{
	struct ct_pool_ctl *ctl = ct_ctl;
	struct ct_chunk_desc *d = &ctl->desc[idx];

	ct_identify(t);
	d->instance = ct_instance;
	d->pid = t->pid;
	d->tid = t->tid;
	d->flags = 0;
	d->used = 0;
	d->thread_seq = t->thread_seq++;
	d->base_clock = ct_clock();
	atomic_store_explicit(&d->state, CT_CHUNK_OWNED, memory_order_release);

	t->chunk = (int32_t)idx + 1;
	t->in_ring = (uint8_t)in_ring;
	t->start = t->pos = ct_rt_chunk(idx);
	t->end = t->start + ct_geo.chunk_size / 8;
	ct_arm_thread_end(t);
}

/* ct_thread_end() runs when the thread ends. */
void ct_arm_thread_end(struct ct_thread *t)
{
	if (!t->key_armed) {
		t->key_armed = 1;
		pthread_setspecific(ct_key, (void *)1);
	}
}

/* Start the runtime from outside the slow path (signals blocked meanwhile). */
int ct_init_outside(void)
{
	if (atomic_load(&ct_state) == CT_RT_READY)
		return 0;
	struct ct_saved saved;
	ct_enter_slow(&saved);
	ct_self.in_slow = 1;
	int r = ct_init();
	ct_self.in_slow = 0;
	ct_leave_slow(&saved);
	return r;
}

/* Take a free chunk and make it this thread's; 0 if there is none to take. */
static int ct_own_free_chunk(struct ct_thread *t, int must)
{
	int64_t idx = ct_acquire_free(ct_ctl, must);
	if (idx < 0)
		return 0;
	ct_make_current(t, (uint32_t)idx, 0);
	return 1;
}

/* Tell what was dropped, first thing in a new chunk (or where there is room). */
static void ct_tell_lost(struct ct_thread *t)
{
	uint64_t n = ct_untold(t);
	t->dropping = 0;
	if (n && ct_write_ext(t, CT_EXT_LOST, &n, sizeof(n), 1) == 0)
		ct_told(t, n);
}

/*
 * Flight recorder: names go out at once, in a chunk of their own (the ring
 * will be overwritten), then the thread moves to the next chunk of its ring.
 */
static int ct_take_ring_chunk(struct ct_thread *t)
{
	int describe = ct_needs_describing();
	if (describe && ct_own_free_chunk(t, 0)) {
		ct_announce_process(t);
		ct_check_modules(t, 0);
		ct_retire_chunk(t, 0);
		describe = 0;
	}
	if (!ct_ring_next(t))
		return 0;
	ct_tell_lost(t);
	if (describe) { /* no chunk free: into the ring, better than nowhere */
		ct_announce_process(t);
		ct_check_modules(t, 0);
	}
	return 1;
}

/* Take a chunk for this thread; 0 if events must be dropped for now. */
static int ct_take_chunk(struct ct_thread *t, int must)
{
	if (ct_ctl->flags & CT_POOL_RING)
		return ct_take_ring_chunk(t);
	if (!ct_own_free_chunk(t, must))
		return 0;
	ct_tell_lost(t);
	int described = ct_announce_process(t);
	if ((t->nest & (CT_NEST_PENDING - 1)) <= 1)
		described |= ct_check_modules(t, 0);
	if (described) {
		/* hand names over now: a recorder stopped later still has them */
		ct_retire_chunk(t, 0);
		return ct_own_free_chunk(t, must);
	}
	return 1;
}

static uint64_t *ct_slow_reserve_blocked(struct ct_thread *t, uint32_t nwords)
{
	/* A handler may have moved us to a new chunk since our reservation failed. */
	if (t->chunk != CT_NO_CHUNK && t->pos >= t->start && t->pos + nwords <= t->end) {
		uint64_t *p = t->pos;
		t->pos = p + nwords;
		return p;
	}
	ct_retire_chunk(t, 0);
	if (!ct_tracing() || !ct_take_chunk(t, 0)) {
		if (ct_tracing()) {
			ct_drop(t, 1); /* lossy mode, no chunk free: drop until one is */
			t->dropping = 1;
		}
		return NULL;
	}
	if (t->pos + nwords > t->end)
		return NULL; /* never: chunks are far bigger than a record */
	uint64_t *p = t->pos;
	t->pos = p + nwords;
	return p;
}

static uint64_t *ct_slow_reserve(struct ct_thread *t, uint32_t nwords)
{
	int state = atomic_load_explicit(&ct_state, memory_order_acquire);
	if (state == CT_RT_OFF ||
	    (state == CT_RT_READY && !ct_tracing() && t->chunk == CT_NO_CHUNK)) {
		t->pos = t->end = NULL;
		return NULL;
	}

	struct ct_saved saved;
	uint64_t *p = NULL;

	/*
	 * dropping (lossy, ring, or a starved pool): count, without a syscall,
	 * until a chunk is free, or (lossless) the recorder says we may wait again
	 */
	if (t->dropping && atomic_load_explicit(&ct_ctl->free_count, memory_order_relaxed) <= 0 &&
	    ((ct_ctl->flags & (CT_POOL_LOSSY | CT_POOL_RING)) ||
	     atomic_load_explicit(&ct_ctl->starved, memory_order_relaxed))) {
		t->pos = NULL;
		ct_drop(t, 1);
		return NULL;
	}
	if (t->in_slow) {
		/* our own slow path called traced code (a traced malloc, say) */
		if (state == CT_RT_READY)
			ct_drop(t, 1);
		return NULL;
	}
	ct_enter_slow(&saved);
	t->in_slow = 1;
	if (state == CT_RT_READY || ct_init() == 0)
		p = ct_slow_reserve_blocked(t, nwords);
	else
		t->pos = t->end = NULL;
	t->in_slow = 0;
	ct_leave_slow(&saved);
	return p;
}

/* The hot path's other half: the chunk is full, or there is none yet. */
void ct_slow_record(struct ct_thread *t, uint64_t w1, uintptr_t sp)
{
	uint64_t *p = ct_slow_reserve(t, 2);
	if (p) {
		uint64_t clock = ct_clock();
		p[0] = ct_ev_word0(clock, sp);
		p[1] = w1;
	}
}

void ct_slow_record_words(struct ct_thread *t, const uint64_t *rec, uint32_t nwords)
{
	uint64_t *p = ct_slow_reserve(t, nwords);
	if (p) {
		memcpy(p + 2, rec + 2, (nwords - 2) * sizeof(*p));
		__asm__ volatile("" ::: "memory");
		p[0] = rec[0];
		p[1] = rec[1];
	}
}

void ct_after_nested(struct ct_thread *t)
{
	if (t->nest != CT_NEST_PENDING)
		return; /* plain nesting, or hooks still in progress below us */

	struct ct_saved saved;
	ct_enter_slow(&saved);
	if (t->nest == CT_NEST_PENDING) {
		for (int i = 0; i < t->npending; i++)
			ct_publish(ct_ctl, t->pending[i]);
		t->npending = 0;
		t->nest -= CT_NEST_PENDING;
	}
	ct_leave_slow(&saved);
}

/*
 * A longjmp while hooks are in progress on this thread: a signal handler that
 * interrupted them jumps out, and they will never finish. Publish the chunks
 * they held back; the slot one of them reserved stays empty, and the recorder
 * skips it.
 */
void ct_abandon_hooks(struct ct_thread *t)
{
	struct ct_saved saved;

	if (!t->nest)
		return;
	ct_enter_slow(&saved);
	for (int i = 0; i < t->npending; i++)
		ct_publish(ct_ctl, t->pending[i]);
	t->npending = 0;
	t->nest = 0;
	ct_leave_slow(&saved);
}

/*
 * Append an extended record (signals blocked by the caller); with must, wait
 * for a chunk even in lossy mode (names, a crash: they must get through).
 */
int ct_write_ext(struct ct_thread *t, uint32_t type, const void *payload, uint32_t len, int must)
{
	uint32_t nwords = (len + 15) / 16 * 2; /* keep every record a multiple of 16 bytes */
	if (nwords > CT_EXT_MAX_WORDS)
		return -1;
	if (t->chunk <= CT_NO_CHUNK || t->pos + 2 + nwords > t->end) {
		ct_retire_chunk(t, 0);
		if (!ct_tracing() || !ct_take_chunk(t, must))
			return -1;
		if (t->pos + 2 + nwords > t->end)
			return -1;
	}
	uint64_t *p = t->pos;
	t->pos = p + 2 + nwords;
	memcpy(p + 2, payload, len);
	memset((char *)(p + 2) + len, 0, nwords * 8 - len);
	/* payload first, header last: a torn record reads as the end of the chunk */
	__asm__ volatile("" ::: "memory");
	p[0] = ct_ev_word0(ct_clock(), 0);
	p[1] = ct_ev_ext_word1(type, nwords);
	return 0;
}

/*
 * Records from outside the hooks (wrappers, handlers): signals blocked, the
 * thread marked busy so the code we call is not traced into its own record.
 * 0 if the runtime is not tracing or the thread is already in here.
 */
static int ct_outside_begin(struct ct_thread *t, struct ct_saved *saved)
{
	if (atomic_load(&ct_state) != CT_RT_READY || t->in_slow)
		return 0;
	ct_enter_slow(saved);
	t->in_slow = 1;
	if (ct_tracing())
		return 1;
	t->in_slow = 0;
	ct_leave_slow(saved);
	return 0;
}

static void ct_outside_end(struct ct_thread *t, struct ct_saved *saved)
{
	t->in_slow = 0;
	ct_leave_slow(saved);
}

void ct_describe_modules(void)
{
	struct ct_thread *t = &ct_self;
	struct ct_saved saved;

	if (!ct_outside_begin(t, &saved))
		return;
	ct_check_modules(t, 0);
	ct_outside_end(t, &saved);
}

void ct_before_image_change(uint32_t type, const void *payload, uint32_t len)
{
	struct ct_thread *t = &ct_self;
	struct ct_saved saved;

	if (!ct_outside_begin(t, &saved))
		return;
	ct_flush_lost(t);
	ct_check_modules(t, 0);
	ct_write_ext(t, type, payload, len, 1);
	ct_retire_chunk(t, 0);
	ct_outside_end(t, &saved);
}

void ct_emit_ext(uint32_t type, const void *payload, uint32_t len, int must)
{
	struct ct_thread *t = &ct_self;
	struct ct_saved saved;

	if (!ct_outside_begin(t, &saved))
		return;
	if (must)
		ct_flush_lost(t);
	ct_write_ext(t, type, payload, len, must);
	ct_outside_end(t, &saved);
}

/*
 * Say how many events this thread dropped since its last record, taking a
 * chunk for it even in lossy mode: at a thread's end or the process's, the
 * count is the last thing left to tell (signals blocked by the caller).
 */
void ct_flush_lost(struct ct_thread *t)
{
	if (!ct_tracing() || !ct_untold(t))
		return;
	if (t->chunk > CT_NO_CHUNK && t->pos + 4 <= t->end) {
		ct_tell_lost(t);
		return;
	}
	ct_retire_chunk(t, 0);
	ct_take_chunk(t, 1); /* it tells first thing */
}

void ct_thread_end(struct ct_thread *t)
{
	struct ct_saved saved;

	ct_enter_slow(&saved);
	t->key_armed = 0;
	ct_unregister_thread();
	ct_flush_lost(t);
	if (t->chunk > CT_NO_CHUNK) {
		uint64_t end = 0;
		ct_write_ext(t, CT_EXT_THREAD_END, &end, sizeof(end), 0);
		ct_retire_chunk(t, CT_CHUNK_LAST);
	}
	ct_shadow_free(t);
	ct_leave_slow(&saved);
}

/*
 * attach stops (calltrace_attach_stop, in another thread, this one stopped
 * outside our code): it did not end, so what it wrote goes to the recorder
 * as written, not salvaged later as a dead thread's.
 */
void ct_attach_publish(struct ct_thread *t)
{
	for (int i = 0; i < t->npending; i++)
		ct_publish(ct_ctl, t->pending[i]);
	t->npending = 0;
	t->nest = 0;
	if (t->chunk > CT_NO_CHUNK && !t->in_ring)
		ct_retire_chunk(t, 0);
}

/* attach: the process described by this thread, before other threads' records name it. */
void ct_attach_describe(void)
{
	struct ct_thread *t = &ct_self;
	struct ct_saved saved;

	if (!ct_outside_begin(t, &saved))
		return;
	if (ct_needs_describing()) {
		ct_retire_chunk(t, 0);
		ct_take_chunk(t, 1); /* describes, publishes that, takes a fresh one */
	}
	ct_outside_end(t, &saved);
}

/*
 * attach: one record first in the stream of thread t (stopped; maybe the
 * caller), in a chunk of its own published at once: its own chunks follow
 * in sequence. 0, or -1 if it could not be written.
 */
int ct_attach_write_for(struct ct_thread *t, int32_t tid, uint32_t type, const void *payload,
			uint32_t len)
{
	uint32_t nwords = (len + 15) / 16 * 2;
	if (nwords > CT_EXT_MAX_WORDS || (2 + nwords) * 8 > ct_geo.chunk_size || !ct_tracing())
		return -1;
	ct_retire_chunk(t, 0); /* the caller's own: what it wrote comes first */
	int64_t idx = ct_acquire_free(ct_ctl, 1);
	if (idx < 0)
		return -1;
	struct ct_chunk_desc *d = &ct_ctl->desc[idx];
	d->instance = ct_instance;
	d->pid = (int32_t)getpid();
	d->tid = tid;
	d->flags = 0;
	d->thread_seq = t->thread_seq++;
	d->base_clock = ct_clock();
	atomic_store_explicit(&d->state, CT_CHUNK_OWNED, memory_order_release);
	uint64_t *p = ct_rt_chunk((uint32_t)idx);
	memcpy(p + 2, payload, len);
	memset((char *)(p + 2) + len, 0, nwords * 8 - len);
	p[0] = ct_ev_word0(ct_clock(), 0);
	p[1] = ct_ev_ext_word1(type, nwords);
	d->used = (2 + nwords) * 8;
	ct_publish(ct_ctl, (int32_t)idx);
	return 0;
}
