/* SPDX-License-Identifier: MIT */
/* A library without symbol versions: its functions are named by the library that defines them. */
int lc_twice(int x)
{
	return 2 * x;
}
