/* SPDX-License-Identifier: MIT */
/*
 * How AAPCS64 (the Arm 64-bit procedure call standard, as Linux uses it)
 * passes and returns a value of a DWARF type, and where each argument is at
 * entry, in the LOCs of common/proto.h:
 *
 *   integers, pointers, composites of at most 16 bytes: x0-x7 ('r'), one or
 *     two in a row (a pair starts at an even register when the type is
 *     16-byte aligned); once they run out, the stack and no more registers
 *   float, double, short vectors: v0-v7 ('x': the low 8 bytes), long double
 *     (IEEE binary128, TYPE F16) and 16-byte vectors whole ('q')
 *   HFAs and HVAs (1-4 members of one floating-point or vector type): one
 *     vector register each, in a row ('w' for float members, 'x', 'q'), or
 *     all on the stack
 *   composites of more than 16 bytes (and C++ classes not trivial for
 *     calls): a pointer to a copy, in an x register
 *   the stack: 8-byte words from the caller's sp at the call ('s'), 16-byte
 *     aligned types at an even word
 *   return values: x0-x1, v0-v3 (HFAs), a large one through x8, which takes
 *     no argument register ("@m": not captured)
 */
#include <dwarf.h>
#include <elf.h>
#include <string.h>

#include "protos_int.h"

#define CT_A64_ARG_REGS 8 /* x0-x7, v0-v7 */

/* The members of a candidate HFA (HVA): their kind, size and number. */
struct ct_hfa {
	uint64_t size; /* of one member (0: none met yet) */
	int vector;    /* members are short vectors, not floating-point scalars */
	uint64_t n;
};

static int ct_hfa_leaf(struct ct_hfa *h, uint64_t size, int vector, uint64_t count)
{
	if (h->size && (h->size != size || h->vector != vector))
		return -1;
	h->size = size;
	h->vector = vector;
	h->n += count;
	return h->n > 4 ? -1 : 0;
}

static int ct_hfa_add(Dwarf_Die *t, struct ct_hfa *h, int depth);

/* Every data member (and base) of a struct or class, or the largest count of a union's. */
static int ct_hfa_members(Dwarf_Die *t, struct ct_hfa *h, int depth)
{
	Dwarf_Die m, mt;
	int is_union = dwarf_tag(t) == DW_TAG_union_type;
	uint64_t most = 0, before = h->n;
	if (dwarf_child(t, &m) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&m);
		if (tag != DW_TAG_inheritance && (tag != DW_TAG_member || ct_is_static_member(&m)))
			continue;
		if (dwarf_hasattr(&m, DW_AT_bit_size) || !ct_die_type(&m, &mt))
			return -1;
		if (is_union)
			h->n = before;
		if (ct_hfa_add(&mt, h, depth + 1))
			return -1;
		most = h->n > most ? h->n : most;
	} while (dwarf_siblingof(&m, &m) == 0);
	if (is_union)
		h->n = most;
	return 0;
}

/* Add what a (peeled) type is made of to the candidate; -1 if it cannot be part of one. */
static int ct_hfa_add(Dwarf_Die *t, struct ct_hfa *h, int depth)
{
	Dwarf_Die et;
	uint64_t size = ct_type_size(t), esize;
	if (depth > CT_TYPE_DEPTH)
		return -1;
	switch (dwarf_tag(t)) {
	case DW_TAG_base_type:
		switch (ct_udata(t, DW_AT_encoding, 0)) {
		case DW_ATE_float:
			return ct_hfa_leaf(h, size, 0, 1);
		case DW_ATE_complex_float: /* two members: the real and imaginary parts */
			return ct_hfa_leaf(h, size / 2, 0, 2);
		}
		return -1;
	case DW_TAG_array_type:
		if (dwarf_hasattr(t, DW_AT_GNU_vector))
			return size == 8 || size == 16 ? ct_hfa_leaf(h, size, 1, 1) : -1;
		if (!ct_die_type(t, &et) || !(esize = ct_type_size(&et)))
			return -1;
		for (uint64_t i = 0; i < size / esize; i++)
			if (ct_hfa_add(&et, h, depth + 1))
				return -1;
		return 0;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		return ct_hfa_members(t, h, depth);
	default:
		return -1;
	}
}

/* An HFA or HVA (a lone float or vector too): its members in vector registers. */
static int ct_is_hfa(Dwarf_Die *t, uint64_t size, struct ct_hfa *h)
{
	memset(h, 0, sizeof(*h));
	return ct_hfa_add(t, h, 0) == 0 && h->n >= 1 && h->n * h->size == size;
}

