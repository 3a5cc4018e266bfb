// SPDX-License-Identifier: MIT
#include <algorithm>

#include "inventory.h"

namespace shop {

Inventory::Inventory()
{
	COUNT(F_INV_CTOR);
}

Inventory::~Inventory()
{
	COUNT(F_INV_DTOR);
}

void Inventory::add(const std::string &name, int qty)
{
	COUNT(F_INV_ADD);
	items_[name] += qty;
}

int Inventory::total() const
{
	int t = 0;

	COUNT(F_INV_TOTAL);
	for (const auto &kv : items_)
		t += kv.second;
	return t;
}

/* A comparator called from inside std::sort: traced although std::sort is not. */
bool by_length(const std::string &a, const std::string &b)
{
	COUNT(F_BY_LENGTH);
	return a.size() != b.size() ? a.size() < b.size() : a < b;
}

std::vector<std::string> Inventory::names_by_length() const
{
	std::vector<std::string> names;

	COUNT(F_INV_NAMES);
	for (const auto &kv : items_)
		names.push_back(kv.first);
	std::sort(names.begin(), names.end(), by_length);
	return names;
}

} // namespace shop
