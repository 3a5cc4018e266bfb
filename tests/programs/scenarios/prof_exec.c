/* For faults.sh's profiling-timer scenario, built with -pg (gprof): a chain of
 * N execs of itself. gprof's ITIMER_PROF outlives exec, and SIGPROF kills the
 * new image if the timer fires before gprof's start-up installs its handler,
 * so a tracer whose start-up burns CPU in that window kills the program.
 *
 *   prof_exec N       exec N times; each image checks that the timer it was
 *                     left is still armed and that no variable of ours
 *                     leaked into its environment. Exits 0, or 1 with a
 *                     line on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

extern char **environ;

static volatile unsigned long sink;

/* Some CPU time, so that the timer fires now and then along the chain. */
__attribute__((noinline)) void burn(void)
{
	for (unsigned long i = 0; i < 200000; i++)
		sink += i;
}

static long long left_us(void)
{
	struct itimerval t;
	getitimer(ITIMER_PROF, &t);
	return (long long)t.it_value.tv_sec * 1000000 + t.it_value.tv_usec;
}

static int check_image(void)
{
	if (left_us() == 0) {
		fprintf(stderr, "prof_exec: the profiling timer was disarmed across exec\n");
		return 1;
	}
	for (char **e = environ; *e; e++)
		if (!strncmp(*e, "CALLTRACE_ITIMER", 16)) {
			fprintf(stderr, "prof_exec: %s leaked into the environment\n", *e);
			return 1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	char n[16];
	int todo = argc > 1 ? atoi(argv[1]) : 0;

	if (argc > 2 && check_image())
		return 1;
	burn();
	if (todo == 0)
		return 0;
	snprintf(n, sizeof(n), "%d", todo - 1);
	execl("/proc/self/exe", argv[0], n, "again", (char *)NULL);
	perror("prof_exec: exec");
	return 1;
}
