/* A long-running program that checks its own results while calltrace attaches
 * and detaches again and again: two worker threads and the main thread call
 * step() and work(), compare with the closed form, and count mistakes. With
 * "fork", the main thread also makes a child now and then that does the same.
 * Exits 1 if any result was wrong, 0 otherwise; prints "bad=N". SIGUSR1 ends it early.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* noipa: no caller may assume it pure and call it once for the whole loop */
__attribute__((noipa)) long work(long x)
{
	return x * 3 + 1;
}

__attribute__((noipa)) long step(long i)
{
	return work(i) + work(i + 1);
}

static volatile int stop;
static volatile sig_atomic_t quit;

static void on_usr1(int sig)
{
	(void)sig;
	quit = 1;
}
static long thread_bad[2];

__attribute__((noipa)) static long check_round(void)
{
	long bad = 0;
	for (long i = 0; i < 1000; i++)
		bad += step(i) != 6 * i + 5;
	return bad;
}

static void *worker(void *arg)
{
	long *bad = arg;
	while (!stop) {
		*bad += check_round();
		sched_yield();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int ms = argc > 1 ? atoi(argv[1]) : 3000;
	int forks = argc > 2 && !strcmp(argv[2], "fork");
	pthread_t t[2];
	int nthreads = forks ? 0 : 2; /* with forks, the main thread alone (it is what forks) */
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, worker, &thread_bad[i]);
	long bad = 0;
	signal(SIGUSR1, on_usr1);
	for (int k = 0; k < ms / 10 && !quit; k++) {
		bad += check_round();
		if (forks && k % 2 == 0) {
			pid_t pid = fork();
			if (pid == 0)
				_exit(check_round() != 0);
			int st;
			waitpid(pid, &st, 0);
			bad += !WIFEXITED(st) || WEXITSTATUS(st);
		}
		usleep(10000);
	}
	stop = 1;
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	bad += thread_bad[0] + thread_bad[1];
	printf("bad=%ld\n", bad);
	return bad != 0;
}
