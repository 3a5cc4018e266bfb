// SPDX-License-Identifier: MIT
/* Three functions whose entries the fentry and patchable tests inspect. */
#include <stdio.h>

__attribute__((noinline)) int add(int a, int b)
{
	return a + b;
}

__attribute__((noinline)) int twice(int x)
{
	return add(x, x);
}

int main(void)
{
	printf("%d\n", twice(21));
	return 0;
}
