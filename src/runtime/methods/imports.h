/* SPDX-License-Identifier: MIT */
/* The functions a module imports from shared libraries, and their GOT slots (imports.c). */
#ifndef CT_RUNTIME_IMPORTS_H
#define CT_RUNTIME_IMPORTS_H

#include <stddef.h>
#include <stdint.h>

#include "../runtime.h"

struct ct_elf_map;

struct ct_import {
	uintptr_t slot;	   /* its GOT slot, in this process: also the id events carry */
	const char *name;  /* from the module's .dynsym */
	uint32_t sym;	   /* index in .dynsym */
	uint32_t tramp_at; /* offset of its trampoline in the module's area; 0: none */
	uint8_t plt;	   /* filled lazily (JUMP_SLOT): reached through a PLT entry */
	uint8_t selected;
	uint8_t used; /* some PLT entry or call site goes through it */
};

struct ct_imports {
	struct ct_import *v; /* sorted by slot */
	size_t n;
};

/* The imported functions of a module (malloc'd); 0 imports if it has none. */
void ct_imports_read(const struct ct_elf_map *m, uintptr_t base, struct ct_imports *out) CT_HIDDEN;
struct ct_import *ct_import_at(const struct ct_imports *im, uintptr_t slot) CT_HIDDEN;
/*
 * The file name of the library the import comes from: the one its symbol
 * version names, else the first other loaded module that defines it (the
 * loader's order). "" if none does (yet).
 */
const char *ct_import_library(const struct ct_elf_map *m, const struct ct_import *imp,
			      uintptr_t self_base, char *buf, size_t len) CT_HIDDEN;

#endif
