/* SPDX-License-Identifier: MIT */
/*
 * Signatures for tests/protos: every kind of parameter and return value the
 * SysV x86-64 ABI passes differently. sigs.protos has the prototype each
 * must get from its DWARF, the same for gcc and clang, -O0 and -O2. The
 * functions are kept out of line, unchanged, and called once each.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __clang__
#define KEEP __attribute__((noinline, used))
#else
#define KEEP __attribute__((noinline, noclone, used))
#endif

static volatile long sink;
static volatile double dsink;

enum color { RED, GREEN = 5, BLUE };
enum sign { NEG = -2, ZERO = 0, POS = 2 };
struct pt {
	int x, y;
};
struct vec2 {
	double x, y;
};
struct mixed {
	double d;
	long l;
};
struct intfloat {
	int i;
	float f;
};
struct floats3 {
	float a, b, c;
};
struct two_longs {
	long a, b;
};
struct big {
	long a[4];
};
struct named {
	const char *name;
	int id;
};
struct colored {
	enum color c;
	short n;
};
struct ldwrap {
	long double v;
};
struct __attribute__((packed)) packed {
	char c;
	int i;
};
struct bits {
	unsigned a : 3, b : 5;
};
struct arr {
	char name[8];
};
union num {
	int i;
	float f;
};
enum mode {
	MODE_READ_ONLY = 1,
	MODE_WRITE_ONLY = 2,
	MODE_READ_WRITE = 3,
	MODE_APPEND_AT_END = 8,
	MODE_CREATE_IF_MISSING = 16,
	MODE_TRUNCATE_EXISTING = 32,
};
struct opened {
	enum mode how;
	int fd;
};
/* enumerators that do not all fit in a prototype's text */
#define E10(p) p##0, p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8, p##9
enum longe {
	E10(A_RATHER_LONG_ENUMERATOR_NAME_),
	E10(B_RATHER_LONG_ENUMERATOR_NAME_),
	E10(C_RATHER_LONG_ENUMERATOR_NAME_),
	E10(D_RATHER_LONG_ENUMERATOR_NAME_),
	E10(E_RATHER_LONG_ENUMERATOR_NAME_),
};

KEEP void v_void(void)
{
	sink++;
}

KEEP int ints(signed char a, short b, int c, long d, long long e, unsigned char f)
{
	return (int)(a + b + c + d + e + f);
}

KEEP unsigned long uints(unsigned short a, unsigned int b, unsigned long c, size_t d)
{
	return a + b + c + d;
}

KEEP bool boolchar(bool b, char c)
{
	return b && c;
}

KEEP char retchar(int i)
{
	return (char)('a' + i);
}

KEEP enum color enums(enum color c, enum sign s)
{
	sink += s;
	return c;
}

KEEP int ptrs(void *p, int *q, const char *s, char *t, unsigned char *u, const void *v,
	      int (*fn)(int))
{
	return (p != q) + (s != t) + ((const void *)u != v) + (fn != NULL);
}

KEEP const char *retstr(int i)
{
	return i ? "yes" : "no";
}

KEEP double floats(double a, float b, long double c, double d)
{
	return a + b + (double)c + d;
}

KEEP long double retld(long double x)
{
	return x * 2;
}

KEEP float retfloat(float x, int n)
{
	return x * (float)n;
}

KEEP struct pt pts(struct pt a, struct pt b)
{
	struct pt r = { a.x + b.x, a.y + b.y };
	return r;
}

KEEP struct vec2 vecs(struct vec2 a, struct vec2 b)
{
	struct vec2 r = { a.x + b.x, a.y + b.y };
	return r;
}

KEEP struct mixed mixeds(struct mixed m, struct intfloat f, struct floats3 g)
{
	m.d += f.f + g.a + g.b + g.c;
	m.l += f.i;
	return m;
}

KEEP long bigs(int a, struct big b, int c)
{
	return a + b.a[0] + b.a[3] + c;
}

KEEP struct big retbig(int a)
{
	struct big b = { { a, a, a, a } };
	return b;
}

KEEP struct pt retsmall(int a)
{
	struct pt p = { a, -a };
	return p;
}

KEEP long many_ints(int a, int b, int c, int d, int e, int f, int g, long h)
{
	return a + b + c + d + e + f + g + h;
}

KEEP double many_doubles(double a, double b, double c, double d, double e, double f, double g,
			 double h, double i, float j)
{
	return a + b + c + d + e + f + g + h + i + j;
}

/* the struct needs two integer registers, one is left: it goes on the stack, f takes r5 */
KEEP long split(long a, long b, long c, long d, long e, struct two_longs s, long f)
{
	return a + b + c + d + e + s.a + s.b + f;
}

