/* longjmp out of a deep stack: setjmp in a mid-level function, longjmp from
 * 10 levels below it, then further calls from the function that called
 * setjmp, and from its callers. Also: a jump into an intermediate setjmp
 * context and then past it to an outer one; a jump over one frame only;
 * twenty rounds of the same to make many jumps.
 * The frames a jump abandons show as unwound; every call after a jump must
 * sit at the depth it really has.
 * Checks: exact counts and the call tree, with unwound markers.
 */
#include <setjmp.h>
#define FUNCS(X)                                                                                   \
	X(main, "main") X(outer, "outer") X(mid, "mid") X(before, "before") X(dive, "dive")          \
	X(jumper, "jumper") X(after, "after") X(mid2, "mid2") X(inner_mid, "inner_mid")              \
	X(shallow, "shallow") X(rounds, "rounds")
#include "truth.h"

static volatile int sink;

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
	sink++; /* not reached */
}

NOINL void before(void)
{
	HIT(before);
	sink++;
}

NOINL void after(int k)
{
	HIT(after);
	if (k > 0)
		after(k - 1);
	sink++;
}

/* setjmp here; the longjmp comes from 10 frames below (9 dive + jumper). */
NOINL int mid(int levels)
{
	HIT(mid);
	jmp_buf env;
	volatile int jumped = 0;
	if (setjmp(env) == 0) {
		before();
		dive(levels, &env);
	} else {
		jumped = 1;
		after(2); /* a call with children, right after the jump */
	}
	after(0);
	return jumped;
}

/* Jumps to the nearer context, then past it to the outer one. */
NOINL int inner_mid(jmp_buf *outer_env)
{
	HIT(inner_mid);
	jmp_buf env;
	if (setjmp(env) == 0)
		dive(3, &env);
	after(0);
	dive(4, outer_env); /* leaves inner_mid too */
	return 0;
}

NOINL int mid2(void)
{
	HIT(mid2);
	jmp_buf env;
	if (setjmp(env) == 0) {
		inner_mid(&env);
		return 0;
	}
	after(1);
	return 1;
}

/* A jump over a single frame. */
NOINL int shallow(void)
{
	HIT(shallow);
	jmp_buf env;
	if (setjmp(env) == 0)
		jumper(&env);
	before();
	return 1;
}

NOINL int outer(void)
{
	HIT(outer);
	int r = mid(9);
	after(0); /* a call from mid's caller after mid returned */
	r += mid2();
	r += shallow();
	return r;
}

NOINL int rounds(int n)
{
	HIT(rounds);
	int r = 0;
	for (int i = 0; i < n; i++)
		r += mid(1 + i % 10);
	return r;
}

int main(void)
{
	HIT(main);
	int r = outer();
	before();
	r += rounds(20);
	after(1);
	printf("longjmp: %d\n", r);
	return r == 23 ? 0 : 1;
}
