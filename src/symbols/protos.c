/* SPDX-License-Identifier: MIT */
/*
 * Prototypes from DWARF (protos.h): every subprogram with code, its
 * parameters placed in registers and stack words as the SysV x86-64 ABI
 * places them (protos_abi.c classifies the types), written in the text form
 * of common/proto.h. Split DWARF is read through libdw, which finds the
 * split unit of each skeleton; the skeleton only gives the addresses.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "protos.h"
#include "protos_int.h"
#include "../common/proto.h"

#define CT_ENUM_BODY_MAX 1024 /* an enum's enumerators, cut beyond */

static int ct_type_text(struct ct_sb *b, Dwarf_Die *t, int field);

static int ct_is_ident(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static uint64_t ct_attr_u(Dwarf_Die *die, int name, uint64_t dflt)
{
	Dwarf_Attribute at;
	Dwarf_Word w;
	return dwarf_attr(die, name, &at) && dwarf_formudata(&at, &w) == 0 ? w : dflt;
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
	uint64_t enc = ct_die_type(t, &ut) ? ct_attr_u(&ut, DW_AT_encoding, 0)
					   : ct_attr_u(t, DW_AT_encoding, DW_ATE_signed);
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
static int ct_struct_body(struct ct_sb *b, Dwarf_Die *t)
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
		uint64_t off = ct_attr_u(&m, DW_AT_data_member_location, 0);
		ct_sb_putf(&fb, "%s%s:", fb.len ? ";" : "", name);
		if (ct_type_text(&fb, &mt, 1) == 'S')
			return 0;
		ct_sb_putf(&fb, "+%llu", (unsigned long long)off);
	} while (dwarf_siblingof(&m, &m) == 0);
	if (fb.over || !fb.len)
		return 0;
	ct_sb_putf(b, "{%s}", body);
	return 1;
}

/* Is a pointer to this (peeled) type a string? char, signed char, unsigned char. */
static int ct_is_char(Dwarf_Die *t)
{
	uint64_t enc = ct_attr_u(t, DW_AT_encoding, 0);
	return dwarf_tag(t) == DW_TAG_base_type && ct_type_size(t) == 1 &&
	       (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char || enc == DW_ATE_UTF);
}

