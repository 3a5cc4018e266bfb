/* CT-EXIT: 139
 * A real crash: a store through a null pointer, 7 frames deep. The process
 * dies of SIGSEGV; calltrace record exits with 128 + 11, and the frames show
 * as unfinished. The program writes its truth file itself just before.
 * Checks: exit status, exact counts, the call tree with unfinished markers.
 */
#define FUNCS(X) X(main, "main") X(walk, "walk") X(fault, "fault") X(ok_call, "ok_call")
#include "truth.h"

static volatile int sink;
int *volatile null_ptr; /* 0, and the compiler cannot know it */

NOINL void fault(void)
{
	HIT(fault);
	ct_truth_write();
	*null_ptr = 1;
}

NOINL void ok_call(void)
{
	HIT(ok_call);
	sink++;
}

NOINL void walk(int n)
{
	HIT(walk);
	if (n <= 1)
		fault();
	else
		walk(n - 1);
	sink++;
}

int main(void)
{
	HIT(main);
	ok_call();
	walk(5);
	return 0;
}
