/* SPDX-License-Identifier: MIT */
/*
 * Records of the ptrace method, written into the pool as the runtime writes
 * them (src/runtime/hotpath/thread.c), one chunk per traced thread: the
 * collector, the format and every reader cannot tell who wrote them.
 */
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tracer.h"
#include "../common/event.h"
#include "../arch/arch.h"
#include "../util/time_ns.h"

uint64_t ct_pt_clock(const struct ct_tracer *tr)
{
	return tr->tsc ? ct_arch_clock() : ct_time_ns(CLOCK_MONOTONIC);
}

void ct_pt_publish(struct ct_tracer *tr, struct ct_pt_thread *t, uint32_t flags)
{
	if (t->chunk < 0)
		return;
	struct ct_chunk_desc *d = &tr->ctl->desc[t->chunk];
	d->used = (uint32_t)((char *)t->pos - (char *)t->start);
	d->flags |= flags;
	atomic_store(&d->state, CT_CHUNK_FULL);
	ct_pool_wake_recorder(tr->ctl);
	t->chunk = -1;
	t->pos = t->end = t->start = NULL;
}

/*
 * A free chunk; waits for the recorder, which may be gone (then -1), or may
 * say the pool is starved: every chunk is held by a thread we trace, and
 * those may wait for one another (then -1 too: the events are dropped).
 */
static int64_t ct_pt_free_chunk(struct ct_tracer *tr)
{
	struct ct_pool_ctl *ctl = tr->ctl;
	for (;;) {
		int64_t idx = ct_pool_pop_free(ctl, tr->geo.nchunks);
		if (idx >= 0)
			return idx;
		if (idx == -2) /* the free stack is damaged: the pool is not usable */
			atomic_store(&ctl->state, CT_POOL_DETACHED);
		if (atomic_load(&ctl->state) != CT_POOL_RECORDING || atomic_load(&ctl->starved))
			return -1;
		uint32_t seq = atomic_load(&ctl->free_seq);
		atomic_fetch_add(&ctl->free_waiters, 1);
		atomic_fetch_add(&ctl->wait_count, 1);
		ct_pool_wake_recorder(ctl);
		idx = ct_pool_pop_free(ctl, tr->geo.nchunks);
		if (idx < 0) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };
			long r = syscall(SYS_futex, &ctl->free_seq, FUTEX_WAIT, seq, &ts, NULL, 0);
			if (r == -1 && errno == ETIMEDOUT && ct_pt_thread_dead(ctl->recorder_pid))
				atomic_store(&ctl->state, CT_POOL_DETACHED);
		}
		atomic_fetch_sub(&ctl->free_waiters, 1);
		if (idx >= 0)
			return idx;
	}
}

static struct ct_lost_slot *ct_pt_lost_slots(struct ct_tracer *tr)
{
	return ct_geo_lost_slots(tr->ctl, &tr->geo);
}

/*
 * An event dropped (the pool starved): counted in the thread's stream with
 * its next chunk, and in a lost slot of the pool meanwhile, whose count the
 * recorder tells if the thread ends before it gets one.
 */
static void ct_pt_drop(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	struct ct_lost_slot *slots = ct_pt_lost_slots(tr);

	t->dropped++;
	for (uint32_t k = 0; !t->lost_slot && k < CT_LOST_SLOTS; k++) {
		uint32_t i = ((uint32_t)t->tid * 2654435761u + k) % CT_LOST_SLOTS;
		int32_t free_tid = 0;
		if (atomic_compare_exchange_strong(&slots[i].tid, &free_tid, t->tid)) {
			slots[i].pid = t->proc->pid;
			slots[i].instance = t->proc->instance;
			atomic_store(&slots[i].told, 0);
			atomic_store(&slots[i].dropped, t->dropped - 1);
			t->lost_slot = (int32_t)i + 1;
		}
	}
	if (!t->lost_slot)
		t->lost_slot = -1;
	if (t->lost_slot > 0)
		atomic_fetch_add(&slots[t->lost_slot - 1].dropped, 1);
}

static int ct_pt_take_chunk(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	int64_t idx = ct_pt_free_chunk(tr);
	if (idx < 0)
		return -1;
	struct ct_chunk_desc *d = &tr->ctl->desc[idx];
	d->instance = t->proc->instance;
	d->pid = t->proc->pid;
	d->tid = t->tid;
	d->flags = 0;
	d->used = 0;
	d->thread_seq = t->thread_seq++;
	d->base_clock = ct_pt_clock(tr);
	atomic_store_explicit(&d->state, CT_CHUNK_OWNED, memory_order_release);
	t->chunk = (int32_t)idx;
	t->start = t->pos = ct_geo_chunk(tr->ctl, &tr->geo, (uint32_t)idx);
	t->end = t->start + tr->geo.chunk_size / 8;
	return 0;
}