static int ct_base_text(struct ct_sb *b, Dwarf_Die *t)
{
	unsigned size = (unsigned)ct_type_size(t);
	switch (ct_attr_u(t, DW_AT_encoding, 0)) {
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
		if (size == 2 || size == 4 || size == 8 || ct_is_long_double(t)) {
			ct_sb_putf(b, "f%u", size);
			return 'f';
		}
		break; /* _Float128: shown as an opaque struct */
	case DW_ATE_complex_float:
		if (size == 8 || size == 16) {
			ct_sb_putf(b, "S%u{re:f%u+0;im:f%u+%u}", size, size / 2, size / 2, size / 2);
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
static int ct_type_text(struct ct_sb *b, Dwarf_Die *t, int field)
{
	Dwarf_Die target;
	uint64_t size = ct_type_size(t);
	switch (dwarf_tag(t)) {
	case DW_TAG_base_type:
		return ct_base_text(b, t);
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
		if (!field && size && size <= 16)
			ct_struct_body(b, t);
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

/* Registers and stack words used so far by the arguments. */
struct ct_regs {
	unsigned gpr, xmm, sw;
};

/* A value in stack words, aligned as its type asks; -1 past what LOC can say. */
static int ct_on_stack(struct ct_regs *r, const struct ct_abi *a, struct ct_ploc l[2])
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
static int ct_place(struct ct_regs *r, const struct ct_abi *a, struct ct_ploc l[2])
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

static void ct_locs_text(struct ct_sb *b, const struct ct_ploc *l, int n)
{
	ct_sb_put(b, "@");
	if (!n)
		ct_sb_put(b, "m");
	for (int i = 0; i < n; i++)
		ct_sb_putf(b, "%s%c%u", i ? "+" : "", l[i].kind, l[i].n);
}

/* TYPE of a parameter or return value: a class passed by reference is its pointer. */
static void ct_value_type(struct ct_sb *b, Dwarf_Die *type, const struct ct_abi *a)
{
	Dwarf_Die t;
	if (a->byref)
		ct_sb_put(b, "p");
	else if (a->empty)
		ct_sb_putf(b, "S%llu{}", (unsigned long long)a->size);
	else if (ct_peel(type, &t))
		ct_type_text(b, &t, 0);
}

/* RET: rax, rdx for INTEGER eightbytes, xmm0, xmm1 for SSE ones; *hidden if through memory. */
static void ct_ret_text(struct ct_sb *b, Dwarf_Die *fn, int *hidden)
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

/* ---- functions ------------------------------------------------------------------------- */

/*
 * The parameters come from the abstract origin of a concrete instance
 * (clang may leave out of it the parameters it does not use). But gcc's
 * constructors and destructors are instances of an abstract one that also
 * has the artificial __in_chrg and __vtt_parm, which most instances do not
 * take: an artificial parameter (but `this`) counts only if the instance
 * has it too.
 */
#define CT_MAX_REFS 64

/* The state of one prototype being written. */
struct ct_proto_w {
	struct ct_sb *b;
	struct ct_regs r;
	size_t room;   /* bytes the params may take (the return value's are kept) */
	int n, cut;    /* parameters written; cut short */
	int seen;      /* formal parameters met, written or not */
	int named;     /* parameters that are not artificial */
	int kr;	       /* an unprototyped C function: float arguments are doubles */
	int nrefs;     /* -1: no abstract origin, every parameter counts */
	Dwarf_Off refs[CT_MAX_REFS]; /* the origin's parameters the instance has */
};

/* The DIE whose children are the parameters: the abstract origin's, for a concrete instance. */
static void ct_params_die(struct ct_proto_w *w, Dwarf_Die *fn, Dwarf_Die *out)
{
	Dwarf_Attribute at;
	Dwarf_Die c, o;
	*out = *fn;
	for (int i = 0; i < CT_TYPE_DEPTH; i++) {
		if (!dwarf_attr(out, DW_AT_abstract_origin, &at) || !dwarf_formref_die(&at, &o))
			break;
		*out = o;
	}
	w->nrefs = -1;
	if (dwarf_dieoffset(out) == dwarf_dieoffset(fn) || dwarf_child(fn, &c) != 0)
		return;
	w->nrefs = 0;
	do {
		if (dwarf_tag(&c) == DW_TAG_formal_parameter && w->nrefs < CT_MAX_REFS &&
		    dwarf_attr(&c, DW_AT_abstract_origin, &at) && dwarf_formref_die(&at, &o))
			w->refs[w->nrefs++] = dwarf_dieoffset(&o);
	} while (dwarf_siblingof(&c, &c) == 0);
}

static int ct_counts(struct ct_proto_w *w, Dwarf_Die *p)
{
	if (w->nrefs < 0 || w->seen == 1 || !dwarf_hasattr(p, DW_AT_artificial))
		return 1;
	for (int i = 0; i < w->nrefs; i++)
		if (w->refs[i] == dwarf_dieoffset(p))
			return 1;
	return 0;
}

/* "name:TYPE@LOC" of one formal parameter; 0 if the prototype is cut before it. */
static int ct_param(struct ct_proto_w *w, Dwarf_Die *p)
{
	char text[CT_PROTO_MAX_TEXT + 1];
	struct ct_sb pb = { text, CT_PROTO_MAX_TEXT, 0, 0 };
	Dwarf_Attribute at;
	Dwarf_Die type;
	struct ct_abi a;
	struct ct_ploc l[2];
	const char *name = dwarf_formstring(dwarf_attr_integrate(p, DW_AT_name, &at));
	int has = ct_die_type(p, &type), artificial = dwarf_hasattr_integrate(p, DW_AT_artificial);
	w->seen++;
	if (!ct_counts(w, p))
		return 1;
	w->named += !artificial;
	if (w->n == CT_PROTO_MAX_PARAMS)
		return 0;
	ct_type_abi(has ? &type : NULL, &a);
	if (a.is_void) /* no type: a pointer-sized word is the best guess */
		a = (struct ct_abi){ .size = 8, .align = 8, .cls = { CT_INTEGER } };
	if (w->n == 0 && artificial && a.cls[0] == CT_INTEGER)
		name = "this";
	int n = ct_place(&w->r, &a, l);
	if (n < 0)
		return 0;
	if (ct_is_ident(name))
		ct_sb_putf(&pb, "%s:", name);
	else
		ct_sb_putf(&pb, "arg%d:", w->n + 1);
	if (!has)
		ct_sb_put(&pb, "p");
	else if (w->kr && a.size == 4 && a.cls[0] == CT_SSE && !a.byref)
		ct_sb_put(&pb, "f8"); /* an unprototyped float parameter is passed as a double */
	else
		ct_value_type(&pb, &type, &a);
	ct_locs_text(&pb, l, n);
	if (pb.over || w->b->len + (w->n ? 1 : 0) + pb.len > w->room)
		return 0;
	ct_sb_put(w->b, w->n ? "," : "");
	ct_sb_put(w->b, text);
	w->n++;
	return 1;
}

/* The parameters, from the children of pd; 1 if the function is variadic. */
static int ct_params(struct ct_proto_w *w, Dwarf_Die *pd, int depth)
{
	Dwarf_Die c;
	int variadic = 0;
	if (dwarf_child(pd, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		if (w->cut)
			break;
		if (tag == DW_TAG_formal_parameter)
			w->cut = !ct_param(w, &c);
		else if (tag == DW_TAG_unspecified_parameters)
			variadic = 1;
		else if (tag == DW_TAG_GNU_formal_parameter_pack && depth == 0)
			variadic |= ct_params(w, &c, 1); /* a template's parameter pack, expanded */
	} while (dwarf_siblingof(&c, &c) == 0);
	return variadic;
}

/*
 * gcc writes no DW_TAG_unspecified_parameters for a C++ function whose only
 * parameter is "...": its mangled name then ends with the 'z' of "...", where
 * one without any parameter has 'v'.
 */
static int ct_only_ellipsis(Dwarf_Die *fn, const struct ct_proto_w *w)
{
	Dwarf_Attribute at;
	const char *name = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_linkage_name, &at));
	size_t len = name ? strlen(name) : 0;
	return !w->named && len > 2 && !strncmp(name, "_Z", 2) && name[len - 1] == 'z';
}

static int ct_is_c(Dwarf_Die *cu)
{
	int lang = dwarf_srclang(cu);
	return lang == DW_LANG_C89 || lang == DW_LANG_C || lang == DW_LANG_C99 ||
	       lang == DW_LANG_C11 || lang == 0x2c /* DW_LANG_C17 */;
}

/* The prototype text of fn into out (CT_PROTO_MAX_TEXT + 1 bytes). */
static void ct_proto_text(Dwarf_Die *fn, Dwarf_Die *cu, char *out)
{
	char ret[CT_PROTO_MAX_TEXT + 1] = "";
	struct ct_sb rb = { ret, CT_PROTO_MAX_TEXT / 2, 0, 0 };
	struct ct_sb b = { out, CT_PROTO_MAX_TEXT, 0, 0 };
	struct ct_proto_w w;
	Dwarf_Die pd;
	int hidden, variadic;
	memset(&w, 0, sizeof(w));
	out[0] = 0;
	ct_ret_text(&rb, fn, &hidden);
	if (rb.over)
		ret[0] = rb.len = 0;
	w.b = &b;
	w.r.gpr = hidden ? 1 : 0; /* the hidden pointer to the return value takes rdi */
	w.room = CT_PROTO_MAX_TEXT - 1 - rb.len;
	w.kr = ct_is_c(cu) && !dwarf_hasattr_integrate(fn, DW_AT_prototyped);
	ct_params_die(&w, fn, &pd);
	variadic = ct_params(&w, &pd, 0) || ct_only_ellipsis(fn, &w);
	if (variadic && !w.cut && b.len + 4 <= w.room)
		ct_sb_put(&b, w.n ? ",..." : "...");
	ct_sb_put(&b, "|");
	ct_sb_put(&b, ret);
}

/* ---- the walk -------------------------------------------------------------------------- */

struct ct_walk {
	ct_dwarf_proto_fn cb;
	void *ctx;
	Dwarf_Die cu;
	int count, linked; /* linked: an executable or library (address 0 is no function) */
};

/* Where the function's code starts: low_pc, else its first range (gcc's hot/cold split). */
static int ct_entry(Dwarf_Die *fn, Dwarf_Addr *addr)
{
	Dwarf_Addr base, start, end;
	if (dwarf_hasattr(fn, DW_AT_declaration))
		return -1;
	if (dwarf_hasattr(fn, DW_AT_low_pc))
		return dwarf_lowpc(fn, addr);
	if (dwarf_hasattr(fn, DW_AT_ranges) && dwarf_ranges(fn, 0, &base, &start, &end) > 0) {
		*addr = start;
		return 0;
	}
	return dwarf_hasattr(fn, DW_AT_entry_pc) ? dwarf_entrypc(fn, addr) : -1;
}

static const char *ct_fn_name(Dwarf_Die *fn)
{
	Dwarf_Attribute at;
	const char *name = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_linkage_name, &at));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_MIPS_linkage_name, &at));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_name, &at));
	return name;
}

