/* SPDX-License-Identifier: MIT */
/*
 * calltrace flame's big tree: 18 functions calling one another four deep in
 * every order, 18^4 = 104,976 distinct stacks at the bottom (111,150 in all,
 * main aside), 419,904 calls.
 */
#define NOINL __attribute__((noinline))
#define K     18

typedef void (*fn_t)(int level, unsigned code);
static fn_t tab[K];
static volatile unsigned long sink;

/* clang-format off */
#define F(i)                                                                                       \
	NOINL static void f##i(int level, unsigned code)                                           \
	{                                                                                          \
		sink += i;                                                                         \
		if (level)                                                                         \
			tab[code % K](level - 1, code / K);                                        \
	}
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15) F(16) F(17)

int main(void)
{
	fn_t t[K] = {
		f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17
	};
	for (int i = 0; i < K; i++)
		tab[i] = t[i];
	for (unsigned code = 0; code < K * K * K * K; code++)
		tab[code % K](3, code / K);
	return 0;
}
/* clang-format on */
