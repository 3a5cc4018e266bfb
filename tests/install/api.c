/* SPDX-License-Identifier: MIT */
/*
 * A program that calls every function of <calltrace.h>, built against an
 * installed calltrace with pkg-config (as C, and as C++ to check the header's
 * extern "C"). It prints what the API answered, and the result of its own
 * work: "active=A backtrace=N snapshot=S sum=91 api=1". ct_inst_quiet is
 * CALLTRACE_NO_TRACE: never in a trace.
 */
#include <stdio.h>

#include <calltrace.h>

CALLTRACE_NO_TRACE __attribute__((noinline)) static int ct_inst_quiet(int x)
{
	return x + 1;
}

__attribute__((noinline)) static int ct_inst_leaf(int x)
{
	return 2 * x;
}

__attribute__((noinline)) static int ct_inst_compute(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += ct_inst_leaf(i);
	return s;
}

int main(void)
{
	void *bt[16];
	int active = calltrace_active();

	calltrace_disable();
	ct_inst_compute(2);
	calltrace_enable();
	calltrace_disable_all();
	ct_inst_compute(2);
	calltrace_enable_all();
	calltrace_mark("installed api test, %d", 42);
	int n = calltrace_backtrace(bt, 16);
	int snap = calltrace_snapshot();
	int sum = ct_inst_compute(10) + ct_inst_quiet(0);
	printf("active=%d backtrace=%d snapshot=%d sum=%d api=%d\n", active, n, snap, sum,
	       CALLTRACE_API_VERSION);
	return 0;
}
