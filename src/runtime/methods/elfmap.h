/* SPDX-License-Identifier: MIT */
/* A module's ELF file mapped read-only, for the patching code of the runtime. */
#ifndef CT_RUNTIME_ELFMAP_H
#define CT_RUNTIME_ELFMAP_H

#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "../runtime.h"

struct ct_elf_map {
	const uint8_t *data;
	size_t len;
	const ElfW(Shdr) *sh;
	size_t nsh;
	const char *shstr;
	size_t shstr_len;
};

/* Map and check the file; -1 if it is not a 64-bit ELF file we can read. */
int ct_elf_map(const char *path, struct ct_elf_map *m) CT_HIDDEN;
void ct_elf_unmap(struct ct_elf_map *m) CT_HIDDEN;
/* The first section of that name or type whose contents are in the file, or NULL. */
const ElfW(Shdr) *ct_elf_section(const struct ct_elf_map *m, const char *name) CT_HIDDEN;
const ElfW(Shdr) *ct_elf_section_type(const struct ct_elf_map *m, uint32_t type) CT_HIDDEN;
const ElfW(Shdr) *ct_elf_section_at(const struct ct_elf_map *m, size_t index) CT_HIDDEN;
const void *ct_elf_contents(const struct ct_elf_map *m, const ElfW(Shdr) *s) CT_HIDDEN;
/* The NUL-terminated string at off of a string table; "" if it runs off the table. */
const char *ct_elf_string(const struct ct_elf_map *m, const ElfW(Shdr) *strtab, size_t off) CT_HIDDEN;

#endif
