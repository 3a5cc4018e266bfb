#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
/* Root's program becomes another user and execs itself: 100 calls before, 200 after. */
__attribute__((noinline)) int leaf(int x)
{
	return x + 1;
}
__attribute__((noinline)) int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child")) {
		printf("child uid=%d s=%d\n", (int)getuid(), work(200));
		return 0;
	}
	int closeall = argc > 1 && !strcmp(argv[1], "closeall");
	work(100);
	if (setgid(65534) || setuid(65534)) {
		perror("setuid");
		return 1;
	}
	if (closeall)
		syscall(SYS_close_range, 3, ~0u, 0);
	execl("/proc/self/exe", "usr", "child", (char *)NULL);
	perror("exec");
	return 1;
}
