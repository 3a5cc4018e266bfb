/* SPDX-License-Identifier: MIT */
/* record --kernel in the recorder's loop (src/kernel does the work). */
#ifndef CT_RECORD_KSIDE_H
#define CT_RECORD_KSIDE_H

#include <stdint.h>
#include <sys/types.h>

#include "../format/writer.h"
#include "../util/util.h"

struct ct_kernel;

/*
 * Just before the program starts, or (attach_pid) once the process is
 * attached: NULL (said why, in one line) without the kernel's side.
 */
struct ct_kernel *ct_kside_open(uint32_t clock, pid_t attach_pid);
void ct_kside_poll(struct ct_kernel *k, struct ct_writer *w);
/* live: ct_kernel_complete, or all of it without the kernel's side (k NULL) */
uint64_t ct_kside_complete(const struct ct_kernel *k, int32_t tid);
/* Before the END block: the rest, a META block; closes k. */
void ct_kside_finish(struct ct_kernel *k, struct ct_writer *w);

#endif
