/* SPDX-License-Identifier: MIT */
/* The program's own shared library (libtool builds it into .libs/). */
static volatile int sink;

__attribute__((noinline)) int demo_leaf(int x)
{
	sink += x; /* long enough to patch: more than one short instruction */
	sink ^= x << 1;
	return sink & 1;
}

__attribute__((noinline)) int demo_work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += demo_leaf(i);
	return s + n * 2;
}
