// An exception thrown from a function another one tail-calls (at -O2 the
// caller jumps to it: under fentry both frames share one return address,
// which the unwinder must find real), caught two frames up, three times.
// Checks: exact counts, the call tree (clang runs no exit hook for the frames
// an exception leaves: they show as unwound; gcc's may return).
//
// CT-UNWOUND: clang
#define FUNCS(X) X(main, "main") X(thrower, "thrower") X(forward, "forward") X(catcher, "catcher")
#include "truth.h"

NOINL int thrower(int x)
{
	HIT(thrower);
	if (x > 0)
		throw x;
	return x;
}

NOINL int forward(int x)
{
	HIT(forward);
	return thrower(x + 1); // a tail call at -O2
}

NOINL int catcher(int x)
{
	HIT(catcher);
	try {
		return forward(x);
	} catch (int e) {
		return -e;
	}
}

int main()
{
	HIT(main);
	int sum = 0;
	for (int i = 0; i < 3; i++)
		sum += catcher(i);
	return sum == -6 ? 0 : 1;
}
