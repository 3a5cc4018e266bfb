/* The exec sample of tracef's documentation (seed 004): ./exec_chain 0 5
 * execs itself five times, adding 5+4+3+2+1, and exits with the answer. Each
 * image is a tree of its own that ends with the exec.
 * Counts: each image writes its counters before it execs.
 *
 * CT-ARGS: 0 5
 * CT-EXIT: 15
 * CT-THREADS: 6
 */
#include <signal.h>
#include <unistd.h>
#define FUNCS(X) X(main, "main") X(step, "step")
#include "truth.h"

NOINL int step(int accum, int n)
{
	HIT(step);
	return accum + n;
}

int main(int argc, char **argv)
{
	HIT(main);
	if (argc != 3)
		return 0;
	int accum = (int)strtol(argv[1], NULL, 10);
	int n = (int)strtol(argv[2], NULL, 10);
	if (n == 0) {
		printf("answer: %d\n", accum);
		return accum;
	}
	char p[32] = { 0 }, q[32] = { 0 };
	snprintf(p, 31, "%d", step(accum, n));
	snprintf(q, 31, "%d", n - 1);
	ct_truth_write();
	/* built with -pg, the image has a profiling timer, and it outlives the exec: a
	 * SIGPROF before the next image's gmon start-up sets its handler would kill it */
	signal(SIGPROF, SIG_IGN);
	execlp("/proc/self/exe", "exe", p, q, NULL);
	return -1;
}
