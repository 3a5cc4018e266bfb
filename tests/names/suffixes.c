/* SPDX-License-Identifier: MIT */
/*
 * Symbols named as compilers name their copies of a function, made with
 * assembler names so that every form is there whatever the compiler does:
 * work, work.lto_priv.0 and work.localalias are one function to calltrace;
 * helper.constprop.0.isra.0 is helper; keep.omp_fn.0 is a function of its own
 * (an outlined OpenMP region, not a copy) and keeps its name. The program
 * counts the calls it makes (truth.h); it also raises SIGUSR1 three times,
 * whose handler's frame is no function.
 */
#include <signal.h>

#define FUNCS(X)                                                                                   \
	X(main, "main")                                                                            \
	X(work, "work")                                                                            \
	X(helper, "helper")                                                                        \
	X(keep, "keep.omp_fn.0")                                                                   \
	X(on_signal, "on_signal")
#include "../programs/truth.h"

volatile int sink;

__attribute__((noinline)) int work(int x)
{
	return sink += x;
}
__attribute__((noinline)) int work_lto(int x) __asm__("work.lto_priv.0");
__attribute__((noinline)) int work_lto(int x)
{
	return sink += 2 * x;
}
__attribute__((noinline)) int work_alias(int x) __asm__("work.localalias");
__attribute__((noinline)) int work_alias(int x)
{
	return sink += 3 * x;
}
__attribute__((noinline)) int helper_clone(int x) __asm__("helper.constprop.0.isra.0");
__attribute__((noinline)) int helper_clone(int x)
{
	return sink -= x;
}
__attribute__((noinline)) int keep_region(int x) __asm__("keep.omp_fn.0");
__attribute__((noinline)) int keep_region(int x)
{
	return sink ^= x;
}

__attribute__((noinline)) void on_signal(int sig)
{
	sink += sig;
}

int main(void)
{
	HIT(main);
	signal(SIGUSR1, on_signal);
	for (int i = 0; i < 4; i++, HIT(work))
		work(i);
	for (int i = 0; i < 3; i++, HIT(work))
		work_lto(i);
	for (int i = 0; i < 2; i++, HIT(work))
		work_alias(i);
	for (int i = 0; i < 5; i++, HIT(helper))
		helper_clone(i);
	for (int i = 0; i < 6; i++, HIT(keep))
		keep_region(i);
	for (int i = 0; i < 3; i++, HIT(on_signal))
		raise(SIGUSR1);
	return 0;
}
