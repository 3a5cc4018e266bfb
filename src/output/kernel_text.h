/* SPDX-License-Identifier: MIT */
/* record --kernel's records as text (kernel_text.c). */
#ifndef CT_OUTPUT_KERNEL_TEXT_H
#define CT_OUTPUT_KERNEL_TEXT_H

#include <stddef.h>

#include "../format/format.h"

struct ct_trace;

/* "1.2 us", "49.8 ms" */
void ct_kernel_duration(char *buf, size_t len, double ns);
/* "read(fd=3, count=4096) = 4096  [syscall 1.2 us]", "[off-cpu 49.8 ms: preempted]" */
/* t: the trace, for its clock and its architecture's system call numbers */
void ct_kernel_text(char *buf, size_t len, const struct ct_kernel_rec *r, const struct ct_trace *t);
/* "read [syscall]", "[off-cpu: blocked in futex]" */
void ct_kernel_name(char *buf, size_t len, const struct ct_kernel_rec *r, const struct ct_trace *t);

#endif
