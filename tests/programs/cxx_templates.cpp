// C++ templates and operators: a class template with members, a static
// member and a member template; function templates (whose return type the
// displayed name drops); member operators (+, +=, ==, <, (), [], conversion),
// a free operator, an operator in a namespace.
// Checks: exact counts and the call tree.
#define FUNCS(X)                                                                                   \
	X(main, "main") X(Vec_int_ctor, "Vec<int>::Vec") X(Vec_int_dtor, "Vec<int>::~Vec")           \
	X(Vec_int_push, "Vec<int>::push") X(Vec_int_sum, "Vec<int>::sum")                            \
	X(Vec_int_made, "Vec<int>::made") X(Vec_int_scaled2, "Vec<int>::scaled<2>")                  \
	X(Vec_dbl_ctor, "Vec<double>::Vec") X(Vec_dbl_dtor, "Vec<double>::~Vec")                     \
	X(Vec_dbl_push, "Vec<double>::push") X(Vec_dbl_sum, "Vec<double>::sum")                      \
	X(Vec_dbl_made, "Vec<double>::made") X(max_int, "max_of<int>")                               \
	X(max_dbl, "max_of<double>") X(max_vec2, "max_of<Vec2>") X(pair_sum, "pair_sum<int, long>")  \
	X(V2_plus, "Vec2::operator+") X(V2_pluseq, "Vec2::operator+=")                               \
	X(V2_eq, "Vec2::operator==") X(V2_lt, "Vec2::operator<") X(V2_call, "Vec2::operator()")      \
	X(V2_index, "Vec2::operator[]") X(V2_bool, "Vec2::operator bool")                            \
	X(V2_mul, "operator*") X(geo_neg, "geo::operator-") X(geo_len, "geo::len")
#include "truth.h"

// Which counters an instantiation uses: the templates themselves are
// instantiated implicitly (weak, COMDAT), as real code is.
template <typename T> struct Ids;
template <> struct Ids<int> {
	enum { ctor = F_Vec_int_ctor, dtor = F_Vec_int_dtor, push = F_Vec_int_push };
	enum { sum = F_Vec_int_sum, made = F_Vec_int_made, scaled2 = F_Vec_int_scaled2 };
	enum { max_of = F_max_int };
};
template <> struct Ids<double> {
	enum { ctor = F_Vec_dbl_ctor, dtor = F_Vec_dbl_dtor, push = F_Vec_dbl_push };
	enum { sum = F_Vec_dbl_sum, made = F_Vec_dbl_made, scaled2 = -1 };
	enum { max_of = F_max_dbl };
};

template <typename T> class Vec {
      public:
	NOINL Vec();
	NOINL ~Vec();
	NOINL void push(T v);
	NOINL T sum() const;
	template <int K> NOINL T scaled() const;
	NOINL static int made();

      private:
	T data_[16];
	int n_;
	static int made_;
};

template <typename T> int Vec<T>::made_ = 0;

template <typename T> Vec<T>::Vec() : n_(0)
{
	HIT_AT(Ids<T>::ctor);
	made_++;
}

template <typename T> Vec<T>::~Vec()
{
	HIT_AT(Ids<T>::dtor);
}

template <typename T> void Vec<T>::push(T v)
{
	HIT_AT(Ids<T>::push);
	data_[n_++] = v;
}

template <typename T> T Vec<T>::sum() const
{
	HIT_AT(Ids<T>::sum);
	T s = 0;
	for (int i = 0; i < n_; i++)
		s += data_[i];
	return s;
}

template <typename T> int Vec<T>::made()
{
	HIT_AT(Ids<T>::made);
	return made_;
}

template <typename T> template <int K> T Vec<T>::scaled() const
{
	HIT_AT(Ids<T>::scaled2);
	return K * sum();
}

struct Vec2 {
	int x, y;
	NOINL Vec2 operator+(const Vec2 &o) const;
	NOINL Vec2 &operator+=(const Vec2 &o);
	NOINL bool operator==(const Vec2 &o) const;
	NOINL bool operator<(const Vec2 &o) const;
	NOINL int operator()(int k) const;
	NOINL int operator[](int i) const;
	NOINL explicit operator bool() const;
};

Vec2 Vec2::operator+(const Vec2 &o) const
{
	HIT(V2_plus);
	return Vec2{x + o.x, y + o.y};
}
Vec2 &Vec2::operator+=(const Vec2 &o)
{
	HIT(V2_pluseq);
	x += o.x;
	y += o.y;
	return *this;
}
bool Vec2::operator==(const Vec2 &o) const
{
	HIT(V2_eq);
	return x == o.x && y == o.y;
}
bool Vec2::operator<(const Vec2 &o) const
{
	HIT(V2_lt);
	return x < o.x || (x == o.x && y < o.y);
}
int Vec2::operator()(int k) const
{
	HIT(V2_call);
	return k * x + y;
}
int Vec2::operator[](int i) const
{
	HIT(V2_index);
	return i == 0 ? x : y;
}
Vec2::operator bool() const
{
	HIT(V2_bool);
	return x != 0 || y != 0;
}

NOINL Vec2 operator*(const Vec2 &a, int k)
{
	HIT(V2_mul);
	return Vec2{a.x * k, a.y * k};
}

namespace geo {
NOINL Vec2 operator-(const Vec2 &a)
{
	HIT(geo_neg);
	return Vec2{-a.x, -a.y};
}
NOINL int len(const Vec2 &a)
{
	HIT(geo_len);
	return (a.x < 0 ? -a.x : a.x) + (a.y < 0 ? -a.y : a.y);
}
} // namespace geo

template <typename T> NOINL T max_of(T a, T b)
{
	HIT_AT(Ids<T>::max_of);
	return a < b ? b : a;
}

// An explicit specialisation, for a type with an operator<.
template <> NOINL Vec2 max_of<Vec2>(Vec2 a, Vec2 b)
{
	HIT(max_vec2);
	return a < b ? b : a; // calls Vec2::operator<
}

template <typename A, typename B> NOINL long pair_sum(A a, B b)
{
	HIT(pair_sum);
	return a + b;
}

int main()
{
	HIT(main);
	int ok = 1;
	{
		Vec<int> vi;
		for (int i = 1; i <= 4; i++)
			vi.push(i);
		ok &= vi.sum() == 10;
		ok &= vi.scaled<2>() == 20;
		Vec<double> vd;
		vd.push(1.5);
		vd.push(max_of<double>(2.5, 0.5));
		ok &= vd.sum() == 4.0;
		ok &= Vec<int>::made() == 1 && Vec<double>::made() == 1;
	}
	ok &= max_of<int>(3, 9) == 9;
	Vec2 a{1, 2}, b{3, 4};
	Vec2 c = a + b;
	c += a;
	ok &= c == Vec2{5, 8};
	ok &= c(2) == 18 && c[1] == 8;
	ok &= static_cast<bool>(c);
	Vec2 m = max_of<Vec2>(a, c);
	ok &= m == c;
	Vec2 d = geo::operator-(a * 3);
	ok &= geo::len(d) == 9;
	ok &= pair_sum<int, long>(2, 40L) == 42;
	printf("cxx_templates %s\n", ok ? "ok" : "WRONG");
	return ok ? 0 : 1;
}
