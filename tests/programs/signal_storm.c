/* Signals storm the main thread while it makes calls as fast as it can: a
 * profiling timer, and a second thread sending SIGUSR1 1500 times. The
 * handler, itself instrumented, interrupts the program anywhere: in its
 * functions, in calltrace's hooks. How many signals are handled varies from
 * run to run, but the program counts every call, the handler's too, so the
 * counts are still exact; and no call may be left unwound or unfinished.
 * Checks: exact counts, no marks.
 *
 * CT-VARIES: yes
 * CT-THREADS: 2
 */
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#define FUNCS(X)                                                                                   \
	X(main, "main") X(on_prof, "on_prof") X(in_handler, "in_handler") X(work, "work")            \
	X(leaf, "leaf") X(spammer, "spammer")
#include "truth.h"

static volatile long sink;
static volatile long ticks;
static volatile int spam_done;
static pthread_t main_thread;

NOINL void *spammer(void *arg)
{
	HIT(spammer);
	(void)arg;
	for (int k = 0; k < 1500; k++) {
		pthread_kill(main_thread, SIGUSR1);
		for (volatile int spin = 0; spin < 1000; spin++)
			;
	}
	spam_done = 1;
	return NULL;
}

NOINL void in_handler(void)
{
	HIT(in_handler);
	sink++;
}

NOINL void on_prof(int sig)
{
	HIT(on_prof);
	(void)sig;
	ticks++;
	in_handler();
}

NOINL void leaf(long i)
{
	HIT(leaf);
	sink += i;
}

NOINL void work(long i)
{
	HIT(work);
	leaf(i);
	leaf(-i);
}

int main(void)
{
	HIT(main);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	main_thread = pthread_self();
	pthread_t t;
	pthread_create(&t, NULL, spammer, NULL);
	struct itimerval it = {{0, 50}, {0, 50}};
	setitimer(ITIMER_PROF, &it, NULL);
	/* Until the other thread is done, at least 50000 iterations, at most
	 * 5 million. */
	long i = 0;
	while (i < 5000000 && (i < 50000 || !spam_done))
		work(i++);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_PROF, &off, NULL);
	pthread_join(t, NULL);
	printf("signal_storm: %ld iterations, %ld signals\n", i, (long)ticks);
	return 0;
}
