/* Threads with names: main names a worker by its pthread_t before the worker
 * made any call (pthread_setname_np), another worker names itself
 * (prctl PR_SET_NAME), and main names itself. Each thread's section in the
 * replay and its line in info carry its name.
 * Checks: exact counts, thread sections, the names (CT-GREP).
 *
 * CT-THREADS: 3
 * CT-LDLIBS: -pthread
 * CT-GREP: replay.txt ^# thread [0-9]+, process [0-9]+ \(.*\), "ct-main"
 * CT-GREP: replay.txt ^# thread [0-9]+, process [0-9]+ \(.*\), "ct-named-1"$
 * CT-GREP: replay.txt ^# thread [0-9]+, process [0-9]+ \(.*\), "ct-self-2"$
 * CT-GREP: info.txt , "ct-named-1"
 */
#include <pthread.h>
#include <semaphore.h>
#include <sys/prctl.h>
#define FUNCS(X) X(main, "main") X(named, "named") X(self_named, "self_named") X(work, "work")
#include "truth.h"

static sem_t go;
static volatile int sink;

NOINL void work(void)
{
	HIT(work);
	sink++;
}

NOINL void *named(void *arg)
{
	HIT(named);
	sem_wait(&go); /* named by main before its first call returns */
	work();
	return arg;
}

NOINL void *self_named(void *arg)
{
	HIT(self_named);
	prctl(PR_SET_NAME, "ct-self-2", 0, 0, 0);
	work();
	return arg;
}

int main(void)
{
	HIT(main);
	pthread_t a, b;
	sem_init(&go, 0, 0);
	pthread_setname_np(pthread_self(), "ct-main");
	pthread_create(&a, NULL, named, NULL);
	pthread_setname_np(a, "ct-named-1");
	sem_post(&go);
	pthread_join(a, NULL);
	pthread_create(&b, NULL, self_named, NULL);
	pthread_join(b, NULL);
	work();
	return 0;
}
