/* Calls under way when calltrace attaches: main -> outer -> waiter sleeps; after the attach
 * waiter calls leafwork and they all return. The replay must show leafwork, then the returns
 * of waiter, outer and main as "entered before attach". Exits 0 if its result is right. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) long leafwork(long i)
{
	return i * 2;
}

__attribute__((noinline)) long waiter(int secs)
{
	sleep(secs);
	return leafwork(secs);
}

__attribute__((noinline)) long outer(int secs)
{
	long r = waiter(secs);
	return r + 1;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 1;
	long r = outer(secs);
	printf("r=%ld\n", r);
	return r != 2 * secs + 1;
}
