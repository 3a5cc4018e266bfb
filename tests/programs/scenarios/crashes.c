/* SPDX-License-Identifier: MIT */
/*
 * tests/faults.sh, crashes: the program dies of a signal in a known function.
 *
 *   crashes segv      main > mid > bad: a store through a null pointer
 *   crashes abort     main > mid > bail: abort()
 *   crashes fpe       main > mid > divide: integer division by zero
 *   crashes bus       main > mid > touch: a read of an mmap'd file page
 *                     beyond the file's end (truncated), in $CT_TMPDIR
 *   crashes ill       main > mid > trap_here: __builtin_trap() (SIGILL)
 *   crashes lossy     3 threads call fib(15) in a loop (in `record --lossy`
 *                     with a tiny pool, the pool is full and events are being
 *                     dropped from then on), main > mid calls fib(25), then
 *                     mid > bad: a null store
 *   crashes handler   as segv, but the program handles SIGSEGV itself: its
 *                     handler writes "handled" to $CT_MARKER and _exit(3)s
 *   crashes thread    a worker: worker > w_mid > w_bad, a null store, while
 *                     main waits in pthread_join
 * The thread that will crash writes "TID PID" to $CT_TIDFILE first.
 * Exit status 1 if the program survives (it must not).
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#define FUNCS(X) X(main, "main") X(mid, "mid") X(bad, "bad") X(bail, "bail") \
	X(divide, "divide") X(touch, "touch") X(on_segv, "on_segv") X(worker, "worker") \
	X(w_mid, "w_mid") X(w_bad, "w_bad") X(ok_call, "ok_call") X(trap_here, "trap_here") \
	X(fib, "fib") X(spinner, "spinner")
#include "truth.h"

int *volatile null_ptr;
volatile int zero;
static volatile int sink;

NOINL void ok_call(void)
{
	HIT(ok_call);
	sink++;
}

NOINL void bad(void)
{
	HIT(bad);
	*null_ptr = 1;
}

NOINL void trap_here(void)
{
	HIT(trap_here);
	__builtin_trap();
}

NOINL int fib(int n)
{
	HIT(fib);
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

NOINL void bail(void)
{
	HIT(bail);
	abort();
}

NOINL int divide(int a, int b)
{
	HIT(divide);
	return a / b;
}

NOINL int touch(void)
{
	HIT(touch);
	const char *dir = getenv("CT_TMPDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/bus.XXXXXX", dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, 8192) < 0)
		return 2;
	volatile char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	unlink(path);
	if (p == MAP_FAILED || ftruncate(fd, 0) < 0)
		return 2;
	return p[4096];
}

NOINL void on_segv(int sig)
{
	HIT(on_segv);
	(void)sig;
	const char *m = getenv("CT_MARKER");
	if (m) {
		int fd = open(m, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			if (write(fd, "handled\n", 8) != 8)
				_exit(4);
			close(fd);
		}
	}
	_exit(3);
}

NOINL void *spinner(void *arg)
{
	HIT(spinner);
	(void)arg;
	for (;;)
		sink = fib(15);
	return NULL;
}

NOINL int mid(const char *what)
{
	HIT(mid);
	ok_call();
	if (!strcmp(what, "segv") || !strcmp(what, "handler"))
		bad();
	else if (!strcmp(what, "abort"))
		bail();
	else if (!strcmp(what, "fpe"))
		sink = divide(7, zero);
	else if (!strcmp(what, "bus"))
		return touch();
	else if (!strcmp(what, "ill"))
		trap_here();
	else if (!strcmp(what, "lossy")) {
		pthread_t th;
		for (int i = 0; i < 3; i++)
			pthread_create(&th, NULL, spinner, NULL);
		sink = fib(25);
		bad();
	}
	return 0;
}

NOINL void w_bad(void)
{
	HIT(w_bad);
	*null_ptr = 2;
}

NOINL void w_mid(void)
{
	HIT(w_mid);
	ok_call();
	w_bad();
}

NOTRACE static void write_tid(void)
{
	const char *f = getenv("CT_TIDFILE");
	FILE *out = f ? fopen(f, "w") : NULL;
	if (out) {
		fprintf(out, "%ld %d\n", (long)syscall(SYS_gettid), (int)getpid());
		fclose(out);
	}
}

NOINL void *worker(void *arg)
{
	HIT(worker);
	(void)arg;
	write_tid();
	w_mid();
	return NULL;
}

int main(int argc, char **argv)
{
	HIT(main);
	const char *what = argc > 1 ? argv[1] : "segv";
	if (!strcmp(what, "handler")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_segv;
		sigaction(SIGSEGV, &sa, NULL);
	}
	if (!strcmp(what, "thread")) {
		pthread_t th;
		pthread_create(&th, NULL, worker, NULL);
		pthread_join(th, NULL);
		return 1;
	}
	write_tid();
	mid(what);
	return 1;
}
