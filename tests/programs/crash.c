/* CT-EXIT: 139
 * A real crash: a store through a null pointer, 7 frames deep. The process
 * dies of SIGSEGV; calltrace record exits with 128 + 11, and the frames show
 * as unfinished. The program writes its truth file itself just before.
 * Checks: exit status, exact counts, the call tree with unfinished markers;
 * the crash line of the replay names the source line, calltrace record prints
 * the stack on stderr.
 *
 * CT-GREP: replay.txt \*\*\* SIGSEGV at fault\+0x[0-9a-f]+ \(crash\.c:[0-9]+\), address 0x0 \*\*\*$
 * CT-GREP: record.err ^calltrace: thread [0-9]+ of process [0-9]+ \(crash\) died of SIGSEGV at fault\+0x
 * CT-GREP: record.err ^calltrace: +#0 +fault\(\) +crash\.c:[0-9]+$
 * CT-GREP: record.err ^calltrace: +#6 +main\(\)
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
