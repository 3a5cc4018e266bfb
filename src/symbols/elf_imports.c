/* SPDX-License-Identifier: MIT */
/*
 * Imported functions as symbols: "printf@libc.so.6" at the address of the
 * GOT slot calls to printf go through, which is what a library call records
 * (record --libcalls). The library is the file the symbol's version needs;
 * an unversioned import comes from the first other module of the process
 * that defines it, as the loader would find it.
 */
#include <gelf.h>
#include <libelf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "symbols.h"
#include "../common/regfile.h"

struct ct_lib_names {
	const char *path;
	struct ct_map defined; /* hash of each name the library's .dynsym defines */
};

static uint64_t ct_name_hash(const char *s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * UINT64_C(0x100000001b3);
	return h | 1; /* 0 is the map's empty key */
}

static Elf_Scn *ct_section_of_type(Elf *e, GElf_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

static void ct_lib_load(struct ct_lib_names *lib)
{
	ct_map_init(&lib->defined, 1024);
	int fd = ct_open_regular(lib->path);
	if (fd < 0)
		return;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Shdr sh;
	Elf_Scn *scn = e ? ct_section_of_type(e, SHT_DYNSYM, &sh) : NULL;
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	for (size_t i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;
		const char *name;
		int added;
		if (gelf_getsym(data, (int)i, &sym) && sym.st_shndx != SHN_UNDEF &&
		    (name = elf_strptr(e, sh.sh_link, sym.st_name)) && *name)
			ct_map_put(&lib->defined, ct_name_hash(name), &added);
	}
	if (e)
		elf_end(e);
	close(fd);
}

/* The version index of each .dynsym entry -> the file its Verneed names. */
static const char *ct_version_file(Elf *e, Elf_Data *versym, size_t sym)
{
	GElf_Versym ver;
	GElf_Shdr sh;
	if (!versym || !gelf_getversym(versym, (int)sym, &ver) || (ver & 0x7fff) < 2)
		return NULL;
	Elf_Scn *scn = ct_section_of_type(e, SHT_GNU_verneed, &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	size_t off = 0;
	for (size_t n = 0; data && n < sh.sh_info; n++) {
		GElf_Verneed vn;
		if (!gelf_getverneed(data, (int)off, &vn))
			break;
		size_t aoff = off + vn.vn_aux;
		for (size_t k = 0; k < vn.vn_cnt; k++) {
			GElf_Vernaux aux;
			if (!gelf_getvernaux(data, (int)aoff, &aux))
				break;
			if (aux.vna_other == (ver & 0x7fff))
				return elf_strptr(e, sh.sh_link, vn.vn_file);
			aoff += aux.vna_next;
		}
		off += vn.vn_next;
	}
	return NULL;
}

struct ct_import_ctx {
	Elf *e;
	const char *self;
	const char *const *libs;
	struct ct_lib_names *loaded;
	size_t nloaded;
	Elf_Data *versym;
};

static const char *ct_defining_library(struct ct_import_ctx *c, const char *name)
{
	for (size_t i = 0; c->libs && c->libs[i]; i++) {
		if (!strcmp(c->libs[i], c->self))
			continue;
		if (i >= c->nloaded) {
			c->loaded = ct_realloc(c->loaded, (i + 1) * sizeof(*c->loaded));
			for (; c->nloaded <= i; c->nloaded++) {
				c->loaded[c->nloaded].path = c->libs[c->nloaded];
				ct_lib_load(&c->loaded[c->nloaded]);
			}
		}
		if (ct_map_find(&c->loaded[i].defined, ct_name_hash(name)))
			return c->libs[i];
	}
	return "?";
}

static int ct_is_got_reloc(GElf_Half machine, GElf_Word type)
{
	if (machine == EM_X86_64)
		return type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT;
	if (machine == EM_AARCH64)
		return type == R_AARCH64_JUMP_SLOT || type == R_AARCH64_GLOB_DAT;
	return 0;
}

static void ct_read_relocs(struct ct_import_ctx *c, Elf_Scn *scn, const GElf_Shdr *sh,
			   GElf_Half machine, ct_import_fn add, void *ctx)
{
	GElf_Shdr symsh;
	Elf_Scn *symscn = elf_getscn(c->e, sh->sh_link);
	Elf_Data *rel = elf_getdata(scn, NULL);
	Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!rel || !syms || !gelf_getshdr(symscn, &symsh) || !sh->sh_entsize)
		return;
	for (size_t i = 0; i < sh->sh_size / sh->sh_entsize; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		size_t k;
		if (!gelf_getrela(rel, (int)i, &r) ||
		    !ct_is_got_reloc(machine, (GElf_Word)GELF_R_TYPE(r.r_info)) ||
		    !(k = GELF_R_SYM(r.r_info)) || !gelf_getsym(syms, (int)k, &sym) ||
		    sym.st_shndx != SHN_UNDEF || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		const char *name = elf_strptr(c->e, symsh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		const char *lib = ct_version_file(c->e, c->versym, k);
		if (!lib)
			lib = ct_defining_library(c, name);
		const char *base = strrchr(lib, '/');
		char *full = ct_malloc(strlen(name) + strlen(lib) + 2);
		sprintf(full, "%s@%s", name, base ? base + 1 : lib);
		add(ctx, r.r_offset, full);
	}
}

void ct_elf_imports(Elf *e, const char *self, const char *const *libs, ct_import_fn add, void *ctx)
{
	GElf_Ehdr eh;
	GElf_Shdr sh;
	struct ct_import_ctx c = { .e = e, .self = self, .libs = libs };
	if (!gelf_getehdr(e, &eh))
		return;
	Elf_Scn *vs = ct_section_of_type(e, SHT_GNU_versym, &sh);
	c.versym = vs ? elf_getdata(vs, NULL) : NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA && (sh.sh_flags & SHF_ALLOC))
			ct_read_relocs(&c, scn, &sh, eh.e_machine, add, ctx);
	for (size_t i = 0; i < c.nloaded; i++)
		ct_map_free(&c.loaded[i].defined);
	free(c.loaded);
}
