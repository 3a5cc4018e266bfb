/* SPDX-License-Identifier: MIT */
/*
 * Captured values as text (values.h). A value is first gathered as the
 * bytes of its eightbytes (or an HFA's members), each from the register or
 * stack word the prototype names, so a struct split over an integer and an
 * SSE register reads like the struct in memory; then shown by its type
 * (scalars by values_text.c).
 */
#include <string.h>

#include "values.h"
#include "values_int.h"

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
	uint64_t mask = size >= 8 ? ~0ull : (1ull << (8 * size)) - 1, v = ct_vload(b, size) & mask;
	const char *s = body, *end = body + blen, *name;
	int any_neg = 0, neg;
	size_t nlen;
	uint64_t ev;
	while (s && s < end) {
		s = ct_enumerator(s, end, &name, &nlen, &ev, &neg);
		if (!s)
			break;
		if ((ev & mask) == v) {
			ct_vput(o, name, nlen);
			return;
		}
		any_neg |= neg;
	}
	ct_vput_int(o, b, size, any_neg);
}

/* The bytes a scalar is made of; 0 for a size it cannot have (a field's text is not checked). */
static size_t ct_scalar_bytes(char type, unsigned size)
{
	switch (type) {
	case 'b':
	case 'c':
		return 1;
	case 'p':
	case 's':
		return 8;
	case 'i':
	case 'u':
		return (size && size <= 8 && !(size & (size - 1))) || size == 16 ? size : 0;
	case 'e':
		return size && size <= 8 && !(size & (size - 1)) ? size : 0;
	case 'f':
		return size == 16 ? 10 : size == 2 || size == 4 || size == 8 ? size : 0;
	case 'F':
		return size == 16 ? 16 : 0;
	default:
		return 0;
	}
}

/* A scalar from the n bytes at b; "?" if they are fewer than it needs. */
static void ct_put_scalar(struct ct_vout *o, char type, unsigned size, const char *body,
			  size_t blen, const uint8_t *b, size_t n)
{
	size_t need = ct_scalar_bytes(type, size);
	if (type == 'S') {
		ct_vputs(o, "{" CT_ELLIPSIS "}"); /* a struct in a struct: not described */
		return;
	}
	if (!need || need > n) {
		ct_vputs(o, "?");
		return;
	}
	switch (type) {
	case 'i':
	case 'u':
		ct_vput_int(o, b, size, type == 'i');
		break;
	case 'b':
		ct_vputs(o, b[0] ? "true" : "false");
		break;
	case 'c':
		ct_vputs(o, "'");
		ct_vput_escaped(o, b[0], '\'');
		ct_vputs(o, "'");
		break;
	case 'p':
	case 's': /* a string inside a struct, or on the stack: its pointer only */
		ct_vput_pointer(o, ct_vload(b, 8));
		break;
	case 'f':
		ct_vput_fp(o, b, size);
		break;
	case 'F':
		ct_vput_quad(o, b);
		break;
	case 'e':
		ct_put_enum(o, b, size, body ? body : "", body ? blen : 0);
		break;
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
	ct_vputs(o, "{");
	for (int i = 0; s < end && !o->full; i++) {
		const char *colon = memchr(s, ':', (size_t)(end - s)), *fbody;
		char type;
		unsigned size;
		size_t fblen = 0, off;
		if (!colon)
			break;
		const char *next =
			ct_field_type(colon + 1, end, &type, &size, &fbody, &fblen, &off);
		if (!next)
			break;
		ct_vputs(o, i ? ", " : "");
		ct_vput(o, s, (size_t)(colon - s));
		ct_vputs(o, "=");
		ct_put_scalar(o, type, size, fbody, fblen, b + (off < n ? off : n),
			      off < n ? n - off : 0);
		s = next < end && *next == ';' ? next + 1 : end;
	}
	ct_vputs(o, "}");
}

/* ---- values ---------------------------------------------------------------------------- */

/* The bytes a LOC holds into b (room for 16): how many; 0 if the capture does not have them. */
static size_t ct_loc_bytes(const struct ct_captured *c, const struct ct_ploc *l, uint8_t *b)
{
	const uint64_t *w;
	size_t n = l->kind == 'w' ? 4 : l->kind == 'q' ? 16 : 8;
	if (l->kind == 'r' && c->ints && l->n < c->nint && l->n < CT_CAPTURE_MAX_INT)
		w = &c->ints[l->n];
	else if (l->kind == 's' && c->stack && l->n < c->nstack)
		w = &c->stack[l->n];
	else if (strchr("xwq", l->kind) && c->sse && l->n < c->nsse && l->n < 8 &&
		 (c->wide || l->kind != 'q'))
		w = &c->sse[c->wide ? 2 * l->n : l->n]; /* wide: its low, then its high half */
	else
		return 0;
	memcpy(b, w, n);
	return n;
}

/* The string an integer register pointed to, as the capture kept it. */
static void ct_put_captured_str(struct ct_vout *o, const struct ct_captured_str *s, uint64_t p)
{
	if ((s->flags & CT_STR_NULL) || !p)
		ct_vputs(o, "NULL");
	else if ((s->flags & CT_STR_UNREADABLE) || !s->bytes)
		ct_vput_pointer(o, p);
	else {
		ct_vput_string(o, s->bytes, s->len);
		if (s->flags & CT_STR_CUT)
			ct_vputs(o, CT_ELLIPSIS);
	}
}

static void ct_put_value(struct ct_vout *o, const struct ct_pvalue *v, const struct ct_captured *c)
{
	uint8_t b[16 * CT_PROTO_MAX_LOCS] = { 0 };
	size_t len = 0, got;
	int n = v->nlocs < CT_PROTO_MAX_LOCS ? v->nlocs : CT_PROTO_MAX_LOCS;
	if (v->type == 'S' && v->body && !v->body_len) {
		ct_vputs(o, "{}"); /* an empty class: passed in nothing */
		return;
	}
	if (v->type == 'S' && !v->body) {
		ct_vputs(o, "{" CT_ELLIPSIS "}");
		return;
	}
	for (int i = 0; i < n; i++) {
		if (!(got = ct_loc_bytes(c, &v->locs[i], b + len))) {
			ct_vputs(o, "?");
			return;
		}
		len += got;
	}
	if (!n) {
		ct_vputs(o, "?");
	} else if (v->type == 's' && v->locs[0].kind == 'r' && v->locs[0].n < CT_CAPTURE_MAX_INT &&
		   (c->strs & (1u << v->locs[0].n))) {
		ct_put_captured_str(o, &c->str[v->locs[0].n], ct_vload(b, 8));
	} else if (v->type == 'S') {
		ct_put_struct(o, v->body, v->body_len, b, len);
	} else {
		ct_put_scalar(o, v->type, v->size, v->body, v->body_len, b, len);
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
		ct_vputs(&o, i ? ", " : "");
		ct_vput(&o, a->name, a->name_len);
		ct_vputs(&o, "=");
		ct_put_value(&o, &a->v, c);
	}
	if (p->variadic)
		ct_vputs(&o, p->nparams ? ", ..." : "...");
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
