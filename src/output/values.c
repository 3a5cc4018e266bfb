/* SPDX-License-Identifier: MIT */
/*
 * Captured values as text (values.h). A value is first gathered as the
 * bytes of its eightbytes, each from the register or stack word the
 * prototype names, so a struct split over an integer and an SSE register
 * reads like the struct in memory; then shown by its type.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "values.h"

#define CT_ELLIPSIS "\xe2\x80\xa6" /* "…" */

/* A bounded writer: once full, it takes nothing more. */
struct ct_vout {
	char *buf;
	size_t len, pos;
	int full;
};

static void ct_put(struct ct_vout *o, const char *s, size_t n)
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

static void ct_puts(struct ct_vout *o, const char *s)
{
	ct_put(o, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3))) ct_putf(struct ct_vout *o, const char *fmt, ...)
{
	char t[64];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t, sizeof(t), fmt, ap);
	va_end(ap);
	if (n > 0)
		ct_put(o, t, (size_t)n < sizeof(t) ? (size_t)n : sizeof(t) - 1);
}

/* ---- numbers ------------------------------------------------------------------------- */

/* The little-endian integer in the first size (1-8) bytes. */
static uint64_t ct_load(const uint8_t *b, unsigned size)
{
	uint64_t v = 0;
	memcpy(&v, b, size < 8 ? size : 8);
	return v;
}

static int64_t ct_sign_extend(uint64_t v, unsigned size)
{
	unsigned shift = 64 - 8 * size;
	return size >= 8 ? (int64_t)v : (int64_t)(v << shift) >> shift;
}

static void ct_put_u128(struct ct_vout *o, unsigned __int128 v, int neg)
{
	char t[48], *p = t + sizeof(t);
	*--p = 0;
	do {
		*--p = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	if (neg)
		*--p = '-';
	ct_puts(o, p);
}

/* An integer of size 1-8 or 16 bytes. */
static void ct_put_int(struct ct_vout *o, const uint8_t *b, unsigned size, int is_signed)
{
	if (size == 16) {
		unsigned __int128 v;
		memcpy(&v, b, 16);
		int neg = is_signed && (__int128)v < 0;
		ct_put_u128(o, neg ? -v : v, neg);
	} else if (is_signed) {
		ct_putf(o, "%lld", (long long)ct_sign_extend(ct_load(b, size), size));
	} else {
		ct_putf(o, "%llu", (unsigned long long)ct_load(b, size));
	}
}

/* IEEE half precision, widened: no C type to hand it to printf. */
static float ct_half(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	float v = e == 0 ? ldexpf((float)m, -24)
		: e == 31 ? (m ? NAN : INFINITY)
			  : ldexpf((float)(m | 0x400), e - 25);
	return h & 0x8000 ? -v : v;
}

static int ct_put_special(struct ct_vout *o, long double v)
{
	if (isnan(v))
		ct_puts(o, signbit(v) ? "-nan" : "nan");
	else if (isinf(v))
		ct_puts(o, v < 0 ? "-inf" : "inf");
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
		if (size == 4 ? strtof(t, NULL) == (float)v
		    : size == 8 ? strtod(t, NULL) == (double)v
				: strtold(t, NULL) == v)
			break;
	}
	ct_puts(o, t);
}

static void ct_put_fp(struct ct_vout *o, const uint8_t *b, unsigned size)
{
	if (size == 2) {
		ct_put_float(o, ct_half((uint16_t)ct_load(b, 2)), 4);
	} else if (size == 4) {
		float f;
		memcpy(&f, b, 4);
		ct_put_float(o, f, 4);
	} else if (size == 8) {
		double d;
		memcpy(&d, b, 8);
		ct_put_float(o, d, 8);
	} else {
		long double ld = 0; /* x87 extended: 10 bytes of the 16 */
		memcpy(&ld, b, 10);
		ct_put_float(o, ld, 16);
	}
}

/* ---- chars and strings ----------------------------------------------------------------- */

/* The length of the valid UTF-8 sequence at s (2-4 bytes), or 0. */
static size_t ct_utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
		     : s[0] >= 0xe0		 ? 3
		     : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
						   : 0;
	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* no overlong three- and four-byte forms, no surrogates, nothing past U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

/* One byte as C writes it in a literal quoted by quote. */
static void ct_put_escaped(struct ct_vout *o, unsigned char ch, char quote)
{
	static const char from[] = "\n\t\r\a\b\f\v\\", to[] = "ntrabfv\\";
	const char *e = ch ? strchr(from, ch) : NULL;
	char t[8];
	if (ch == 0)
		ct_puts(o, "\\0");
	else if (e)
		ct_putf(o, "\\%c", to[e - from]);
	else if (ch == (unsigned char)quote)
		ct_putf(o, "\\%c", quote);
	else if (ch >= 0x20 && ch < 0x7f) {
		t[0] = (char)ch;
		ct_put(o, t, 1);
	} else
		ct_putf(o, "\\x%02x", ch);
}

