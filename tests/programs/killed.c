/* CT-EXIT: 137
 * The program kills itself with SIGKILL 8 frames deep: nothing of it runs
 * after that (no exit hook, no destructor, no flush in the process), so
 * calltrace record must exit with 128 + 9 and still have every event that
 * was written: the 8 frames show as unfinished. The program writes its
 * truth file itself just before.
 * Checks: exit status, exact counts, the call tree with unfinished markers.
 */
#include <signal.h>
#define FUNCS(X) X(main, "main") X(level, "level") X(die, "die") X(before, "before")
#include "truth.h"

static volatile int sink;

NOINL void die(int really)
{
	HIT(die);
	ct_truth_write();
	if (really)
		kill(getpid(), SIGKILL);
}

NOINL void before(int k)
{
	HIT(before);
	sink += k;
}

NOINL void level(int n)
{
	HIT(level);
	before(n);
	if (n <= 1)
		die(1);
	else
		level(n - 1);
	sink++;
}

int main(void)
{
	HIT(main);
	level(6);
	return 0;
}
