// SPDX-License-Identifier: MIT
// Exceptions thrown inside the C++ library (std::stoi, vector::at) and
// caught in the program: the library call that threw closes where the
// exception left it, and the next call is back at the catcher's depth.
// Prints "name count" for the calls it makes.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

static int n_parse, n_fetch, n_caught, n_after;

NOINLINE static int parse(const std::string &s)
{
	n_parse++;
	return std::stoi(s); // strtol, then std::__throw_invalid_argument from libstdc++
}

NOINLINE static int fetch(const std::vector<int> &v, size_t i)
{
	n_fetch++;
	return v.at(i); // std::__throw_out_of_range_fmt from libstdc++
}

NOINLINE static void after(int x)
{
	n_after++;
	if (x == -12345)
		std::puts("never");
}

int main()
{
	const int rounds = 3;
	std::vector<int> v(4, 1);
	long sum = 0;
	for (int i = 0; i < rounds; i++) {
		try {
			sum += parse(i % 2 ? "x12" : "12");
			sum += fetch(v, 10);
		} catch (const std::invalid_argument &) {
			n_caught++;
		} catch (const std::out_of_range &) {
			n_caught++;
		}
		after(i);
	}
	std::printf("main 1\nparse %d\nfetch %d\nafter %d\n", n_parse, n_fetch, n_after);
	std::printf("# caught %d, sum %ld\n", n_caught, sum);
	return 0;
}
