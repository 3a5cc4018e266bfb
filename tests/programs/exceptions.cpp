// CT-UNWOUND: clang
// C++ exceptions (ints, no destructors involved: see exceptions_raii.cpp):
// thrown 4 frames below the catch; a rethrow (catch (...) { cleanup();
// throw; }) caught one frame up; a new exception thrown from inside a catch
// block; ten throws in a loop; calls at the catch site after each catch.
// With clang, the frames an exception leaves run no exit hook: they must show
// as unwound (the .tree marks them). With gcc they run their exit hooks: they
// may show as returning or as unwound (the checker removes the unwound marks
// on both sides for gcc builds). The depth and order of the calls must be the
// same either way.
// Checks: exact counts and the call tree.
#define FUNCS(X)                                                                                   \
	X(main, "main") X(thrower, "thrower") X(f1, "f1") X(f2, "f2") X(f3, "f3")                    \
	X(catcher, "catcher") X(after_catch, "after_catch") X(relay, "relay") X(cleanup, "cleanup")  \
	X(outer_catch, "outer_catch") X(throw_in_catch, "throw_in_catch")                            \
	X(loop_throws, "loop_throws") X(maybe_throw, "maybe_throw")
#include "truth.h"

static volatile int sink;

NOINL void thrower(int code)
{
	HIT(thrower);
	if (code)
		throw code;
	sink++;
}

NOINL void f3(int code)
{
	HIT(f3);
	thrower(code);
	sink++;
}

NOINL void f2(int code)
{
	HIT(f2);
	f3(code);
	sink++;
}

NOINL void f1(int code)
{
	HIT(f1);
	f2(code);
	sink++;
}

NOINL void after_catch(int k)
{
	HIT(after_catch);
	if (k > 0)
		after_catch(k - 1);
	sink++;
}

NOINL int catcher(int code)
{
	HIT(catcher);
	int got = 0;
	try {
		f1(code);
	} catch (int e) {
		got = e;
	}
	after_catch(1);
	return got;
}

NOINL void cleanup()
{
	HIT(cleanup);
	sink++;
}

NOINL void relay(int code)
{
	HIT(relay);
	try {
		f3(code);
	} catch (...) {
		cleanup();
		throw; // the same exception goes on
	}
}

NOINL int outer_catch(int code)
{
	HIT(outer_catch);
	try {
		relay(code);
	} catch (int e) {
		after_catch(0);
		return e;
	}
	return 0;
}

NOINL int throw_in_catch()
{
	HIT(throw_in_catch);
	int r = 0;
	try {
		try {
			f3(7);
		} catch (int e) {
			after_catch(0);
			f1(e + 1); // a new exception, from inside the catch block
		}
	} catch (int e) {
		r = e;
	}
	after_catch(0);
	return r;
}

NOINL int maybe_throw(int i)
{
	HIT(maybe_throw);
	if (i % 2)
		thrower(i);
	return i;
}

NOINL int loop_throws()
{
	HIT(loop_throws);
	int s = 0;
	for (int i = 0; i < 10; i++) {
		try {
			s += maybe_throw(i);
		} catch (int e) {
			s += 100 * e;
		}
	}
	return s;
}

int main()
{
	HIT(main);
	int ok = catcher(5) == 5;
	ok &= catcher(0) == 0;
	ok &= outer_catch(9) == 9;
	ok &= throw_in_catch() == 8;
	ok &= loop_throws() == 0 + 2 + 4 + 6 + 8 + 100 * (1 + 3 + 5 + 7 + 9);
	after_catch(0);
	printf("exceptions %s\n", ok ? "ok" : "WRONG");
	return ok ? 0 : 1;
}
