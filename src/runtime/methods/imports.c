/* SPDX-License-Identifier: MIT */
/*
 * Imports: the module's dynamic relocations that fill a GOT slot with an
 * undefined function (JUMP_SLOT for PLT entries, GLOB_DAT for -fno-plt calls
 * and taken addresses), and which library each comes from. Read from the
 * module's file once when it is patched, never on a call.
 */
#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime.h"
#include "elfmap.h"
#include "imports.h"
#include "../../arch/libcall.h"

static int ct_import_order(const void *a, const void *b)
{
	const struct ct_import *x = a, *y = b;
	return (x->slot > y->slot) - (x->slot < y->slot);
}

static void ct_read_relocs(const struct ct_elf_map *m, const ElfW(Shdr) * rela, uintptr_t base,
			   struct ct_imports *out, size_t cap)
{
	const ElfW(Shdr) *dynsym = ct_elf_section_at(m, rela->sh_link);
	if (!dynsym || dynsym->sh_type != SHT_DYNSYM || rela->sh_entsize != sizeof(ElfW(Rela)))
		return;
	const ElfW(Shdr) *strtab = ct_elf_section_at(m, dynsym->sh_link);
	const ElfW(Sym) *sym = ct_elf_contents(m, dynsym);
	const ElfW(Rela) *r = ct_elf_contents(m, rela);
	size_t nsyms = dynsym->sh_size / sizeof(ElfW(Sym));

	for (size_t i = 0; i < rela->sh_size / sizeof(ElfW(Rela)) && out->n < cap; i++) {
		uint32_t type = (uint32_t)ELF64_R_TYPE(r[i].r_info);
		uint32_t k = (uint32_t)ELF64_R_SYM(r[i].r_info);
		if ((type != CT_ARCH_R_JUMP_SLOT && type != CT_ARCH_R_GLOB_DAT) || !k || k >= nsyms)
			continue;
		if (sym[k].st_shndx != SHN_UNDEF || ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC)
			continue;
		struct ct_import *imp = &out->v[out->n++];
		memset(imp, 0, sizeof(*imp));
		imp->slot = base + r[i].r_offset;
		imp->name = ct_elf_string(m, strtab, sym[k].st_name);
		imp->sym = k;
		imp->plt = type == CT_ARCH_R_JUMP_SLOT;
	}
}

void ct_imports_read(const struct ct_elf_map *m, uintptr_t base, struct ct_imports *out)
{
	size_t cap = 0;
	out->v = NULL;
	out->n = 0;
	for (size_t i = 0; i < m->nsh; i++)
		if (m->sh[i].sh_type == SHT_RELA && (m->sh[i].sh_flags & SHF_ALLOC))
			cap += m->sh[i].sh_size / sizeof(ElfW(Rela));
	if (!cap || !(out->v = calloc(cap, sizeof(*out->v))))
		return;
	for (size_t i = 0; i < m->nsh; i++)
		if (m->sh[i].sh_type == SHT_RELA && (m->sh[i].sh_flags & SHF_ALLOC))
			ct_read_relocs(m, &m->sh[i], base, out, cap);
	qsort(out->v, out->n, sizeof(*out->v), ct_import_order);
}

