/* SPDX-License-Identifier: MIT */
/*
 * gcc -O2 (-fipa-ra) lets a caller keep values in call-clobbered registers
 * across a call to a local function it knows leaves them alone: here
 * floating-point and integer sums live in xmm and argument registers across
 * calls to step(), which touches neither. A patched step() runs our stubs at
 * its entry and return, which must keep those registers as they were.
 */
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) unsigned step(unsigned x)
{
	return x * 2654435761u >> 7;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	double a = 1.0, b = 0.5, c = 0.25;
	unsigned long s = 0, t = 3, u = 5;
	for (long i = 0; i < n; i++) {
		a = a * 1.0000001 + b;
		b = b * 0.9999999 + c;
		c = c + 1e-9 * a;
		s += step((unsigned)i) ^ t;
		t = t * 33 + u;
		u = u ^ (t >> 3);
	}
	printf("%.9g %.9g %.9g %lu %lu %lu\n", a, b, c, s, t, u);
	return 0;
}
