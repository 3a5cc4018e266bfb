/* SPDX-License-Identifier: MIT */
/*
 * IEEE binary128 (aarch64's long double) and, on a machine whose long
 * double is not x87's, x87's extended precision as text, by exact arithmetic
 * on big integers rather than the host's long double: every machine writes
 * the same bytes. The shortest of a few precisions that reads back as the
 * same value, in printf's "%.*g" form, rounding half to even as glibc does.
 */
#include <string.h>

#include "values_int.h"

#define CT_BIG_WORDS 1300 /* 41600 bits: the smallest subnormal times 5^16494, and more */

struct ct_big {
	uint32_t w[CT_BIG_WORDS]; /* little-endian */
	int n;			  /* words in use; the top one is not 0 (0: the number 0) */
};

static void ct_big_trim(struct ct_big *a)
{
	while (a->n && !a->w[a->n - 1])
		a->n--;
}

static void ct_big_set(struct ct_big *a, const uint32_t *w, int n)
{
	memcpy(a->w, w, (size_t)n * 4);
	a->n = n;
	ct_big_trim(a);
}

/* a = a * m + add; 0 if it would not fit. */
static int ct_big_muladd(struct ct_big *a, uint32_t m, uint32_t add)
{
	uint64_t carry = add;
	for (int i = 0; i < a->n; i++) {
		carry += (uint64_t)a->w[i] * m;
		a->w[i] = (uint32_t)carry;
		carry >>= 32;
	}
	if (carry) {
		if (a->n == CT_BIG_WORDS)
			return 0;
		a->w[a->n++] = (uint32_t)carry;
	}
	return 1;
}

static int ct_big_shl(struct ct_big *a, unsigned bits)
{
	unsigned words = bits / 32, r = bits % 32;
	if (!a->n)
		return 1;
	if (a->n + (int)words + 1 > CT_BIG_WORDS)
		return 0;
	for (int i = a->n; i >= 0; i--) {
		uint64_t v = (uint64_t)(i < a->n ? a->w[i] : 0) << r;
		if (i > 0 && r)
			v |= a->w[i - 1] >> (32 - r);
		a->w[i + (int)words] = (uint32_t)v;
	}
	memset(a->w, 0, words * 4);
	a->n += (int)words + 1;
	ct_big_trim(a);
	return 1;
}

static int ct_big_pow(struct ct_big *a, uint32_t base, unsigned times)
{
	for (; times >= 13 && base == 5; times -= 13) /* 5^13 fits a word */
		if (!ct_big_muladd(a, 1220703125u, 0))
			return 0;
	for (; times >= 9 && base == 10; times -= 9)
		if (!ct_big_muladd(a, 1000000000u, 0))
			return 0;
	for (; times; times--)
		if (!ct_big_muladd(a, base, 0))
			return 0;
	return 1;
}

