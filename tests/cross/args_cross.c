/* record -a on the target: integer, floating-point and string arguments, return values. */
#include <stdio.h>

__attribute__((noinline)) double mix(int a, long b, double c, const char *s)
{
	return a + b + c + s[0];
}

__attribute__((noinline)) int add(int x, int y)
{
	return x + y;
}

int main(void)
{
	printf("%g %d\n", mix(1, 2, 3.5, "A"), add(40, 2));
	return 0;
}
