/* SPDX-License-Identifier: MIT */
/* The C++ standard library's functions (and the program's from system headers, by the
 * recorder's DWARF list), left unpatched in modules with patchable entries. */
#ifndef CT_STDSKIP_H
#define CT_STDSKIP_H

#include <stddef.h>
#include <stdint.h>

#include "elfmap.h"

struct ct_stdskip {
	uintptr_t *addr; /* the functions' addresses, sorted */
	size_t n, cap;	 /* cap: the room mapped */
};

int ct_is_std_mangled(const char *name) CT_HIDDEN;
void ct_stdskip_load(struct ct_stdskip *s, const struct ct_elf_map *m, uintptr_t base) CT_HIDDEN;
int ct_stdskip_entry(const struct ct_stdskip *s, uintptr_t entry) CT_HIDDEN;
void ct_stdskip_free(struct ct_stdskip *s) CT_HIDDEN;

#endif
