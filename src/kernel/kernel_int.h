/* SPDX-License-Identifier: MIT */
/* record --kernel's insides, shared by perf.c and capture.c. */
#ifndef CT_KERNEL_INT_H
#define CT_KERNEL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "../util/util.h"

#define CT_KRING_PAGES 2048u /* per CPU: 8 MiB, 40 ms of a program doing nothing but syscalls */

struct perf_event_mmap_page;

struct ct_kcpu {
	int enter_fd, exit_fd; /* the ring's owner: the first thread's */
	int switch_fd;	       /* sched:sched_switch, for the state a thread leaves in */
	int *more;	       /* attach: the other threads' events, writing into that ring */
	size_t nmore;
	void *base;
	size_t len;
	struct perf_event_mmap_page *page;
	uint8_t *data;
	uint64_t mask;
};

enum ct_kev_type { CT_KEV_ENTER, CT_KEV_EXIT, CT_KEV_OUT, CT_KEV_IN, CT_KEV_STATE };

/* What a system call's pointer argument pointed to, read at its sys_enter's drain. */
struct ct_kread {
	uint64_t done; /* trace clock when the read was over */
	uint8_t what, flags;
	uint16_t len;
	uint8_t data[];
};

/* One event from a ring, its time on the trace clock. */
struct ct_kev {
	uint64_t time;
	uint64_t seq; /* read order: keeps a CPU's events in order at equal times */
	int32_t pid, tid;
	uint32_t cpu;
	uint8_t type;	 /* enum ct_kev_type */
	uint8_t preempt; /* CT_KEV_OUT: switched out runnable */
	uint8_t looked;	 /* CT_KEV_ENTER: its pointer's memory was considered (ct_kread_open) */
	uint32_t nr;
	int64_t ret; /* CT_KEV_STATE: sched_switch's prev_state */
	uint64_t args[4];
	struct ct_kread *read; /* CT_KEV_ENTER: owned, or NULL */
};

/* A thread's open system call and off-CPU interval, while pairing. */
struct ct_kthread {
	int32_t pid, tid;
	uint8_t in_syscall, off;
	uint8_t has_state; /* state: sched_switch's prev_state, before its switch out */
	uint16_t cause;
	int64_t state, off_state; /* off_state: the state it left in, -1 if not known */
	uint32_t enter_cpu, out_cpu;
	uint32_t nr, off_nr;
	uint64_t enter, out;
	uint64_t args[4];
	struct ct_kread *read; /* its open system call's, owned, or NULL */
};

struct ct_kernel {
	struct ct_kcpu *cpus;
	int ncpus;
	uint32_t clock; /* CT_CLOCK_* of the trace */
	int32_t *tids;	/* attach: the threads to follow (0-terminated); NULL: our next exec */
	int enter_id, exit_id, switch_id; /* switch_id -1: no sched_switch, causes guessed */
	struct ct_tp_field enter_f[2], exit_f[2], switch_f[1]; /* id, args / id, ret / prev_state */
	/* TSC traces: the kernel's conversion of its times to the TSC, if it tells one */
	uint64_t time_zero;
	uint32_t time_mult;
	uint16_t time_shift;
	/*
	 * Else the events are on CLOCK_MONOTONIC, put on the TSC by the line
	 * through two (TSC, monotonic) pairs: the open's and the last poll's.
	 */
	int fit;
	uint64_t fit_tsc0, fit_mono0;
	double fit_ticks_per_ns;
	uint64_t margin;    /* trace-clock ticks an event may take to reach its ring */
	uint64_t paired_to; /* every event up to this time is paired (its records written) */
	struct ct_kev *pend;
	size_t npend, cap;
	uint64_t seq;
	struct ct_map tindex; /* tid -> index in threads + 1 */
	struct ct_kthread *threads;
	size_t nthreads;
	struct ct_buf out;   /* struct ct_kernel_rec, not yet written */
	struct ct_buf kargs; /* struct ct_karg_rec + data, not yet written */
	uint64_t lost, lost_written, records;
	uint8_t *scratch; /* a record that wraps round the ring's end */
};

int ct_kperf_open(struct ct_kernel *k, char *why, size_t whylen);
int ct_kperf_tsc_params(struct ct_kernel *k);
/* A perf time put on the TSC by the page's time_zero, time_mult, time_shift. */
uint64_t ct_kperf_time_to_tsc(uint64_t t, uint64_t zero, uint32_t mult, uint16_t shift);
void ct_kperf_why(char *why, size_t whylen, int err);
void ct_kcpu_close(struct ct_kcpu *c);
void ct_kperf_close(struct ct_kernel *k);

#endif