static int ct_big_cmp(const struct ct_big *a, const struct ct_big *b)
{
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (int i = a->n - 1; i >= 0; i--)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

/* Divide a by 10^9 in place: the remainder. */
static uint32_t ct_big_div1e9(struct ct_big *a)
{
	uint64_t rem = 0;
	for (int i = a->n - 1; i >= 0; i--) {
		uint64_t cur = rem << 32 | a->w[i];
		a->w[i] = (uint32_t)(cur / 1000000000u);
		rem = cur % 1000000000u;
	}
	ct_big_trim(a);
	return (uint32_t)rem;
}

/* The decimal digits of a (destroyed) into out, most significant first: how many. */
static int ct_big_digits(struct ct_big *a, char *out, int cap)
{
	int n = 0;
	while (a->n && n + 9 <= cap) {
		uint32_t r = ct_big_div1e9(a);
		for (int i = 0; i < 9; i++, r /= 10)
			out[n++] = (char)('0' + r % 10);
	}
	while (n > 1 && out[n - 1] == '0')
		n--;
	for (int i = 0; i < n / 2; i++) {
		char t = out[i];
		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	return n;
}

/* The value m * 2^e (m of at most 128 bits, as four words). */
struct ct_quad {
	uint32_t m[4];
	int e;
};

/* Is r * 10^k (r: decimal digits) below (-1), at (0) or above (1) b * 2^e? */
static int ct_cmp_dec_bin(const char *r, int rlen, int k, const uint32_t b[5], int e)
{
	static __thread struct ct_big x, y; /* large: not on a reader thread's stack */
	x.n = 0;
	for (int i = 0; i < rlen; i++)
		ct_big_muladd(&x, 10, (uint32_t)(r[i] - '0'));
	ct_big_set(&y, b, 5);
	if (!ct_big_pow(k >= 0 ? &x : &y, 10, (unsigned)(k >= 0 ? k : -k)) ||
	    !ct_big_shl(e >= 0 ? &y : &x, (unsigned)(e >= 0 ? e : -e)))
		return 0;
	return ct_big_cmp(&x, &y);
}

/* 2m + delta (delta -1 or +1) as five words. */
static void ct_twice_plus(const uint32_t m[4], int delta, uint32_t out[5])
{
	uint64_t carry = 0;
	for (int i = 0; i < 4; i++) {
		uint64_t v = ((uint64_t)m[i] << 1 | (i ? m[i - 1] >> 31 : 0)) & 0xffffffffu;
		out[i] = (uint32_t)v;
	}
	out[4] = m[3] >> 31;
	if (delta > 0) {
		carry = 1;
		for (int i = 0; i < 5 && carry; i++) {
			carry += out[i];
			out[i] = (uint32_t)carry;
			carry >>= 32;
		}
	} else {
		for (int i = 0; i < 5; i++) /* 2m >= 2: no borrow out */
			if (out[i]--)
				break;
	}
}

/*
 * Does the decimal r * 10^k read back as q (round to nearest, ties to
 * even)? Within half a unit in the last place each side (a quarter below
 * a power of two, where the next value down is closer).
 */
static int ct_reads_back(const char *r, int rlen, int k, const struct ct_quad *q, int pow2)
{
	uint32_t lo[5], hi[5];
	int even = !(q->m[0] & 1);
	ct_twice_plus(q->m, 1, hi);
	int c = ct_cmp_dec_bin(r, rlen, k, hi, q->e - 1);
	if (c > 0 || (c == 0 && !even))
		return 0;
	if (pow2) {
		uint32_t m4[4];
		memcpy(m4, q->m, sizeof(m4));
		for (int i = 3; i > 0; i--)
			m4[i] = m4[i] << 1 | m4[i - 1] >> 31;
		m4[0] <<= 1;
		ct_twice_plus(m4, -1, lo); /* 4m - 1, times 2^(e-2) */
		c = ct_cmp_dec_bin(r, rlen, k, lo, q->e - 2);
	} else {
		ct_twice_plus(q->m, -1, lo);
		c = ct_cmp_dec_bin(r, rlen, k, lo, q->e - 1);
	}
	return c > 0 || (c == 0 && even);
}

/* digits (all of the exact value's) rounded to p of them, half to even: into r; carry -> 1. */
static int ct_round_digits(const char *d, int n, int p, char *r)
{
	int up = 0;
	memcpy(r, d, (size_t)(p < n ? p : n));
	for (int i = n; i < p; i++)
		r[i] = '0';
	if (n > p) {
		int rest_zero = 1;
		for (int i = p + 1; i < n; i++)
			rest_zero &= d[i] == '0';
		up = d[p] > '5' || (d[p] == '5' && (!rest_zero || (r[p - 1] - '0') % 2));
	}
	for (int i = p - 1; up && i >= 0; i--) {
		if (r[i] == '9') {
			r[i] = '0';
		} else {
			r[i]++;
			up = 0;
		}
	}
	if (up) { /* 99.9 -> 100: one more digit in front, the last dropped */
		memmove(r + 1, r, (size_t)p - 1);
		r[0] = '1';
		return 1;
	}
	return 0;
}

/* As printf's "%.*g" writes the p digits r of the value whose first digit has exponent x. */
static void ct_put_g(struct ct_vout *o, int neg, const char *r, int p, int x)
{
	char t[96];
	int n = 0, last = p;
	while (last > 1 && r[last - 1] == '0')
		last--;
	if (neg)
		t[n++] = '-';
	if (x < -4 || x >= p) {
		t[n++] = r[0];
		if (last > 1) {
			t[n++] = '.';
			memcpy(t + n, r + 1, (size_t)last - 1);
			n += last - 1;
		}
		ct_vputf(o, "%.*se%c%02d", n, t, x < 0 ? '-' : '+', x < 0 ? -x : x);
		return;
	}
	if (x < 0) {
		t[n++] = '0';
		t[n++] = '.';
		for (int i = 0; i < -x - 1; i++)
			t[n++] = '0';
		memcpy(t + n, r, (size_t)last);
		n += last;
	} else {
		memcpy(t + n, r, (size_t)x + 1);
		n += x + 1;
		if (last > x + 1) {
			t[n++] = '.';
			memcpy(t + n, r + x + 1, (size_t)(last - x - 1));
			n += last - x - 1;
		}
	}
	ct_vput(o, t, (size_t)n);
}

/*
 * The value (-1)^neg * m * 2^e, m not 0, in the first of the precisions
 * that reads back as the same value (or the last); pow2: m is the smallest
 * normal mantissa, the next value down half as far.
 */
static void ct_put_exact(struct ct_vout *o, int neg, struct ct_quad *q, int pow2, const int *precs,
			 size_t nprecs)
{
	static __thread struct ct_big big;
	static __thread char digits[CT_BIG_WORDS * 10];
	char r[40];
	/* the exact value: m * 2^e = (m * 5^-e) * 10^e when e < 0 */
	ct_big_set(&big, q->m, 4);
	if (!(q->e >= 0 ? ct_big_shl(&big, (unsigned)q->e)
			: ct_big_pow(&big, 5, (unsigned)-q->e))) {
		ct_vputs(o, "?");
		return;
	}
	int n = ct_big_digits(&big, digits, (int)sizeof(digits));
	int x0 = n - 1 + (q->e < 0 ? q->e : 0); /* the first digit's exponent */
	int p = 0, x = x0;
	for (size_t i = 0; i < nprecs; i++) {
		p = precs[i];
		x = x0 + ct_round_digits(digits, n, p, r);
		if (ct_reads_back(r, p, x - p + 1, q, pow2))
			break;
	}
	ct_put_g(o, neg, r, p, x);
}

void ct_vput_quad(struct ct_vout *o, const uint8_t *b)
{
	static const int precs[] = { 6, 9, 12, 15, 17, 21, 25, 29, 33, 36 };
	uint32_t w[4];
	struct ct_quad q;
	memcpy(w, b, 16);
	int neg = w[3] >> 31, bexp = (w[3] >> 16) & 0x7fff;
	memcpy(q.m, w, 16);
	q.m[3] &= 0xffff;
	int frac_zero = !(q.m[0] | q.m[1] | q.m[2] | q.m[3]);
	if (bexp == 0x7fff) {
		ct_vputs(o, !frac_zero ? (neg ? "-nan" : "nan") : neg ? "-inf" : "inf");
		return;
	}
	if (!bexp && frac_zero) {
		ct_vputs(o, neg ? "-0" : "0");
		return;
	}
	if (bexp)
		q.m[3] |= 0x10000; /* the implicit bit */
	q.e = (bexp ? bexp : 1) - 16383 - 112;
	ct_put_exact(o, neg, &q, bexp > 1 && frac_zero, precs, sizeof(precs) / sizeof(precs[0]));
}

void ct_vput_x87(struct ct_vout *o, const uint8_t *b)
{
	static const int precs[] = { 6, 9, 12, 15, 16, 17, 18, 19, 20, 21 }; /* values_text.c's */
	struct ct_quad q = { { 0 }, 0 };
	uint16_t se;
	memcpy(q.m, b, 8);
	memcpy(&se, b + 8, 2);
	int neg = se >> 15, bexp = se & 0x7fff;
	if (bexp == 0x7fff) { /* the integer bit aside, a zero fraction is infinity */
		int nan = (q.m[1] & 0x7fffffffu) || q.m[0];
		ct_vputs(o, nan ? (neg ? "-nan" : "nan") : neg ? "-inf" : "inf");
		return;
	}
	if (!q.m[0] && !q.m[1]) {
		ct_vputs(o, neg ? "-0" : "0");
		return;
	}
	q.e = (bexp ? bexp : 1) - 16383 - 63;
	ct_put_exact(o, neg, &q, bexp > 1 && q.m[1] == 0x80000000u && !q.m[0], precs,
		     sizeof(precs) / sizeof(precs[0]));
}