static void ct_put_string(struct ct_vout *o, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	ct_puts(o, "\"");
	for (size_t i = 0; i < n && !o->full;) {
		size_t l = u[i] >= 0x80 ? ct_utf8_len(u + i, n - i) : 0;
		if (l) {
			ct_put(o, s + i, l);
			i += l;
		} else {
			ct_put_escaped(o, u[i++], '"');
		}
	}
	ct_puts(o, "\"");
}

static void ct_put_pointer(struct ct_vout *o, uint64_t p)
{
	if (p)
		ct_putf(o, "0x%llx", (unsigned long long)p);
	else
		ct_puts(o, "NULL");
}

/* ---- enums and structs ----------------------------------------------------------------- */

/* The body's "NAME=NUMBER" at s (up to end): name, its length, the value; past the ';'. */
static const char *ct_enumerator(const char *s, const char *end, const char **name, size_t *nlen,
				 uint64_t *val, int *neg)
{
	const char *eq = memchr(s, '=', (size_t)(end - s));
	if (!eq)
		return NULL;
	*name = s;
	*nlen = (size_t)(eq - s);
	s = eq + 1;
	*neg = s < end && *s == '-';
	s += *neg;
	uint64_t v = 0;
	for (; s < end && *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (uint64_t)(*s - '0');
	*val = *neg ? -v : v;
	return s < end && *s == ';' ? s + 1 : s;
}

/* An enum's value by its enumerator's name, else the number (signed if some enumerator is). */
static void ct_put_enum(struct ct_vout *o, const uint8_t *b, unsigned size, const char *body,
			size_t blen)
{
	uint64_t mask = size >= 8 ? ~0ull : (1ull << (8 * size)) - 1, v = ct_load(b, size) & mask;
	const char *s = body, *end = body + blen, *name;
	int any_neg = 0, neg;
	size_t nlen;
	uint64_t ev;
	while (s && s < end) {
		s = ct_enumerator(s, end, &name, &nlen, &ev, &neg);
		if (!s)
			break;
		if ((ev & mask) == v) {
			ct_put(o, name, nlen);
			return;
		}
		any_neg |= neg;
	}
	ct_put_int(o, b, size, any_neg);
}

/* A scalar from the n bytes at b; "?" if they are fewer than it needs. */
static void ct_put_scalar(struct ct_vout *o, char type, unsigned size, const char *body,
			  size_t blen, const uint8_t *b, size_t n)
{
	size_t need = type == 'b' || type == 'c' ? 1 : type == 'p' || type == 's' ? 8 : size;
	if (type == 'f' && size == 16)
		need = 10;
	if (!need || need > n) {
		ct_puts(o, type == 'S' ? "{" CT_ELLIPSIS "}" : "?");
		return;
	}
	switch (type) {
	case 'i':
	case 'u':
		ct_put_int(o, b, size, type == 'i');
		break;
	case 'b':
		ct_puts(o, b[0] ? "true" : "false");
		break;
	case 'c':
		ct_puts(o, "'");
		ct_put_escaped(o, b[0], '\'');
		ct_puts(o, "'");
		break;
	case 'p':
	case 's': /* a string inside a struct, or on the stack: its pointer only */
		ct_put_pointer(o, ct_load(b, 8));
		break;
	case 'f':
		ct_put_fp(o, b, size);
		break;
	case 'e':
		ct_put_enum(o, b, size, body ? body : "", body ? blen : 0);
		break;
	default: /* a struct in a struct: not described */
		ct_puts(o, "{" CT_ELLIPSIS "}");
	}
}

/* A struct field's "TYPE+OFFSET" at s: the type's letter, size and body; past it, or NULL. */
static const char *ct_field_type(const char *s, const char *end, char *type, unsigned *size,
				 const char **body, size_t *blen, size_t *off)
{
	if (s >= end)
		return NULL;
	*type = *s++;
	*size = 0;
	*body = NULL;
	for (; s < end && *s >= '0' && *s <= '9' && *size < 1000; s++)
		*size = *size * 10 + (unsigned)(*s - '0');
	if (s < end && *s == '{') {
		int depth = 0;
		*body = s + 1;
		for (; s < end; s++) {
			depth += (*s == '{') - (*s == '}');
			if (!depth)
				break;
		}
		if (s == end)
			return NULL;
		*blen = (size_t)(s++ - *body);
	}
	if (s >= end || *s++ != '+')
		return NULL;
	*off = 0;
	for (; s < end && *s >= '0' && *s <= '9' && *off < 1000; s++)
		*off = *off * 10 + (size_t)(*s - '0');
	return s;
}

/* "{x=1, y=2}" from the struct's n bytes at b; its body lists "name:TYPE+OFFSET" fields. */
static void ct_put_struct(struct ct_vout *o, const char *body, size_t blen, const uint8_t *b,
			  size_t n)
{
	const char *s = body, *end = body + blen;
	ct_puts(o, "{");
	for (int i = 0; s < end && !o->full; i++) {
		const char *colon = memchr(s, ':', (size_t)(end - s)), *fbody;
		char type;
		unsigned size;
		size_t fblen = 0, off;
		if (!colon)
			break;
		const char *next = ct_field_type(colon + 1, end, &type, &size, &fbody, &fblen, &off);
		if (!next)
			break;
		ct_puts(o, i ? ", " : "");
		ct_put(o, s, (size_t)(colon - s));
		ct_puts(o, "=");
		ct_put_scalar(o, type, size, fbody, fblen, b + (off < n ? off : n),
			      off < n ? n - off : 0);
		s = next < end && *next == ';' ? next + 1 : end;
	}
	ct_puts(o, "}");
}

/* ---- values ---------------------------------------------------------------------------- */

static int ct_word(const struct ct_captured *c, const struct ct_ploc *l, uint64_t *w)
{
	if (l->kind == 'r' && c->ints && l->n < c->nint && l->n < 6)
		*w = c->ints[l->n];
	else if (l->kind == 'x' && c->sse && l->n < c->nsse && l->n < 8)
		*w = c->sse[l->n];
	else if (l->kind == 's' && c->stack && l->n < c->nstack)
		*w = c->stack[l->n];
	else
		return 0;
	return 1;
}

/* The string an integer register pointed to, as the capture kept it. */
static void ct_put_captured_str(struct ct_vout *o, const struct ct_captured_str *s, uint64_t p)
{
	if ((s->flags & CT_STR_NULL) || !p)
		ct_puts(o, "NULL");
	else if ((s->flags & CT_STR_UNREADABLE) || !s->bytes)
		ct_put_pointer(o, p);
	else {
		ct_put_string(o, s->bytes, s->len);
		if (s->flags & CT_STR_CUT)
			ct_puts(o, CT_ELLIPSIS);
	}
}

static void ct_put_value(struct ct_vout *o, const struct ct_pvalue *v, const struct ct_captured *c)
{
	uint8_t b[16] = { 0 };
	uint64_t w;
	int n = v->nlocs < 2 ? v->nlocs : 2;
	if (v->type == 'S' && v->body && !v->body_len) {
		ct_puts(o, "{}"); /* an empty class: passed in nothing */
		return;
	}
	if (v->type == 'S' && !v->body) {
		ct_puts(o, "{" CT_ELLIPSIS "}");
		return;
	}
	for (int i = 0; i < n; i++) {
		if (!ct_word(c, &v->locs[i], &w)) {
			ct_puts(o, "?");
			return;
		}
		memcpy(b + 8 * i, &w, 8);
	}
	if (!n) {
		ct_puts(o, "?");
	} else if (v->type == 's' && v->locs[0].kind == 'r' && v->locs[0].n < 6 &&
		   (c->strs & (1u << v->locs[0].n))) {
		ct_put_captured_str(o, &c->str[v->locs[0].n], ct_load(b, 8));
	} else if (v->type == 'S') {
		ct_put_struct(o, v->body, v->body_len, b, (size_t)(8 * n));
	} else {
		ct_put_scalar(o, v->type, v->size, v->body, v->body_len, b, (size_t)(8 * n));
	}
}

size_t ct_format_value(const struct ct_pvalue *v, const struct ct_captured *c, char *buf,
		       size_t len)
{
	struct ct_vout o = { buf, len, 0, 0 };
	if (len)
		buf[0] = 0;
	ct_put_value(&o, v, c);
	return o.pos;
}

size_t ct_format_args(const struct ct_proto *p, const struct ct_captured *c, char *buf, size_t len)
{
	struct ct_vout o = { buf, len, 0, 0 };
	if (len)
		buf[0] = 0;
	for (int i = 0; i < p->nparams && i < CT_PROTO_MAX_PARAMS; i++) {
		const struct ct_param *a = &p->params[i];
		ct_puts(&o, i ? ", " : "");
		ct_put(&o, a->name, a->name_len);
		ct_puts(&o, "=");
		ct_put_value(&o, &a->v, c);
	}
	if (p->variadic)
		ct_puts(&o, p->nparams ? ", ..." : "...");
	return o.pos;
}

size_t ct_format_retval(const struct ct_proto *p, const struct ct_captured *c, char *buf,
			size_t len)
{
	const struct ct_pvalue *v = &p->ret;
	if (len)
		buf[0] = 0;
	if (!v->type || !v->nlocs || v->locs[0].kind == 'm')
		return 0;
	return ct_format_value(v, c, buf, len);
}
