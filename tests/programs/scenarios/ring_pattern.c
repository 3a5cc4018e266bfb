/* SPDX-License-Identifier: MIT */
/*
 * tests/faults.sh, flight recorder: a deterministic single thread, about
 * 200000 events in a pattern that does not repeat (step i calls g_k for each
 * bit k set in i), so a ring that lost or repeated a piece cannot match the
 * end of the full trace by chance.
 */
#define FUNCS(X) X(main, "main") X(step, "step") X(g0, "g0") X(g1, "g1") X(g2, "g2") \
	X(g3, "g3") X(g4, "g4") X(g5, "g5") X(g6, "g6") X(g7, "g7") X(g8, "g8")       \
	X(g9, "g9") X(g10, "g10") X(g11, "g11") X(g12, "g12") X(g13, "g13")
#include "truth.h"

static volatile unsigned sink;

#define G(k)                              \
	NOINL void g##k(void)             \
	{                                 \
		HIT(g##k);                \
		sink += k;                \
	}
G(0) G(1) G(2) G(3) G(4) G(5) G(6) G(7) G(8) G(9) G(10) G(11) G(12) G(13)

typedef void fn(void);
static fn *const gs[14] = { g0, g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, g11, g12, g13 };

NOINL void step(int i)
{
	HIT(step);
	for (int k = 0; k < 14; k++)
		if (i >> k & 1)
			gs[k]();
}

int main(void)
{
	HIT(main);
	for (int i = 1; i <= 12000; i++)
		step(i);
	return 0;
}
