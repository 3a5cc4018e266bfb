// SPDX-License-Identifier: MIT
/*
 * C++ signatures for tests/protos: methods and their `this`, references,
 * classes passed by invisible reference (not trivial for calls), empty
 * classes (passed in nothing), enum classes, templates, pointers to members.
 * sigs_cpp.protos has the prototype each must get, by mangled name.
 */
#include <cstddef>
#include <cstdint>

#ifdef __clang__
#define KEEP __attribute__((noinline, used))
#else
#define KEEP __attribute__((noinline, noclone, used))
#endif

static volatile long sink;

struct Point {
	int x, y;
};
struct Big {
	long v[4];
};
struct Tag {
};
struct WithStatic {
	static int count;
	int v;
};
int WithStatic::count;

struct Defaulted { // copies are trivial: passed by value
	int v;
	Defaulted() = default;
	Defaulted(const Defaulted &) = default;
};

struct Copying { // a copy constructor of its own: passed by reference
	int v;
	explicit Copying(int x) : v(x)
	{
	}
	Copying(const Copying &o) : v(o.v + 1)
	{
	}
};

struct Dtor { // a destructor of its own: passed by reference
	int v;
	~Dtor()
	{
		sink++;
	}
};

struct Holder { // a member that is not trivial makes it not trivial
	Copying c;
};

struct Base {
	int b;
};
struct Derived : Base {
	int d;
};

enum class Level : uint8_t { Low, Mid = 10, High };
enum class Sign : int8_t { Neg = -1, Zero, Pos };

class Counter
{
      public:
	explicit Counter(int start) : n(start)
	{
	}
	KEEP int add(int k);
	KEEP double scaled(double f) const;
	KEEP Point where(int dx) const;
	KEEP Big big(int fill);
	KEEP static int twice(int x);
	virtual ~Counter()
	{
	}
	virtual KEEP int get() const
	{
		return n;
	}
	int n;
};

int Counter::add(int k)
{
	return n += k;
}

double Counter::scaled(double f) const
{
	return n * f;
}

Point Counter::where(int dx) const
{
	return Point{ n + dx, n };
}

Big Counter::big(int fill)
{
	return Big{ { fill, n, fill, n } };
}

int Counter::twice(int x)
{
	return 2 * x;
}

KEEP int refs(int &a, const Point &p, Point &&q, const char *&s)
{
	return a + p.x + q.y + (s != nullptr);
}

KEEP int by_value(Copying c, int after)
{
	return c.v + after;
}

KEEP int by_dtor(Dtor d, Holder h, Defaulted f)
{
	return d.v + h.c.v + f.v;
}

KEEP Copying make_copying(int v)
{
	return Copying(v);
}

KEEP int empties(Tag t, int x, Tag u, WithStatic w)
{
	(void)t;
	(void)u;
	return x + w.v;
}

KEEP int derived(Derived d)
{
	return d.b + d.d;
}

KEEP Level levels(Level l, Sign s)
{
	return s == Sign::Neg ? Level::Low : l;
}

KEEP int dots(...)
{
	return 1;
}

KEEP int unnamed(int, double, const char *)
{
	return 2;
}

KEEP int members(int (Counter::*pm)(int), int Counter::*pd, Counter *c, std::nullptr_t np)
{
	return (c->*pm)(1) + c->*pd + (np == nullptr);
}

KEEP bool cpp_bool(bool b, wchar_t w, char16_t c16, char32_t c32)
{
	return b && w && c16 && c32;
}

KEEP long double cpp_ld(long double a, int b)
{
	return a + b;
}

template <typename T> KEEP T tmax(T a, T b)
{
	return a > b ? a : b;
}

KEEP static int st_sub(int a, int b)
{
	return a - b;
}

namespace ns
{
KEEP Point operator+(Point a, Point b)
{
	return Point{ a.x + b.x, a.y + b.y };
}
} // namespace ns

int main()
{
	Counter c(1);
	int a = 1;
	const char *s = "s";
	Point p{ 1, 2 };
	Dtor d{ 3 };
	Holder h{ Copying(4) };
	Defaulted f;
	f.v = 5;
	WithStatic w;
	w.v = 6;
	Derived dv;
	dv.b = 1;
	dv.d = 2;

	sink += c.add(1) + (long)c.scaled(2.0) + c.where(1).x + c.big(2).v[1] + Counter::twice(3);
	sink += c.get() + refs(a, p, Point{ 3, 4 }, s) + by_value(Copying(1), 2);
	sink += by_dtor(d, h, f) + make_copying(5).v + empties(Tag(), 1, Tag(), w) + derived(dv);
	sink += (long)levels(Level::Mid, Sign::Pos) + dots(1, 2.0) + unnamed(1, 2.0, "x");
	sink += members(&Counter::add, &Counter::n, &c, nullptr) + cpp_bool(true, L'w', u'c', U'd');
	sink += (long)cpp_ld(1.5L, 2) + tmax(1.0, 2.0) + tmax<short>(1, 2) + st_sub(3, 1);
	sink += ns::operator+(p, p).y;
	return 0;
}
