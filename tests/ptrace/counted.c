/* Counts its own calls (no optimisation can merge them: -O0), for a static
 * binary and a PIE traced with --method=ptrace: prints "leaf N", "mid N". */
#include <stdio.h>

static long leaf_calls, mid_calls;

long leaf(long x)
{
	leaf_calls++;
	return x + 1;
}

long mid(long x)
{
	mid_calls++;
	return leaf(x) + leaf(x + 1);
}

int main(void)
{
	long s = 0;
	for (long i = 0; i < 500; i++)
		s += mid(i);
	printf("sum %ld\nleaf %ld\nmid %ld\n", s, leaf_calls, mid_calls);
	return 0;
}
