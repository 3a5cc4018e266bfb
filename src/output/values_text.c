/* SPDX-License-Identifier: MIT */
/*
 * The bounded writer values.c writes with, and the scalars: integers of any
 * width (sign-extended from their own bytes, not the register's), floating
 * point in its shortest exact form, chars and strings with C escapes.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "values_int.h"

void ct_vput(struct ct_vout *o, const char *s, size_t n)
{
	if (o->full || !o->len)
		return;
	size_t room = o->len - 1 - o->pos;
	if (n > room) {
		/* cut before a UTF-8 sequence, not inside it */
		n = room;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		o->full = 1;
	}
	memcpy(o->buf + o->pos, s, n);
	o->pos += n;
	o->buf[o->pos] = 0;
}

void ct_vputs(struct ct_vout *o, const char *s)
{
	ct_vput(o, s, strlen(s));
}

void ct_vputf(struct ct_vout *o, const char *fmt, ...)
{
	char t[64];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t, sizeof(t), fmt, ap);
	va_end(ap);
	if (n > 0)
		ct_vput(o, t, (size_t)n < sizeof(t) ? (size_t)n : sizeof(t) - 1);
}

/* ---- numbers ------------------------------------------------------------------------- */

/* The little-endian integer in the first size (1-8) bytes. */
uint64_t ct_vload(const uint8_t *b, unsigned size)
{
	uint64_t v = 0;
	memcpy(&v, b, size < 8 ? size : 8);
	return v;
}

static int64_t ct_sign_extend(uint64_t v, unsigned size)
{
	unsigned shift = 64 - 8 * size;
	return size == 0 || size >= 8 ? (int64_t)v : (int64_t)(v << shift) >> shift;
}

/* Decimal by hand, not printf: replay shows values of millions of calls. */
static void ct_put_decimal(struct ct_vout *o, uint64_t v, int neg)
{
	char t[24], *p = t + sizeof(t);
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		*--p = '-';
	ct_vput(o, p, (size_t)(t + sizeof(t) - p));
}

static void ct_put_u128(struct ct_vout *o, unsigned __int128 v, int neg)
{
	char t[48], *p = t + sizeof(t);
	do {
		*--p = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	if (neg)
		*--p = '-';
	ct_vput(o, p, (size_t)(t + sizeof(t) - p));
}

/* An integer of size 1-8 or 16 bytes. */
void ct_vput_int(struct ct_vout *o, const uint8_t *b, unsigned size, int is_signed)
{
	if (size == 16) {
		unsigned __int128 v;
		memcpy(&v, b, 16);
		int neg = is_signed && (__int128)v < 0;
		ct_put_u128(o, neg ? -v : v, neg);
	} else if (is_signed) {
		int64_t v = ct_sign_extend(ct_vload(b, size), size);
		ct_put_decimal(o, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
	} else {
		ct_put_decimal(o, ct_vload(b, size), 0);
	}
}

/* IEEE half precision, widened: no C type to hand it to printf. */
static float ct_half(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	float v = e == 0    ? ldexpf((float)m, -24)
		  : e == 31 ? (m ? NAN : INFINITY)
			    : ldexpf((float)(m | 0x400), e - 25);
	return h & 0x8000 ? -v : v;
}

static int ct_put_special(struct ct_vout *o, long double v)
{
	if (isnan(v))
		ct_vputs(o, signbit(v) ? "-nan" : "nan");
	else if (isinf(v))
		ct_vputs(o, v < 0 ? "-inf" : "inf");
	else
		return 0;
	return 1;
}

/*
 * The shortest of a few precisions that reads back as the same value: 0.1
 * shows as 0.1, not 0.10000000000000001. size: 4, 8 or 16 (long double).
 */
static void ct_put_float(struct ct_vout *o, long double v, unsigned size)
{
	static const int precs[] = { 6, 9, 12, 15, 16, 17, 18, 19, 20, 21 };
	int last = size == 4 ? 1 : size == 8 ? 5 : 9;
	char t[64];
	if (ct_put_special(o, v))
		return;
	for (int i = 0; i <= last; i++) {
		snprintf(t, sizeof(t), "%.*Lg", precs[i], v);
		if (size == 4	? strtof(t, NULL) == (float)v
		    : size == 8 ? strtod(t, NULL) == (double)v
				: strtold(t, NULL) == v)
			break;
	}
	ct_vputs(o, t);
}

void ct_vput_fp(struct ct_vout *o, const uint8_t *b, unsigned size)
{
	if (size == 2) {
		ct_put_float(o, ct_half((uint16_t)ct_vload(b, 2)), 4);
	} else if (size == 4) {
		float f;
		memcpy(&f, b, 4);
		ct_put_float(o, f, 4);
	} else if (size == 8) {
		double d;
		memcpy(&d, b, 8);
		ct_put_float(o, d, 8);
	} else {
#if defined(__x86_64__) || defined(__i386__)
		long double ld = 0; /* x87 extended: 10 bytes of the 16 */
		memcpy(&ld, b, 10);
		ct_put_float(o, ld, 16);
#else
		ct_vput_x87(o, b); /* this machine's long double is another */
#endif
	}
}

/* ---- chars and strings ----------------------------------------------------------------- */

/* One byte as C writes it in a literal quoted by quote. */
void ct_vput_escaped(struct ct_vout *o, unsigned char ch, char quote)
{
	static const char from[] = "\n\t\r\a\b\f\v\\", to[] = "ntrabfv\\";
	const char *e = ch ? strchr(from, ch) : NULL;
	char t[1];
	if (ch == 0)
		ct_vputs(o, "\\0");
	else if (e)
		ct_vputf(o, "\\%c", to[e - from]);
	else if (ch == (unsigned char)quote)
		ct_vputf(o, "\\%c", quote);
	else if (ch >= 0x20 && ch < 0x7f) {
		t[0] = (char)ch;
		ct_vput(o, t, 1);
	} else
		ct_vputf(o, "\\x%02x", ch);
}

void ct_vput_string(struct ct_vout *o, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	ct_vputs(o, "\"");
	for (size_t i = 0; i < n && !o->full;) {
		size_t l = u[i] >= 0x80 ? ct_utf8_len(u + i, n - i) : 0;
		if (l) {
			ct_vput(o, s + i, l);
			i += l;
		} else {
			ct_vput_escaped(o, u[i++], '"');
		}
	}
	ct_vputs(o, "\"");
}

void ct_vput_pointer(struct ct_vout *o, uint64_t p)
{
	char t[18], *at = t + sizeof(t);
	if (!p) {
		ct_vputs(o, "NULL");
		return;
	}
	for (; p; p >>= 4)
		*--at = "0123456789abcdef"[p & 15];
	*--at = 'x';
	*--at = '0';
	ct_vput(o, at, (size_t)(t + sizeof(t) - at));
}