static void ct_a64_type_abi(Dwarf_Die *type, struct ct_abi *a)
{
	Dwarf_Die t;
	struct ct_hfa h;
	memset(a, 0, sizeof(*a));
	a->quad = 1;
	if (!type || !ct_peel(type, &t)) {
		a->is_void = 1;
		return;
	}
	int tag = dwarf_tag(&t);
	a->size = ct_type_size(&t);
	a->align = ct_type_align(&t, 0);
	a->cls[0] = CT_INTEGER;
	if (ct_is_aggregate(tag) && ct_byref(&t, 0)) {
		a->byref = 1;
	} else if (!a->size) {
		a->empty = 1; /* a C empty struct: passed in nothing */
	} else if (ct_is_hfa(&t, a->size, &h)) {
		a->nvec = (uint8_t)h.n;
		a->vec_size = (uint8_t)h.size;
		a->cls[0] = CT_SSE;
		/* vectors, and halves in registers of their own, have no LOC that says so */
		a->vector = h.vector || (h.size == 2 && h.n > 1);
	} else if (a->size > 16) {
		a->byref = 1; /* a pointer to the caller's copy */
	} else if (ct_is_aggregate(tag) && ct_is_empty(&t, 0)) {
		a->empty = 2; /* a C++ empty class: one byte, in an x register all the same */
	}
}

/* On the stack: 8-byte words, an even one for 16-byte alignment; the first word of a large value. */
static int ct_a64_stack(struct ct_regs *r, uint64_t size, unsigned align,
			struct ct_ploc l[CT_MAX_LOCS])
{
	uint64_t words = size ? (size + 7) / 8 : 1;
	int n = words <= CT_MAX_LOCS ? (int)words : 1;
	if (align >= 16 && r->sw % 2)
		r->sw++;
	if (r->sw + n - 1 > 255)
		return -1;
	for (int i = 0; i < n; i++)
		l[i] = (struct ct_ploc){ 's', (uint8_t)(r->sw + i) };
	r->sw += (unsigned)(words > 256 ? 256 : words);
	return n;
}

/* The LOC kind of a vector register holding one member (or the value) of vec_size bytes. */
static char ct_vec_kind(const struct ct_abi *a)
{
	return a->vec_size == 16 ? 'q' : a->vec_size == 4 && a->nvec > 1 ? 'w' : 'x';
}

static int ct_a64_place(struct ct_regs *r, const struct ct_abi *a, struct ct_ploc l[CT_MAX_LOCS])
{
	if (a->empty == 1)
		return 0;
	if (a->byref) {
		if (r->gpr < CT_A64_ARG_REGS) {
			l[0] = (struct ct_ploc){ 'r', (uint8_t)r->gpr++ };
			return 1;
		}
		return ct_a64_stack(r, 8, 8, l);
	}
	if (a->nvec) {
		if (r->xmm + a->nvec <= CT_A64_ARG_REGS) {
			for (int i = 0; i < a->nvec; i++)
				l[i] = (struct ct_ploc){ ct_vec_kind(a), (uint8_t)r->xmm++ };
			return a->nvec;
		}
		r->xmm = CT_A64_ARG_REGS; /* no later one goes in a vector register either */
		return ct_a64_stack(r, a->size, a->align, l);
	}
	unsigned words = a->size > 8 ? 2 : 1;
	if (words == 2 && a->align >= 16)
		r->gpr += r->gpr % 2;
	if (r->gpr + words <= CT_A64_ARG_REGS) {
		for (unsigned i = 0; i < words; i++)
			l[i] = (struct ct_ploc){ 'r', (uint8_t)r->gpr++ };
		return (int)words;
	}
	r->gpr = CT_A64_ARG_REGS;
	return ct_a64_stack(r, a->size, a->align, l);
}

/* RET: x0 (x1), v0-v3; a large value through x8, which is not an argument register. */
static void ct_a64_ret_text(struct ct_sb *b, Dwarf_Die *fn, int *hidden)
{
	Dwarf_Die type;
	struct ct_abi a;
	struct ct_ploc l[CT_MAX_LOCS];
	int k = 0;
	int has = ct_die_type(fn, &type);
	ct_a64_type_abi(has ? &type : NULL, &a);
	*hidden = 0;
	if (a.is_void)
		return;
	if (a.byref) {
		ct_sb_putf(b, "S%llu@m", (unsigned long long)a.size);
		return;
	}
	ct_value_type(b, &type, &a);
	if (a.nvec) {
		for (int i = 0; i < a.nvec; i++)
			l[k++] = (struct ct_ploc){ ct_vec_kind(&a), (uint8_t)i };
	} else if (!a.empty) {
		for (int i = 0; i < (a.size > 8 ? 2 : 1); i++)
			l[k++] = (struct ct_ploc){ 'r', (uint8_t)i };
	}
	ct_locs_text(b, l, k);
}

const struct ct_cc ct_cc_aapcs64 = {
	.type_abi = ct_a64_type_abi,
	.place = ct_a64_place,
	.ret_text = ct_a64_ret_text,
	.ngpr = CT_A64_ARG_REGS,
	.gpr = { 0, 1, 2, 3, 4, 5, 6, 7 }, /* DWARF's x0-x7 */
	.dwarf_vec0 = 64,		   /* v0 */
};

const struct ct_cc *ct_cc_of(unsigned e_machine)
{
	return e_machine == EM_AARCH64 ? &ct_cc_aapcs64 : &ct_cc_sysv;
}
