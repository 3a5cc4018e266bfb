// A C++ program that uses the standard library (std::vector, std::sort with
// a comparator of its own, std::string): the report also lists the inline
// library functions (std::*, __gnu_cxx::*), which the count check ignores;
// the program's own functions, called back from inside std::sort, must be
// counted exactly. No tree file: the number of comparisons depends on the
// library. (gcc also instruments the inline placement operator new.)
// Checks: exact counts.
//
// CT-IGNORE: ^operator (new|delete)(\[\])?$
#include <algorithm>
#include <string>
#include <vector>
#define FUNCS(X)                                                                                   \
	X(main, "main") X(by_len, "by_len") X(fill, "fill") X(Item_ctor, "Item::Item")               \
	X(Item_dtor, "Item::~Item") X(Item_assign, "Item::operator=")
#include "truth.h"

struct Item {
	NOINL explicit Item(int k);
	NOINL ~Item();
	// std::sort copies and moves: these are functions too (all named
	// Item::Item or Item::operator=), so they count themselves.
	NOINL Item(const Item &o);
	NOINL Item(Item &&o) noexcept;
	NOINL Item &operator=(const Item &o);
	NOINL Item &operator=(Item &&o) noexcept;
	std::string s;
};

Item::Item(const Item &o) : s(o.s)
{
	HIT(Item_ctor);
}

Item::Item(Item &&o) noexcept : s(std::move(o.s))
{
	HIT(Item_ctor);
}

Item &Item::operator=(const Item &o)
{
	HIT(Item_assign);
	s = o.s;
	return *this;
}

Item &Item::operator=(Item &&o) noexcept
{
	HIT(Item_assign);
	s = std::move(o.s);
	return *this;
}

Item::Item(int k) : s(std::string(k % 17 + 1, 'x'))
{
	HIT(Item_ctor);
}

Item::~Item()
{
	HIT(Item_dtor);
}

NOINL bool by_len(const Item &a, const Item &b)
{
	HIT(by_len);
	return a.s.size() < b.s.size();
}

NOINL void fill(std::vector<Item> &v, int n)
{
	HIT(fill);
	v.reserve(n);
	for (int i = 0; i < n; i++)
		v.emplace_back(i * 7);
}

int main()
{
	HIT(main);
	int ok = 1;
	{
		std::vector<Item> v;
		fill(v, 200);
		std::sort(v.begin(), v.end(), by_len);
		ok = v.front().s.size() == 1 && v.back().s.size() == 17;
	}
	printf("cxx_stl %s\n", ok ? "ok" : "WRONG");
	return ok ? 0 : 1;
}
