/* SPDX-License-Identifier: MIT */
/*
 * Values of a prototype as text (common/proto.h): a type as TYPE (i4,
 * s, e4{A=0;B=1}, S8{x:i4+0;y:i4+4} ...) and its place as LOC (r0, x1,
 * s2, m): the registers and stack words the SysV x86-64 ABI passes it in,
 * given the classes protos_abi.c found.
 */
#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "protos_int.h"

#define CT_ENUM_BODY_MAX 1024 /* an enum's enumerators, cut beyond */

/* How a type is written: a field of a struct; long double as binary128; structs described up to */
struct ct_tt {
	int field, quad;
	uint64_t body_max;
};

static int ct_type_text(struct ct_sb *b, Dwarf_Die *t, struct ct_tt how);

int ct_is_ident(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* ---- types as text --------------------------------------------------------------------- */

/* An enumerator's value, as the enum's underlying type (signed or not) makes it. */
static int64_t ct_enumerator_value(Dwarf_Die *e, int is_signed, uint64_t size)
{
	Dwarf_Attribute at;
	Dwarf_Sword s;
	Dwarf_Word u;
	if (!dwarf_attr(e, DW_AT_const_value, &at))
		return 0;
	if (dwarf_whatform(&at) == DW_FORM_sdata && dwarf_formsdata(&at, &s) == 0)
		u = (uint64_t)s;
	else if (dwarf_formudata(&at, &u) != 0)
		return 0;
	if (size >= 8)
		return (int64_t)u;
	u &= (1ull << (8 * size)) - 1;
	if (is_signed && (u >> (8 * size - 1)))
		u |= ~0ull << (8 * size);
	return (int64_t)u;
}

/* "e4{A=0;B=1}": enumerators as long as they fit in CT_ENUM_BODY_MAX. */
static void ct_enum_text(struct ct_sb *b, Dwarf_Die *t)
{
	char body[CT_ENUM_BODY_MAX + 1] = "";
	struct ct_sb eb = { body, CT_ENUM_BODY_MAX, 0, 0 };
	Dwarf_Die e, ut;
	uint64_t size = ct_type_size(t);
	uint64_t enc = ct_die_type(t, &ut) ? ct_udata(&ut, DW_AT_encoding, 0)
					   : ct_udata(t, DW_AT_encoding, DW_ATE_signed);
	int is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		size = 4;
	if (dwarf_child(t, &e) == 0) {
		do {
			const char *name = dwarf_diename(&e);
			char one[160];
			if (dwarf_tag(&e) != DW_TAG_enumerator || !ct_is_ident(name) ||
			    strlen(name) > 128)
				continue;
			int n = snprintf(one, sizeof(one), "%s%s=%lld", eb.len ? ";" : "", name,
					 (long long)ct_enumerator_value(&e, is_signed, size));
			if (eb.len + (size_t)n > eb.cap)
				break;
			ct_sb_put(&eb, one);
		} while (dwarf_siblingof(&e, &e) == 0);
	}
	ct_sb_putf(b, "e%u{", (unsigned)size);
	ct_sb_put(b, body);
	ct_sb_put(b, "}");
}

/* "{x:i4+0;y:i4+4}" for a struct of at most 16 bytes whose fields are all scalars; 0 if not. */
static int ct_struct_body(struct ct_sb *b, Dwarf_Die *t, int quad)
{
	char body[512] = "";
	struct ct_sb fb = { body, sizeof(body) - 1, 0, 0 };
	Dwarf_Die m, mt;
	if (dwarf_child(t, &m) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&m);
		const char *name = dwarf_diename(&m);
		if (tag == DW_TAG_inheritance)
			return 0;
		if (tag != DW_TAG_member || dwarf_hasattr(&m, DW_AT_external) ||
		    dwarf_hasattr(&m, DW_AT_declaration))
			continue;
		if (!ct_is_ident(name) || dwarf_hasattr(&m, DW_AT_bit_size) ||
		    dwarf_hasattr(&m, DW_AT_data_bit_offset) || !ct_die_type(&m, &mt))
			return 0;
		uint64_t off = ct_udata(&m, DW_AT_data_member_location, 0);
		ct_sb_putf(&fb, "%s%s:", fb.len ? ";" : "", name);
		if (ct_type_text(&fb, &mt, (struct ct_tt){ 1, quad, 0 }) == 'S')
			return 0;
		ct_sb_putf(&fb, "+%llu", (unsigned long long)off);
	} while (dwarf_siblingof(&m, &m) == 0);
	if (fb.over || !fb.len)
		return 0;
	ct_sb_put(b, "{");
	ct_sb_put(b, body);
	ct_sb_put(b, "}");
	return 1;
}

