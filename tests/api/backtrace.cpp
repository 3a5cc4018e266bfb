// SPDX-License-Identifier: MIT
/*
 * calltrace_backtrace() from the shadow stack: in a signal handler (on the
 * thread's stack and on an alternate one), after a longjmp, after an
 * exception caught in a caller, in a thread, in deep recursion and after a
 * recursion deeper than the shadow stack keeps. Each check compares with the functions' own addresses
 * and prints "ok NAME" or "FAIL NAME: ...". Without calltrace (the API's
 * stubs) it checks that every call does nothing.
 */
#include <calltrace.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#define NOINL __attribute__((noinline))
#else
#define NOINL __attribute__((noinline, noclone))
#endif
#define F(f) ((void *)(f))

static void *got[2048];
static int ngot;
static volatile int sink;
static jmp_buf env;

static void check(const char *name, void *const *want, int n)
{
	int ok = ngot == n;
	for (int i = 0; ok && i < n; i++)
		ok = got[i] == want[i];
	if (ok) {
		printf("ok %s\n", name);
		return;
	}
	printf("FAIL %s: %d frames, %d expected\n", name, ngot, n);
	for (int i = 0; i < ngot && i < 12; i++)
		printf("    got %p want %p\n", got[i], i < n ? want[i] : NULL);
}

extern "C" {
NOINL void probe(void)
{
	ngot = calltrace_backtrace(got, 2048);
}

NOINL void handler(int sig)
{
	(void)sig;
	probe();
	sink++; /* not a 2-byte tail jump at -O2: too short to patch */
}

NOINL void level3(void)
{
	raise(SIGUSR1);
	sink++;
}

NOINL void level2(void)
{
	level3();
	sink++;
}

NOINL void level1(void)
{
	level2();
	sink++;
}

NOINL void in_signal(void)
{
	level1();
	sink++;
}

NOINL void on_altstack(void)
{
	level1();
	sink++;
}

NOINL void jumper(int n)
{
	if (n)
		jumper(n - 1);
	longjmp(env, 1);
}

NOINL void after_jump(void)
{
	if (setjmp(env) == 0)
		jumper(4);
	probe();
}

NOINL void thrower(int n)
{
	if (n)
		thrower(n - 1);
	throw n;
}

NOINL void after_throw(void)
{
	try {
		thrower(4);
	} catch (int) {
		probe();
	}
}

NOINL int deep(int n)
{
	int r = 0;
	if (n)
		r = deep(n - 1) + 1;
	else
		probe();
	sink++; /* not a tail call: no loop of it at -O2 */
	return r;
}

NOINL void *in_thread(void *arg)
{
	(void)arg;
	probe();
	return NULL;
}

NOINL void stubs(void)
{
	calltrace_disable();
	calltrace_enable();
	calltrace_disable_all();
	calltrace_enable_all();
	calltrace_mark("nothing %d", 1);
	void *buf[4];
	int ok = calltrace_active() == 0 && calltrace_backtrace(buf, 4) == 0 &&
		 calltrace_snapshot() == -1;
	printf("%s stubs\n", ok ? "ok" : "FAIL");
}
}

int main(void)
{
	if (!calltrace_active()) {
		stubs();
		return 0;
	}
	signal(SIGUSR1, handler);
	in_signal();
	void *sig[] = { F(probe), F(handler), F(level3), F(level2), F(level1), F(in_signal), F(main) };
	check("signal-handler", sig, 7);

	stack_t ss;
	ss.ss_sp = malloc(1 << 16);
	ss.ss_size = 1 << 16;
	ss.ss_flags = 0;
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	on_altstack();
	void *alt[] = { F(probe), F(handler), F(level3), F(level2), F(level1), F(on_altstack), F(main) };
	check("alternate-stack", alt, 7);

	after_jump();
	void *jmp[] = { F(probe), F(after_jump), F(main) };
	check("after-longjmp", jmp, 3);

	after_throw();
	void *thr[] = { F(probe), F(after_throw), F(main) };
	check("after-exception", thr, 3);

	pthread_t th;
	pthread_create(&th, NULL, in_thread, NULL);
	pthread_join(th, NULL);
	void *thd[] = { F(probe), F(in_thread) };
	check("thread", thd, 2);

	/* as many as asked for, innermost first */
	deep(3000);
	static void *dp[2048];
	dp[0] = F(probe);
	for (int i = 1; i < 2048; i++)
		dp[i] = F(deep);
	check("deep-recursion", dp, 2048);
	/* deeper than the frames kept (65536): the outer ones stay right */
	deep(70000);
	ngot = calltrace_backtrace(got, 3);
	void *top[] = { F(main) };
	check("back-in-main", top, 1);
	return 0;
}
