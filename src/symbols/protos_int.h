/* SPDX-License-Identifier: MIT */
/*
 * Shared by the parts of protos.c (functions, their walk): protos_abi.c (how
 * types are passed), protos_text.c (values as text), protos_dwp.c (DWARF
 * packages) and protos_clones.c (gcc's clones).
 */
#ifndef CT_SYMBOLS_PROTOS_INT_H
#define CT_SYMBOLS_PROTOS_INT_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/proto.h"

/* ---- protos_abi.c ---- */

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
	/* AAPCS64 (protos_aapcs64.c) */
	uint8_t nvec;	  /* in vector registers: a float, a vector, an HFA/HVA's members (1-4) */
	uint8_t vec_size; /* the bytes of each (2, 4, 8, 16) */
	uint8_t quad;	  /* long double is IEEE binary128 (TYPE F16), not x87's */
	uint8_t vector;	  /* a short vector (or an HVA): shown opaque */
};

#define CT_MAX_LOCS 4 /* LOCs of one value: an HFA of four members */

/*
 * A calling convention: how it passes a type (ct_abi), where an argument is
 * at entry (the LOCs, their number; 0: nowhere, -1: cut) and its return
 * value's RET text (*hidden: a pointer to the result takes the first integer
 * register); the DWARF numbers of its argument registers. The ELF file's
 * machine chooses (ct_cc_of), whatever the machine reading it.
 */
struct ct_regs;
struct ct_sb;
struct ct_cc {
	void (*type_abi)(Dwarf_Die *type, struct ct_abi *a);
	int (*place)(struct ct_regs *r, const struct ct_abi *a, struct ct_ploc l[CT_MAX_LOCS]);
	void (*ret_text)(struct ct_sb *b, Dwarf_Die *fn, int *hidden);
	uint8_t ngpr;	    /* integer argument registers */
	uint8_t gpr[8];	    /* their DWARF numbers */
	uint8_t dwarf_vec0; /* the first vector register's */
};

extern const struct ct_cc ct_cc_sysv, ct_cc_aapcs64;
/* The convention of an ELF e_machine (EM_AARCH64: AAPCS64; else SysV x86-64). */
const struct ct_cc *ct_cc_of(unsigned e_machine);

#define CT_TYPE_DEPTH 16 /* nesting followed, against loops in broken DWARF */

/* The type a DIE has (DW_AT_type, through origins), without typedefs and qualifiers; 0: void. */
int ct_die_type(Dwarf_Die *die, Dwarf_Die *type);
/* The type itself without typedefs and qualifiers (and declarations resolved); 0: void. */
int ct_peel(Dwarf_Die *in, Dwarf_Die *out);
int ct_is_aggregate(int tag);
uint64_t ct_type_size(Dwarf_Die *peeled);
int ct_is_long_double(Dwarf_Die *peeled);
/* The ABI of a type (NULL: void), by SysV x86-64. */
void ct_type_abi(Dwarf_Die *type, struct ct_abi *a);
/* Shared by the conventions: a (peeled) type's alignment; a class C++ passes by invisible
 * reference (not trivial for calls); a class without data; a static data member. */
unsigned ct_type_align(Dwarf_Die *peeled, int depth);
int ct_byref(Dwarf_Die *peeled, int depth);
int ct_is_empty(Dwarf_Die *peeled, int depth);
int ct_is_static_member(Dwarf_Die *member);
uint64_t ct_udata(Dwarf_Die *die, int name, uint64_t dflt);

/* ---- protos_dwp.c: split units from a package (prog.dwp), when libdw does not read it ---- */
struct ct_dwp;
struct ct_dwp_unit {
	uint8_t *image; /* the unit's parts of the package, as a .dwo in memory */
	Elf *elf;
	Dwarf *dbg;
};

/* The package of the program at path (path.dwp); NULL if there is none. */
struct ct_dwp *ct_dwp_open(const char *program);
void ct_dwp_close(struct ct_dwp *p);
/* The split unit of the skeleton whose DWO id is id; -1 if the package does not have it. */
int ct_dwp_unit(struct ct_dwp *p, uint64_t id, struct ct_dwp_unit *u);
void ct_dwp_unit_end(struct ct_dwp_unit *u);
/* The program's .debug_addr, where a split unit's addresses are. */
const Elf_Data *ct_debug_addr(Elf *elf);
/* The low_pc of a function of such a unit, from the skeleton's DW_AT_addr_base. */
int ct_dwp_lowpc(Dwarf_Die *die, const Elf_Data *debug_addr, uint64_t addr_base, uint64_t *addr);

/* ---- protos_clones.c: the addresses of gcc's clones (foo.isra.0), whose DWARF is foo's ---- */
struct ct_clones {
	uint64_t *addrs; /* sorted */
	size_t n, cap;
};

void ct_clones_read(Elf *elf, struct ct_clones *c);
int ct_is_clone(const struct ct_clones *c, uint64_t addr);
void ct_clones_free(struct ct_clones *c);

/* ---- protos_text.c: values as text, and where they are ---- */

/* A bounded text buffer of cap + 1 bytes: past cap, over is set and nothing more is taken. */
struct ct_sb {
	char *buf;
	size_t cap, len;
	int over;
};

void ct_sb_put(struct ct_sb *b, const char *s);
void ct_sb_putf(struct ct_sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Registers and stack words the arguments took so far. */
struct ct_regs {
	unsigned gpr, xmm, sw;
};

/* A C identifier (names of the text must be). */
int ct_is_ident(const char *s);
/* Where an argument is at entry (SysV); the number of LOCs (0: nowhere, an empty class); -1: cut. */
int ct_place(struct ct_regs *r, const struct ct_abi *a, struct ct_ploc l[CT_MAX_LOCS]);
/* "@r0+x1", "@m" for no LOC. */
void ct_locs_text(struct ct_sb *b, const struct ct_ploc *l, int n);
/* TYPE of a parameter or return value (a class passed by reference is its pointer). */
void ct_value_type(struct ct_sb *b, Dwarf_Die *type, const struct ct_abi *a);
/* RET of function fn (SysV); *hidden if it is returned through a pointer passed in rdi. */
void ct_ret_text(struct ct_sb *b, Dwarf_Die *fn, int *hidden);

#endif
