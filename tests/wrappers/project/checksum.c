// SPDX-License-Identifier: MIT
/* The project's C part: a string checksum, called from C++. */
#include "counts.h"

unsigned long calls[F_COUNT];

static unsigned __attribute__((noinline)) mix(unsigned h, unsigned char c)
{
	COUNT(F_MIX);
	return (h ^ c) * 16777619u;
}

unsigned checksum(const char *s)
{
	unsigned h = 2166136261u;

	COUNT(F_CHECKSUM);
	while (*s)
		h = mix(h, (unsigned char)*s++);
	return h;
}
