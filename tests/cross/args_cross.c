/*
 * record -a on the target: integer, floating-point and string arguments,
 * return values, and what AAPCS64 places its own way: x6/x7, arguments
 * past the registers on the stack, structures in one or two x registers,
 * HFAs in v registers (two floats, four doubles), a structure of more than
 * 16 bytes through a pointer (and returned through x8), long double as a
 * quad in a q register, and a mix of them. tests/cross/check.sh expects the
 * values written before each call.
 */
#include <stdio.h>

#define KEEP __attribute__((noinline, noipa))

struct s8 {
	int x, y;
};
struct s16 {
	long a, b;
};
struct s24 {
	long a, b, c;
};
struct hfa2f {
	float a, b;
};
struct hfa4d {
	double a, b, c, d;
};

KEEP double mix(int a, long b, double c, const char *s)
{
	return a + b + c + s[0];
}

KEEP int add(int x, int y)
{
	return x + y;
}

KEEP int eight(int a, int b, int c, int d, int e, int f, int g, int h)
{
	return a + b + c + d + e + f + g + h;
}

KEEP long ten(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j)
{
	return a + b + c + d + e + f + g + h + i + j;
}

KEEP struct s8 swap8(struct s8 s)
{
	return (struct s8){ s.y, s.x };
}

KEEP struct s16 twice16(int k, struct s16 s)
{
	return (struct s16){ s.a * k, s.b * k };
}

KEEP long sum24(struct s24 s)
{
	return s.a + s.b + s.c;
}

KEEP struct s24 make24(long v)
{
	return (struct s24){ v, v + 1, v + 2 };
}

KEEP float hfa2(struct hfa2f h)
{
	return h.a * h.b;
}

KEEP struct hfa4d hfa4(struct hfa4d h, double k)
{
	return (struct hfa4d){ h.a * k, h.b * k, h.c * k, h.d * k };
}

KEEP long double quad(long double x, int n)
{
	return x * n;
}

KEEP double mixed(int a, struct hfa2f h, double d, struct s16 s, char c, long double q, float f)
{
	return a + h.a + h.b + d + (double)(s.a + s.b) + c + (double)q + f;
}

/* the vector registers run out: the last double goes on the stack */
KEEP double nine_doubles(double a, double b, double c, double d, double e, double f, double g,
			 double h, double i)
{
	return a + b + c + d + e + f + g + h + i;
}

/*
 * Each "want:" is text the replay of an aarch64 trace must have (check.sh
 * greps for it); a function with calls of its own (libgcc's quad
 * arithmetic, traced by dynamic patching) shows its value on a line apart.
 */
int main(void)
{
	/* want: swap8(s={x=1, y=2}) = {x=2, y=1}; */
	struct s8 s = swap8((struct s8){ 1, 2 });
	/* want: twice16(k=3, s={a=10, b=20}) = {a=30, b=60}; */
	struct s16 t = twice16(3, (struct s16){ 10, 20 });
	/* want: make24(v=100); */
	struct s24 u = make24(100);
	/* want: hfa4(h={a=1.5, b=2.5, c=3.5, d=4.5}, k=2) = {a=3, b=5, c=7, d=9}; */
	struct hfa4d h = hfa4((struct hfa4d){ 1.5, 2.5, 3.5, 4.5 }, 2.0);
	/* want: quad(x=1.25, n=3) */
	/* want: = 3.75 */
	long double q = quad(1.25L, 3);

	/* want: mix(a=1, b=2, c=3.5, s="A") = 71.5; */
	/* want: add(x=40, y=2) = 42; */
	printf("%g %d\n", mix(1, 2, 3.5, "A"), add(40, 2));
	/* want: eight(a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8) = 36; */
	/* want: ten(a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9, j=10) = 55; */
	printf("%d %ld\n", eight(1, 2, 3, 4, 5, 6, 7, 8), ten(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
	/* want: sum24(s=0x */
	/* want: ) = 303; */
	printf("%d %d %ld %ld %ld %ld\n", s.x, s.y, t.a, t.b, sum24(u), u.c);
	/* want: hfa2(h={a=1.5, b=4}) = 6; */
	printf("%g %g %g %Lg\n", hfa2((struct hfa2f){ 1.5f, 4.0f }), h.a, h.d, q);
	/* want: mixed(a=1, h={a=0.5, b=0.25}, d=2, s={a=3, b=4}, c='x', q=0.125, f=8) */
	/* want: = 138.875 */
	printf("%g\n", mixed(1, (struct hfa2f){ 0.5f, 0.25f }, 2.0, (struct s16){ 3, 4 }, 'x',
			     0.125L, 8.0f));
	/* want: nine_doubles(a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9.5) = 45.5; */
	printf("%g\n", nine_doubles(1, 2, 3, 4, 5, 6, 7, 8, 9.5));
	/* all 113 bits: 36 digits to read back */
	/* want: quad(x=0.333333333333333333333333333333333317, n=1) */
	/* want: = 0.333333333333333333333333333333333317 */
	printf("%Lg\n", quad(1.0L / 3, 1));
	return 0;
}
