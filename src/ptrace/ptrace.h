/* SPDX-License-Identifier: MIT */
/* The ptrace method, as the recorder and attach start it (src/ptrace/). */
#ifndef CT_PTRACE_H
#define CT_PTRACE_H

#include <stdint.h>
#include <sys/types.h>

#include "../common/pool.h"

/*
 * Fork the tracer, which runs argv under ptrace and writes its calls into
 * the pool; the tracer's pid once the program runs, else -1 (the error said,
 * *status the exit status to give up with).
 */
pid_t ct_ptrace_launch(char **argv, struct ct_pool_ctl *ctl, int follow, int *status);

struct ct_attach_opts {
	pid_t pid;
	struct ct_pool_ctl *ctl;
	const char *pool_path; /* where the runtime finds the pool */
	const char *runtime;   /* libcalltrace.so: loaded into the process; NULL: breakpoints */
	int fallback;	       /* breakpoints if the runtime cannot be loaded */
	int follow;
	uint64_t duration_ms; /* 0: no limit */
};

/*
 * Fork a tracer that seizes every thread of o->pid and traces it (with the
 * runtime loaded into it, else through breakpoints) until SIGINT/SIGTERM,
 * the duration or its end, then leaves it as it was; the tracer's pid once
 * tracing runs, else -1 (the error said).
 */
pid_t ct_ptrace_attach(const struct ct_attach_opts *o, int *status);

#endif
