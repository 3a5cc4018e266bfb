// SPDX-License-Identifier: MIT
// At -O0 a std::lock_guard calls gthr-default.h's __gthread_mutex_lock,
// __gthread_mutex_unlock and __gthread_active_p, out-of-line copies of
// static inline functions declared in a system header (not std::): the
// recorder keeps them unpatched. bump() runs 5 times.
#include <cstdio>
#include <mutex>

static std::mutex m;
static int counter;

__attribute__((noinline)) void bump(int i)
{
	std::lock_guard<std::mutex> g(m);
	counter += i;
}

int main()
{
	for (int i = 0; i < 5; i++)
		bump(i);
	std::printf("%d\n", counter);
	return 0;
}
