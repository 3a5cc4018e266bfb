/* SPDX-License-Identifier: MIT */
/* record --disabled: nothing is recorded until the program turns tracing on. */
#include <calltrace.h>
#include <stdio.h>

#define NOINL __attribute__((noinline))

static volatile int sink;

NOINL void setup(int n)
{
	if (n)
		setup(n - 1);
	sink++;
}

NOINL void work(void)
{
	sink++;
}

int main(void)
{
	setup(3);
	calltrace_enable_all();
	work();
	printf("sink %d\n", sink);
	return 0;
}
