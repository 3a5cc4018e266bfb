/* SPDX-License-Identifier: MIT */
/* Many calls, for a trace long enough to read with a progress line. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int mid(int x)
{
	return leaf(x) + leaf(x + 1);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	long s = 0;
	for (int i = 0; i < n; i++)
		s += mid(i);
	printf("%ld\n", s);
	return 0;
}
