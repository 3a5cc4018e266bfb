// SPDX-License-Identifier: MIT
/*
 * Draining the rings of record --kernel and pairing their events.
 *
 * Each CPU's ring is in time order, but a thread moves between CPUs: its
 * sys_enter may be on one ring and its sys_exit on another, read first. So
 * a pass reads every ring into one list, sorts it by time and pairs only the
 * events older than the pass's start (less a margin for an event on its way
 * into its ring): whatever came before that on any CPU is in a ring by now.
 * The rest waits for the next pass.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

#include "kernel_int.h"
#include "../arch/arch.h"
#include "../common/pool.h"
#include "../util/time_ns.h"

#define CT_KSCRATCH 4096u /* no record we read is longer */

/*
 * perf time (ns) -> TSC, the inverse of the kernel's time_zero + tsc * mult >>
 * shift (computed as quot * mult + (rem * mult >> shift), modulo 2^64: time_zero
 * may be "negative"). Split so that neither shift overflows: d / mult is at
 * most d >> 31 or so, d % mult < 2^32.
 */
uint64_t ct_kperf_time_to_tsc(uint64_t t, uint64_t zero, uint32_t mult, uint16_t shift)
{
	uint64_t d = t - zero;
	uint64_t q = d / mult, r = d % mult;
	return (q << shift) + (r << shift) / mult;
}

static uint64_t ct_perf_to_tsc(const struct ct_kernel *k, uint64_t t)
{
	if (k->clock != CT_CLOCK_TSC)
		return t; /* the events were opened on CLOCK_MONOTONIC, as the trace */
	if (k->fit) {
		double d = ((double)t - (double)k->fit_mono0) * k->fit_ticks_per_ns;
		return (uint64_t)((double)k->fit_tsc0 + d);
	}
	return ct_kperf_time_to_tsc(t, k->time_zero, k->time_mult, k->time_shift);
}

static uint64_t ct_trace_now(const struct ct_kernel *k)
{
	return k->clock == CT_CLOCK_TSC ? ct_arch_clock() : ct_time_ns(CLOCK_MONOTONIC);
}

static int ct_load_tracepoints(struct ct_kernel *k, char *why, size_t whylen)
{
	k->enter_f[0].name = "id";
	k->enter_f[1].name = "args";
	k->exit_f[0].name = "id";
	k->exit_f[1].name = "ret";
	k->enter_id = ct_tracepoint("raw_syscalls", "sys_enter", k->enter_f, 2, why, whylen);
	if (k->enter_id < 0 && (errno == EACCES || errno == EPERM))
		snprintf(why, whylen,
			 "--kernel needs root or CAP_PERFMON: the tracepoints in tracefs "
			 "(/sys/kernel/tracing) are not readable");
	if (k->enter_id < 0)
		return -1;
	k->exit_id = ct_tracepoint("raw_syscalls", "sys_exit", k->exit_f, 2, why, whylen);
	if (k->exit_id < 0)
		return -1;
	/* the fields we read: 8-byte id and ret, at least 4 args of 8 bytes */
	if (k->enter_f[0].size != 8 || k->enter_f[1].size < 32 || k->exit_f[0].size != 8 ||
	    k->exit_f[1].size != 8) {
		snprintf(why, whylen, "--kernel: raw_syscalls fields of an unexpected size");
		return -1;
	}
	/* the state a thread leaves the CPU in: without it, a cause outside a syscall is a guess */
	char ignored[128];
	k->switch_f[0].name = "prev_state";
	k->switch_id =
		ct_tracepoint("sched", "sched_switch", k->switch_f, 1, ignored, sizeof(ignored));
	if (k->switch_id > 0 && k->switch_f[0].size != 8 && k->switch_f[0].size != 4)
		k->switch_id = -1;
	return 0;
}

/*
 * A (TSC, CLOCK_MONOTONIC) pair read as close together as we can: the best
 * of 5; returns how many ticks apart its two TSC reads were.
 */
static uint64_t ct_fit_pair(uint64_t *tsc, uint64_t *mono)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		uint64_t a = ct_arch_clock(), m = ct_time_ns(CLOCK_MONOTONIC), b = ct_arch_clock();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*mono = m;
		}
	}
	return best;
}