KEEP int variadic(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = va_arg(ap, int);
	va_end(ap);
	return n + (fmt != NULL);
}

KEEP static int st_add(int a, int b)
{
	return a + b;
}

KEEP static double st_scale(double x, short k)
{
	return x * k;
}

KEEP __int128 wide(__int128 a, unsigned __int128 b)
{
	return a + (__int128)b;
}

KEEP int unions(union num n, struct bits b, struct arr a, struct named nm, struct colored c)
{
	return n.i + b.a + b.b + a.name[0] + nm.id + c.n;
}

KEEP struct ldwrap lds(struct ldwrap w, struct packed p, int after)
{
	w.v += p.i + after;
	return w;
}

KEEP double complexes(double _Complex z, float _Complex w)
{
	return __real__ z + __imag__ w;
}

/* 26 parameters: the prototype keeps the first 24 */
KEEP long lots(long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8, long a9,
	       long a10, long a11, long a12, long a13, long a14, long a15, long a16, long a17,
	       long a18, long a19, long a20, long a21, long a22, long a23, long a24, long a25,
	       long a26)
{
	return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15 +
	       a16 + a17 + a18 + a19 + a20 + a21 + a22 + a23 + a24 + a25 + a26;
}

/* each parameter's text takes over 1000 bytes: the prototype keeps the first three */
KEEP int long_enums(enum longe a, enum longe b, enum longe c, enum longe d, enum longe e)
{
	return (int)(a + b + c + d + e);
}

/* a struct's description longer than a line, a name longer than most */
KEEP int
opens(struct opened o,
      int a_parameter_name_that_goes_on_and_on_well_past_what_anyone_would_write_by_hand_but_a_generator_might_write_for_its_own_reasons_x)
{
	return (int)o.how + o.fd +
	       a_parameter_name_that_goes_on_and_on_well_past_what_anyone_would_write_by_hand_but_a_generator_might_write_for_its_own_reasons_x;
}

/* an old-style definition: a float argument is passed as a double */
KEEP int kr(x, f)
int x;
float f;
{
	return x + (int)f;
}

static int twice(int x)
{
	return 2 * x;
}

int main(void)
{
	struct pt p = { 1, 2 };
	struct vec2 v = { 1.5, 2.5 };
	struct mixed m = { 1.0, 2 };
	struct intfloat ifl = { 3, 4.0f };
	struct floats3 f3 = { 1, 2, 3 };
	struct two_longs tl = { 1, 2 };
	struct big b = { { 1, 2, 3, 4 } };
	struct named nm = { "n", 7 };
	struct colored col = { BLUE, 3 };
	struct ldwrap ld = { 1.5L };
	struct packed pk = { 'x', 9 };
	struct bits bt = { 1, 2 };
	struct arr ar = { "abc" };
	union num un = { 5 };
	char buf[4] = "abc";
	int i = 1;

	v_void();
	sink += ints(-1, -2, -3, -4, -5, 6) + (long)uints(1, 2, 3, 4);
	sink += boolchar(true, 'c') + retchar(1) + enums(GREEN, NEG);
	sink += ptrs(&i, &i, "s", buf, (unsigned char *)buf, buf, twice) + (retstr(1) != NULL);
	dsink += floats(1.0, 2.0f, 3.0L, 4.0) + (double)retld(2.0L) + retfloat(1.5f, 2);
	sink += pts(p, p).x + retsmall(3).y + retbig(4).a[2] + bigs(1, b, 2);
	dsink += vecs(v, v).y + mixeds(m, ifl, f3).d;
	sink += many_ints(1, 2, 3, 4, 5, 6, 7, 8) + split(1, 2, 3, 4, 5, tl, 6);
	dsink += many_doubles(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
	sink += variadic("%d", 3) + st_add(1, 2) + (long)st_scale(2.0, 3);
	sink += (long)wide(-1, 2) + unions(un, bt, ar, nm, col);
	dsink += (double)lds(ld, pk, 1).v + complexes(1.0 + 2.0i, 3.0f);
	sink += lots(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
		     23, 24, 25, 26);
	sink += kr(1, 2.0f);
	sink += opens((struct opened){ MODE_APPEND_AT_END, 3 }, 4);
	sink += long_enums(A_RATHER_LONG_ENUMERATOR_NAME_0, B_RATHER_LONG_ENUMERATOR_NAME_1,
			   C_RATHER_LONG_ENUMERATOR_NAME_2, D_RATHER_LONG_ENUMERATOR_NAME_3,
			   E_RATHER_LONG_ENUMERATOR_NAME_4);
	return 0;
}
