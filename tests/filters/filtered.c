/* A program with a known tree for the filter tests (tests/filters/run.sh). */
#include <pthread.h>
#include <unistd.h>

#define NOINL __attribute__((noinline))
static volatile int sink;

NOINL void helper_leaf(void) { sink++; }
NOINL void helper(void) { helper_leaf(); helper_leaf(); }
NOINL void parse_a(void) { helper(); }
NOINL void parse_b(void) { sink++; }
NOINL void slow(void) { usleep(20000); }
NOINL void phase1(void) { parse_a(); parse_b(); slow(); }
NOINL void phase2(void) { parse_b(); helper(); }
NOINL void *worker(void *arg) { parse_b(); return arg; }

int main(void)
{
	phase1();
	usleep(300000);
	phase2();
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_join(t, 0);
	return 0;
}
