/* SPDX-License-Identifier: MIT */
/*
 * record --kernel: the kernel's side of the traced threads, from its own
 * tracepoints (raw_syscalls:sys_enter, sys_exit) and context-switch records,
 * through perf_event_open. Nothing runs in the traced program: the kernel
 * writes per-CPU ring buffers that the recorder drains between its passes,
 * pairs into system calls and off-CPU intervals, and writes as KERNEL blocks
 * (docs/FORMAT.md) with times on the trace clock.
 */
#ifndef CT_KERNEL_H
#define CT_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "../format/format.h"
#include "../format/writer.h"

struct ct_kernel;

/*
 * tids NULL: open the events on the calling process, disabled, inherited by
 * every thread and child it makes from now on and enabled in the one that
 * execs: call it just before starting the program. attach: tids (0-ended)
 * are the threads of the process
 * attached, followed from now on, with the threads and children they make.
 * clock: CT_CLOCK_* of the trace. NULL when the kernel's side cannot be
 * recorded, with why in one line.
 */
struct ct_kernel *ct_kernel_open(uint32_t clock, const int32_t *tids, char *why, size_t whylen);
/*
 * Drain the rings: pair what is old enough to be complete on every CPU
 * (everything when final) and write it. Returns the records written.
 */
size_t ct_kernel_poll(struct ct_kernel *k, struct ct_writer *w, int final);
/*
 * live: the time (trace clock) before which every record of thread tid that
 * will ever be written is written: the last drain's watermark, or earlier,
 * the start of what the thread has open (a system call, an off-CPU interval).
 */
uint64_t ct_kernel_complete(const struct ct_kernel *k, int32_t tid);
/* Kernel events dropped so far (full rings), and records written. */
void ct_kernel_counts(const struct ct_kernel *k, uint64_t *lost, uint64_t *records);
void ct_kernel_close(struct ct_kernel *k);

/* tracefs.c: a tracepoint's id and the offsets of the fields asked for */
struct ct_tp_field {
	const char *name; /* in: as in the format file ("id", "args") */
	int offset, size; /* out; -1 when missing */
};
int ct_tracepoint(const char *system, const char *event, struct ct_tp_field *fields, size_t nfields,
		  char *why, size_t whylen);

#endif
