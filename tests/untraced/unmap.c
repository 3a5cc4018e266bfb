#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <pthread.h>
/* A sandboxing step: every shared mapping goes (or turns read-only), then work goes on. */
__attribute__((noinline)) int leaf(int x)
{
	return x * 2 + 1;
}
__attribute__((noinline)) int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}
static void *spin(void *a)
{
	(void)a;
	return (void *)(long)work(1000);
}
int main(int argc, char **argv)
{
	int protect = argc > 1 && !strcmp(argv[1], "protect");
	int threads = argc > 2;
	pthread_t th;
	if (threads)
		pthread_create(&th, NULL, spin, NULL);
	int before = work(100);
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && perms[3] == 's') {
			if (protect)
				mprotect((void *)lo, hi - lo, PROT_READ);
			else
				munmap((void *)lo, hi - lo);
			n++;
		}
	}
	if (f)
		fclose(f);
	int after = work(100000);
	if (threads)
		pthread_join(th, NULL);
	printf("before=%d after=%d\n", before, after);
	return 0;
}
