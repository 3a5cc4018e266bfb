/* SPDX-License-Identifier: MIT */
/* A second compile unit for the DWARF package test: its unit comes first in the .dwp. */
#ifdef __clang__
#define KEEP __attribute__((noinline, used))
#else
#define KEEP __attribute__((noinline, noclone, used))
#endif

struct span {
	const char *at;
	unsigned long len;
};

KEEP unsigned long second_len(struct span s, double scale)
{
	return (unsigned long)((double)s.len * scale) + (s.at != 0);
}
