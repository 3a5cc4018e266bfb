/* Signal handlers that call traced functions: one installed with sigaction
 * and SA_SIGINFO, raised three calls deep; one installed with signal(),
 * raised from main, whose handler raises the first signal again (a handler
 * inside a handler). Each handler's calls nest under a "[signal SIGx]" frame
 * where the signal arrived; the interrupted calls go on after it. The program
 * checks that sigaction and signal tell it back its own handlers, as without
 * calltrace, and that SIGSEGV still reads as the default action.
 * Checks: exit status, exact counts, the call tree.
 */
#include <signal.h>
#define FUNCS(X)                                                                                   \
	X(main, "main") X(level, "level") X(on_usr1, "on_usr1") X(on_usr2, "on_usr2")                \
		X(in_handler, "in_handler") X(after, "after")
#include "truth.h"

static volatile int sink;

NOINL void in_handler(int x)
{
	HIT(in_handler);
	sink += x;
}

NOINL void on_usr1(int sig, siginfo_t *si, void *uc)
{
	HIT(on_usr1);
	(void)uc;
	in_handler(sig + (si->si_code == SI_TKILL || si->si_code == SI_USER));
}

NOINL void on_usr2(int sig)
{
	HIT(on_usr2);
	in_handler(sig);
	raise(SIGUSR1);
}

NOINL void after(void)
{
	HIT(after);
	sink++;
}

NOINL void level(int n)
{
	HIT(level);
	if (n > 1)
		level(n - 1);
	else
		raise(SIGUSR1);
	after();
}

int main(void)
{
	HIT(main);
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) || sigaction(SIGUSR1, NULL, &old) ||
	    old.sa_sigaction != on_usr1 || !(old.sa_flags & SA_SIGINFO))
		return 10;
	if (signal(SIGUSR2, on_usr2) != SIG_DFL || signal(SIGUSR2, on_usr2) != on_usr2)
		return 11;
	if (sigaction(SIGSEGV, NULL, &old) || old.sa_handler != SIG_DFL)
		return 12;
	level(3);
	raise(SIGUSR2);
	after();
	return 0;
}
