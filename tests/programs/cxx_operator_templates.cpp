// Operator function templates, free and in a namespace, and a member
// operator template: their demangled names carry a return type before the
// operator and template arguments after it (`bool geo::operator< <int>(...)`
// is displayed `geo::operator< <int>`, the space being the demangler's).
// Checks: exact counts and the call tree.
#define FUNCS(X)                                                                                   \
	X(main, "main") X(eq_int, "geo::operator==<int>") X(lt_int, "geo::operator< <int>")          \
	X(ne_long, "operator!=<long>") X(shl_int, "geo::operator<< <int>")                           \
	X(call_int, "geo::Box<int>::operator()<int>") X(minus_int, "geo::operator-<int>")            \
	X(conv, "geo::Box<int>::operator long") X(eq_box, "geo::operator==<geo::Box<int> >")
#include "truth.h"

namespace geo {
template <typename T> struct Box {
	T v;
	template <typename U> NOINL T operator()(U u) const;
	NOINL operator long() const;
};

/* explicit specialisations do not inherit the template's attributes */
template <> template <> NOINL int Box<int>::operator()<int>(int u) const
{
	HIT(call_int);
	return v + u;
}

template <> NOINL Box<int>::operator long() const
{
	HIT(conv);
	return v;
}

template <typename T> NOINL bool operator==(const Box<T> &a, const Box<T> &b)
{
	HIT(eq_int);
	return a.v == b.v;
}

// For boxes of boxes: template arguments that end in "> >".
template <> NOINL bool operator==<Box<int>>(const Box<Box<int>> &a, const Box<Box<int>> &b)
{
	HIT(eq_box);
	return a.v.v == b.v.v;
}

template <typename T> NOINL bool operator<(const Box<T> &a, const Box<T> &b)
{
	HIT(lt_int);
	return a.v < b.v;
}

template <typename T> NOINL T operator<<(const Box<T> &a, int k)
{
	HIT(shl_int);
	return a.v << k;
}

template <typename T> NOINL Box<T> operator-(const Box<T> &a, const Box<T> &b)
{
	HIT(minus_int);
	return Box<T>{a.v - b.v};
}
} // namespace geo

template <typename T> NOINL bool operator!=(const geo::Box<T> &a, const geo::Box<T> &b)
{
	HIT(ne_long);
	return a.v != b.v;
}

int main()
{
	HIT(main);
	geo::Box<int> a{3}, b{5};
	geo::Box<long> c{1}, d{2};
	int ok = !(a == b);
	ok &= a < b;
	ok &= (a << 2) == 12;
	ok &= c != d;
	ok &= a(4) == 7;
	ok &= (b - a).v == 2;
	ok &= static_cast<long>(b) == 5;
	geo::Box<geo::Box<int>> bb{{1}}, bc{{1}};
	ok &= bb == bc;
	printf("cxx_operator_templates %s\n", ok ? "ok" : "WRONG");
	return ok ? 0 : 1;
}
