// SPDX-License-Identifier: MIT
/*
 * record --kernel, as the recorder's loop sees it: open before the program
 * starts (the events follow it from its exec), drain after each pass, and a
 * last drain and a META block before the end. Never a failure of the record:
 * when the kernel's side cannot be had, one line says why and the recording
 * goes on without it.
 */
#include <stdio.h>

#include "kside.h"
#include "../kernel/kernel.h"

struct ct_kernel *ct_kside_open(uint32_t clock)
{
	char why[256];
	struct ct_kernel *k = ct_kernel_open(clock, why, sizeof(why));
	if (!k)
		ct_error("%s: recording without the kernel's side", why);
	return k;
}

void ct_kside_poll(struct ct_kernel *k, struct ct_writer *w)
{
	if (k)
		ct_kernel_poll(k, w, 0);
}

/* The last events, what the trace holds of the kernel's side, and the events closed. */
void ct_kside_finish(struct ct_kernel *k, struct ct_writer *w)
{
	if (!k)
		return;
	if (!w) { /* the program never started */
		ct_kernel_close(k);
		return;
	}
	ct_kernel_poll(k, w, 1);
	uint64_t lost, records;
	ct_kernel_counts(k, &lost, &records);
	char val[64];
	struct ct_buf b = { 0 };
	ct_buf_append(&b, "kernel", 7);
	ct_buf_append(&b, "syscalls,offcpu", 16);
	snprintf(val, sizeof(val), "%llu", (unsigned long long)lost);
	ct_buf_append(&b, "kernel_lost", 12);
	ct_buf_append(&b, val, strlen(val) + 1);
	ct_writer_block(w, CT_BLOCK_META, 0, b.data, (uint32_t)b.len, NULL, 0);
	ct_buf_free(&b);
	if (lost)
		ct_error("--kernel: the kernel dropped %llu of its events (its ring buffers were "
			 "full): some system calls and off-CPU intervals are missing",
			 (unsigned long long)lost);
	ct_kernel_close(k);
}
