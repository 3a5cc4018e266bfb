/* SPDX-License-Identifier: MIT */
/*
 * How the SysV x86-64 ABI passes a value of a DWARF type: its size, its
 * alignment and the class of each eightbyte (INTEGER, SSE, X87, MEMORY),
 * classified field by field as the ABI's section 3.2.3 says; and, for C++
 * classes, whether they go by invisible reference (not trivial for calls)
 * or in nothing at all (empty).
 */
#include <dwarf.h>
#include <string.h>

#include "protos_int.h"

int ct_peel(Dwarf_Die *in, Dwarf_Die *out)
{
	Dwarf_Attribute at;
	for (int i = 0; i < CT_TYPE_DEPTH; i++) {
		if (dwarf_peel_type(in, out) != 0)
			return 0;
		/* a declaration whose definition is in a type unit (-fdebug-types-section) */
		if (!dwarf_hasattr(out, DW_AT_declaration) ||
		    !dwarf_attr(out, DW_AT_signature, &at))
			return 1;
		Dwarf_Die def;
		if (!dwarf_formref_die(&at, &def))
			return 1;
		*in = def;
	}
	return 1;
}

int ct_die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute at;
	Dwarf_Die t;
	if (!dwarf_attr_integrate(die, DW_AT_type, &at) || !dwarf_formref_die(&at, &t))
		return 0;
	return ct_peel(&t, type);
}

int ct_is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

uint64_t ct_udata(Dwarf_Die *die, int name, uint64_t dflt)
{
	Dwarf_Attribute at;
	Dwarf_Word w;
	return dwarf_attr(die, name, &at) && dwarf_formudata(&at, &w) == 0 ? w : dflt;
}

uint64_t ct_type_size(Dwarf_Die *t)
{
	Dwarf_Die target;
	Dwarf_Word size;
	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_unspecified_type: /* decltype(nullptr) */
		return 8;
	case DW_TAG_ptr_to_member_type: /* to a member function: function and this adjustment */
		if (dwarf_hasattr(t, DW_AT_byte_size))
			return ct_udata(t, DW_AT_byte_size, 8);
		return ct_die_type(t, &target) && dwarf_tag(&target) == DW_TAG_subroutine_type ? 16
											       : 8;
	default:
		return dwarf_aggregate_size(t, &size) == 0 ? size : 0;
	}
}

int ct_is_static_member(Dwarf_Die *m)
{
	return dwarf_hasattr(m, DW_AT_external) || dwarf_hasattr(m, DW_AT_declaration);
}

unsigned ct_type_align(Dwarf_Die *t, int depth)
{
	Dwarf_Die sub, mt;
	unsigned align = 1;
	uint64_t size = ct_type_size(t);
	if (dwarf_hasattr(t, DW_AT_alignment))
		return (unsigned)ct_udata(t, DW_AT_alignment, 1);
	switch (dwarf_tag(t)) {
	case DW_TAG_base_type:
		if (ct_udata(t, DW_AT_encoding, 0) == DW_ATE_complex_float)
			size /= 2;
		return size > 16 ? 16 : size ? (unsigned)size : 1;
	case DW_TAG_array_type:
		return depth < CT_TYPE_DEPTH && ct_die_type(t, &mt) ? ct_type_align(&mt, depth + 1)
								    : 1;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		break;
	default:
		return size >= 8 ? 8 : size ? (unsigned)size : 1;
	}
	if (depth >= CT_TYPE_DEPTH || dwarf_child(t, &sub) != 0)
		return 1;
	do {
		int tag = dwarf_tag(&sub);
		if ((tag == DW_TAG_member && !ct_is_static_member(&sub)) ||
		    tag == DW_TAG_inheritance) {
			unsigned a = ct_die_type(&sub, &mt) ? ct_type_align(&mt, depth + 1) : 1;
			align = a > align ? a : align;
		}
	} while (dwarf_siblingof(&sub, &sub) == 0);
	return align > 16 ? 16 : align;
}

