/* SPDX-License-Identifier: MIT */
/* Captured values as text (output/values.c), by the rules of each type of common/proto.h. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "unit.h"
#include "../../src/common/proto.h"
#include "../../src/output/values.h"
#include "../../src/output/values_int.h"

#define ELLIPSIS "\xe2\x80\xa6"

/* What a call captured: registers and stack words as given, no string. */
struct cap {
	uint64_t ints[6], sse[8], stack[16];
	struct ct_captured c;
};

static struct ct_captured *cap_init(struct cap *k, int nint, int nsse, int nstack)
{
	memset(&k->c, 0, sizeof(k->c));
	k->c.nint = (uint8_t)nint;
	k->c.nsse = (uint8_t)nsse;
	k->c.nstack = (uint8_t)nstack;
	k->c.ints = k->ints;
	k->c.sse = k->sse;
	k->c.stack = k->stack;
	return &k->c;
}

static uint64_t dbl(double d)
{
	uint64_t w;
	memcpy(&w, &d, 8);
	return w;
}

static uint64_t flt(float f)
{
	uint64_t w = 0xdeadbeef00000000ull; /* the upper half of the xmm register: not the value */
	memcpy(&w, &f, 4);
	return w;
}

typedef size_t (*format_fn)(const struct ct_proto *, const struct ct_captured *, char *, size_t);

/* fmt(proto, c) gives want, and says its length */
static void formats_as(format_fn fmt, const char *proto, const struct ct_captured *c,
		       const char *want)
{
	struct ct_proto p;
	char buf[1024];
	if (ct_proto_parse(proto, strlen(proto), &p)) {
		fprintf(stderr, "  does not parse: %s\n", proto);
		ct_unit_failed = 1;
		return;
	}
	size_t n = fmt(&p, c, buf, sizeof(buf));
	if (strcmp(buf, want) || n != strlen(buf)) {
		fprintf(stderr, "  %s\n    got  %s (%zu)\n    want %s\n", proto, buf, n, want);
		ct_unit_failed = 1;
	}
}

static void args_are(const char *proto, const struct ct_captured *c, const char *want)
{
	formats_as(ct_format_args, proto, c, want);
}

static void ret_is(const char *proto, const struct ct_captured *c, const char *want)
{
	formats_as(ct_format_retval, proto, c, want);
}

static void test_example(void)
{
	struct cap k;
	struct ct_captured *c = cap_init(&k, 3, 0, 0);
	k.ints[0] = 0x7ffd1000;
	k.ints[1] = 0xffffffff0000000c; /* an int: the upper half is not its */
	k.ints[2] = 0x101;		/* a bool: its low byte */
	c->strs = 1;
	c->str[0] = (struct ct_captured_str){ "key = \"v\"\n", 10, 0 };
	const char *proto = "line:s@r0,len:i4@r1,strict:b@r2|e4{PARSE_OK=0;PARSE_ERR=1}@r0";
	args_are(proto, c, "line=\"key = \\\"v\\\"\\n\", len=12, strict=true");
	cap_init(&k, 1, 0, 0);
	k.ints[0] = 0;
	ret_is(proto, c, "PARSE_OK");
	k.ints[0] = 1;
	ret_is(proto, c, "PARSE_ERR");
	k.ints[0] = 7;
	ret_is(proto, c, "7");
}

static void test_integers(void)
{
	struct cap k;
	struct ct_captured *c = cap_init(&k, 6, 0, 2);
	k.ints[0] = 0xff;
	k.ints[1] = 0x12348000;
	k.ints[2] = 0x12345678ffffffff;
	k.ints[3] = (uint64_t)INT64_MIN;
	k.ints[4] = UINT64_MAX;
	k.ints[5] = 0xdeadbeefffffffff;
	k.stack[0] = 0x7fffffff;
	k.stack[1] = 0xffff;
	args_are("a:i1@r0,b:i2@r1,c:i4@r2,d:i8@r3,e:u8@r4,f:u4@r5,g:i4@s0,h:u2@s1|", c,
		 "a=-1, b=-32768, c=-1, d=-9223372036854775808, e=18446744073709551615, "
		 "f=4294967295, g=2147483647, h=65535");
	k.ints[0] = 0x80;
	k.ints[1] = 0x80;
	k.ints[2] = (uint64_t)INT64_MAX;
	k.ints[3] = 0;
	args_are("a:i1@r0,b:u1@r1,c:i8@r2,d:i4@r3|", c,
		 "a=-128, b=128, c=9223372036854775807, d=0");
	/* 128 bits */
	k.ints[0] = UINT64_MAX;
	k.ints[1] = UINT64_MAX;
	k.ints[2] = 0;
	k.ints[3] = 1;
	k.ints[4] = 0;
	k.ints[5] = 0x8000000000000000;
	args_are("a:i16@r0+r1,b:u16@r2+r3,c:i16@r4+r5,d:u16@r0+r1|", c,
		 "a=-1, b=18446744073709551616, c=-170141183460469231731687303715884105728, "
		 "d=340282366920938463463374607431768211455");
	/* the same in rax, rdx at return */
	ret_is("|i16@r0+r1", c, "-1");
}

