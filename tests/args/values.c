/* Arguments and return values of every kind, for record -a: values.expect
 * has the replay lines each call must give, whatever the compiler, the
 * optimisation level or the tracing method. Every function is external and
 * kept out of line with its ABI untouched (noipa), so what DWARF says is what
 * the registers hold. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__clang__)
#define KEEP __attribute__((noinline, used))
#else
#define KEEP __attribute__((noinline, noipa, used))
#endif

enum color { RED, GREEN = 5, BLUE };
struct pt {
	int x, y;
};
struct big {
	long a, b, c, d;
};
struct mixed {
	int i;
	double d;
};

volatile long sink;

KEEP long add(long a, int b) { return a + b; }
KEEP int64_t extremes(int64_t lo, uint64_t hi) { sink = (long)hi; return lo; }
KEEP short narrow(short s, signed char c, unsigned char u) { return (short)(s + c + u); }
KEEP bool flip(bool b) { return !b; }
KEEP char upper(char c) { return c >= 'a' && c <= 'z' ? (char)(c - 32) : c; }
KEEP enum color pick(int i) { return i ? GREEN : RED; }
KEEP double scale(double x, float f) { return x * f; }
KEEP int check(const char *s) { return s ? 1 : 0; }
KEEP int norm(struct pt p) { return p.x * p.x + p.y * p.y; }
KEEP long total(struct big b) { return b.a + b.b + b.c + b.d; }
KEEP double blend(struct mixed m) { return m.i + m.d; }
KEEP long many(long a, long b, long c, long d, long e, long f, long g, long h)
{
	return a + b + c + d + e + f + g + h;
}
KEEP int vsum(int n, ...)
{
	va_list ap;
	int s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}
KEEP const char *name_of(int i) { return i == 2 ? "two" : "other"; }
KEEP struct pt mkpt(int x, int y) { struct pt p = { x, y }; return p; }
KEEP void nothing(void) { sink++; }
KEEP unsigned long long hex_me(void *p)
{
	sink++; /* long enough to patch at -O2 */
	return (unsigned long long)(uintptr_t)p;
}

int main(void)
{
	struct pt p = { 3, -4 };
	struct big b = { 1, 2, 3, 4 };
	struct mixed m = { 2, 0.5 };
	static const char longer[] =
		"0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz";

	sink = add(-5, 7);
	sink = extremes(INT64_MIN, UINT64_MAX);
	sink = narrow(-300, -7, 200);
	sink = flip(true);
	sink = upper('a') + upper('\n');
	sink = pick(1);
	sink = (long)scale(1.5, 2.0f);
	sink = check("hello") + check("") + check(NULL) + check((const char *)16);
	sink = check("tab\there \"quoted\"\n") + check(longer);
	sink = norm(p);
	sink = total(b);
	sink = (long)blend(m);
	sink = many(1, 2, 3, 4, 5, 6, 7, -8);
	sink = vsum(3, 10, 20, 30);
	sink = (long)name_of(2)[0];
	sink = mkpt(1, 2).y;
	nothing();
	sink = (long)hex_me((void *)0x1234);
	printf("done\n");
	return 0;
}
