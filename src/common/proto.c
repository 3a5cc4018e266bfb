/* SPDX-License-Identifier: MIT */
/*
 * The text form of a prototype (proto.h), parsed, and what a call of it
 * needs captured. Also linked into the runtime, inside traced processes: no
 * allocation, no stdio, no state; any text, however malformed or cut short,
 * gives -1, never a read past its end.
 */
#include <string.h>

#include "proto.h"

/* A cursor over the text: s moves, end stays. */
struct ct_pcur {
	const char *s, *end;
};

static int ct_peek(const struct ct_pcur *c)
{
	return c->s < c->end ? (unsigned char)*c->s : -1;
}

static int ct_eat(struct ct_pcur *c, char ch)
{
	if (ct_peek(c) != (unsigned char)ch)
		return 0;
	c->s++;
	return 1;
}

static int ct_is_digit(int ch)
{
	return ch >= '0' && ch <= '9';
}

static int ct_is_ident_char(int ch)
{
	return ct_is_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

/* A decimal number up to max; -1 if there is none or it is larger. */
static long ct_number(struct ct_pcur *c, long max)
{
	long v = 0;
	if (!ct_is_digit(ct_peek(c)))
		return -1;
	while (ct_is_digit(ct_peek(c))) {
		v = v * 10 + (*c->s++ - '0');
		if (v > max)
			return -1;
	}
	return v;
}

/* Only characters enumerator and field lists are made of: a body cannot hide a ',' or '|'. */
static int ct_is_body_char(int ch)
{
	return ct_is_ident_char(ch) || ch == '-' || ch == ';' || ch == '=' || ch == ':' ||
	       ch == '+' || ch == '{' || ch == '}';
}

/* After '{': the body up to its matching '}' (fields may be enums, with bodies of their own). */
static int ct_body(struct ct_pcur *c, struct ct_pvalue *v)
{
	const char *start = c->s;
	int depth = 1;
	for (; c->s < c->end; c->s++) {
		if (!ct_is_body_char((unsigned char)*c->s))
			return -1;
		if (*c->s == '{' && ++depth > 4)
			return -1;
		if (*c->s == '}' && --depth == 0)
			break;
	}
	if (c->s == c->end || c->s - start > UINT16_MAX)
		return -1;
	v->body = start;
	v->body_len = (uint16_t)(c->s - start);
	c->s++;
	return 0;
}

/* Is SIZE one the type can have? */
static int ct_size_ok(char type, long size)
{
	switch (type) {
	case 'i':
	case 'u':
		return size == 1 || size == 2 || size == 4 || size == 8 || size == 16;
	case 'e':
		return size == 1 || size == 2 || size == 4 || size == 8;
	case 'f':
		return size == 2 || size == 4 || size == 8 || size == 16;
	case 'F':
		return size == 16;
	default: /* 'S': any size, kept as at most 255 (only small structs are shown) */
		return 1;
	}
}

static int ct_type(struct ct_pcur *c, struct ct_pvalue *v)
{
	int t = ct_peek(c);
	if (t < 0)
		return -1;
	c->s++;
	v->type = (char)t;
	switch (t) {
	case 'b':
	case 'c':
		v->size = 1;
		return 0;
	case 'p':
	case 's':
		v->size = 8;
		return 0;
	case 'i':
	case 'u':
	case 'f':
	case 'F':
	case 'e':
	case 'S':
		break;
	default:
		return -1;
	}
	long size = ct_number(c, 1L << 30);
	if (size < 0 || !ct_size_ok(v->type, size))
		return -1;
	v->size = size > 255 ? 255 : (uint8_t)size;
	if (t == 'e')
		return ct_eat(c, '{') ? ct_body(c, v) : -1;
	if (t == 'S' && ct_eat(c, '{'))
		return ct_body(c, v);
	return 0;
}

/* One LOC; at return only rax, rdx (x0, x1), xmm0-1 (v0-v3) and memory exist. */
static int ct_loc(struct ct_pcur *c, struct ct_ploc *l, int ret)
{
	int k = ct_peek(c);
	long max;
	if (k < 0)
		return -1;
	c->s++;
	switch (k) {
	case 'r':
		max = ret ? 1 : CT_CAPTURE_MAX_INT - 1;
		break;
	case 'x':
	case 'w':
	case 'q':
		max = ret ? 3 : 7;
		break;
	case 's':
		max = ret ? -1 : 255;
		break;
	case 'm':
		l->kind = 'm';
		return 0;
	default:
		return -1;
	}
	long n = ct_number(c, 255);
	if (n < 0 || n > max)
		return -1;
	l->kind = (char)k;
	l->n = (uint8_t)n;
	return 0;
}

static int ct_value(struct ct_pcur *c, struct ct_pvalue *v, int ret)
{
	if (ct_type(c, v) || !ct_eat(c, '@') || ct_loc(c, &v->locs[0], ret))
		return -1;
	v->nlocs = 1;
	if (v->locs[0].kind == 'm')
		return 0;
	while (ct_eat(c, '+')) {
		struct ct_ploc *l = &v->locs[v->nlocs];
		if (v->nlocs == CT_PROTO_MAX_LOCS || ct_loc(c, l, ret) || l->kind == 'm')
			return -1;
		v->nlocs++;
	}
	return 0;
}

static int ct_param(struct ct_pcur *c, struct ct_param *p)
{
	const char *name = c->s;
	if (ct_is_digit(ct_peek(c)))
		return -1;
	while (ct_is_ident_char(ct_peek(c)))
		c->s++;
	if (c->s == name || c->s - name > UINT16_MAX || !ct_eat(c, ':'))
		return -1;
	p->name = name;
	p->name_len = (uint16_t)(c->s - 1 - name);
	return ct_value(c, &p->v, 0);
}

static int ct_ellipsis(struct ct_pcur *c)
{
	if (c->end - c->s < 3 || memcmp(c->s, "...", 3))
		return 0;
	c->s += 3;
	return 1;
}

/* PARAMS, up to the '|' (not eaten). */
static int ct_params(struct ct_pcur *c, struct ct_proto *p)
{
	if (ct_peek(c) == '|')
		return 0;
	if (ct_ellipsis(c)) {
		p->variadic = 1;
		return 0;
	}
	for (;;) {
		if (p->nparams == CT_PROTO_MAX_PARAMS || ct_param(c, &p->params[p->nparams]))
			return -1;
		p->nparams++;
		if (!ct_eat(c, ','))
			return 0;
		if (ct_ellipsis(c)) {
			p->variadic = 1;
			return 0;
		}
	}
}

int ct_proto_parse(const char *text, size_t len, struct ct_proto *p)
{
	struct ct_pcur c = { text, text + len };
	memset(p, 0, sizeof(*p));
	if (!text || ct_params(&c, p) || !ct_eat(&c, '|'))
		goto bad;
	if (c.s < c.end && ct_value(&c, &p->ret, 1))
		goto bad;
	if (c.s != c.end)
		goto bad;
	return 0;
bad:
	memset(p, 0, sizeof(*p));
	return -1;
}

/* What the return trampoline keeps for this value. */
static uint8_t ct_ret_kind(const struct ct_pvalue *v)
{
	int nr = 0, nx = 0, wide = 0, last = 0;
	if (!v->type || !v->nlocs || v->locs[0].kind == 'm')
		return CT_RET_NONE;
	if (v->type == 's' && v->locs[0].kind == 'r' && v->locs[0].n == 0)
		return CT_RET_STR; /* rax, and the string it points to */
	for (int i = 0; i < v->nlocs; i++) {
		int vec =
			v->locs[i].kind == 'x' || v->locs[i].kind == 'w' || v->locs[i].kind == 'q';
		nr += v->locs[i].kind == 'r';
		nx += vec;
		wide |= v->locs[i].kind == 'q';
		if (vec && v->locs[i].n + 1 > last)
			last = v->locs[i].n + 1; /* the registers up to the last one named */
	}
	if (wide)
		return (uint8_t)(CT_RET_WIDE1 + last - 1);
	if (nr && nx)
		return CT_RET_MIXED;
	if (nx)
		return last == 4   ? CT_RET_SSE4
		       : last == 3 ? CT_RET_SSE3
		       : last == 2 ? CT_RET_SSE2
				   : CT_RET_SSE;
	return nr == 2 ? CT_RET_INT2 : CT_RET_INT;
}

int ct_proto_capture(const struct ct_proto *p, struct ct_capture *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < p->nparams && i < CT_PROTO_MAX_PARAMS; i++) {
		const struct ct_pvalue *v = &p->params[i].v;
		for (int j = 0; j < v->nlocs && j < CT_PROTO_MAX_LOCS; j++) {
			const struct ct_ploc *l = &v->locs[j];
			unsigned need = l->n + 1u;
			int vec = l->kind == 'x' || l->kind == 'w' || l->kind == 'q';
			if (l->kind == 'r' && l->n < CT_CAPTURE_MAX_INT && need > c->nint)
				c->nint = (uint8_t)need;
			else if (vec && l->n < 8 && need > c->nsse)
				c->nsse = (uint8_t)need;
			else if (l->kind == 's' && need > c->nstack)
				c->nstack = need > CT_CAPTURE_MAX_STACK ? CT_CAPTURE_MAX_STACK
									: (uint8_t)need;
		}
		for (int j = 0; j < v->nlocs && j < CT_PROTO_MAX_LOCS; j++)
			c->wide |= v->locs[j].kind == 'q';
		if (v->type == 's' && v->nlocs && v->locs[0].kind == 'r' &&
		    v->locs[0].n < CT_CAPTURE_MAX_INT)
			c->strs |= (uint8_t)(1u << v->locs[0].n);
	}
	c->ret = ct_ret_kind(&p->ret);
	return c->nint || c->nsse || c->nstack || c->ret;
}
