/* SPDX-License-Identifier: MIT */
/*
 * Functions whose signature an optimising compiler changes and whose DWARF
 * it does not: at -O2, clang drops the unused and the constant parameter of
 * these static functions, gcc makes clones of them (moved_unused.isra.0,
 * moved_const.constprop.0). Their prototype must then be "|" (nothing
 * known), never the declared one; at -O0 it is the declared one.
 */
#include <stdio.h>
#include <stdlib.h>

struct pair {
	int a, b;
};

static __attribute__((noinline)) int moved_unused(int unused, int x)
{
	return x * 3;
}

static __attribute__((noinline)) int moved_const(int x, int k)
{
	return x * k + 1;
}

static __attribute__((noinline)) int moved_field(const struct pair *p, int x)
{
	return p->b * x;
}

int main(int argc, char **argv)
{
	struct pair p = { argc, atoi(argc > 1 ? argv[1] : "2") };
	int r = moved_unused(argc, argc + 1) + moved_const(argc, 7) + moved_const(argc + 1, 7);
	r += moved_field(&p, argc) + moved_field(&p, argc + 2);
	printf("%d\n", r);
	return 0;
}
