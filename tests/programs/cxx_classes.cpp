// C++ classes: constructors and destructors (base and derived), virtual
// methods called through a base reference, const methods, static methods,
// nested namespaces. Objects live on the stack (no deleting destructors, no
// STL), so every call is a call of a function defined here.
// Checks: exact counts and the call tree.
#define FUNCS(X)                                                                                   \
	X(main, "main") X(Shape_ctor, "ns::Shape::Shape") X(Shape_dtor, "ns::Shape::~Shape")         \
	X(Shape_describe, "ns::Shape::describe") X(Shape_live, "ns::Shape::live")                    \
	X(Circle_ctor, "ns::Circle::Circle") X(Circle_dtor, "ns::Circle::~Circle")                   \
	X(Circle_area, "ns::Circle::area") X(Square_ctor, "ns::Square::Square")                      \
	X(Square_dtor, "ns::Square::~Square") X(Square_area, "ns::Square::area")                     \
	X(Square_scale, "ns::Square::scale") X(inner_total, "ns::inner::total")                      \
	X(inner_Acc_add, "ns::inner::Acc::add") X(inner_Acc_Acc, "ns::inner::Acc::Acc")              \
	X(Plain_ctor, "Plain::Plain") X(Plain_get, "Plain::get") X(Plain_dtor, "Plain::~Plain")
#include "truth.h"

namespace ns {

class Shape {
      public:
	NOINL explicit Shape(int id);
	NOINL virtual ~Shape();
	virtual double area() const = 0;
	NOINL double describe() const;
	NOINL static int live();

      protected:
	int id_;
	static int live_;
};

int Shape::live_ = 0;

Shape::Shape(int id) : id_(id)
{
	HIT(Shape_ctor);
	live_++;
}

Shape::~Shape()
{
	HIT(Shape_dtor);
	live_--;
}

double Shape::describe() const
{
	HIT(Shape_describe);
	return id_ * 1000 + area(); // virtual call from a base method
}

int Shape::live()
{
	HIT(Shape_live);
	return live_;
}

class Circle : public Shape {
      public:
	NOINL Circle(int id, double r);
	NOINL ~Circle() override;
	NOINL double area() const override;

      private:
	double r_;
};

Circle::Circle(int id, double r) : Shape(id), r_(r)
{
	HIT(Circle_ctor);
}

Circle::~Circle()
{
	HIT(Circle_dtor);
}

double Circle::area() const
{
	HIT(Circle_area);
	return 3 * r_ * r_;
}

class Square : public Shape {
      public:
	NOINL Square(int id, double s);
	NOINL ~Square() override;
	NOINL double area() const override;
	NOINL static Square scale(const Square &s, double f);

      private:
	double s_;
};

Square::Square(int id, double s) : Shape(id), s_(s)
{
	HIT(Square_ctor);
}

Square::~Square()
{
	HIT(Square_dtor);
}

double Square::area() const
{
	HIT(Square_area);
	return s_ * s_;
}

Square Square::scale(const Square &s, double f)
{
	HIT(Square_scale);
	return Square(s.id_ + 1, s.s_ * f); // guaranteed copy elision (C++17)
}

namespace inner {

struct Acc {
	NOINL Acc();
	NOINL void add(double v);
	double sum;
};

Acc::Acc() : sum(0)
{
	HIT(inner_Acc_Acc);
}

void Acc::add(double v)
{
	HIT(inner_Acc_add);
	sum += v;
}

NOINL double total(const Shape *const *shapes, int n)
{
	HIT(inner_total);
	Acc acc;
	for (int i = 0; i < n; i++)
		acc.add(shapes[i]->area()); // virtual calls through base pointers
	return acc.sum;
}

} // namespace inner
} // namespace ns

struct Plain {
	NOINL Plain();
	NOINL ~Plain();
	NOINL int get() const;
	int v;
};

Plain::Plain() : v(7)
{
	HIT(Plain_ctor);
}

Plain::~Plain()
{
	HIT(Plain_dtor);
}

int Plain::get() const
{
	HIT(Plain_get);
	return v;
}

int main()
{
	HIT(main);
	int ok = 1;
	{
		Plain p;
		ok &= p.get() == 7;
		ns::Circle c(1, 2.0);
		ns::Square s(2, 3.0);
		ok &= ns::Shape::live() == 2;
		const ns::Shape *all[3] = {&c, &s, &c};
		ok &= ns::inner::total(all, 3) == 12 + 9 + 12;
		ok &= c.describe() == 1012;
		{
			ns::Square big = ns::Square::scale(s, 2.0);
			ok &= big.describe() == 3036;
		}
		ok &= ns::Shape::live() == 2;
	}
	ok &= ns::Shape::live() == 0;
	printf("cxx_classes %s\n", ok ? "ok" : "WRONG");
	return ok ? 0 : 1;
}