static void test_bool_char(void)
{
	struct cap k;
	struct ct_captured *c = cap_init(&k, 6, 0, 0);
	k.ints[0] = 0x100; /* only the low byte is the bool */
	k.ints[1] = 2;
	k.ints[2] = 'a';
	k.ints[3] = '\n';
	k.ints[4] = 0;
	k.ints[5] = 0x7f;
	args_are("a:b@r0,b:b@r1,c:c@r2,d:c@r3,e:c@r4,f:c@r5|", c,
		 "a=false, b=true, c='a', d='\\n', e='\\0', f='\\x7f'");
	k.ints[0] = '\'';
	k.ints[1] = '"';
	k.ints[2] = '\\';
	k.ints[3] = 0xe9;
	k.ints[4] = 0x4141 + ('\t' - 0x41); /* low byte: a tab */
	k.ints[5] = ' ';
	args_are("a:c@r0,b:c@r1,c:c@r2,d:c@r3,e:c@r4,f:c@r5|", c,
		 "a='\\'', b='\"', c='\\\\', d='\\xe9', e='\\t', f=' '");
	cap_init(&k, 1, 0, 0);
	k.ints[0] = 0xff00;
	ret_is("|b@r0", c, "false");
	k.ints[0] = 1;
	ret_is("|b@r0", c, "true");
}

static void test_enums(void)
{
	struct cap k;
	struct ct_captured *c = cap_init(&k, 5, 0, 0);
	k.ints[0] = 5;
	k.ints[1] = 0xfffffffe; /* -2 in an e4 */
	k.ints[2] = 0xfffffffb;
	k.ints[3] = 0x1234567800000003; /* not an enumerator: the number */
	k.ints[4] = 0xff;
	args_are("e:e4{RED=0;GREEN=5;BLUE=6}@r0,s:e4{NEG=-2;ZERO=0}@r1,t:e4{NEG=-2;ZERO=0}@r2,"
		 "u:e4{A=1;B=2;C=4}@r3,w:e1{X=255}@r4|",
		 c, "e=GREEN, s=NEG, t=-5, u=3, w=X");
	k.ints[0] = 0x80000000;
	args_are("e:e4{HIGH=2147483648}@r0|", c, "e=HIGH");
	k.ints[0] = 0x80000001;
	args_are("e:e4{HIGH=2147483648}@r0|", c, "e=2147483649");
	args_are("e:e4{}@r0|", c, "e=2147483649"); /* enumerators cut away */
}

static void test_pointers(void)
{
	struct cap k;
	struct ct_captured *c = cap_init(&k, 3, 0, 1);
	k.ints[0] = 0x55d0c3a0;
	k.ints[1] = 0;
	k.ints[2] = 0xffffffffffffffff;
	k.stack[0] = 0x7ffc0010;
	args_are("p:p@r0,q:p@r1,r:p@r2,s:p@s0|p@r0", c,
		 "p=0x55d0c3a0, q=NULL, r=0xffffffffffffffff, s=0x7ffc0010");
	cap_init(&k, 1, 0, 0);
	k.ints[0] = UINT64_MAX;
	ret_is("|p@r0", c, "0xffffffffffffffff");
}

