#include <pthread.h>
#include <stdio.h>
__attribute__((noinline)) static int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) static int rec(int n) { return n ? rec(n - 1) + leaf(n) : 0; }
static void *run(void *p)
{
	long s = 0;
	for (int i = 0; i < 50; i++)
		s += rec(10 + (int)(long)p);
	return (void *)s;
}
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, run, (void *)1);
	long a = (long)run(0);
	void *b;
	pthread_join(t, &b);
	printf("%ld\n", a + (long)b);
	return 0;
}
