/* SPDX-License-Identifier: MIT */
/* Built -finstrument-functions, linked into late.c's program (tests/threads/run.sh). */
__attribute__((noinline)) void deep(int n)
{
	if (n > 0)
		deep(n - 1);
	__asm__ volatile("");
}
