/* SPDX-License-Identifier: MIT */
/* calltrace_snapshot() under record --ring: each call writes a snapshot. */
#include <calltrace.h>
#include <stdio.h>
#include <unistd.h>

#define NOINL __attribute__((noinline))

NOINL void first(void)
{
}

NOINL void second(void)
{
}

int main(void)
{
	first();
	int a = calltrace_snapshot();
	usleep(200 * 1000); /* the recorder writes the snapshot meanwhile */
	second();
	int b = calltrace_snapshot();
	usleep(200 * 1000);
	printf("snapshot %d %d\n", a, b);
	return 0;
}
