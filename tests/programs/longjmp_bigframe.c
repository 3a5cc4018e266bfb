/* After a longjmp, a call to a function whose stack frame is larger than
 * all the frames the jump abandoned: its stack pointer is below theirs, yet
 * it is a sibling of the abandoned call, not a child of the frame that
 * jumped. (A separate program from longjmp.c so that this harder case
 * fails alone.)
 * Checks: exact counts and the call tree, with unwound markers.
 */
#include <setjmp.h>
#define FUNCS(X)                                                                                   \
	X(main, "main") X(mid, "mid") X(jumper, "jumper") X(dive, "dive") X(big, "big")              \
		X(small, "small")
#include "truth.h"

static volatile int sink;

NOINL void small(void)
{
	HIT(small);
	sink++;
}

/* 16 KiB of locals. */
NOINL void big(int k)
{
	HIT(big);
	volatile char buf[16384];
	buf[k] = 1;
	sink += buf[k];
	small();
}

NOINL void jumper(jmp_buf *to)
{
	HIT(jumper);
	if (to)
		longjmp(*to, 1);
}

NOINL void dive(int n, jmp_buf *to)
{
	HIT(dive);
	if (n <= 1)
		jumper(to);
	else
		dive(n - 1, to);
	sink++;
}

NOINL int mid(int levels)
{
	HIT(mid);
	jmp_buf env;
	if (setjmp(env) == 0) {
		if (levels == 0)
			jumper(&env);
		else
			dive(levels, &env);
		return 0;
	}
	big(levels + 1); /* sibling of the abandoned jumper/dive */
	small();
	return 1;
}

int main(void)
{
	HIT(main);
	int r = mid(0);
	r += mid(10);
	big(3);
	printf("longjmp_bigframe: %d\n", r);
	return r == 2 ? 0 : 1;
}
