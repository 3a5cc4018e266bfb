// SPDX-License-Identifier: MIT
// srcline test program in C++: methods defined in and out of their class, a
// constructor (gcc: an abstract DIE and its instances), a function template.
// DEF:name marks a definition, CALL:site a call whose callee prints its
// return address.
#include "report.h"

volatile int sink;

namespace shapes {

class Box {
      public:
	NOINL Box(const char *site, int w, int h);
	NOINL int area(const char *site) const;
	NOINL int grow(const char *site, int d) /* DEF:shapes::Box::grow */
	{
		SL_RET(site);
		w_ += d;
		return w_;
	}

      private:
	int w_, h_;
};

Box::Box(const char *site, int w, int h) : w_(w), h_(h) /* DEF:shapes::Box::Box */
{
	SL_RET(site);
}

int Box::area(const char *site) const /* DEF:shapes::Box::area */
{
	SL_RET(site);
	return w_ * h_;
}

template <typename T> NOINL T twice(const char *site, T x) /* DEF:shapes::twice<int> */
{
	SL_RET(site);
	return x + x;
}

} // namespace shapes

int main() /* DEF:main */
{
	sl_modules();
	shapes::Box box("main.ctor", 2, 3); /* CALL:main.ctor */
	sink = 1;
	int r = box.area("main.area"); /* CALL:main.area */
	sink = r;
	r += box.grow("main.grow", 4); /* CALL:main.grow */
	sink = r;
	r = shapes::twice("main.twice", r); /* CALL:main.twice */
	sink = r;
	return r == 0;
}
