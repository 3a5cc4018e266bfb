/* SPDX-License-Identifier: MIT */
/*
 * What calltrace attach calls in the process it attaches to: the runtime's
 * entry points (src/runtime/modes/attached.c), which the tracer
 * (src/ptrace/attach_rt.c) finds by name in libcalltrace.so.
 */
#ifndef CT_ATTACH_ABI_H
#define CT_ATTACH_ABI_H

#include <stdint.h>

/* The name the runtime is loaded by: its constructors then start nothing. */
#define CT_ATTACH_LIB "libcalltrace-attach.so"

#define CT_ATTACH_START "calltrace_attach_start"
#define CT_ATTACH_STOP	"calltrace_attach_stop"
/* (renamed when its arguments changed: a runtime left loaded by an older calltrace lacks it) */
#define CT_ATTACH_ADOPT "calltrace_attach_open_calls"

/* conf: "NAME=VALUE" strings as record would set them, each NUL-ended; len bytes in all. */
long calltrace_attach_start(const char *conf, long len);
long calltrace_attach_stop(const uint64_t *thread_pointers, long n);
/*
 * The calls under way in each thread at the attach, for their returns to be
 * seen: per thread its thread pointer, its tid, a count n, then n frames
 * {function, return-address slot, return address}, outermost first. Those of
 * functions we patched are hooked, and told first in the thread's stream
 * (CT_EXT_ATTACHED). The number hooked.
 */
long calltrace_attach_open_calls(const uint64_t *threads, long nthreads);

#endif
