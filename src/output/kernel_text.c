// SPDX-License-Identifier: MIT
/*
 * A kernel record (record --kernel) as one line of text, the same in every
 * output: "read(fd=3, count=4096) = 4096  [syscall 1.2 us]",
 * "[off-cpu 49.8 ms: blocked in clock_nanosleep]".
 */
#include <stdio.h>

#include "kernel_text.h"
#include "syscalls.h"
#include "../format/reader.h"

void ct_kernel_duration(char *buf, size_t len, double ns)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else
		snprintf(buf, len, "%.0f ns", ns);
}

void ct_kernel_text(char *buf, size_t len, const struct ct_kernel_rec *r, const struct ct_trace *t)
{
	char what[1400], ret[64], dur[32];
	enum ct_sys_abi abi = ct_trace_sys_abi(t);
	ct_kernel_duration(dur, sizeof(dur), (double)(r->end - r->start) * t->ns_per_tick);
	if (r->kind == CT_KREC_OFFCPU) {
		ct_offcpu_format(what, sizeof(what), abi, r);
		snprintf(buf, len, "[off-cpu %s: %s]", dur, what);
		return;
	}
	struct ct_syscall_read rd = { 0 };
	rd.rec = ct_trace_karg(t, r->tid, r->start, &rd.data);
	ct_syscall_format(what, sizeof(what), abi, r, &rd);
	ct_syscall_format_ret(ret, sizeof(ret), abi, r);
	snprintf(buf, len, "%s = %s  [syscall %s]", what, ret, dur);
}

/* A record's name as a row or a frame: "read [syscall]", "[off-cpu: preempted]". */
void ct_kernel_name(char *buf, size_t len, const struct ct_kernel_rec *r, const struct ct_trace *t)
{
	char what[128];
	enum ct_sys_abi abi = ct_trace_sys_abi(t);
	if (r->kind == CT_KREC_OFFCPU) {
		ct_offcpu_format(what, sizeof(what), abi, r);
		snprintf(buf, len, "[off-cpu: %s]", what);
		return;
	}
	const char *name = ct_syscall_name(abi, r->nr);
	if (name)
		snprintf(buf, len, "%s [syscall]", name);
	else
		snprintf(buf, len, "syscall_%u [syscall]", r->nr);
}
