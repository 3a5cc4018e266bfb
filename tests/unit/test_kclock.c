/* SPDX-License-Identifier: MIT */
/*
 * record --kernel's perf time -> TSC conversion (src/kernel/pairing.c), with
 * the time_zero / time_mult / time_shift a perf ring's first page publishes
 * when cap_user_time_zero is set (machines whose perf clock counts from the
 * TSC; not this project's virtual machine, so tested here by arithmetic).
 */
#include <stdint.h>

#include "unit.h"
#include "../../src/kernel/kernel_int.h"

/* The kernel's direction (perf_event_mmap_page's comment): TSC -> perf time. */
static uint64_t tsc_to_time(uint64_t cyc, uint64_t zero, uint32_t mult, uint16_t shift)
{
	uint64_t quot = cyc >> shift, rem = cyc & (((uint64_t)1 << shift) - 1);
	return zero + quot * mult + ((rem * mult) >> shift);
}

/*
 * Round trip of tsc: the inverse lands within one nanosecond's worth of ticks
 * (several TSC values map to one nanosecond), never after the TSC it came from
 * by more than a tick of rounding.
 */
static int round_trip(uint64_t tsc, uint64_t zero, uint32_t mult, uint16_t shift)
{
	uint64_t t = tsc_to_time(tsc, zero, mult, shift);
	uint64_t back = ct_kperf_time_to_tsc(t, zero, mult, shift);
	uint64_t ticks_per_ns = ((uint64_t)1 << shift) / mult + 1;
	uint64_t diff = back > tsc ? back - tsc : tsc - back;
	if (diff > ticks_per_ns + 1) {
		fprintf(stderr, "  tsc %llu -> %llu ns -> %llu (zero %llu mult %u shift %u)\n",
			(unsigned long long)tsc, (unsigned long long)t, (unsigned long long)back,
			(unsigned long long)zero, mult, shift);
		return 0;
	}
	/* and the TSC found gives back the same time, to the nanosecond */
	return tsc_to_time(back, zero, mult, shift) + 1 >= t &&
	       tsc_to_time(back, zero, mult, shift) <= t + 1;
}

static void test_kclock_known_values(void)
{
	/* 2.5 GHz: 0.4 ns per tick = 858993459 / 2^31 */
	uint32_t mult = 858993459;
	CHECK(ct_kperf_time_to_tsc(1000000000, 0, mult, 31) == 2500000000u ||
	      ct_kperf_time_to_tsc(1000000000, 0, mult, 31) == 2500000001u);
	/* time_zero is where TSC 0 falls on the perf clock */
	CHECK(ct_kperf_time_to_tsc(5000000000u, 4000000000u, mult, 31) / 10 == 250000000);
	CHECK(ct_kperf_time_to_tsc(4000000000u, 4000000000u, mult, 31) == 0);
	/* 1 GHz exactly, shift 0 */
	CHECK(ct_kperf_time_to_tsc(123456789, 0, 1, 0) == 123456789);
	/* 3 GHz: a third of a ns per tick */
	CHECK(ct_kperf_time_to_tsc(3000, 0, 715827883, 31) >= 8999 &&
	      ct_kperf_time_to_tsc(3000, 0, 715827883, 31) <= 9000);
}

static void test_kclock_round_trips(void)
{
	static const struct {
		uint32_t mult;
		uint16_t shift;
	} clocks[] = {
		{ 858993459, 31 },   /* 2.5 GHz */
		{ 715827883, 31 },   /* 3 GHz */
		{ 1073741824, 30 },  /* 1 GHz */
		{ 410, 10 },	     /* a coarse shift */
		{ 3435973837u, 32 }, /* 1.25 GHz with the widest shift */
	};
	static const uint64_t zeros[] = { 0, 1234567890123ull,
					  (uint64_t)-500000000000000000ll }; /* "negative" */
	static const uint64_t tscs[] = { 0,
					 1,
					 2999,
					 1ull << 31,
					 123456789012345ull,
					 (1ull << 52) + 77,
					 3000000000ull * 86400 * 365 };
	for (size_t c = 0; c < sizeof(clocks) / sizeof(clocks[0]); c++)
		for (size_t z = 0; z < sizeof(zeros) / sizeof(zeros[0]); z++)
			for (size_t i = 0; i < sizeof(tscs) / sizeof(tscs[0]); i++)
				CHECK(round_trip(tscs[i], zeros[z], clocks[c].mult,
						 clocks[c].shift));
}

/* Later times stay later: the tree's order is the clock's. */
static void test_kclock_monotonic(void)
{
	uint64_t prev = 0;
	for (uint64_t t = 1000000; t < 1000000 + 10000; t += 7) {
		uint64_t tsc = ct_kperf_time_to_tsc(t, 999999, 715827883, 31);
		CHECK(tsc >= prev);
		prev = tsc;
	}
}

int main(void)
{
	int failures = 0;
	RUN(test_kclock_known_values);
	RUN(test_kclock_round_trips);
	RUN(test_kclock_monotonic);
	return failures ? 1 : 0;
}
