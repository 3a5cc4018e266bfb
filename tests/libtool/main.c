/* SPDX-License-Identifier: MIT */
/* A program of a libtool project: its code is mostly in libdemo.so; it uses libm. */
#include <math.h>
#include <stdio.h>

int demo_work(int n);
static volatile double three = 27.0;

__attribute__((noinline)) static int run(int n)
{
	return demo_work(n) + (int)cbrt(three) - 1;
}

int main(void)
{
	printf("%d\n", run(4));
	return 0;
}
