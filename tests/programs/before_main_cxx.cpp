// Code before and after main, in C++: static objects with constructors and
// destructors (global, in a namespace, a function-local static constructed
// on first use inside main), a constructor-attribute function, an atexit
// handler. The compiler wraps static initialisation in generated functions
// (_GLOBAL__sub_I_*, __static_initialization_and_destruction_0,
// __cxx_global_var_init*), which the checker drops; their children move up.
// Checks: exact counts and the call tree (destructors in reverse order of
// construction, after main and after the atexit handler registered last).
#define FUNCS(X)                                                                                   \
	X(main, "main") X(Obj_ctor, "Obj::Obj") X(Obj_dtor, "Obj::~Obj") X(Obj_touch, "Obj::touch")  \
	X(make_value, "make_value") X(get_local, "get_local") X(attr_ctor, "attr_ctor")              \
	X(bye, "bye") X(Other_ctor, "space::Other::Other") X(Other_dtor, "space::Other::~Other")
#include "truth.h"

struct Obj {
	NOINL explicit Obj(int v);
	NOINL ~Obj();
	NOINL int touch();
	int v;
};

Obj::Obj(int v_) : v(v_)
{
	HIT(Obj_ctor);
}

Obj::~Obj()
{
	HIT(Obj_dtor);
}

int Obj::touch()
{
	HIT(Obj_touch);
	return ++v;
}

NOINL int make_value(int x)
{
	HIT(make_value);
	return x * 2;
}

Obj first(1);
int value = make_value(21); // dynamic initialisation of a plain int

namespace space {
struct Other {
	NOINL Other();
	NOINL ~Other();
	Obj inner;
};
Other::Other() : inner(5)
{
	HIT(Other_ctor);
}
Other::~Other()
{
	HIT(Other_dtor);
}
Other second;
} // namespace space

__attribute__((constructor)) NOINL void attr_ctor()
{
	HIT(attr_ctor);
}

NOINL Obj &get_local()
{
	HIT(get_local);
	static Obj local(7); // constructed on first use, destroyed at exit
	return local;
}

NOINL void bye()
{
	HIT(bye);
}

int main()
{
	HIT(main);
	std::atexit(bye);
	int a = get_local().touch();
	int b = get_local().touch();
	int c = first.touch();
	printf("before_main.cpp: %d %d %d %d\n", a, b, c, value);
	return a == 8 && b == 9 && c == 2 && value == 42 ? 0 : 1;
}
