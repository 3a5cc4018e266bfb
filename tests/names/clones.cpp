/* SPDX-License-Identifier: MIT */
/*
 * Functions g++ -O2 clones for real: ns::scale.constprop.0 (a constant
 * argument dropped) beside ns::scale itself, ns::total.isra.0 (a structure
 * passed by reference of which one field is read) beside ns::total called
 * through a pointer, ns::check.part.0 (the slow part of a function whose
 * quick test is inlined into its callers), and a function template with long
 * argument types cloned with a constant. The program counts their calls
 * (truth.h) where it makes them: a counter inside them would keep gcc from
 * cloning them. The test checks calltrace shows each under its short name with
 * the merged count.
 */
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#define FUNCS(X)                                                                                   \
	X(main, "main")                                                                            \
	X(scale, "ns::scale")                                                                      \
	X(total, "ns::total")                                                                      \
	X(check, "ns::check")                                                                      \
	X(checked_plus_one, "checked_plus_one")                                                                \
	X(build, "ns::build<std::map<std::__cxx11::basic_string<char, std::char_traits<char>, "    \
		 "std::allocator<char> >, std::vector<std::pair<int, double>, "                    \
		 "std::allocator<std::pair<int, double> > >, std::less<std::__cxx11::basic_string" \
		 "<char, std::char_traits<char>, std::allocator<char> > >, std::allocator<std::"   \
		 "pair<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator"    \
		 "<char> > const, std::vector<std::pair<int, double>, std::allocator<std::pair"    \
		 "<int, double> > > > > > >")
#include "../programs/truth.h"

namespace ns {
struct S {
	int a[16];
	long weight;
	const char *label;
};

/* called with 3 from a loop and with a variable once: scale.constprop.0 and scale */
static __attribute__((noinline)) long scale(const S &s, int k)
{
	long r = 0;
	for (int i = 0; i < 16; i++)
		r += (long)s.a[i] * k + (r >> 3);
	return r;
}

/* static, reads one field of what it is given: total.isra.0 */
static __attribute__((noinline)) long total(const S &s, long add)
{
	return s.weight * 7 + add;
}

/* the quick test is inlined into the callers, the rest becomes check.part.0 */
static long check_slow_sum;
static long check(long x)
{
	if (__builtin_expect(x < 1000, 1))
		return x; /* inlined: not a call, so counted by no one */
	long r = x;
	for (int i = 0; i < 40; i++) {
		r = r * 31 + (r >> 5) + i;
		if (r % 97 == 3)
			check_slow_sum += r;
		check_slow_sum ^= r << 1;
		if (r % 13 == 1)
			printf("%ld\n", r);
		if (r % 17 == 1)
			printf("x%ld\n", r);
		if (r % 19 == 1)
			printf("y%ld\n", r);
	}
	return r + check_slow_sum;
}

template <class M> __attribute__((noinline)) M build(const std::string &key, int n, int step)
{
	M m;
	for (int i = 0; i < n; i += step)
		m[key].push_back({ i, i * 0.5 });
	return m;
}
using Big = std::map<std::string, std::vector<std::pair<int, double> > >;
} // namespace ns

volatile int variable_k = 5;

__attribute__((noinline)) long checked_plus_one(long x)
{
	HIT(checked_plus_one);
	if (x + 1 >= 1000)
		HIT(check); /* check.part.0 is called */
	return ns::check(x + 1);
}

int main(int argc, char **argv)
{
	HIT(main);
	(void)argv;
	ns::S s = {};
	for (int i = 0; i < 16; i++)
		s.a[i] = i + argc;
	s.weight = argc;
	long acc = 0;
	for (int i = 0; i < 7; i++, HIT(scale))
		acc += ns::scale(s, 3);
	HIT(scale);
	acc += ns::scale(s, variable_k);
	for (int i = 0; i < 5; i++, HIT(total))
		acc += ns::total(s, i);
	for (long x = 990; x < 1010; x++) {
		if (x * argc >= 1000)
			HIT(check);
		acc += ns::check(x * argc) + checked_plus_one(x);
	}
	for (int i = 0; i < 4; i++, HIT(build))
		acc += (long)ns::build<ns::Big>("key", 10 + i, 1).size();
	return acc == 42 ? 1 : 0;
}