/* Is a pointer to this (peeled) type a string? char, signed char, unsigned char. */
static int ct_is_char(Dwarf_Die *t)
{
	uint64_t enc = ct_udata(t, DW_AT_encoding, 0);
	return dwarf_tag(t) == DW_TAG_base_type && ct_type_size(t) == 1 &&
	       (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char || enc == DW_ATE_UTF);
}

static int ct_base_text(struct ct_sb *b, Dwarf_Die *t, int quad)
{
	unsigned size = (unsigned)ct_type_size(t);
	switch (ct_udata(t, DW_AT_encoding, 0)) {
	case DW_ATE_boolean:
		ct_sb_put(b, "b");
		return 'b';
	case DW_ATE_signed_char:
	case DW_ATE_unsigned_char:
	case DW_ATE_UTF:
		if (size == 1) {
			ct_sb_put(b, "c");
			return 'c';
		}
		/* char16_t, char32_t */
		/* fall through */
	case DW_ATE_unsigned:
		if (size == 1 || size == 2 || size == 4 || size == 8 || size == 16) {
			ct_sb_putf(b, "u%u", size);
			return 'u';
		}
		break;
	case DW_ATE_signed:
		if (size == 1 || size == 2 || size == 4 || size == 8 || size == 16) {
			ct_sb_putf(b, "i%u", size);
			return 'i';
		}
		break;
	case DW_ATE_float:
		if (quad && ct_is_long_double(t)) { /* AAPCS64's: IEEE binary128 */
			ct_sb_put(b, "F16");
			return 'F';
		}
		if (size == 2 || size == 4 || size == 8 || ct_is_long_double(t)) {
			ct_sb_putf(b, "f%u", size);
			return 'f';
		}
		break; /* _Float128: shown as an opaque struct */
	case DW_ATE_complex_float:
		if (size == 8 || size == 16) {
			ct_sb_putf(b, "S%u{re:f%u+0;im:f%u+%u}", size, size / 2, size / 2,
				   size / 2);
			return 'S';
		}
		break;
	}
	ct_sb_putf(b, "S%u", size);
	return 'S';
}

/*
 * TYPE of the text form for a (peeled) type; its letter. In a field of a
 * struct (field) a char pointer is a plain pointer (its string is not
 * captured) and a struct is not described.
 */
static int ct_type_text(struct ct_sb *b, Dwarf_Die *t, struct ct_tt how)
{
	int field = how.field;
	Dwarf_Die target;
	uint64_t size = ct_type_size(t);
	switch (dwarf_tag(t)) {
	case DW_TAG_base_type:
		return ct_base_text(b, t, how.quad);
	case DW_TAG_pointer_type:
		if (!field && ct_die_type(t, &target) && ct_is_char(&target)) {
			ct_sb_put(b, "s");
			return 's';
		}
		break;
	case DW_TAG_enumeration_type:
		ct_enum_text(b, t);
		return 'e';
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		ct_sb_putf(b, "S%llu", (unsigned long long)size);
		if (!field && size && size <= how.body_max)
			ct_struct_body(b, t, how.quad);
		return 'S';
	case DW_TAG_ptr_to_member_type:
		if (size == 8)
			break;
		ct_sb_putf(b, "S%llu", (unsigned long long)size);
		return 'S';
	case DW_TAG_array_type: /* not a parameter's type in C; in a struct, not described */
		if (field) {
			ct_sb_putf(b, "S%llu", (unsigned long long)size);
			return 'S';
		}
		break;
	}
	/* pointers, references, functions, decltype(nullptr) */
	ct_sb_put(b, "p");
	return 'p';
}

/* ---- places ---------------------------------------------------------------------------- */

/* A value in stack words, aligned as its type asks; -1 past what LOC can say. */
static int ct_on_stack(struct ct_regs *r, const struct ct_abi *a, struct ct_ploc l[CT_MAX_LOCS])
{
	uint64_t words = a->size ? (a->size + 7) / 8 : 1;
	if (a->align > 8 && r->sw % 2)
		r->sw++;
	if (r->sw + (words == 2) > 255)
		return -1;
	l[0] = (struct ct_ploc){ 's', (uint8_t)r->sw };
	l[1] = (struct ct_ploc){ 's', (uint8_t)(r->sw + 1) };
	r->sw += (unsigned)(words > 255 ? 256 : words);
	return words == 2 ? 2 : 1; /* larger ones: their first word (they show as {…}) */
}

