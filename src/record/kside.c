// SPDX-License-Identifier: MIT
/*
 * record --kernel, as the recorder's loop sees it: open before the program
 * starts (the events follow it from its exec), drain after each pass, and a
 * last drain and a META block before the end. Never a failure of the record:
 * when the kernel's side cannot be had, one line says why and the recording
 * goes on without it.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "kside.h"
#include "../kernel/kernel.h"

/* attach: the threads of pid now (0-ended), or NULL */
static int32_t *ct_kside_threads(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return NULL;
	int32_t *tids = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		long tid = strtol(e->d_name, NULL, 10);
		if (tid <= 0)
			continue;
		tids = ct_realloc(tids, (n + 2) * sizeof(*tids));
		tids[n++] = (int32_t)tid;
		tids[n] = 0;
	}
	closedir(d);
	return tids;
}

struct ct_kernel *ct_kside_open(uint32_t clock, pid_t attach_pid)
{
	char why[256] = "--kernel: the process's threads cannot be listed";
	int32_t *tids = attach_pid ? ct_kside_threads(attach_pid) : NULL;
	struct ct_kernel *k =
		attach_pid && !tids ? NULL : ct_kernel_open(clock, tids, why, sizeof(why));
	free(tids);
	if (!k)
		ct_error("%s: recording without the kernel's side", why);
	return k;
}

void ct_kside_poll(struct ct_kernel *k, struct ct_writer *w)
{
	if (k)
		ct_kernel_poll(k, w, 0);
}

uint64_t ct_kside_complete(const struct ct_kernel *k, int32_t tid)
{
	return k ? ct_kernel_complete(k, tid) : UINT64_MAX;
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