static void ct_subprogram(struct ct_walk *w, Dwarf_Die *fn)
{
	char text[CT_PROTO_MAX_TEXT + 1];
	Dwarf_Addr addr;
	const char *name;
	if (ct_entry(fn, &addr) != 0 || (w->linked && (addr == 0 || addr >= (Dwarf_Addr)-2)))
		return; /* no code, or code the linker dropped */
	if (!(name = ct_fn_name(fn)) || !*name)
		return;
	ct_proto_text(fn, &w->cu, text);
	w->cb(w->ctx, addr, name, text);
	w->count++;
}

/* Subprograms anywhere: in namespaces, classes, and in functions (nested, local classes). */
static void ct_walk_die(struct ct_walk *w, Dwarf_Die *die, int depth)
{
	Dwarf_Die c;
	if (depth > 64 || dwarf_child(die, &c) != 0)
		return;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
			ct_subprogram(w, &c);
			/* fall through */
		case DW_TAG_namespace:
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
		case DW_TAG_lexical_block:
		case DW_TAG_module:
			ct_walk_die(w, &c, depth + 1);
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

int ct_dwarf_protos(const char *path, ct_dwarf_proto_fn cb, void *ctx)
{
	struct ct_walk w = { .cb = cb, .ctx = ctx };
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	Dwarf_Half version;
	uint8_t type;
	GElf_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Dwarf *dbg = dwarf_begin(fd, DWARF_C_READ);
	if (!dbg) {
		close(fd);
		return -1;
	}
	Elf *elf = dwarf_getelf(dbg);
	w.linked = elf && gelf_getehdr(elf, &eh) && eh.e_type != ET_REL;
	while (dwarf_get_units(dbg, cu, &cu, &version, &type, &cudie, &subdie) == 0) {
		if (type == DW_UT_skeleton && subdie.addr)
			w.cu = subdie; /* the split unit: in a .dwo beside, or a .dwp */
		else if (type == DW_UT_compile || type == DW_UT_partial)
			w.cu = cudie;
		else
			continue;
		ct_walk_die(&w, &w.cu, 0);
	}
	dwarf_end(dbg);
	close(fd);
	return w.count;
}