static void test_strings(void)
{
	struct cap k;
	struct ct_captured *c = cap_init(&k, 6, 0, 1);
	for (int i = 0; i < 6; i++)
		k.ints[i] = 0x5000 + (uint64_t)i;
	k.ints[2] = 0;
	k.stack[0] = 0x6000;
	c->strs = 0x1f;
	c->str[0] = (struct ct_captured_str){ "hello", 5, 0 };
	c->str[1] = (struct ct_captured_str){ "", 0, 0 };
	c->str[2] = (struct ct_captured_str){ NULL, 0, CT_STR_NULL };
	c->str[3] = (struct ct_captured_str){ NULL, 0, CT_STR_UNREADABLE };
	c->str[4] = (struct ct_captured_str){ "abcdef", 3, CT_STR_CUT };
	/* r5 has no string captured; nor has a stack word */
	args_are("a:s@r0,b:s@r1,c:s@r2,d:s@r3,e:s@r4,f:s@r5,g:s@s0|", c,
		 "a=\"hello\", b=\"\", c=NULL, d=0x5003, e=\"abc\"" ELLIPSIS
		 ", f=0x5005, g=0x6000");
	c->strs = 1;
	c->str[0] = (struct ct_captured_str){ "a\"b\\c\n\t\x01\xff\0z", 11, 0 };
	args_are("s:s@r0|", c, "s=\"a\\\"b\\\\c\\n\\t\\x01\\xff\\0z\"");
	/* UTF-8 passes through; broken, overlong or cut sequences do not */
	c->str[0] = (struct ct_captured_str){ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, 0 };
	args_are("s:s@r0|", c, "s=\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	c->str[0] = (struct ct_captured_str){ "\xc3(\xc0\x80\xed\xa0\x80\xe2\x82", 9, CT_STR_CUT };
	args_are("s:s@r0|", c, "s=\"\\xc3(\\xc0\\x80\\xed\\xa0\\x80\\xe2\\x82\"" ELLIPSIS);
	/* the string a function returned */
	cap_init(&k, 1, 0, 0);
	k.ints[0] = 0x4000;
	c->strs = 1;
	c->str[0] = (struct ct_captured_str){ "yes", 3, 0 };
	ret_is("|s@r0", c, "\"yes\"");
	c->str[0] = (struct ct_captured_str){ NULL, 0, CT_STR_NULL };
	k.ints[0] = 0;
	ret_is("|s@r0", c, "NULL");
}

static void test_floats(void)
{
	struct cap k;
	struct ct_captured *c = cap_init(&k, 0, 8, 4);
	long double ld = 1.5L, third = 1.0L / 3;
	k.sse[0] = dbl(0.1);
	k.sse[1] = flt(1.5f);
	k.sse[2] = dbl(1.0 / 3);
	k.sse[3] = dbl(-0.0);
	k.sse[4] = flt(0.1f);
	k.sse[5] = dbl(1e300);
	k.sse[6] = dbl(INFINITY);
	k.sse[7] = dbl(NAN);
	memset(k.stack, 0xee, sizeof(k.stack)); /* the 6 bytes past the 80 bits are not the value */
	memcpy(&k.stack[0], &ld, 10);
	memcpy(&k.stack[2], &third, 10);
	args_are("a:f8@x0,b:f4@x1,c:f8@x2,d:f8@x3,e:f4@x4,f:f8@x5,g:f8@x6,h:f8@x7,"
		 "i:f16@s0+s1,j:f16@s2+s3|",
		 c,
		 "a=0.1, b=1.5, c=0.3333333333333333, d=-0, e=0.1, f=1e+300, g=inf, h=nan, "
		 "i=1.5, j=0.33333333333333333334");
	k.sse[0] = dbl(-INFINITY);
	k.sse[1] = flt(3.4028234663852886e38f);
	k.sse[2] = dbl(123456789.0);
	k.sse[3] = 0x3c00; /* _Float16 1.0 */
	args_are("a:f8@x0,b:f4@x1,c:f8@x2,d:f2@x3|", c,
		 "a=-inf, b=3.40282347e+38, c=123456789, d=1");
	k.sse[1] = dbl(123456789.0);
	ret_is("|f8@x1", c, "123456789");
	ret_is("|f16@m", c, "");
}

static void test_structs(void)
{
	struct cap k;
	struct ct_captured *c = cap_init(&k, 3, 1, 6);
	int32_t xy[2] = { 1, -2 };
	memcpy(&k.ints[0], xy, 8);
	k.sse[0] = dbl(2.5);
	k.ints[1] = 7;
	k.ints[2] = 0x0004000000000006; /* {c=BLUE, n=4} */
	long double ld = -0.5L;
	memcpy(&k.stack[4], &ld, 10);
	args_are("a:S8{x:i4+0;y:i4+4}@r0,b:S16{d:f8+0;l:i8+8}@x0+r1,c:S32@s0,"
		 "d:S16{v:f16+0}@s4+s5,e:S1{}@m,f:S8@r2,g:S8{c:e4{RED=0;BLUE=6}+0;n:i2+6}@r2|",
		 c,
		 "a={x=1, y=-2}, b={d=2.5, l=7}, c={" ELLIPSIS "}, d={v=-0.5}, e={}, f={" ELLIPSIS
		 "}, g={c=BLUE, n=4}");
	/* a struct of floats and a union, each eightbyte in its register */
	struct {
		float a, b;
	} ab = { 1.25f, -3 };
	memcpy(&k.sse[0], &ab, 8);
	k.ints[0] = 0x3f800000;
	args_are("f:S8{a:f4+0;b:f4+4}@x0,u:S4{i:i4+0;f:f4+0}@r0|", c,
		 "f={a=1.25, b=-3}, u={i=1065353216, f=1}");
	/* returned in rax and xmm0 */
	cap_init(&k, 1, 1, 0);
	k.ints[0] = 42;
	k.sse[0] = dbl(0.5);
	ret_is("|S16{l:i8+0;d:f8+8}@r0+x0", c, "{l=42, d=0.5}");
	ret_is("|S32@m", c, "");
	/* a field past the bytes there are: "?" for it; and fields no prototype has */
	args_are("s:S8{x:i4+0;y:i4+8}@r0|", c, "s={x=42, y=?}");
	args_are("s:S16{a:f3+0;b:i12+0;c:e16+0;d:q+0;e:S4+0;f:i4+20;g:i8+9;h:f16+8}@r0+x0|", c,
		 "s={a=?, b=?, c=?, d=?, e={" ELLIPSIS "}, f=?, g=?, h=?}");
}

static void test_not_captured(void)
{
	struct cap k;
	struct ct_captured *c = cap_init(&k, 2, 1, 1);
	k.ints[0] = 1;
	k.ints[1] = 2;
	k.sse[0] = dbl(1);
	k.stack[0] = 3;
	args_are("a:i4@r0,b:i4@r3,c:f8@x0,d:f8@x1,e:i8@s0,f:i8@s1,g:S16{a:i8+0;b:i8+8}@r1+r2,"
		 "h:f16@s0+s1|",
		 c, "a=1, b=?, c=1, d=?, e=3, f=?, g=?, h=?");
	cap_init(&k, 0, 0, 0);
	ret_is("|i4@r0", c, "?");
	ret_is("|", c, "");
	k.c.ints = NULL; /* nothing at all: no register is read */
	args_are("a:i4@r0|", c, "a=?");
}

static void test_variadic(void)
{
	struct cap k;
	struct ct_captured *c = cap_init(&k, 1, 0, 0);
	k.ints[0] = 0x1000;
	c->strs = 1;
	c->str[0] = (struct ct_captured_str){ "%d", 2, 0 };
	args_are("fmt:s@r0,...|i4@r0", c, "fmt=\"%d\", ...");
	args_are("...|", c, "...");
	args_are("|", c, "");
}

/* Valid UTF-8 up to its end. */
static int utf8_whole(const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		unsigned char ch = (unsigned char)s[i];
		size_t l = ch < 0x80 ? 1 : ch >= 0xf0 ? 4 : ch >= 0xe0 ? 3 : 2;
		if (i + l > n)
			return 0;
		i += l;
	}
	return 1;
}

static void test_cut_buffers(void)
{
	struct cap k;
	struct ct_proto p;
	struct ct_captured *c = cap_init(&k, 3, 0, 0);
	const char *proto = "s:s@r0,t:s@r1,n:i8@r2,...|";
	char full[256], buf[256];
	k.ints[0] = 1;
	k.ints[1] = 2;
	k.ints[2] = (uint64_t)-123456;
	c->strs = 3;
	c->str[0] = (struct ct_captured_str){ "\xc3\xa9t\xc3\xa9", 5, CT_STR_CUT };
	c->str[1] = (struct ct_captured_str){ "\n\x01", 2, 0 };
	CHECK(ct_proto_parse(proto, strlen(proto), &p) == 0);
	size_t n = ct_format_args(&p, c, full, sizeof(full));
	CHECK(n == strlen(full) &&
	      !strcmp(full, "s=\"\xc3\xa9t\xc3\xa9\"" ELLIPSIS ", t=\"\\n\\x01\", n=-123456, ..."));
	for (size_t len = 0; len <= n + 1; len++) {
		memset(buf, 'Z', sizeof(buf));
		size_t m = ct_format_args(&p, c, buf, len);
		if (len == 0) {
			CHECK(m == 0 && buf[0] == 'Z'); /* nothing written at all */
			continue;
		}
		CHECK(m < len && m == strlen(buf) && (buf[m + 1] == 'Z' || m + 1 == len));
		CHECK(!strncmp(buf, full, m) && utf8_whole(buf));
		CHECK(len <= n ? m + 4 >= len - 1 : m == n); /* cut only to keep UTF-8 whole */
	}
	struct ct_pvalue v = p.params[2].v;
	CHECK(ct_format_value(&v, c, buf, 3) == 2 && !strcmp(buf, "-1"));
	CHECK(ct_format_retval(&p, c, buf, 1) == 0 && buf[0] == 0);
}

/* AAPCS64: x6 and x7, an HFA of floats (one v register each), long double whole in a q register. */
static void test_aapcs64(void)
{
	uint64_t ints[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, sse[16] = { 0 }, stack[2] = { 9, 10 };
	struct ct_captured c = { .nint = 8, .nsse = 8, .nstack = 2, .wide = 1 };
	c.ints = ints;
	c.sse = sse; /* wide: v n's low half at 2n, its high half at 2n + 1 */
	c.stack = stack;
	sse[0] = flt(1.5f);
	sse[2] = flt(4.0f);
	sse[5] = 0x3fff400000000000ull; /* binary128 1.25: v2 whole */
	sse[6] = 0x999999999999999aull; /* binary128 0.1 */
	sse[7] = 0x3ffb999999999999ull;
	args_are("a:i4@r0,b:i4@r6,c:i8@r7,d:i8@s1,h:S8{x:f4+0;y:f4+4}@w0+w1,q:F16@q2,r:F16@q3|", &c,
		 "a=1, b=7, c=8, d=10, h={x=1.5, y=4}, q=1.25, r=0.1");
	sse[0] = dbl(3.0);
	sse[2] = dbl(2.5);
	ret_is("|S32{a:f8+0;b:f8+8;c:f8+16;d:f8+24}@x0+x1+x0+x1", &c, "{a=3, b=2.5, c=3, d=2.5}");
	c.wide = 0; /* a q register needs both halves */
	args_are("q:F16@q2|", &c, "q=?");
}

/*
 * x87 long doubles by exact arithmetic (how a machine whose long double is
 * another writes them) as this one's printf and strtold do: the same text.
 */
static void test_x87_exact(void)
{
	static const long double v[] = { 1.5L,	   1.0L / 3,   0.1L, -2.5e-3L, 1e4000L,
					 1e-4000L, 3.6e-4951L, 1.0L, 4096.0L,  123456789.125L };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char a[128], b[128];
		uint8_t bytes[16] = { 0 };
		struct ct_vout oa = { a, sizeof(a), 0, 0 }, ob = { b, sizeof(b), 0, 0 };
		memcpy(bytes, &v[i], 10);
		a[0] = b[0] = 0;
		ct_vput_fp(&oa, bytes, 16);
		ct_vput_x87(&ob, bytes);
		if (strcmp(a, b)) {
			fprintf(stderr, "  %s: exact arithmetic writes %s\n", a, b);
			ct_unit_failed = 1;
		}
	}
}

int main(void)
{
	int failures = 0;
	RUN(test_example);
	RUN(test_integers);
	RUN(test_bool_char);
	RUN(test_enums);
	RUN(test_pointers);
	RUN(test_strings);
	RUN(test_floats);
	RUN(test_aapcs64);
#if defined(__x86_64__)
	RUN(test_x87_exact);
#endif
	RUN(test_structs);
	RUN(test_not_captured);
	RUN(test_variadic);
	RUN(test_cut_buffers);
	return failures != 0;
}
