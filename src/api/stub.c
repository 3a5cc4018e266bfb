/* SPDX-License-Identifier: MIT */
/*
 * libcalltrace-api.so: the calltrace API for a program running without
 * calltrace. Every function does nothing. Under calltrace the runtime
 * (libcalltrace.so, preloaded or linked) comes first in the symbol lookup
 * order and answers instead: see src/runtime/modes/api.c.
 */
#include "../../include/calltrace.h"

int calltrace_active(void)
{
	return 0;
}

void calltrace_enable(void)
{
}

void calltrace_disable(void)
{
}

void calltrace_enable_all(void)
{
}

void calltrace_disable_all(void)
{
}

void calltrace_mark(const char *fmt, ...)
{
	(void)fmt;
}

int calltrace_backtrace(void **buf, int max)
{
	(void)buf;
	(void)max;
	return 0;
}

int calltrace_snapshot(void)
{
	return -1;
}
