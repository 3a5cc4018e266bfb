/* SPDX-License-Identifier: MIT */
/*
 * Prototype texts (common/proto.c): parsed, malformed ones refused without
 * reading past their end (texts are put against an unreadable page), what
 * a call must capture; and, fuzzed, the values shown (test_values.c has
 * those).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unit.h"
#include "../../src/common/proto.h"
#include "../../src/output/values.h"

/* ---- texts against a guard page: a read past their end faults ---------------------------- */

static char *guard_base;
static size_t guard_page;

static const char *guarded(const char *s, size_t len)
{
	if (!guard_base) {
		guard_page = (size_t)sysconf(_SC_PAGESIZE);
		guard_base = mmap(NULL, 2 * guard_page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (guard_base == MAP_FAILED ||
		    mprotect(guard_base + guard_page, guard_page, PROT_NONE))
			abort();
	}
	if (len > guard_page)
		abort();
	char *at = guard_base + guard_page - len;
	memcpy(at, s, len);
	return at;
}

static int parse(const char *s, struct ct_proto *p)
{
	return ct_proto_parse(guarded(s, strlen(s)), strlen(s), p);
}

static int name_is(const struct ct_param *a, const char *name)
{
	return a->name_len == strlen(name) && !memcmp(a->name, name, a->name_len);
}

static int body_is(const struct ct_pvalue *v, const char *body)
{
	return v->body && v->body_len == strlen(body) && !memcmp(v->body, body, v->body_len);
}

static void test_parse(void)
{
	struct ct_proto p;
	CHECK(parse("line:s@r0,len:i4@r1,strict:b@r2|e4{PARSE_OK=0;PARSE_ERR=1}@r0", &p) == 0);
	CHECK(p.nparams == 3 && !p.variadic);
	CHECK(name_is(&p.params[0], "line") && p.params[0].v.type == 's');
	CHECK(p.params[0].v.nlocs == 1 && p.params[0].v.locs[0].kind == 'r');
	CHECK(name_is(&p.params[1], "len") && p.params[1].v.type == 'i' && p.params[1].v.size == 4);
	CHECK(p.params[1].v.locs[0].n == 1 && p.params[2].v.type == 'b');
	CHECK(p.ret.type == 'e' && p.ret.size == 4 && body_is(&p.ret, "PARSE_OK=0;PARSE_ERR=1"));

	CHECK(parse("|", &p) == 0 && p.nparams == 0 && p.ret.type == 0 && !p.variadic);
	CHECK(parse("...|i4@r0", &p) == 0 && p.nparams == 0 && p.variadic && p.ret.type == 'i');
	CHECK(parse("fmt:s@r0,...|", &p) == 0 && p.nparams == 1 && p.variadic);
	CHECK(parse("a:S16{x:f8+0;y:f8+8}@x0+x1|S16{x:f8+0;y:f8+8}@x0+x1", &p) == 0);
	CHECK(p.params[0].v.nlocs == 2 && p.params[0].v.locs[1].kind == 'x');
	CHECK(p.params[0].v.locs[1].n == 1 && body_is(&p.params[0].v, "x:f8+0;y:f8+8"));
	CHECK(parse("x:f16@s0+s1|f16@m", &p) == 0 && p.params[0].v.size == 16);
	CHECK(p.ret.nlocs == 1 && p.ret.locs[0].kind == 'm');
	CHECK(parse("b:S4000@s3,c:i4@r0|S32@m", &p) == 0 && p.params[0].v.size == 255);
	CHECK(!p.params[0].v.body && p.params[0].v.locs[0].n == 3);
	CHECK(parse("t:S1{}@m,x:i4@r0|", &p) == 0 && body_is(&p.params[0].v, ""));
	CHECK(parse("c:S8{c:e4{RED=0;BLUE=-6}+0;n:i2+4}@r5|", &p) == 0);
	CHECK(body_is(&p.params[0].v, "c:e4{RED=0;BLUE=-6}+0;n:i2+4"));
	CHECK(parse("a:i16@r4+r5,b:u16@s0+s1|i16@r0+r1", &p) == 0 && p.ret.nlocs == 2);
	CHECK(parse("m:S16{d:f8+0;l:i8+8}@x7+r5|S16{d:f8+0;l:i8+8}@x0+r0", &p) == 0);
	CHECK(parse("_a1:p@s255|", &p) == 0 && p.params[0].v.locs[0].n == 255);
}

static void test_parse_limits(void)
{
	struct ct_proto p;
	char text[1024] = "";
	for (int i = 0; i < CT_PROTO_MAX_PARAMS; i++)
		sprintf(text + strlen(text), "%sa%d:i8@s%d", i ? "," : "", i, i);
	strcat(text, "|");
	CHECK(parse(text, &p) == 0 && p.nparams == CT_PROTO_MAX_PARAMS);
	text[strlen(text) - 1] = 0;
	strcat(text, ",z:i4@r0|");
	CHECK(parse(text, &p) == -1 && p.nparams == 0); /* too many: refused, p cleared */
}

static void test_parse_malformed(void)
{
	/* clang-format off */
	static const char *const bad[] = {
		"", "a", "a:i4@r0", "a:i4@r8|", "a:i3@r0|", "a:q@r0|", "a:i4@r0,|", ",|",
		"a:i4|", "a:i4@|", "1a:i4@r0|", ":i4@r0|", "a:e4@r0|", "a:e4{A=0@r0|",
		"a:i4@r0+|", "a:i4@m+r0|", "|i4@s0", "|i4@r2", "|x2", "|x:i4@r0",
		"a:i4@r0|i4@r0junk", "a:i4@r0,...,b:i4@r1|", "...,a:i4@r0|", "a:i4@r0||",
		"a:S8{x,y}@r0|", "a:i4@x8|", "a:i4@r0+r1+r2+r3+r4|", "a:p@s256|", "a:i99999999999@r0|",
		"a:S8{x:i4+0|", "a:S8{x:i4+0}}@r0|", "a:S8{{{{{{}}}}}}@r0|", "a b:i4@r0|",
		"a:i4@r0 |", "a:i4@r-1|", "a:f3@x0|", "a:e16{A=0}@r0|", "....|", "..|",
		"a:c4@r0|", "a:b@r0+x0+s0+s1+s2|", "|i4@x4", "a:i4@q8|", "|r2", "a:F8@q0|", "a:i@r0|", "|m",
	};
	/* clang-format on */
	struct ct_proto p;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &p) != -1) {
			fprintf(stderr, "  accepted: \"%s\"\n", bad[i]);
			ct_unit_failed = 1;
		}
	}
	CHECK(ct_proto_parse(NULL, 0, &p) == -1);
}