/*
 * A later pair: the line from the open's pair to it. A pair whose reads were
 * far apart (the recorder preempted between them, every time) would tilt it:
 * kept only within 2 us.
 */
static void ct_fit_update(struct ct_kernel *k)
{
	uint64_t tsc, mono;
	uint64_t width = ct_fit_pair(&tsc, &mono);
	if (k->fit_ticks_per_ns > 0 && (double)width > 2000 * k->fit_ticks_per_ns)
		return;
	if (mono > k->fit_mono0 + 1000000) /* over 1 ms at least */
		k->fit_ticks_per_ns = (double)(tsc - k->fit_tsc0) / (double)(mono - k->fit_mono0);
}

/* The events' times on the TSC: the kernel's conversion, else a fit to CLOCK_MONOTONIC. */
static int ct_tsc_setup(struct ct_kernel *k, char *why, size_t whylen)
{
	if (ct_kperf_tsc_params(k) == 0) {
		k->margin = ((uint64_t)2000000 << k->time_shift) / k->time_mult; /* 2 ms */
		return 0;
	}
	ct_kperf_close(k);
	k->fit = 1;
	ct_fit_pair(&k->fit_tsc0, &k->fit_mono0);
	struct timespec ts = { 0, 2000000 };
	nanosleep(&ts, NULL);
	ct_fit_update(k);
	k->margin = (uint64_t)(2e6 * k->fit_ticks_per_ns);
	return ct_kperf_open(k, why, whylen);
}

struct ct_kernel *ct_kernel_open(uint32_t clock, const int32_t *tids, char *why, size_t whylen)
{
	struct ct_kernel *k = ct_calloc(1, sizeof(*k));
	k->clock = clock;
	if (tids && tids[0]) {
		size_t n = 0;
		while (tids[n])
			n++;
		k->tids = ct_malloc((n + 1) * sizeof(*k->tids));
		memcpy(k->tids, tids, (n + 1) * sizeof(*k->tids));
	}
	k->margin = 2000000; /* 2 ms, CLOCK_MONOTONIC */
	if (ct_load_tracepoints(k, why, whylen) < 0 || ct_kperf_open(k, why, whylen) < 0)
		goto fail;
	if (clock == CT_CLOCK_TSC && ct_tsc_setup(k, why, whylen) < 0)
		goto fail;
	ct_map_init(&k->tindex, 64);
	k->scratch = ct_malloc(CT_KSCRATCH);
	return k;
fail:
	ct_kernel_close(k);
	return NULL;
}

void ct_kernel_close(struct ct_kernel *k)
{
	if (!k)
		return;
	ct_kperf_close(k);
	free(k->tids);
	for (size_t i = 0; i < k->npend; i++)
		free(k->pend[i].read);
	free(k->pend);
	for (size_t i = 0; i < k->nthreads; i++)
		free(k->threads[i].read);
	free(k->threads);
	ct_buf_free(&k->kargs);
	if (k->tindex.keys)
		ct_map_free(&k->tindex);
	ct_buf_free(&k->out);
	free(k->scratch);
	free(k);
}

void ct_kernel_counts(const struct ct_kernel *k, uint64_t *lost, uint64_t *records)
{
	*lost = k->lost;
	*records = k->records;
}

static struct ct_kev *ct_new_kev(struct ct_kernel *k)
{
	if (k->npend == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 4096;
		k->pend = ct_realloc(k->pend, k->cap * sizeof(*k->pend));
	}
	struct ct_kev *e = &k->pend[k->npend++];
	memset(e, 0, sizeof(*e));
	e->seq = k->seq++;
	return e;
}

static uint64_t ct_field(const uint8_t *raw, const struct ct_tp_field *f)
{
	uint64_t v;
	memcpy(&v, raw + f->offset, sizeof(v));
	return v;
}

/*
 * What every record we read starts with (PERF_SAMPLE_TID, TIME, CPU; for the
 * context switches, their sample_id): u32 pid, tid; u64 time; u32 cpu, res.
 */
#define CT_KID_SIZE 24u

static struct ct_kev *ct_new_kev_at(struct ct_kernel *k, const uint8_t *p)
{
	struct ct_kev *e = ct_new_kev(k);
	memcpy(&e->pid, p, 4);
	memcpy(&e->tid, p + 4, 4);
	memcpy(&e->time, p + 8, 8);
	memcpy(&e->cpu, p + 16, 4);
	e->time = ct_perf_to_tsc(k, e->time);
	return e;
}

