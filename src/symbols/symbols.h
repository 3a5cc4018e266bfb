/* SPDX-License-Identifier: MIT */
/*
 * Symbols: function symbols read from ELF files (when recording), and the
 * resolver readers use to turn (process image, address) into a function,
 * from the symbol tables saved in the trace, so a trace reads the same on
 * another machine.
 */
#ifndef CT_SYMBOLS_H
#define CT_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "../util/util.h"

struct ct_trace;

struct ct_elf_sym {
	uint64_t value, size;
	char *name;
};

struct ct_elf_funcs {
	struct ct_elf_sym *syms; /* sorted by value, one per address */
	size_t n;
	uint8_t build_id[32];
	uint8_t build_id_len;
};

/*
 * Function symbols of .symtab (static functions too) and .dynsym, and the
 * imported functions as "name@library" at their GOT slots; libs lists the
 * process's modules in load order (NULL-terminated, or NULL), to find
 * where an unversioned import comes from. -1 + err on failure.
 */
int ct_elf_read_funcs(const char *path, const char *const *libs, struct ct_elf_funcs *out,
		      char *err, size_t errlen);
void ct_elf_funcs_free(struct ct_elf_funcs *f);
/* The file's GNU build-id into id: its length, 0 if it has none. */
int ct_elf_build_id(const char *path, uint8_t id[32]);

/*
 * elf_imports.c: each imported function's GOT slot (ELF address) and
 * "name@lib" (malloc'd, the callee's).
 */
typedef void (*ct_import_fn)(void *ctx, uint64_t slot, char *name);
struct Elf;
void ct_elf_imports(struct Elf *e, const char *self, const char *const *libs, ct_import_fn add,
		    void *ctx);

/* What a program was built with, for record --method. */
struct ct_elf_probe {
	uint8_t finstrument, fentry, mcount, patchable; /* hooks and entry lists */
	uint8_t symtab;					/* has .symtab (not stripped) */
	uint8_t is_static;				/* no interpreter: nothing can be preloaded */
};
/* -1 if path is not an ELF file we can read. */
int ct_elf_probe(const char *path, struct ct_elf_probe *p);

/* demangle.c */
/* The demangled name (malloc'd), or NULL if name is not a mangled C++ name. */
char *ct_demangle(const char *name);
/* What replay shows: a demangled name without its parameter list and return type. */
char *ct_short_name(const char *demangled);

/* What a frame is: most are functions; a signal handler's frame is not. */
enum ct_func_kind {
	CT_KIND_FUNCTION,
	CT_KIND_SIGNAL, /* "[signal SIGCHLD]": the runtime's mark of a handler running */
	CT_KIND_PSEUDO, /* another frame past every code address: "[0x1000000000123]" */
};

/* A function as readers know it: one per symbol, whatever process it ran in. */
struct ct_func {
	char *name;	    /* short name, as shown in trees and reports */
	char *symbol;	    /* full demangled (or raw) symbol name */
	const char *module; /* basename of its module */
	const char *path;   /* its module's path, or NULL */
	uint64_t addr;	    /* address in its module's ELF numbering */
	/*
	 * The id whose row it shares in report, exports and flame: its own, or for
	 * the compiler's clones of a function (f.constprop.0, f.part.0, f.cold ...)
	 * and the function itself, the first of them seen.
	 */
	uint32_t row;
	uint8_t kind;  /* enum ct_func_kind */
	int8_t system; /* declared in a system header: -1 unknown yet, 0, 1 */
};

struct ct_symbols;

struct ct_symbols *ct_symbols_open(const struct ct_trace *t, int demangle);
void ct_symbols_close(struct ct_symbols *s);
/* Take in the modules and symbol tables a growing trace has gained (live). */
void ct_symbols_refresh(struct ct_symbols *s);
/*
 * The function at addr in process image instance at time clock (an id for
 * ct_symbols_func): the time tells a module dlclose unmapped from one loaded
 * at its place later. Addresses from CT_PSEUDO_BASE on are pseudo frames
 * ("[signal SIGINT]").
 */
uint32_t ct_symbols_lookup(struct ct_symbols *s, uint32_t instance, uint64_t addr, uint64_t clock);
/* The first unload of a module of instance after clock (UINT64_MAX: none). */
uint64_t ct_symbols_next_unload(const struct ct_symbols *s, uint32_t instance, uint64_t clock);
const struct ct_func *ct_symbols_func(const struct ct_symbols *s, uint32_t id);
/* Any address (a crash's program counter, a call site) as "func+0x1c" or "module+0x1234". */
void ct_symbols_describe(struct ct_symbols *s, uint32_t instance, uint64_t addr, uint64_t clock,
			 char *buf, size_t len);
uint32_t ct_symbols_count(const struct ct_symbols *s);
/* dwarf.c: 1 if the function at ELF address addr of the file is declared in a system header */
int ct_dwarf_declared_in_system(const char *path, uint64_t addr);
/* dwarf.c: fn(arg, ELF address) for each function of the file declared in a system header */
void ct_dwarf_system_functions(const char *path, void (*fn)(void *, uint64_t), void *arg);
/* dwarf.c: "file.c:42" for the instruction at ELF address addr of path; 0 if unknown */
int ct_dwarf_srcline(const char *path, uint64_t addr, char *buf, size_t len);
/* The same for a runtime address of a process image; 0 if unknown. */
int ct_symbols_srcline(struct ct_symbols *s, uint32_t instance, uint64_t addr, uint64_t clock,
		       char *buf, size_t len);
/* Declared in a system header (DWARF decl_file under /usr/include, the compiler's headers)? */
int ct_symbols_in_system_header(struct ct_symbols *s, uint32_t id);

/*
 * Source lines, for replay --srcline (dwarf.c, at ELF addresses; 0 if unknown).
 * Split DWARF is read from the .dwo files beside the module or in the compile
 * directory. ct_dwarf_defline: "/dir/file.c:88", where the function at addr is
 * defined (its DIE's decl_file and decl_line, else the line table at addr), the
 * file made absolute with the unit's compile directory. ct_dwarf_callline:
 * "file.c:41", the line of the call instruction whose return address is ret.
 */
int ct_dwarf_defline(const char *path, uint64_t addr, char *buf, size_t len);
int ct_dwarf_callline(const char *path, uint64_t ret, char *buf, size_t len);
/* The same for function id (its definition), each computed once; 0 if unknown. */
int ct_symbols_defline(struct ct_symbols *s, uint32_t id, char *buf, size_t len);
/*
 * The same for the call whose return address is ret_addr in process image
 * instance at time clock. Cached by (instance, address): a hit is a hash
 * lookup and a copy.
 */
int ct_symbols_callline(struct ct_symbols *s, uint32_t instance, uint64_t ret_addr, uint64_t clock,
			char *buf, size_t len);

#endif
