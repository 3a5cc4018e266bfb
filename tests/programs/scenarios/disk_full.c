/* SPDX-License-Identifier: MIT */
/*
 * tests/faults.sh, disk full: a pseudo-random walk over 64 distinct functions
 * (about 4 million calls, deterministic), so the trace is big and compresses
 * badly. At its normal end the program writes "done CALLS CHECKSUM" to the
 * file named by $CT_DONE (the same traced or not) and exits with status 23.
 */
#define F8(X, a)                                                                         \
	X(f##a##0, "f" #a "0") X(f##a##1, "f" #a "1") X(f##a##2, "f" #a "2")             \
	X(f##a##3, "f" #a "3") X(f##a##4, "f" #a "4") X(f##a##5, "f" #a "5")             \
	X(f##a##6, "f" #a "6") X(f##a##7, "f" #a "7")
#define WALKERS(X) F8(X, 0) F8(X, 1) F8(X, 2) F8(X, 3) F8(X, 4) F8(X, 5) F8(X, 6) F8(X, 7)
#define FUNCS(X) X(main, "main") WALKERS(X)
#include "truth.h"

static unsigned long long state = 88172645463325252ull;
static unsigned long long checksum;
static int depth;
typedef void fn(void);
static fn *const table[64];

NOTRACE static unsigned rnd(void)
{
	state = state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(state >> 33);
}

/* Called by each walker: maybe go one call deeper, to a random walker. */
NOTRACE static void walk(int self)
{
	unsigned r = rnd();
	checksum = checksum * 31 + (unsigned)self;
	if (depth < 12 && (r & 1)) {
		depth++;
		table[(r >> 1) % 64]();
		depth--;
	}
}

#define DEF(id, name)                  \
	NOINL void id(void)            \
	{                              \
		HIT(id);               \
		walk(F_##id);          \
	}
WALKERS(DEF)
#define REF(id, name) id,
static fn *const table[64] = { WALKERS(REF) };

int main(void)
{
	HIT(main);
	for (int i = 0; i < 2000000; i++)
		table[rnd() % 64]();
	long calls = 0;
	for (int i = 0; i < CT_NFUNCS; i++)
		calls += ct_counts[i];
	const char *done = getenv("CT_DONE");
	if (done) {
		FILE *f = fopen(done, "w");
		if (f) {
			fprintf(f, "done %ld %llx\n", calls, checksum);
			fclose(f);
		}
	}
	return 23;
}
