/* The exec'd side: static, or setuid root. */
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) int leaf(void)
{
	return 1;
}
int main(void)
{
	leaf();
	printf("child ran euid=%d\n", (int)geteuid());
	return 0;
}