/*
 * A member's place in bits from the start of its struct, and its size in
 * bits; *bitfield when it is one. DWARF 4+ gives DW_AT_data_bit_offset;
 * older bitfields count DW_AT_bit_offset from the top of a storage unit.
 */
static void ct_member_bits(Dwarf_Die *m, Dwarf_Die *type, uint64_t *off, uint64_t *bits,
			   int *bitfield)
{
	uint64_t loc = ct_udata(m, DW_AT_data_member_location, 0);
	*bitfield = dwarf_hasattr(m, DW_AT_bit_size);
	*bits = *bitfield ? ct_udata(m, DW_AT_bit_size, 0) : 8 * ct_type_size(type);
	if (dwarf_hasattr(m, DW_AT_data_bit_offset)) {
		*off = ct_udata(m, DW_AT_data_bit_offset, 0);
	} else if (*bitfield && dwarf_hasattr(m, DW_AT_bit_offset)) {
		uint64_t unit = 8 * ct_udata(m, DW_AT_byte_size, ct_type_size(type));
		*off = 8 * loc + unit - ct_udata(m, DW_AT_bit_offset, 0) - *bits;
	} else {
		*off = 8 * loc;
	}
}

/* The ABI's merge of two classes of one eightbyte. */
static uint8_t ct_merge(uint8_t a, uint8_t b)
{
	if (a == b || b == CT_NO_CLASS)
		return a;
	if (a == CT_NO_CLASS)
		return b;
	if (a == CT_MEMORY || b == CT_MEMORY)
		return CT_MEMORY;
	if (a == CT_INTEGER || b == CT_INTEGER)
		return CT_INTEGER;
	if (a == CT_X87 || a == CT_X87UP || b == CT_X87 || b == CT_X87UP)
		return CT_MEMORY;
	return CT_SSE;
}

/* Bytes [off, off + size) are of class c; -1 if they are past the two eightbytes. */
static int ct_mark(uint8_t cls[2], uint64_t off, uint64_t size, uint8_t c)
{
	if (!size)
		return 0;
	if (off + size > 16)
		return -1;
	for (uint64_t e = off / 8; e <= (off + size - 1) / 8; e++)
		cls[e] = ct_merge(cls[e], c);
	return 0;
}

int ct_is_long_double(Dwarf_Die *t)
{
	const char *name = dwarf_diename(t);
	return ct_udata(t, DW_AT_encoding, 0) == DW_ATE_float && ct_type_size(t) == 16 && name &&
	       !strcmp(name, "long double");
}

static int ct_classify_base(Dwarf_Die *t, uint64_t off, uint64_t size, uint8_t cls[2])
{
	switch (ct_udata(t, DW_AT_encoding, 0)) {
	case DW_ATE_float:
		if (size <= 8)
			return ct_mark(cls, off, size, CT_SSE);
		if (size != 16 || off)
			return -1;
		/* long double: X87 then X87UP; _Float128: SSE then SSEUP, one xmm register */
		cls[0] = ct_merge(cls[0], ct_is_long_double(t) ? CT_X87 : CT_SSE);
		cls[1] = ct_merge(cls[1], ct_is_long_double(t) ? CT_X87UP : CT_SSEUP);
		return 0;
	case DW_ATE_complex_float:
		return size <= 16 ? ct_mark(cls, off, size, CT_SSE) : -1;
	default:
		return ct_mark(cls, off, size, CT_INTEGER);
	}
}

static int ct_classify_type(Dwarf_Die *t, uint64_t off, uint8_t cls[2], int depth);

/* Classify the eightbytes the type of die (a member, a base class) covers at off. */
static int ct_classify(Dwarf_Die *die, uint64_t off, uint8_t cls[2], int depth)
{
	Dwarf_Die t;
	return ct_die_type(die, &t) ? ct_classify_type(&t, off, cls, depth) : -1;
}