struct ct_import *ct_import_at(const struct ct_imports *im, uintptr_t slot)
{
	size_t lo = 0, hi = im->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (im->v[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < im->n && im->v[lo].slot == slot ? &im->v[lo] : NULL;
}

/* The file a symbol version needs (glibc's "libc.so.6" for GLIBC_2.2.5), or NULL. */
static const char *ct_version_file(const struct ct_elf_map *m, uint32_t sym)
{
	const ElfW(Shdr) *versym = ct_elf_section_type(m, SHT_GNU_versym);
	const ElfW(Shdr) *verneed = ct_elf_section_type(m, SHT_GNU_verneed);
	if (!versym || !verneed || (size_t)(sym + 1) * 2 > versym->sh_size)
		return NULL;
	uint16_t ver = ((const uint16_t *)ct_elf_contents(m, versym))[sym] & 0x7fff;
	if (ver < 2)
		return NULL;
	const ElfW(Shdr) *strtab = ct_elf_section_at(m, verneed->sh_link);
	const uint8_t *p = ct_elf_contents(m, verneed), *end = p + verneed->sh_size;
	for (size_t n = 0; n < verneed->sh_info && p + sizeof(ElfW(Verneed)) <= end; n++) {
		const ElfW(Verneed) *vn = (const void *)p;
		const uint8_t *a = p + vn->vn_aux;
		for (size_t k = 0; k < vn->vn_cnt && a + sizeof(ElfW(Vernaux)) <= end; k++) {
			const ElfW(Vernaux) *aux = (const void *)a;
			if (aux->vna_other == ver)
				return ct_elf_string(m, strtab, vn->vn_file);
			if (!aux->vna_next)
				break;
			a += aux->vna_next;
		}
		if (!vn->vn_next)
			break;
		p += vn->vn_next;
	}
	return NULL;
}

static uint32_t ct_gnu_hash(const char *s)
{
	uint32_t h = 5381;
	for (; *s; s++)
		h = h * 33 + (uint8_t)*s;
	return h;
}

static uintptr_t ct_dyn_ptr(const struct dl_phdr_info *info, uintptr_t p)
{
	return p < info->dlpi_addr ? p + info->dlpi_addr : p; /* relocated in place, or not */
}

/* Does the loaded module define name (its DT_GNU_HASH table says)? */
static int ct_module_defines(const struct dl_phdr_info *info, const char *name)
{
	const ElfW(Dyn) *dyn = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	const uint32_t *gnu = NULL;
	const ElfW(Sym) *syms = NULL;
	const char *strs = NULL;
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_GNU_HASH)
			gnu = (const void *)ct_dyn_ptr(info, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_SYMTAB)
			syms = (const void *)ct_dyn_ptr(info, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			strs = (const void *)ct_dyn_ptr(info, dyn->d_un.d_ptr);
	}
	if (!gnu || !syms || !strs || !gnu[0])
		return 0;
	uint32_t nbuckets = gnu[0], symoff = gnu[1], bloom_words = gnu[2];
	const uint32_t *buckets = gnu + 4 + bloom_words * (sizeof(ElfW(Addr)) / 4);
	const uint32_t *chain = buckets + nbuckets;
	uint32_t h = ct_gnu_hash(name);
	for (uint32_t i = buckets[h % nbuckets]; i >= symoff; i++) {
		uint32_t h2 = chain[i - symoff];
		if ((h | 1) == (h2 | 1) && syms[i].st_shndx != SHN_UNDEF &&
		    !strcmp(strs + syms[i].st_name, name))
			return 1;
		if (h2 & 1)
			break;
	}
	return 0;
}

struct ct_lib_search {
	const char *name;
	uintptr_t self_base;
	const char *found;
};

static int ct_search_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct ct_lib_search *s = data;
	(void)size;
	if (info->dlpi_addr == s->self_base || !strncmp(info->dlpi_name, "linux-vdso", 10))
		return 0;
	if (!ct_module_defines(info, s->name))
		return 0;
	s->found = *info->dlpi_name ? info->dlpi_name : ct_self_exe();
	return 1;
}

const char *ct_import_library(const struct ct_elf_map *m, const struct ct_import *imp,
			      uintptr_t self_base, char *buf, size_t len)
{
	const char *file = ct_version_file(m, imp->sym);
	if (!file) {
		struct ct_lib_search s = { imp->name, self_base, NULL };
		dl_iterate_phdr(ct_search_cb, &s);
		file = s.found ? s.found : "";
	}
	const char *slash = strrchr(file, '/');
	file = slash ? slash + 1 : file;
	size_t n = strnlen(file, len - 1);
	memcpy(buf, file, n);
	buf[n] = 0;
	return buf;
}
