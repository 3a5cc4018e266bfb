/* SPDX-License-Identifier: MIT */
/*
 * calltrace_disable/enable (per thread and process-wide) and calltrace_mark:
 * the tree (gate.tree) shows exactly the calls made while tracing was on, the
 * calls entered while it was off that are still open when it comes back, and
 * the marks, whatever the program does in between (returns, jumps, throws).
 */
#include <calltrace.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>

#define NOINL __attribute__((noinline, noclone))
#if defined(__clang__)
#undef NOINL
#define NOINL __attribute__((noinline))
#endif

static volatile int sink;
static jmp_buf env;

NOINL void leaf(void)
{
	sink++;
}

/* a side effect after the call: the compiler neither drops it nor makes a loop of it */
NOINL int noisy(int n)
{
	int r = n ? noisy(n - 1) + 1 : 0;
	sink++;
	return r;
}

/* off and on in one function */
NOINL void quiet(void)
{
	calltrace_disable();
	noisy(3);
	calltrace_enable();
	noisy(1);
}

/* on again two calls deeper than where it went off */
NOINL void inner_on(void)
{
	calltrace_enable();
	leaf();
}

NOINL void middle(void)
{
	leaf();
	inner_on();
	leaf();
}

NOINL void off_then_deeper(void)
{
	calltrace_disable();
	leaf();
	middle();
}

/* off in a callee, on again in its caller after more calls */
NOINL void goes_off(void)
{
	leaf();
	calltrace_disable();
	leaf();
}

NOINL void on_in_caller(void)
{
	goes_off();
	noisy(2);
	calltrace_enable();
	leaf();
}

/* a longjmp while tracing is off */
NOINL void jumper(int n)
{
	if (n)
		jumper(n - 1);
	else
		longjmp(env, 1);
}

NOINL void jump_while_off(void)
{
	if (setjmp(env) == 0) {
		calltrace_disable();
		jumper(3);
	}
	calltrace_enable();
	leaf();
}

/* marks, and a mark while off that is not recorded */
NOINL void marks(void)
{
	calltrace_mark("step %d of %s", 1, "marks");
	calltrace_disable();
	calltrace_mark("never seen");
	calltrace_enable();
	leaf();
	calltrace_mark("done");
}

/* process-wide: a thread started while tracing is off, on again in it */
static void *worker(void *arg)
{
	(void)arg;
	noisy(2);
	calltrace_enable_all();
	leaf();
	return NULL;
}

NOINL void all_off(void)
{
	pthread_t th;
	calltrace_disable_all();
	noisy(1);
	pthread_create(&th, NULL, worker, NULL);
	pthread_join(th, NULL);
	leaf();
}

int main(void)
{
	quiet();
	off_then_deeper();
	on_in_caller();
	jump_while_off();
	marks();
	all_off();
	printf("sink %d\n", sink);
	return 0;
}