/* sched_switch in the thread leaving the CPU: the state it leaves in */
static void ct_read_state(struct ct_kernel *k, const uint8_t *p, const uint8_t *raw,
			  uint32_t raw_size)
{
	const struct ct_tp_field *f = &k->switch_f[0];
	if ((size_t)f->offset + (size_t)f->size > raw_size)
		return;
	struct ct_kev *e = ct_new_kev_at(k, p);
	e->type = CT_KEV_STATE;
	if (f->size == 8) {
		memcpy(&e->ret, raw + f->offset, 8);
	} else {
		int32_t v;
		memcpy(&v, raw + f->offset, 4);
		e->ret = v;
	}
}

/*
 * The calls whose pointer argument is worth reading (the recorder's own
 * numbers: it runs on the program's machine): the address and what is there.
 */
static int ct_kread_which(uint32_t nr, const uint64_t *a, uint64_t *addr, uint8_t *what)
{
	switch (nr) {
#ifdef SYS_open
	case SYS_open:
		*addr = a[0];
		*what = CT_KARG_PATH;
		return 1;
#endif
	case SYS_openat:
		*addr = a[1];
		*what = CT_KARG_PATH;
		return 1;
#ifdef SYS_nanosleep
	case SYS_nanosleep:
		*addr = a[0];
		*what = CT_KARG_TIMESPEC;
		return 1;
#endif
	case SYS_clock_nanosleep:
		*addr = a[2];
		*what = CT_KARG_TIMESPEC;
		return 1;
	}
	return 0;
}

#define CT_KPATH_MAX 256u /* bytes of a path kept */

/*
 * Read what a system call entered points to, from the thread's memory, now
 * (at the drain that found its sys_enter): the value holds only if the call was
 * still in progress when the read was over, which pairing tells from its
 * exit's time. A path cut by an unmapped page before its NUL is no value.
 */
static struct ct_kread *ct_kread(struct ct_kernel *k, const struct ct_kev *e)
{
	uint64_t addr;
	uint8_t what, buf[CT_KPATH_MAX];
	if (!ct_kread_which(e->nr, e->args, &addr, &what) || !addr)
		return NULL;
	size_t want = what == CT_KARG_TIMESPEC ? 16 : sizeof(buf);
	uint64_t page_end = (addr | 4095) + 1;
	size_t first = page_end - addr < want ? (size_t)(page_end - addr) : want;
	struct iovec local = { buf, want };
	struct iovec remote[2] = { { (void *)(uintptr_t)addr, first },
				   { (void *)(uintptr_t)page_end, want - first } };
	ssize_t n = process_vm_readv(e->tid, &local, 1, remote, want > first ? 2 : 1, 0);
	uint64_t done = ct_trace_now(k);
	if (n <= 0)
		return NULL;
	size_t len = (size_t)n;
	uint8_t flags = 0;
	if (what == CT_KARG_TIMESPEC) {
		if (len != 16)
			return NULL;
	} else {
		const uint8_t *nul = memchr(buf, 0, len);
		if (nul)
			len = (size_t)(nul - buf);
		else if (len == want)
			flags = CT_KARG_TRUNCATED;
		else
			return NULL;
	}
	struct ct_kread *r = ct_malloc(sizeof(*r) + len);
	*r = (struct ct_kread){ .done = done, .what = what, .flags = flags, .len = (uint16_t)len };
	memcpy(r->data, buf, len);
	return r;
}

/*
 * After a drain (pend in time order): read what the system calls still open
 * point to. A call whose exit is drained already is over: no read (most
 * openat calls end within microseconds, long before the recorder sees them).
 */
