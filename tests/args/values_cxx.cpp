// C++ arguments for record -a: `this` of a method, references, a class with a
// non-trivial copy passed by value (a hidden pointer). values_cxx.expect.
#if defined(__clang__)
#define KEEP __attribute__((noinline, used))
#else
#define KEEP __attribute__((noinline, noipa, used))
#endif

struct Counter {
	int n = 0;
	KEEP int add(int v)
	{
		n += v;
		return n;
	}
};

struct Tracked {
	int v;
	Tracked(int x) : v(x) {}
	Tracked(const Tracked &o) : v(o.v) {}
};

volatile int sink;

KEEP int byref(const int &r)
{
	sink = sink + 1; /* long enough to patch at -O2 */
	return r;
}
KEEP int unwrap(Tracked t)
{
	sink = sink + 1; /* long enough to patch at -O2 */
	return t.v;
}

int main()
{
	Counter c;
	int seven = 7;
	sink = c.add(5);
	sink = byref(seven);
	sink = unwrap(Tracked(9));
	return 0;
}
