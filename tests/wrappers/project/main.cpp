// SPDX-License-Identifier: MIT
/*
 * The wrappers' test project: C++ (STL containers and algorithms, a class,
 * templates of its own) and C. It prints what it computed, then the call
 * counts of its functions (see counts.h) for the test to compare with the
 * trace. Every object lives in run(), so every destructor has run by then.
 */
#include <cstdio>
#include <string>
#include <vector>

#include "counts.h"
#include "inventory.h"
#include "stats.h"

static const char *const names[F_COUNT] = {
	"main",
	"run",
	"fill",
	"shop::by_length",
	"shop::Inventory::add",
	"shop::Inventory::total",
	"shop::Inventory::names_by_length",
	"shop::Inventory::size",
	"shop::Inventory::Inventory",
	"shop::Inventory::~Inventory",
	"sum_of<int>",
	"sum_of<double>",
	"Accum<int>::Accum",
	"Accum<int>::add",
	"Accum<int>::total",
	"checksum",
	"mix",
};

static __attribute__((noinline)) void fill(shop::Inventory &inv, int round)
{
	static const char *const items[] = { "apple", "kiwi", "banana", "fig",
					     "cherry", "date", "elderberry", "grape" };

	COUNT(F_FILL);
	for (int i = 0; i < 8; i++)
		inv.add(items[(i * 3 + round) % 8], i + round);
}

static __attribute__((noinline)) void run()
{
	shop::Inventory inv;
	std::vector<int> ints;
	std::vector<double> reals;
	Accum<int> acc;
	unsigned sum = 0;

	COUNT(F_RUN);
	for (int round = 0; round < 3; round++)
		fill(inv, round);
	for (const std::string &n : inv.names_by_length()) {
		sum += checksum(n.c_str());
		ints.push_back((int)n.size());
		reals.push_back(n.size() / 2.0);
		acc.add((int)n.size());
	}
	std::printf("items %zu total %d sum %d %.1f acc %d checksum %08x\n", inv.size(),
		    inv.total(), sum_of(ints), sum_of(reals), acc.total(), sum);
}

int main()
{
	COUNT(F_MAIN);
	run();
	for (int i = 0; i < F_COUNT; i++)
		std::printf("count %s %lu\n", names[i], calls[i]);
	return 0;
}
