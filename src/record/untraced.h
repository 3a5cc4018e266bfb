/* SPDX-License-Identifier: MIT */
/*
 * untraced.c: processes of the traced tree that ran untraced, or stopped
 * being traced, named in the trace (UNTRACED blocks).
 */
#ifndef CT_RECORD_UNTRACED_H
#define CT_RECORD_UNTRACED_H

#include <stdint.h>

#include "../format/writer.h"
#include "../util/util.h"

/* What the collector sees in a thread's records (instance and pid: the chunk's). */
void ct_untraced_exec_note(uint32_t instance, int32_t pid, uint64_t clock, const uint8_t *p,
			   uint32_t len);
void ct_untraced_exec_failed(uint32_t instance);
void ct_untraced_process(const uint8_t *p, uint32_t len);
/* Tracing stopped in a process: written at once. */
void ct_untraced_stopped(struct ct_writer *w, uint32_t instance, int32_t pid, uint64_t clock,
			 const uint8_t *p, uint32_t len);
/* At the end: every exec'd image that never joined; how many processes in all. */
uint64_t ct_untraced_finish(struct ct_writer *w);

/*
 * Processes that ran no traced code: what images noted as they started (drained
 * every pass), against the instances that recorded calls.
 */
struct ct_pool_ctl;
struct ct_collector;
struct ct_process_counts {
	uint64_t total, traced; /* processes (the runtime's count, or distinct pids if more) */
	uint64_t unnamed;	/* images whose pid the ring lost before it was read */
	struct ct_buf quiet;	/* "1,5,7": instances announced that recorded no call */
};
void ct_untraced_drain_started(struct ct_pool_ctl *ctl);
void ct_untraced_count(const struct ct_collector *c, struct ct_process_counts *n);

#endif