/* Where an argument is at entry; the number of LOCs (0: nowhere, an empty class); -1: cut. */
int ct_place(struct ct_regs *r, const struct ct_abi *a, struct ct_ploc l[CT_MAX_LOCS])
{
	int ni = 0, ns = 0, n = a->size > 8 ? 2 : 1;
	if (a->empty)
		return 0;
	if (a->byref) {
		struct ct_abi ptr = { .size = 8, .align = 8 };
		if (r->gpr >= 6)
			return ct_on_stack(r, &ptr, l);
		l[0] = (struct ct_ploc){ 'r', (uint8_t)r->gpr++ };
		return 1;
	}
	if (a->memory || a->x87)
		return ct_on_stack(r, a, l);
	for (int i = 0; i < n; i++) {
		ni += a->cls[i] == CT_INTEGER;
		ns += a->cls[i] == CT_SSE;
	}
	if (r->gpr + ni > 6 || r->xmm + ns > 8)
		return ct_on_stack(r, a, l); /* the whole of it, the registers stay free */
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (a->cls[i] == CT_INTEGER)
			l[k++] = (struct ct_ploc){ 'r', (uint8_t)r->gpr++ };
		else if (a->cls[i] == CT_SSE)
			l[k++] = (struct ct_ploc){ 'x', (uint8_t)r->xmm++ };
	}
	return k;
}

void ct_locs_text(struct ct_sb *b, const struct ct_ploc *l, int n)
{
	ct_sb_put(b, "@");
	if (!n)
		ct_sb_put(b, "m");
	for (int i = 0; i < n; i++)
		ct_sb_putf(b, "%s%c%u", i ? "+" : "", l[i].kind, l[i].n);
}

/* TYPE of a parameter or return value: a class passed by reference is its pointer. */
void ct_value_type(struct ct_sb *b, Dwarf_Die *type, const struct ct_abi *a)
{
	Dwarf_Die t;
	if (a->byref)
		ct_sb_put(b, "p");
	else if (a->empty)
		ct_sb_putf(b, "S%llu{}", (unsigned long long)a->size);
	else if (a->vector)
		ct_sb_putf(b, "S%llu", (unsigned long long)a->size); /* not described */
	else if (ct_peel(type, &t)) /* an HFA of up to four doubles is described too */
		ct_type_text(b, &t, (struct ct_tt){ 0, a->quad, a->nvec > 1 ? 32 : 16 });
}

/* RET: rax, rdx for INTEGER eightbytes, xmm0, xmm1 for SSE ones; *hidden if through memory. */
void ct_ret_text(struct ct_sb *b, Dwarf_Die *fn, int *hidden)
{
	Dwarf_Die type;
	struct ct_abi a;
	struct ct_ploc l[2];
	int k = 0, nr = 0, nx = 0;
	int has = ct_die_type(fn, &type);
	ct_type_abi(has ? &type : NULL, &a);
	*hidden = a.memory || a.byref;
	if (a.is_void)
		return;
	if (a.byref) {
		ct_sb_putf(b, "S%llu@m", (unsigned long long)a.size);
		return;
	}
	ct_value_type(b, &type, &a);
	if (!a.memory && !a.x87 && !a.empty) {
		for (int i = 0; i < (a.size > 8 ? 2 : 1); i++) {
			if (a.cls[i] == CT_INTEGER)
				l[k++] = (struct ct_ploc){ 'r', (uint8_t)nr++ };
			else if (a.cls[i] == CT_SSE)
				l[k++] = (struct ct_ploc){ 'x', (uint8_t)nx++ };
		}
	}
	ct_locs_text(b, l, k); /* 0: memory, st0 (long double), nothing (empty) */
}

/* The buffers have cap + 1 bytes: the text and its NUL. */
void ct_sb_put(struct ct_sb *b, const char *s)
{
	size_t n = strlen(s);
	if (b->over || b->len + n > b->cap) {
		b->over = 1;
		return;
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = 0;
}

void ct_sb_putf(struct ct_sb *b, const char *fmt, ...)
{
	va_list ap;
	if (b->over)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(b->buf + b->len, b->cap - b->len + 1, fmt, ap);
	va_end(ap);
	if (n < 0 || b->len + (size_t)n > b->cap) {
		b->over = 1;
		b->buf[b->len] = 0;
		return;
	}
	b->len += (size_t)n;
}

/* The SysV x86-64 convention (protos_abi.c classifies): rdi rsi rdx rcx r8 r9, xmm0 at 17. */
const struct ct_cc ct_cc_sysv = {
	.type_abi = ct_type_abi,
	.place = ct_place,
	.ret_text = ct_ret_text,
	.ngpr = 6,
	.gpr = { 5, 4, 1, 2, 8, 9 },
	.dwarf_vec0 = 17,
};
