/* A signal handler that runs on an alternate signal stack (sigaltstack,
 * SA_ONSTACK), raised 4 frames deep: its stack pointer is far from the
 * program's stack, yet it nests under the function that raised the signal,
 * and it abandons nothing. Calls after it, in the interrupted frames, keep
 * their depth.
 * Checks: exact counts and the call tree.
 */
#include <signal.h>
#define FUNCS(X)                                                                                   \
	X(main, "main") X(level, "level") X(on_alt, "on_alt") X(alt_work, "alt_work")                \
		X(after, "after")
#include "truth.h"

static volatile int sink;

NOINL void alt_work(int k)
{
	HIT(alt_work);
	if (k > 0)
		alt_work(k - 1);
	sink++;
}

NOINL void on_alt(int sig)
{
	HIT(on_alt);
	(void)sig;
	alt_work(2);
}

NOINL void after(void)
{
	HIT(after);
	sink++;
}

NOINL void level(int n)
{
	HIT(level);
	if (n <= 1)
		raise(SIGUSR1);
	else
		level(n - 1);
	after();
}

int main(void)
{
	HIT(main);
	static char altstack[1 << 16];
	stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
	if (sigaltstack(&ss, NULL) != 0)
		return 1;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alt;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	level(4);
	after();
	level(1);
	printf("sigaltstack done\n");
	return 0;
}