/* Room for n words in the thread's chunk; NULL if the recording is over. */
static uint64_t *ct_pt_reserve(struct ct_tracer *tr, struct ct_pt_thread *t, uint32_t n)
{
	if (t->chunk >= 0 && t->pos + n <= t->end) {
		uint64_t *p = t->pos;
		t->pos += n;
		return p;
	}
	ct_pt_publish(tr, t, 0);
	if (ct_pt_take_chunk(tr, t) < 0)
		return NULL;
	if (!t->proc->described) /* every chunk of an instance can say who it is */
		ct_pt_describe_process(tr, t);
	if (t->dropped) { /* first thing: what the starved pool made us drop */
		uint64_t lost = t->dropped;
		t->dropped = 0;
		if (ct_pt_emit_ext(tr, t, CT_EXT_LOST, &lost, sizeof(lost)) == 0 &&
		    t->lost_slot > 0)
			atomic_fetch_add(&ct_pt_lost_slots(tr)[t->lost_slot - 1].told, lost);
	}
	return ct_pt_reserve(tr, t, n);
}

int ct_pt_emit_call(struct ct_tracer *tr, struct ct_pt_thread *t, unsigned kind, uint64_t fn,
		    uint64_t sp, uint64_t clock)
{
	uint64_t *p = ct_pt_reserve(tr, t, 2);
	if (!p) {
		if (atomic_load(&tr->ctl->state) == CT_POOL_RECORDING)
			ct_pt_drop(tr, t);
		return -1;
	}
	p[0] = ct_ev_word0(clock, sp);
	p[1] = ct_ev_word1(kind, fn, sp);
	return 0;
}

int ct_pt_emit_mark(struct ct_tracer *tr, struct ct_pt_thread *t, uint32_t type, uint32_t arg,
		    uint64_t sp)
{
	uint64_t *p = ct_pt_reserve(tr, t, 2);
	if (!p)
		return -1;
	p[0] = ct_ev_word0(ct_pt_clock(tr), sp);
	p[1] = ct_ev_mark_word1(type, sp) | (uint64_t)(arg & 0x7fff) << CT_EV_MARK_ARG_SHIFT;
	return 0;
}

int ct_pt_emit_ext(struct ct_tracer *tr, struct ct_pt_thread *t, uint32_t type,
		   const void *payload, uint32_t len)
{
	uint32_t nwords = (len + 7) / 8;
	if (nwords > CT_EXT_MAX_WORDS)
		return -1;
	uint64_t *p = ct_pt_reserve(tr, t, 2 + nwords);
	if (!p)
		return -1;
	memcpy(p + 2, payload, len);
	memset((char *)(p + 2) + len, 0, nwords * 8 - len);
	p[0] = ct_ev_word0(ct_pt_clock(tr), 0);
	p[1] = ct_ev_ext_word1(type, nwords);
	return 0;
}

/* The PROCESS record, then the modules: first thing of an instance. */
void ct_pt_describe_process(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	struct ct_pt_proc *pr = t->proc;
	char buf[8192];
	struct ct_ext_process *p = (void *)buf;
	char *text = (char *)(p + 1);
	uint32_t room = sizeof(buf) - sizeof(*p) - 1;
	struct timespec now;

	pr->described = 1;
	memset(p, 0, sizeof(*p));
	p->pid = pr->pid;
	p->ppid = pr->ppid;
	p->parent_instance = pr->parent_instance;
	p->parent_tid = pr->parent_tid;
	p->fork_clock = pr->fork_clock;
	p->exec_instance = pr->exec_instance;
	p->flags = pr->flags;
	clock_gettime(CLOCK_REALTIME, &now);
	p->realtime_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;

	p->exe_len = ct_pt_exe(pr->pid, text, room / 2) + 1;
	p->args_len = ct_pt_proc_file(pr->pid, "cmdline", text + p->exe_len, room - p->exe_len);
	ct_pt_emit_ext(tr, t, CT_EXT_PROCESS, p, (uint32_t)sizeof(*p) + p->exe_len + p->args_len);
	ct_pt_describe_modules(tr, t);
}
