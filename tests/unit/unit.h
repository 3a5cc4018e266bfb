/* SPDX-License-Identifier: MIT */
/* A very small test harness: CHECK records failures, each test prints ok/FAIL. */
#ifndef CT_UNIT_H
#define CT_UNIT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* xorshift64: the tests' random numbers, the same on every run (s: its state, not 0). */
static inline uint64_t ct_unit_xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int ct_unit_failed;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "  %s:%d: %s\n", __FILE__, __LINE__, #cond);               \
			ct_unit_failed = 1;                                                        \
		}                                                                                  \
	} while (0)

#define RUN(test)                                                                                  \
	do {                                                                                       \
		ct_unit_failed = 0;                                                                \
		test();                                                                            \
		printf("%s unit/%s\n", ct_unit_failed ? "FAIL" : "ok", #test);                     \
		fflush(stdout);                                                                    \
		failures += ct_unit_failed;                                                        \
	} while (0)

#endif
