// SPDX-License-Identifier: MIT
// tests/options: C++ names for --no-demangle. Two overloads share a displayed
// name (geo::scale), a constructor and a const method; counts its own calls.
#define FUNCS(X)                                                                                   \
	X(main, "main") X(ctor, "geo::Circle::Circle") X(area, "geo::Circle::area")                 \
		X(scale_i, "geo::scale") X(scale_d, "geo::scale")
#include "../programs/truth.h"

namespace geo {
struct Circle {
	double r;
	NOINL explicit Circle(double radius);
	NOINL double area() const;
};
NOINL Circle::Circle(double radius) : r(radius)
{
	HIT(ctor);
}
NOINL double Circle::area() const
{
	HIT(area);
	return 3.0 * r * r;
}
NOINL int scale(int v)
{
	HIT(scale_i);
	return 2 * v;
}
NOINL double scale(double v)
{
	HIT(scale_d);
	return 2.5 * v;
}
} // namespace geo

static volatile double sink;

NOINL int main()
{
	HIT(main);
	for (int i = 0; i < 3; i++) {
		geo::Circle c(i);
		sink += c.area() + geo::scale(i);
	}
	sink += geo::scale(1.5) + geo::scale(2.5);
	return 0;
}
