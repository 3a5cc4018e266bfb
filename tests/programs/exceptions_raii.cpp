// CT-UNWOUND: clang
// C++ exceptions with objects that have destructors (exceptions.cpp throws
// ints): the exception object has a constructor (called in the throwing
// frame) and a destructor (called through the uninstrumented
// __cxa_end_catch when the catch block ends: a child of the catching frame,
// though its stack pointer is below the frames the exception left); a local
// object destroyed while the exception passes its frame (a child of that
// frame). Also a rethrow, a new exception thrown from inside a catch block,
// ten throws in a loop, calls at the catch site after each catch.
// With clang, the frames an exception leaves run no exit hook: they must show
// as unwound (the .tree marks them). With gcc they run their exit hooks: they
// may show as returning or as unwound (the checker removes the unwound marks
// on both sides for gcc builds). The depth and order of the calls must be the
// same either way.
// Checks: exact counts and the call tree.
#define FUNCS(X)                                                                                   \
	X(main, "main") X(Err_ctor, "Err::Err") X(Err_dtor, "Err::~Err")                             \
	X(Guard_ctor, "Guard::Guard") X(Guard_dtor, "Guard::~Guard") X(thrower, "thrower")           \
	X(f1, "f1") X(f2, "f2") X(f3, "f3") X(catcher, "catcher") X(after_catch, "after_catch")      \
	X(relay, "relay") X(cleanup, "cleanup") X(outer_catch, "outer_catch")                        \
	X(throw_in_catch, "throw_in_catch") X(loop_throws, "loop_throws") X(maybe_throw, "maybe_throw")
#include "truth.h"

static volatile int sink;

struct Err {
	NOINL explicit Err(int c);
	NOINL ~Err();
	int code;
};

Err::Err(int c) : code(c)
{
	HIT(Err_ctor);
}

Err::~Err()
{
	HIT(Err_dtor);
}

struct Guard {
	NOINL Guard();
	NOINL ~Guard();
};

Guard::Guard()
{
	HIT(Guard_ctor);
}

Guard::~Guard()
{
	HIT(Guard_dtor);
}

NOINL void thrower(int code)
{
	HIT(thrower);
	if (code)
		throw Err(code);
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
	Guard g; // destroyed while the exception passes
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
	} catch (Err &e) {
		got = e.code; // Err::~Err runs when this block ends
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
	} catch (Err &e) {
		after_catch(0);
		return e.code;
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
		} catch (Err &e) {
			after_catch(0);
			f1(e.code + 1); // a new exception, from inside the catch block
		}
	} catch (Err &e) {
		r = e.code;
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
		} catch (Err &e) {
			s += 100 * e.code;
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