/* ---- fuzzing: every prefix, random edits; never a crash, a read past the end, a wild result */

static const char *const fuzz_seeds[] = {
	"line:s@r0,len:i4@r1,strict:b@r2|e4{PARSE_OK=0;PARSE_ERR=1}@r0",
	"m:S16{d:f8+0;l:i8+8}@x0+r0,f:S8{i:i4+0;f:f4+4}@r1,g:f16@s0+s1,...|S16{x:f8+0}@x0+x1",
	"c:S8{c:e4{RED=0;GREEN=5;BLUE=-6}+0;n:i2+4}@r5,t:S1{}@m,w:i16@s2+s3|s@r0",
};

static uint32_t fuzz_state = 12345;

static uint32_t fuzz_rand(void)
{
	fuzz_state = fuzz_state * 1103515245 + 12345;
	return fuzz_state >> 8;
}

/* What a parse that succeeded must give: bounded counts, pointers inside the text. */
static int sane(const struct ct_proto *p, const char *t, size_t len)
{
	if (p->nparams > CT_PROTO_MAX_PARAMS)
		return 0;
	for (int i = 0; i <= p->nparams; i++) {
		const struct ct_pvalue *v = i < p->nparams ? &p->params[i].v : &p->ret;
		if (i < p->nparams &&
		    (p->params[i].name < t || p->params[i].name + p->params[i].name_len > t + len))
			return 0;
		if (v->body && (v->body < t || v->body + v->body_len > t + len))
			return 0;
		if (v->nlocs > CT_PROTO_MAX_LOCS || (v->type && !v->nlocs))
			return 0;
	}
	return 1;
}