static void ct_kread_open(struct ct_kernel *k)
{
	uint64_t addr;
	uint8_t what;
	size_t i = 0;
	for (; i < k->npend; i++)
		if (k->pend[i].type == CT_KEV_ENTER && !k->pend[i].looked &&
		    ct_kread_which(k->pend[i].nr, k->pend[i].args, &addr, &what))
			break;
	if (i == k->npend)
		return;
	struct ct_map exited; /* tids with an exit later than the event looked at */
	ct_map_init(&exited, 64);
	for (size_t j = k->npend; j-- > i;) {
		struct ct_kev *e = &k->pend[j];
		uint64_t key = (uint64_t)(uint32_t)e->tid | UINT64_C(1) << 63;
		int added;
		if (e->type == CT_KEV_EXIT) {
			ct_map_put(&exited, key, &added);
		} else if (e->type == CT_KEV_ENTER && !e->looked) {
			e->looked = 1;
			if (ct_kread_which(e->nr, e->args, &addr, &what) &&
			    !ct_map_find(&exited, key))
				e->read = ct_kread(k, e);
		}
	}
	ct_map_free(&exited);
}

/* A sample: the ids, u32 raw size, raw (common_type first). */
static void ct_read_sample(struct ct_kernel *k, const uint8_t *p, size_t len)
{
	uint32_t raw_size;
	uint16_t type;
	if (len < CT_KID_SIZE + 4)
		return;
	memcpy(&raw_size, p + CT_KID_SIZE, 4);
	const uint8_t *raw = p + CT_KID_SIZE + 4;
	if (raw_size > len - CT_KID_SIZE - 4 || raw_size < 2)
		return;
	memcpy(&type, raw, 2);
	if (type == k->switch_id) {
		ct_read_state(k, p, raw, raw_size);
		return;
	}
	const struct ct_tp_field *f = type == k->enter_id ? k->enter_f : k->exit_f;
	if ((type != k->enter_id && type != k->exit_id) ||
	    (size_t)f[1].offset + (type == k->enter_id ? 32 : 8) > raw_size ||
	    (size_t)f[0].offset + 8 > raw_size)
		return;
	struct ct_kev *e = ct_new_kev_at(k, p);
	e->nr = (uint32_t)ct_field(raw, &f[0]);
	if (type == k->enter_id) {
		e->type = CT_KEV_ENTER;
		memcpy(e->args, raw + f[1].offset, sizeof(e->args));
	} else {
		e->type = CT_KEV_EXIT;
		e->ret = (int64_t)ct_field(raw, &f[1]);
	}
}

/* A context switch: its sample_id is the ids. */
static void ct_read_switch(struct ct_kernel *k, uint16_t misc, const uint8_t *p, size_t len)
{
	if (len < CT_KID_SIZE)
		return;
	struct ct_kev *e = ct_new_kev_at(k, p);
	e->type = misc & PERF_RECORD_MISC_SWITCH_OUT ? CT_KEV_OUT : CT_KEV_IN;
	e->preempt = (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
}

static void ct_read_record(struct ct_kernel *k, const struct perf_event_header *h,
			   const uint8_t *body, size_t len)
{
	uint64_t lost;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		ct_read_sample(k, body, len);
		break;
	case PERF_RECORD_SWITCH:
		ct_read_switch(k, h->misc, body, len);
		break;
	case PERF_RECORD_LOST:
		if (len >= 16) {
			memcpy(&lost, body + 8, 8);
			k->lost += lost;
		}
		break;
	}
}

/* Everything the kernel wrote into one CPU's ring since the last pass. */
static void ct_drain(struct ct_kernel *k, struct ct_kcpu *c)
{
	uint64_t head = __atomic_load_n(&c->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = c->page->data_tail;
	uint64_t size = c->mask + 1;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t at = tail & c->mask;
		const uint8_t *rec = c->data + at;
		if (at + sizeof(h) > size || at + ((struct perf_event_header *)rec)->size > size) {
			/* wraps round the end: copy it out */
			uint64_t first = size - at;
			memcpy(k->scratch, rec, ct_min(first, CT_KSCRATCH));
			if (first < CT_KSCRATCH)
				memcpy(k->scratch + first, c->data, CT_KSCRATCH - first);
			rec = k->scratch;
		}
		memcpy(&h, rec, sizeof(h));
		if (h.size < sizeof(h) || h.size > CT_KSCRATCH)
			break; /* cannot be: the kernel writes these */
		ct_read_record(k, &h, rec + sizeof(h), h.size - sizeof(h));
		tail += h.size;
	}
	__atomic_store_n(&c->page->data_tail, head, __ATOMIC_RELEASE);
}

