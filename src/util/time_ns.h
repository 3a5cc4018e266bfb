/* SPDX-License-Identifier: MIT */
/* A clock's time in nanoseconds (apart from util.h: <time.h> names clash with some files' own). */
#ifndef CT_UTIL_TIME_NS_H
#define CT_UTIL_TIME_NS_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID ... in nanoseconds. */
static inline uint64_t ct_time_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
