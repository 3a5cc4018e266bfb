/* SPDX-License-Identifier: MIT */
/* The project's own templates: a function template and a class template. */
#ifndef STATS_H
#define STATS_H

#include <vector>

#include "counts.h"

template <typename T> struct SumId;
template <> struct SumId<int> {
	enum { id = F_SUM_INT };
};
template <> struct SumId<double> {
	enum { id = F_SUM_DOUBLE };
};

template <typename T> __attribute__((noinline)) T sum_of(const std::vector<T> &v)
{
	T s = T();

	COUNT(SumId<T>::id);
	for (const T &x : v)
		s += x;
	return s;
}

/* Only Accum<int> is used: its counters say so. */
template <typename T> class Accum {
public:
	__attribute__((noinline)) Accum() : total_()
	{
		COUNT(F_ACCUM_INT_CTOR);
	}
	__attribute__((noinline)) void add(T x)
	{
		COUNT(F_ACCUM_INT_ADD);
		total_ += x;
	}
	__attribute__((noinline)) T total() const
	{
		COUNT(F_ACCUM_INT_TOTAL);
		return total_;
	}

private:
	T total_;
};

#endif
