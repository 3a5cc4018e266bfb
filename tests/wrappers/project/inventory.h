/* SPDX-License-Identifier: MIT */
/* A class with methods over std::map, std::string and std::vector. */
#ifndef INVENTORY_H
#define INVENTORY_H

#include <map>
#include <string>
#include <vector>

#include "counts.h"

namespace shop {

class Inventory {
public:
	Inventory();
	~Inventory();
	void add(const std::string &name, int qty);
	int total() const;
	std::vector<std::string> names_by_length() const;
	/* defined in the header: still the project's own function */
	__attribute__((noinline)) std::size_t size() const
	{
		COUNT(F_INV_SIZE);
		return items_.size();
	}

private:
	std::map<std::string, int> items_;
};

bool by_length(const std::string &a, const std::string &b);

} // namespace shop

#endif
