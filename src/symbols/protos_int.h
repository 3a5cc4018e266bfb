/* SPDX-License-Identifier: MIT */
/* Shared by protos.c (functions, text) and protos_abi.c (how types are passed). */
#ifndef CT_SYMBOLS_PROTOS_INT_H
#define CT_SYMBOLS_PROTOS_INT_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

/* The classes of the SysV x86-64 ABI, for each eightbyte of a value. */
enum ct_class { CT_NO_CLASS, CT_INTEGER, CT_SSE, CT_SSEUP, CT_X87, CT_X87UP, CT_MEMORY };

/* How a value of a type is passed and returned. */
struct ct_abi {
	uint64_t size;
	unsigned align;
	uint8_t cls[2];	 /* each eightbyte's class when in registers (SSEUP: same xmm) */
	uint8_t is_void; /* no type */
	uint8_t memory;	 /* MEMORY class: stack words as an argument, hidden pointer as a return */
	uint8_t x87;	 /* long double alone (or complex): stack words, returned in st0 */
	uint8_t byref;	 /* C++, not trivial for calls: a hidden pointer, both ways */
	uint8_t empty;	 /* C++ empty class (or C empty struct): passed in nothing */
};

#define CT_TYPE_DEPTH 16 /* nesting followed, against loops in broken DWARF */

/* The type a DIE has (DW_AT_type, through origins), without typedefs and qualifiers; 0: void. */
int ct_die_type(Dwarf_Die *die, Dwarf_Die *type);
/* The type itself without typedefs and qualifiers (and declarations resolved); 0: void. */
int ct_peel(Dwarf_Die *in, Dwarf_Die *out);
int ct_is_aggregate(int tag);
uint64_t ct_type_size(Dwarf_Die *peeled);
int ct_is_long_double(Dwarf_Die *peeled);
/* The ABI of a type (NULL: void). */
void ct_type_abi(Dwarf_Die *type, struct ct_abi *a);

/* A bounded text buffer: past cap, over is set and nothing more is taken. */
struct ct_sb {
	char *buf;
	size_t cap, len;
	int over;
};

void ct_sb_put(struct ct_sb *b, const char *s);
void ct_sb_putf(struct ct_sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
