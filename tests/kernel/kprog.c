// SPDX-License-Identifier: MIT
/*
 * What tests/kernel records with --kernel: one mode per check, each in a
 * function of its own so the tree shows where the kernel's side falls.
 *
 *   sleep     sleeper(): 4 x 50 ms nanosleep
 *   spin      spinner(): 100 ms on the CPU, no system call
 *   mutex     waiter() blocks in pthread_mutex_lock while holder() keeps it 100 ms
 *   pipe      pipe_reader() reads 3 x 4096 bytes a child writes 20 ms apart
 *   fork      forked_child() in a child, then an exec of this program ("exec")
 *   threads   4 threads each in thread_work(): 10 getppid() and a 10 ms sleep
 *   getppid N getppid_loop(): N getppid() (the cost of --kernel per system call)
 *   loop N    N x looper(): a getppid() and a 20 ms nanosleep (attach --kernel)
 *   clock N   clock_loop(): N x { tick_a(); getppid(); tick_b(); }: each system call
 *             must fall between the two calls around it (the clocks agree to a
 *             fraction of a microsecond)
 *   fifo      fifo_opener() opens the FIFO "kfifo" for reading, blocked 100 ms
 *             until a child opens it for writing: its path read in time
 *   reuse N   reuse_loop(): N opens of "nope-%04d" (none exists), each name
 *             written over the last in one buffer: a path read after its call
 *             returned would be a later one's
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

NOINLINE void sleeper(void)
{
	for (int i = 0; i < 4; i++)
		nap_ms(50);
}

static inline __attribute__((always_inline)) double now_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts); /* CLOCK_MONOTONIC: the vDSO, no system call */
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Prints "spin WALL_MS CPU_MS": what the kernel says it ran, to check the off-CPU time. */
NOINLINE void spinner(void)
{
	volatile unsigned long n = 0;
	double cpu0 = now_s(CLOCK_THREAD_CPUTIME_ID), start = now_s(CLOCK_MONOTONIC);
	double now = start;
	while ((now = now_s(CLOCK_MONOTONIC)) < start + 0.1)
		n++;
	double cpu = now_s(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	printf("spin %.3f %.3f\n", (now - start) * 1e3, cpu * 1e3);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t held;

NOINLINE void waiter(void)
{
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
}

static void *holder(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	pthread_barrier_wait(&held);
	nap_ms(100);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void mutex_mode(void)
{
	pthread_t t;
	pthread_barrier_init(&held, NULL, 2);
	pthread_create(&t, NULL, holder, NULL);
	pthread_barrier_wait(&held);
	waiter();
	pthread_join(t, NULL);
}

NOINLINE long pipe_reader(int fd)
{
	char buf[4096];
	long total = 0;
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	return total;
}

static void pipe_mode(void)
{
	int p[2];
	if (pipe(p) < 0)
		exit(1);
	pid_t pid = fork();
	if (pid == 0) {
		char buf[4096];
		memset(buf, 'x', sizeof(buf));
		close(p[0]);
		for (int i = 0; i < 3; i++) {
			nap_ms(20);
			if (write(p[1], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	printf("read %ld\n", pipe_reader(p[0]));
	waitpid(pid, NULL, 0);
}

NOINLINE void forked_child(void)
{
	for (int i = 0; i < 5; i++)
		getppid();
	nap_ms(10);
}

NOINLINE void exec_child(void)
{
	for (int i = 0; i < 3; i++)
		getppid();
}

static void fork_mode(const char *self)
{
	pid_t pid = fork();
	if (pid == 0) {
		forked_child();
		execl(self, self, "exec", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
}

NOINLINE void thread_work(void)
{
	for (int i = 0; i < 10; i++)
		getppid();
	nap_ms(10);
}

static void *thread_main(void *arg)
{
	(void)arg;
	thread_work();
	return NULL;
}

static void threads_mode(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_main, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
}

NOINLINE void getppid_loop(long n)
{
	for (long i = 0; i < n; i++)
		getppid();
}

NOINLINE void looper(void)
{
	getppid();
	nap_ms(20);
}

static volatile int ticks; /* the ticks have bodies long enough to be patched */

NOINLINE void tick_a(void)
{
	ticks++;
}

NOINLINE void tick_b(void)
{
	ticks--;
}

NOINLINE void clock_loop(long n)
{
	for (long i = 0; i < n; i++) {
		tick_a();
		getppid();
		tick_b();
	}
}

static NOINLINE void fifo_opener(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd >= 0)
		close(fd);
}

static void fifo_mode(void)
{
	unlink("kfifo");
	if (mkfifo("kfifo", 0600) < 0)
		exit(3);
	pid_t c = fork();
	if (c == 0) {
		nap_ms(100);
		int fd = open("kfifo", O_WRONLY);
		if (fd >= 0)
			close(fd);
		_exit(0);
	}
	fifo_opener("kfifo");
	waitpid(c, NULL, 0);
	unlink("kfifo");
}

static NOINLINE void reuse_loop(long n)
{
	static char name[32];
	for (long i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "nope-%04ld", i);
		int fd = open(name, O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "sleep";
	if (!strcmp(mode, "sleep"))
		sleeper();
	else if (!strcmp(mode, "spin"))
		spinner();
	else if (!strcmp(mode, "mutex"))
		mutex_mode();
	else if (!strcmp(mode, "pipe"))
		pipe_mode();
	else if (!strcmp(mode, "fork"))
		fork_mode(argv[0]);
	else if (!strcmp(mode, "exec"))
		exec_child();
	else if (!strcmp(mode, "threads"))
		threads_mode();
	else if (!strcmp(mode, "clock"))
		clock_loop(argc > 2 ? atol(argv[2]) : 1000);
	else if (!strcmp(mode, "loop"))
		for (long i = argc > 2 ? atol(argv[2]) : 100; i > 0; i--)
			looper();
	else if (!strcmp(mode, "getppid"))
		getppid_loop(argc > 2 ? atol(argv[2]) : 1000000);
	else if (!strcmp(mode, "fifo"))
		fifo_mode();
	else if (!strcmp(mode, "reuse")) {
		reuse_loop(argc > 2 ? atol(argv[2]) : 2000);
		nap_ms(200); /* alive, its buffer holding the last name, when the recorder reads */
	}
	else
		return 2;
	return 0;
}