static int ct_classify_members(Dwarf_Die *t, uint64_t off, uint8_t cls[2], int depth)
{
	Dwarf_Die m, mt;
	uint64_t bit_off, bits;
	int bitfield;
	if (dwarf_child(t, &m) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&m);
		if (tag == DW_TAG_inheritance) {
			uint64_t loc = ct_udata(&m, DW_AT_data_member_location, 0);
			if (ct_classify(&m, off + loc, cls, depth + 1))
				return -1;
		}
		if (tag != DW_TAG_member || ct_is_static_member(&m))
			continue;
		if (!ct_die_type(&m, &mt))
			return -1;
		ct_member_bits(&m, &mt, &bit_off, &bits, &bitfield);
		if (bitfield) {
			if (bits && ct_mark(cls, off + bit_off / 8, (bit_off % 8 + bits + 7) / 8,
					    CT_INTEGER))
				return -1;
		} else if (bit_off % 8 ||
			   ct_classify_type(&mt, off + bit_off / 8, cls, depth + 1)) {
			return -1;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return 0;
}

/* Classify the eightbytes a (peeled) type covers at off; -1: MEMORY. */
static int ct_classify_type(Dwarf_Die *t, uint64_t off, uint8_t cls[2], int depth)
{
	Dwarf_Die et;
	uint64_t size = ct_type_size(t), esize;
	if (depth > CT_TYPE_DEPTH)
		return -1;
	if (!size)
		return 0;
	if (off % ct_type_align(t, depth) || off + size > 16)
		return -1; /* unaligned, or too large */
	switch (dwarf_tag(t)) {
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		return ct_classify_members(t, off, cls, depth + 1);
	case DW_TAG_array_type:
		if (!ct_die_type(t, &et) || !(esize = ct_type_size(&et)))
			return 0;
		for (uint64_t i = 0; i < size / esize; i++)
			if (ct_classify_type(&et, off + i * esize, cls, depth + 1))
				return -1;
		return 0;
	case DW_TAG_base_type:
		return ct_classify_base(t, off, size, cls);
	default: /* pointers, references, enums, pointers to members */
		return ct_mark(cls, off, size, CT_INTEGER);
	}
}

/* A constructor taking one reference to its own class: a copy or move constructor. */
static int ct_is_copy_ctor(Dwarf_Die *fn, const char *cls)
{
	Dwarf_Die p, t, rt;
	int n = 0, copy = 0;
	if (dwarf_child(fn, &p) != 0)
		return 0;
	do {
		if (dwarf_tag(&p) != DW_TAG_formal_parameter || dwarf_hasattr(&p, DW_AT_artificial))
			continue;
		n++;
		const char *name = NULL;
		int tag = ct_die_type(&p, &t) ? dwarf_tag(&t) : 0;
		if ((tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type) &&
		    ct_die_type(&t, &rt))
			name = dwarf_diename(&rt);
		copy = name && !strcmp(name, cls);
	} while (dwarf_siblingof(&p, &p) == 0);
	return n == 1 && copy;
}

/* A member function that makes its class not trivial for calls (gcc writes no DW_AT_calling_convention). */
static int ct_nontrivial_member(Dwarf_Die *fn, const char *cls)
{
	const char *name = dwarf_diename(fn);
	if (ct_udata(fn, DW_AT_virtuality, 0))
		return 1; /* a virtual function: the copy constructor copies the vtable pointer */
	if (!name || dwarf_hasattr(fn, DW_AT_artificial) || dwarf_hasattr(fn, DW_AT_deleted) ||
	    ct_udata(fn, DW_AT_defaulted, 0) == DW_DEFAULTED_in_class)
		return 0;
	if (name[0] == '~')
		return 1;
	size_t len = strcspn(cls, "<");
	return !strncmp(name, cls, len) && (!name[len] || name[len] == '<') &&
	       ct_is_copy_ctor(fn, cls);
}

/* A class passed by invisible reference: a non-trivial copy or move constructor or destructor. */
int ct_byref(Dwarf_Die *t, int depth)
{
	Dwarf_Die m, mt;
	Dwarf_Attribute at;
	Dwarf_Word cc;
	const char *cls = dwarf_diename(t);
	/* a class only declared here is defined elsewhere, in practice with virtual functions */
	if (dwarf_hasattr(t, DW_AT_declaration))
		return 1;
	if (dwarf_attr(t, DW_AT_calling_convention, &at) && dwarf_formudata(&at, &cc) == 0)
		return cc == DW_CC_pass_by_reference;
	if (depth > CT_TYPE_DEPTH || dwarf_child(t, &m) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&m);
		if (tag == DW_TAG_subprogram && cls && ct_nontrivial_member(&m, cls))
			return 1;
		if (tag == DW_TAG_inheritance && ct_udata(&m, DW_AT_virtuality, 0))
			return 1;
		if (tag != DW_TAG_inheritance && (tag != DW_TAG_member || ct_is_static_member(&m)))
			continue;
		/* a base or member of a class type that is not trivial (arrays of them too) */
		for (int i = 0;
		     i < 4 && ct_die_type(&m, &mt) && dwarf_tag(&mt) == DW_TAG_array_type; i++)
			m = mt;
		if (ct_die_type(&m, &mt) && ct_is_aggregate(dwarf_tag(&mt)) &&
		    ct_byref(&mt, depth + 1))
			return 1;
	} while (dwarf_siblingof(&m, &m) == 0);
	return 0;
}

