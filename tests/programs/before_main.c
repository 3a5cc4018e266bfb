/* Code before and after main, in C: constructors (with priorities, and one
 * that registers an atexit handler), atexit handlers registered before and
 * in main, destructors. All run at depth 0 of the main thread.
 * Checks: exact counts and the call tree (order: constructors by priority,
 * main, atexit handlers in reverse order of registration, destructors).
 */
#define FUNCS(X)                                                                                   \
	X(main, "main") X(ctor_first, "ctor_first") X(ctor_second, "ctor_second")                    \
	X(ctor_default, "ctor_default") X(dtor_default, "dtor_default") X(dtor_200, "dtor_200")      \
	X(on_exit_early, "on_exit_early") X(on_exit_main, "on_exit_main") X(work, "work")             \
	X(common, "common")
#include "truth.h"

static int state;

NOINL static void common(int k)
{
	HIT(common);
	state += k;
}

NOINL static void on_exit_early(void)
{
	HIT(on_exit_early);
	common(100);
}

NOINL static void on_exit_main(void)
{
	HIT(on_exit_main);
	common(200);
}

__attribute__((constructor(200))) NOINL static void ctor_first(void)
{
	HIT(ctor_first);
	common(1);
	atexit(on_exit_early);
}

__attribute__((constructor(300))) NOINL static void ctor_second(void)
{
	HIT(ctor_second);
	common(2);
}

__attribute__((constructor)) NOINL static void ctor_default(void)
{
	HIT(ctor_default);
}

__attribute__((destructor)) NOINL static void dtor_default(void)
{
	HIT(dtor_default);
	common(1000);
}

__attribute__((destructor(200))) NOINL static void dtor_200(void)
{
	HIT(dtor_200);
}

NOINL static int work(void)
{
	HIT(work);
	common(10);
	return state;
}

int main(void)
{
	HIT(main);
	atexit(on_exit_main);
	int s = work();
	printf("before_main: state %d\n", s);
	return s == 13 ? 0 : 1;
}
