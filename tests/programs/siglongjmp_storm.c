/* A timer signal every 50 us whose handler siglongjmps out, while the program
 * makes calls as fast as it can: the handler often interrupts calltrace's
 * hooks and never returns to them. Every handler run must be recorded, no
 * return may be left unmatched, and the loop's functions must be counted at
 * least as often as they counted themselves (a call whose entry was recorded
 * just before the jump never got to run its body, so it may count once more in
 * the report than in the program; CT-AT-LEAST).
 * Checks: counts, no mark but "unwound" (the jumps leave frames).
 *
 * CT-VARIES: yes
 * CT-MARKS: unwound
 * CT-AT-LEAST: ^(mid|leaf|loop)$
 */
#include <setjmp.h>
#include <signal.h>
#include <sys/time.h>
#define FUNCS(X) X(main, "main") X(mid, "mid") X(leaf, "leaf") X(on_alarm, "on_alarm") X(loop, "loop")
#include "truth.h"

static sigjmp_buf env;
static volatile long sink;

NOINL void leaf(void)
{
	HIT(leaf);
	sink++;
}

NOINL void mid(void)
{
	HIT(mid);
	leaf();
	leaf();
}

NOINL void on_alarm(int sig)
{
	HIT(on_alarm);
	(void)sig;
	siglongjmp(env, 1);
}

NOINL void loop(void)
{
	HIT(loop);
	for (;;)
		mid();
}

int main(void)
{
	HIT(main);
	/*
	 * A signal must not come before env is set, nor while sigsetjmp writes
	 * it (a jump to an empty or half written env crashed or hung the
	 * program alone, about 1 run in 30 under load): SIGALRM is blocked from
	 * before the timer starts, let in only inside loop(), and the jump out
	 * of the handler leaves it blocked (the mask is not saved) for the next
	 * round.
	 */
	sigset_t alrm;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alrm, NULL);
	struct sigaction sa = { .sa_handler = on_alarm };
	sigaction(SIGALRM, &sa, 0);
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	setitimer(ITIMER_REAL, &it, 0);
	for (int round = 0; round < 1000; round++)
		if (sigsetjmp(env, 0) == 0) {
			sigprocmask(SIG_UNBLOCK, &alrm, NULL);
			loop();
		}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, 0);
	return 0;
}