/* No data: no member but of empty classes, no base but empty ones (no vtable pointer). */
int ct_is_empty(Dwarf_Die *t, int depth)
{
	Dwarf_Die m, mt;
	if (depth > CT_TYPE_DEPTH || dwarf_child(t, &m) != 0)
		return 1;
	do {
		int tag = dwarf_tag(&m);
		if (tag != DW_TAG_inheritance && (tag != DW_TAG_member || ct_is_static_member(&m)))
			continue;
		if (dwarf_hasattr(&m, DW_AT_bit_size) && !ct_udata(&m, DW_AT_bit_size, 0))
			continue; /* int : 0 */
		if (!ct_die_type(&m, &mt) || !ct_is_aggregate(dwarf_tag(&mt)) ||
		    !ct_is_empty(&mt, depth + 1))
			return 0;
	} while (dwarf_siblingof(&m, &m) == 0);
	return 1;
}

/* The ABI's clean-up after merging: MEMORY anywhere, X87UP alone, SSEUP alone. */
static void ct_post_merge(struct ct_abi *a)
{
	int n = a->size > 8 ? 2 : 1;
	for (int i = 0; i < n; i++)
		if (a->cls[i] == CT_MEMORY || a->cls[i] == CT_NO_CLASS)
			a->memory = 1;
	if (a->cls[0] == CT_X87UP || a->cls[1] == CT_X87 || a->cls[0] == CT_SSEUP ||
	    (a->cls[1] == CT_X87UP && a->cls[0] != CT_X87))
		a->memory = 1;
	if (a->cls[0] == CT_X87 && !a->memory)
		a->x87 = 1;
}

void ct_type_abi(Dwarf_Die *type, struct ct_abi *a)
{
	Dwarf_Die t;
	memset(a, 0, sizeof(*a));
	if (!type || !ct_peel(type, &t)) {
		a->is_void = 1;
		return;
	}
	int tag = dwarf_tag(&t);
	a->size = ct_type_size(&t);
	a->align = ct_type_align(&t, 0);
	if (ct_is_aggregate(tag) && ct_byref(&t, 0)) {
		a->byref = 1;
	} else if (ct_is_aggregate(tag) && ct_is_empty(&t, 0)) {
		a->empty = 1;
	} else if (tag == DW_TAG_base_type && a->size == 32 &&
		   ct_udata(&t, DW_AT_encoding, 0) == DW_ATE_complex_float) {
		a->x87 = 1; /* complex long double: COMPLEX_X87 */
	} else if (a->size > 16 || !a->size) {
		a->memory = 1;
	} else {
		a->memory = ct_classify_type(&t, 0, a->cls, 0) < 0;
		if (!a->memory)
			ct_post_merge(a);
	}
}