static int ct_kev_order(const void *a, const void *b)
{
	const struct ct_kev *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct ct_kthread *ct_kthread(struct ct_kernel *k, int32_t pid, int32_t tid)
{
	int added;
	uint64_t *slot =
		ct_map_put(&k->tindex, (uint64_t)(uint32_t)tid | UINT64_C(1) << 63, &added);
	if (added) {
		k->threads = ct_realloc(k->threads, (k->nthreads + 1) * sizeof(*k->threads));
		memset(&k->threads[k->nthreads], 0, sizeof(*k->threads));
		*slot = k->nthreads++;
	}
	struct ct_kthread *t = &k->threads[*slot];
	t->pid = pid; /* a thread that execs from another thread takes the leader's tid */
	t->tid = tid;
	return t;
}

/* A record of t from start to end; cpu_in: where it ended (a system call's exit, back on) */
static void ct_emit(struct ct_kernel *k, const struct ct_kthread *t, uint16_t kind, uint64_t start,
		    uint64_t end, uint32_t cpu_in)
{
	struct ct_kernel_rec r = {
		.start = start, .end = end, .pid = t->pid, .tid = t->tid, .kind = kind
	};
	r.cpu_in = cpu_in + 1;
	if (kind == CT_KREC_OFFCPU) {
		r.cause = t->cause;
		r.nr = t->off_nr;
		r.ret = t->off_state;
		r.cpu_out = t->out_cpu + 1;
	} else {
		r.cpu_out = t->enter_cpu + 1;
		r.nr = t->nr;
		memcpy(r.args, t->args, sizeof(r.args));
	}
	ct_buf_append(&k->out, &r, sizeof(r));
}

/* sched_switch's prev_state bits (the kernel's TASK_* report bits) */
#define CT_TASK_UNINTERRUPTIBLE 0x2
#define CT_TASK_STOPPED		0x4
#define CT_TASK_TRACED		0x8

/* Why a thread leaves the CPU: runnable, in a system call, stopped, in a page fault. */
static uint16_t ct_offcpu_cause(const struct ct_kthread *t, int preempt)
{
	int64_t st = t->has_state ? t->state : 0;
	if (preempt)
		return CT_OFFCPU_PREEMPTED;
	if (st & (CT_TASK_STOPPED | CT_TASK_TRACED))
		return CT_OFFCPU_STOPPED;
	if (t->in_syscall)
		return CT_OFFCPU_SYSCALL;
	/* asleep outside a system call: waiting for a page (uninterruptible) */
	return t->has_state && (st & CT_TASK_UNINTERRUPTIBLE) ? CT_OFFCPU_FAULT
							      : CT_OFFCPU_NOSYSCALL;
}

/*
 * t's system call ended at exit: what its pointer pointed to, if read while
 * it was still in progress. The read's end and the exit are on one clock,
 * give or take the clocks' fit: a read that ended within a hundredth of the
 * margin (20 us) before the exit is not trusted either.
 */
static void ct_emit_read(struct ct_kernel *k, const struct ct_kthread *t, uint64_t exit)
{
	const struct ct_kread *rd = t->read;
	if (!rd || exit <= rd->done + k->margin / 100)
		return;
	struct ct_karg_rec a = { .start = t->enter,
				 .tid = t->tid,
				 .what = rd->what,
				 .flags = rd->flags,
				 .len = rd->len };
	ct_buf_append(&k->kargs, &a, sizeof(a));
	ct_buf_append(&k->kargs, rd->data, rd->len);
}

static void ct_pair(struct ct_kernel *k, struct ct_kev *e)
{
	struct ct_kthread *t = ct_kthread(k, e->pid, e->tid);
	switch (e->type) {
	case CT_KEV_ENTER:
		t->in_syscall = 1;
		t->nr = e->nr;
		t->enter = e->time;
		t->enter_cpu = e->cpu;
		memcpy(t->args, e->args, sizeof(t->args));
		free(t->read);
		t->read = e->read;
		e->read = NULL;
		break;
	case CT_KEV_EXIT:
		/* an exit without its enter (execve's, begun before tracing) is dropped */
		if (t->in_syscall && t->nr == e->nr) {
			struct ct_kernel_rec *r;
			ct_emit(k, t, CT_KREC_SYSCALL, t->enter, e->time, e->cpu);
			r = (struct ct_kernel_rec *)(k->out.data + k->out.len - sizeof(*r));
			r->ret = e->ret;
			ct_emit_read(k, t, e->time);
		}
		free(t->read);
		t->read = NULL;
		t->in_syscall = 0;
		break;
	case CT_KEV_STATE:
		t->has_state = 1;
		t->state = e->ret;
		break;
	case CT_KEV_OUT:
		t->off = 1;
		t->out = e->time;
		t->cause = ct_offcpu_cause(t, e->preempt);
		t->off_nr = t->in_syscall ? t->nr : 0;
		t->off_state = t->has_state ? t->state : e->preempt ? 0 : -1;
		t->out_cpu = e->cpu;
		t->has_state = 0;
		break;
	case CT_KEV_IN:
		if (t->off)
			ct_emit(k, t, CT_KREC_OFFCPU, t->out, e->time, e->cpu);
		t->off = 0;
		break;
	}
}

static void ct_write_kargs(struct ct_kernel *k, struct ct_writer *w)
{
	if (!k->kargs.len)
		return;
	if (k->kargs.len < 4096)
		ct_writer_block(w, CT_BLOCK_KARGS, 0, k->kargs.data, (uint32_t)k->kargs.len, NULL,
				0);
	else
		ct_writer_block_zstd(w, CT_BLOCK_KARGS, k->kargs.data, (uint32_t)k->kargs.len);
	k->kargs.len = 0;
}

static void ct_write_out(struct ct_kernel *k, struct ct_writer *w)
{
	size_t n = k->out.len / sizeof(struct ct_kernel_rec);
	ct_write_kargs(k, w); /* before their records: a reader that has these has those */
	if (!n && k->lost == k->lost_written)
		return;
	struct ct_kernel_hdr h = { .rec_size = sizeof(struct ct_kernel_rec),
				   .count = (uint32_t)n,
				   .lost = k->lost - k->lost_written };
	if (k->out.len < 4096) {
		ct_writer_block(w, CT_BLOCK_KERNEL, 0, &h, sizeof(h), k->out.data,
				(uint32_t)k->out.len);
	} else {
		struct ct_buf b = { 0 };
		ct_buf_append(&b, &h, sizeof(h));
		ct_buf_append(&b, k->out.data, k->out.len);
		ct_writer_block_zstd(w, CT_BLOCK_KERNEL, b.data, (uint32_t)b.len);
		ct_buf_free(&b);
	}
	k->records += n;
	k->lost_written = k->lost;
	k->out.len = 0;
}

#define CT_KBLOCK_RECORDS 65536u /* records per block at most: 4.5 MiB before zstd */

size_t ct_kernel_poll(struct ct_kernel *k, struct ct_writer *w, int final)
{
	uint64_t now = ct_trace_now(k);
	uint64_t watermark = final ? UINT64_MAX : now - k->margin;
	uint64_t before = k->records;

	if (k->fit)
		ct_fit_update(k);
	else if (k->clock == CT_CLOCK_TSC)
		ct_kperf_tsc_params(k); /* it may change (a suspend, a clock change) */
	for (int i = 0; i < k->ncpus; i++)
		ct_drain(k, &k->cpus[i]);
	qsort(k->pend, k->npend, sizeof(*k->pend), ct_kev_order);
	ct_kread_open(k);
	size_t done = 0;
	for (; done < k->npend && k->pend[done].time <= watermark; done++) {
		ct_pair(k, &k->pend[done]);
		if (k->out.len >= CT_KBLOCK_RECORDS * sizeof(struct ct_kernel_rec))
			ct_write_out(k, w);
	}
	memmove(k->pend, k->pend + done, (k->npend - done) * sizeof(*k->pend));
	k->npend -= done;
	ct_write_out(k, w);
	k->paired_to = watermark;
	return (size_t)(k->records - before);
}

uint64_t ct_kernel_complete(const struct ct_kernel *k, int32_t tid)
{
	uint64_t done = k->paired_to;
	const uint64_t *slot = ct_map_find(&k->tindex, (uint64_t)(uint32_t)tid | UINT64_C(1) << 63);
	if (!slot)
		return done;
	/* its open system call or off-CPU interval: written when it ends */
	const struct ct_kthread *t = &k->threads[*slot];
	if (t->in_syscall && t->enter < done)
		done = t->enter;
	if (t->off && t->out < done)
		done = t->out;
	return done;
}