static void fuzz_one(const char *s, size_t len)
{
	static const uint64_t words[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct ct_proto p;
	struct ct_capture cap;
	struct ct_captured c = { .nint = 6,
				 .nsse = 8,
				 .nstack = 16,
				 .strs = 0x3f,
				 .ints = words,
				 .sse = words,
				 .stack = words };
	char out[64];
	const char *t = guarded(s, len);
	for (int n = 0; n < 6; n++)
		c.str[n] = (struct ct_captured_str){ "xyz", 3, (uint8_t)n };
	int r = ct_proto_parse(t, len, &p);
	if (r != 0 && r != -1) {
		ct_unit_failed = 1;
		return;
	}
	if (r == -1)
		return;
	if (!sane(&p, t, len)) {
		fprintf(stderr, "  insane parse of \"%.*s\"\n", (int)len, s);
		ct_unit_failed = 1;
	}
	ct_proto_capture(&p, &cap);
	if (cap.nint > CT_CAPTURE_MAX_INT || cap.nsse > 8 || cap.nstack > CT_CAPTURE_MAX_STACK)
		ct_unit_failed = 1;
	size_t n = ct_format_args(&p, &c, out, sizeof(out));
	n += ct_format_retval(&p, &c, out, sizeof(out));
	if (strlen(out) >= sizeof(out))
		ct_unit_failed = 1;
}

static void test_parse_fuzz(void)
{
	static const char alphabet[] = "abcsipfeSumxr0123456789@+,:;|{}=-._";
	char buf[512];
	for (size_t k = 0; k < sizeof(fuzz_seeds) / sizeof(fuzz_seeds[0]); k++) {
		size_t len = strlen(fuzz_seeds[k]);
		struct ct_proto p;
		CHECK(parse(fuzz_seeds[k], &p) == 0);
		for (size_t i = 0; i <= len; i++)
			fuzz_one(fuzz_seeds[k], i);
	}
	for (int iter = 0; iter < 200000; iter++) {
		const char *seed = fuzz_seeds[fuzz_rand() % 3];
		size_t len = strlen(seed);
		memcpy(buf, seed, len);
		for (int e = 1 + (int)(fuzz_rand() % 4); e > 0; e--) {
			size_t at = fuzz_rand() % (len + 1);
			char ch = alphabet[fuzz_rand() % (sizeof(alphabet) - 1)];
			switch (fuzz_rand() % 3) {
			case 0: /* replace */
				if (at < len)
					buf[at] = ch;
				break;
			case 1: /* insert */
				if (len + 1 < sizeof(buf)) {
					memmove(buf + at + 1, buf + at, len - at);
					buf[at] = ch;
					len++;
				}
				break;
			default: /* delete */
				if (at < len) {
					memmove(buf + at, buf + at + 1, len - at - 1);
					len--;
				}
			}
		}
		if (fuzz_rand() % 8 == 0) /* and bytes no text has */
			buf[fuzz_rand() % (len + 1)] = (char)fuzz_rand();
		fuzz_one(buf, len);
	}
}

/* ---- capture -------------------------------------------------------------------------- */

static struct ct_capture capture_of(const char *text, int *r)
{
	struct ct_proto p;
	struct ct_capture c;
	memset(&c, 0xaa, sizeof(c));
	if (parse(text, &p)) {
		fprintf(stderr, "  does not parse: %s\n", text);
		ct_unit_failed = 1;
	}
	*r = ct_proto_capture(&p, &c);
	return c;
}

static void test_capture(void)
{
	int r;
	struct ct_capture c = capture_of("line:s@r0,len:i4@r1,strict:b@r2|e4{A=0;B=1}@r0", &r);
	CHECK(r == 1 && c.nint == 3 && c.nsse == 0 && c.nstack == 0 && c.strs == 1);
	CHECK(c.ret == CT_RET_INT);
	c = capture_of("|", &r);
	CHECK(r == 0 && !c.nint && !c.nsse && !c.nstack && !c.strs && c.ret == CT_RET_NONE);
	c = capture_of("...|", &r);
	CHECK(r == 0);
	c = capture_of("a:f8@x0,b:i4@r0,c:f8@x3,d:i8@s2|f8@x0", &r);
	CHECK(r == 1 && c.nint == 1 && c.nsse == 4 && c.nstack == 3 && c.ret == CT_RET_SSE);
	c = capture_of("a:i4@r0,b:s@r3,c:s@s0,d:s@r5|", &r);
	CHECK(c.strs == ((1 << 3) | (1 << 5)) && c.nint == 6 && c.nstack == 1);
	CHECK(c.ret == CT_RET_NONE);
	c = capture_of("a:i8@s20|", &r);
	CHECK(r == 1 && c.nstack == CT_CAPTURE_MAX_STACK);
	c = capture_of("a:i4@r1|S32@m", &r); /* r0 is the hidden pointer: kept as a register */
	CHECK(r == 1 && c.nint == 2 && c.ret == CT_RET_NONE);
	c = capture_of("|S16{a:i8+0;b:i8+8}@r0+r1", &r);
	CHECK(r == 1 && c.ret == CT_RET_INT2 && !c.nint);
	c = capture_of("|S16{a:f8+0;b:f8+8}@x0+x1", &r);
	CHECK(c.ret == CT_RET_SSE2);
	c = capture_of("|S16{a:f8+0;b:i8+8}@x0+r0", &r);
	CHECK(c.ret == CT_RET_MIXED);
	c = capture_of("|S16{a:i8+0;b:f8+8}@r0+x0", &r);
	CHECK(c.ret == CT_RET_MIXED);
	c = capture_of("|s@r0", &r);
	CHECK(r == 1 && c.ret == CT_RET_STR && !c.strs);
	c = capture_of("x:f16@s0+s1|f16@m", &r);
	CHECK(r == 1 && c.nstack == 2 && c.ret == CT_RET_NONE);
	c = capture_of("t:S1{}@m|", &r);
	CHECK(r == 0);
	c = capture_of("a:i16@r4+r5,m:S16{d:f8+0;l:i8+8}@x7+r3|i16@r0+r1", &r);
	CHECK(c.nint == 6 && c.nsse == 8 && c.ret == CT_RET_INT2);
	/* AAPCS64: x7, an HFA of floats, a quad whole; an HFA of four doubles returned */
	c = capture_of("a:i4@r7,h:S8{x:f4+0;y:f4+4}@w0+w1,q:F16@q2|"
		       "S32{a:f8+0;b:f8+8;c:f8+16;d:f8+24}@x0+x1+x2+x3",
		       &r);
	CHECK(r == 1 && c.nint == 8 && c.nsse == 3 && c.wide && c.ret == CT_RET_SSE4);
	c = capture_of("s:s@r6|F16@q0", &r);
	CHECK(r == 1 && c.strs == 1 << 6 && !c.wide && c.ret == CT_RET_WIDE1);
}

int main(void)
{
	int failures = 0;
	RUN(test_parse);
	RUN(test_parse_limits);
	RUN(test_parse_malformed);
	RUN(test_parse_fuzz);
	RUN(test_capture);
	return failures != 0;
}
