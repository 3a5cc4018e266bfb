/* SPDX-License-Identifier: MIT */
/* report with record --kernel: off-CPU time by call, and --syscalls rows (report_kernel.c). */
#ifndef CT_OUTPUT_REPORT_KERNEL_H
#define CT_OUTPUT_REPORT_KERNEL_H

#include <stdint.h>
#include <stdio.h>

#include "../format/format.h"

#define CT_RK_SYSCALLS 1024u /* system call numbers counted apart; the others are dropped */

struct ct_rk_frame {
	uint32_t row;
	uint64_t off; /* ticks off the CPU while it ran, under it included */
};

struct ct_rk_sys {
	uint64_t calls, total, max, errors; /* ticks */
};

struct ct_report_kernel {
	struct ct_rk_frame *stack; /* the thread's open calls */
	uint32_t depth, cap;
	struct ct_rk_sys *sys; /* by number, CT_RK_SYSCALLS of them once one came */
	size_t nsys;	       /* numbers called */
	int abi;	       /* enum ct_sys_abi: whose numbers they are */
};

void ct_rk_enter(struct ct_report_kernel *k, uint32_t row);
/* The call ends: its off-CPU ticks (its parent's too). */
uint64_t ct_rk_exit(struct ct_report_kernel *k);
/* A record: an off-CPU interval's ticks and the row it belongs to; 0 for the others. */
uint64_t ct_rk_record(struct ct_report_kernel *k, const struct ct_kernel_rec *r, uint32_t *row);
void ct_rk_print_text(const struct ct_report_kernel *k, FILE *out, double ns_per_tick);
/* JSON rows after the functions' (nrows of them before: a comma first) */
void ct_rk_print_json(const struct ct_report_kernel *k, FILE *out, double ns_per_tick,
		      size_t nrows);
void ct_rk_free(struct ct_report_kernel *k);

#endif
