/* sigsetjmp/siglongjmp: a plain jump from 10 levels down; a signal raised
 * deep in the stack whose handler returns normally (the handler nests under
 * the function that raised it); a signal whose handler siglongjmps out of
 * the handler and the 6 frames below the sigsetjmp, restoring the signal
 * mask. Further calls after each jump.
 * Checks: exact counts and the call tree, with unwound markers.
 */
#include <setjmp.h>
#include <signal.h>
#define FUNCS(X)                                                                                   \
	X(main, "main") X(mid, "mid") X(dive, "dive") X(jumper, "jumper") X(after, "after")          \
	X(on_signal, "on_signal") X(handler_work, "handler_work") X(sig_mid, "sig_mid")              \
	X(raiser, "raiser") X(quiet_signal, "quiet_signal") X(quiet_mid, "quiet_mid")
#include "truth.h"

static sigjmp_buf sig_env;
static volatile int sink;

NOINL void after(int k)
{
	HIT(after);
	if (k > 0)
		after(k - 1);
	sink++;
}

NOINL void jumper(sigjmp_buf *to)
{
	HIT(jumper);
	if (to)
		siglongjmp(*to, 1);
}

NOINL void raiser(int n, int sig)
{
	HIT(raiser);
	if (n <= 1)
		raise(sig);
	else
		raiser(n - 1, sig);
	sink++;
}

NOINL void dive(int n, sigjmp_buf *to)
{
	HIT(dive);
	if (n <= 1)
		jumper(to);
	else
		dive(n - 1, to);
	sink++;
}

NOINL void handler_work(void)
{
	HIT(handler_work);
	sink++;
}

/* SIGUSR1: leaves by siglongjmp. */
NOINL void on_signal(int sig)
{
	HIT(on_signal);
	(void)sig;
	handler_work();
	siglongjmp(sig_env, 2);
}

/* SIGUSR2: returns normally. */
NOINL void quiet_signal(int sig)
{
	HIT(quiet_signal);
	(void)sig;
	handler_work();
}

NOINL int mid(void)
{
	HIT(mid);
	sigjmp_buf env;
	if (sigsetjmp(env, 1) == 0) {
		dive(9, &env);
		return 0;
	}
	after(1);
	return 1;
}

NOINL int sig_mid(void)
{
	HIT(sig_mid);
	if (sigsetjmp(sig_env, 1) == 0) {
		raiser(5, SIGUSR1);
		return 0;
	}
	after(1);
	sigset_t cur;
	sigprocmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, SIGUSR1) ? 0 : 1; /* the mask was restored */
}

NOINL int quiet_mid(void)
{
	HIT(quiet_mid);
	raiser(3, SIGUSR2);
	after(0);
	return 1;
}

int main(void)
{
	HIT(main);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = quiet_signal;
	sigaction(SIGUSR2, &sa, NULL);

	int r = mid();
	after(0);
	r += quiet_mid();
	r += sig_mid();
	after(0);
	r += sig_mid();
	after(2);
	printf("siglongjmp: %d\n", r);
	return r == 4 ? 0 : 1;
}
