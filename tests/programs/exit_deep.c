/* CT-EXIT: 3
 * exit(3) called 12 frames deep: main, 10 descend, finish never return, so
 * they show as unfinished; calltrace record exits with status 3. The
 * atexit handler and the destructor run inside exit(), so they nest under
 * finish, and they do return.
 * Checks: exit status, exact counts, the call tree with unfinished markers.
 */
#define FUNCS(X)                                                                                   \
	X(main, "main") X(descend, "descend") X(finish, "finish") X(on_exit_handler, "on_exit_handler") \
	X(last_words, "last_words") X(dtor_fn, "dtor_fn") X(warmup, "warmup")
#include "truth.h"

static volatile int sink;

NOINL void last_words(void)
{
	HIT(last_words);
	sink++;
}

NOINL void on_exit_handler(void)
{
	HIT(on_exit_handler);
	last_words();
}

__attribute__((destructor)) NOINL void dtor_fn(void)
{
	HIT(dtor_fn);
	last_words();
}

NOINL void finish(int code)
{
	HIT(finish);
	fflush(stdout);
	if (code)
		exit(code);
}

NOINL void descend(int n)
{
	HIT(descend);
	if (n <= 1)
		finish(3);
	else
		descend(n - 1);
	sink++;
}

NOINL void warmup(void)
{
	HIT(warmup);
	sink++;
}

int main(void)
{
	HIT(main);
	atexit(on_exit_handler);
	warmup();
	descend(10);
	return 0;
}
