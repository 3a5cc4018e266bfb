/* SPDX-License-Identifier: MIT */
/* Reading function symbols from an ELF file with elfutils' libelf. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "symbols.h"
#include "../common/regfile.h"

struct ct_sym_vec {
	struct ct_elf_sym *v;
	size_t n, cap;
	unsigned char *bind; /* STB_* of each, to pick the best alias */
	unsigned char *from_symtab;
	char **owned; /* names made here (imports), freed once copied */
	size_t nowned;
};

static void ct_sym_push(struct ct_sym_vec *s, uint64_t value, uint64_t size, const char *name,
			unsigned char bind, unsigned char symtab)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->v = ct_realloc(s->v, s->cap * sizeof(*s->v));
		s->bind = ct_realloc(s->bind, s->cap);
		s->from_symtab = ct_realloc(s->from_symtab, s->cap);
	}
	s->v[s->n] = (struct ct_elf_sym){ value, size, (char *)name };
	s->bind[s->n] = bind;
	s->from_symtab[s->n] = symtab;
	s->n++;
}

static void ct_read_symbols(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct ct_sym_vec *out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !sh->sh_entsize)
		return;
	size_t count = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value)
			continue;
		const char *name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		ct_sym_push(out, sym.st_value, sym.st_size, name, GELF_ST_BIND(sym.st_info),
			    sh->sh_type == SHT_SYMTAB);
	}
}

static void ct_add_import(void *ctx, uint64_t slot, char *name)
{
	struct ct_sym_vec *s = ctx;
	s->owned = ct_realloc(s->owned, (s->nowned + 1) * sizeof(char *));
	s->owned[s->nowned++] = name;
	ct_sym_push(s, slot, 8, name, STB_GLOBAL, 0);
}

static void ct_read_build_id(Elf *e, struct ct_elf_funcs *out)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + name_off, "GNU", 4) &&
			    nh.n_descsz <= 32) {
				memcpy(out->build_id, (char *)data->d_buf + desc_off, nh.n_descsz);
				out->build_id_len = (uint8_t)nh.n_descsz;
				return;
			}
		}
	}
}

/* A symbol's value and where it was read, for the sort. */
struct ct_sym_key {
	uint64_t value, at;
};

#define CT_SORT_BITS 11 /* a pass's digit: its counts, 16 KiB, stay in cache */

/*
 * keys sorted by value, equal values in the order they came (the first
 * read wins a tie ct_better leaves): a radix sort, least significant digit
 * first, as many passes as the largest value has digits (two or three for a
 * module's addresses). qsort's merge sort took three quarters of a
 * millisecond on yaml-cpp's and libstdc++'s 7,600 functions, calling its
 * comparison 100,000 times. Returns where they ended: keys or tmp.
 */
static struct ct_sym_key *ct_sort_by_value(struct ct_sym_key *keys, struct ct_sym_key *tmp,
					   size_t n)
{
	uint64_t most = 0;
	for (size_t i = 0; i < n; i++)
		most |= keys[i].value;
	for (unsigned shift = 0; shift < 64 && most >> shift; shift += CT_SORT_BITS) {
		size_t count[1u << CT_SORT_BITS];
		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[keys[i].value >> shift & ((1u << CT_SORT_BITS) - 1)]++;
		for (size_t d = 0, sum = 0; d < (1u << CT_SORT_BITS); d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[keys[i].value >> shift & ((1u << CT_SORT_BITS) - 1)]++] = keys[i];
		struct ct_sym_key *t = keys;
		keys = tmp;
		tmp = t;
	}
	return keys;
}

/* Of several symbols at one address keep one: .symtab's, global, sized. */
static int ct_better(const struct ct_sym_vec *s, size_t i, size_t j)
{
	int gi = s->bind[i] == STB_GLOBAL, gj = s->bind[j] == STB_GLOBAL;
	if (gi != gj)
		return gi;
	if (s->from_symtab[i] != s->from_symtab[j])
		return s->from_symtab[i];
	return s->v[i].size > s->v[j].size;
}

static void ct_finish(struct ct_sym_vec *s, struct ct_elf_funcs *out)
{
	/* sort where each symbol was read, so bind/from_symtab stay attached to it */
	struct ct_sym_key *keys = ct_malloc(2 * s->n * sizeof(*keys) + 1);
	for (size_t i = 0; i < s->n; i++)
		keys[i] = (struct ct_sym_key){ s->v[i].value, i };
	const struct ct_sym_key *sorted = ct_sort_by_value(keys, keys + s->n, s->n);

	out->syms = ct_malloc(s->n * sizeof(*out->syms) + 1);
	out->n = 0;
	for (size_t k = 0; k < s->n;) {
		size_t best = sorted[k].at, m = k + 1;
		for (; m < s->n && s->v[sorted[m].at].value == s->v[best].value; m++)
			if (ct_better(s, sorted[m].at, best))
				best = sorted[m].at;
		out->syms[out->n] = s->v[best];
		out->syms[out->n].name = ct_strdup(s->v[best].name);
		out->n++;
		k = m;
	}
	free(keys);
}

int ct_elf_build_id(const char *path, uint8_t id[32])
{
	struct ct_elf_funcs out = { 0 };
	int fd = elf_version(EV_CURRENT) == EV_NONE ? -1 : ct_open_regular(path);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (e && elf_kind(e) == ELF_K_ELF)
		ct_read_build_id(e, &out);
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	memcpy(id, out.build_id, sizeof(out.build_id));
	return out.build_id_len;
}

int ct_elf_read_funcs(const char *path, const char *const *libs, struct ct_elf_funcs *out,
		      char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "libelf is too old");
		return -1;
	}
	int fd = ct_open_regular(path);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path,
			 errno == EINVAL ? "not a regular file" : strerror(errno));
		return -1;
	}
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		if (e)
			elf_end(e);
		close(fd);
		return -1;
	}

	struct ct_sym_vec syms = { 0 };
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			ct_read_symbols(e, scn, &sh, &syms);
	}
	ct_elf_imports(e, path, libs, ct_add_import, &syms);
	ct_read_build_id(e, out);
	ct_finish(&syms, out);
	for (size_t i = 0; i < syms.nowned; i++)
		free(syms.owned[i]);
	free(syms.owned);
	free(syms.v);
	free(syms.bind);
	free(syms.from_symtab);
	elf_end(e);
	close(fd);
	return 0;
}

void ct_elf_funcs_free(struct ct_elf_funcs *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->syms[i].name);
	free(f->syms);
	memset(f, 0, sizeof(*f));
}

/* The hooks a program was built with (undefined dynamic symbols it calls). */
static void ct_probe_hooks(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct ct_elf_probe *p)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	for (size_t i = 0; data && i < count; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx != SHN_UNDEF)
			continue;
		const char *name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name)
			continue;
		if (!strcmp(name, "__cyg_profile_func_enter"))
			p->finstrument = 1;
		else if (!strcmp(name, "__fentry__"))
			p->fentry = 1;
		else if (!strcmp(name, "mcount") || !strcmp(name, "_mcount")) /* x86-64, aarch64 */
			p->mcount = 1;
	}
}

int ct_elf_probe(const char *path, struct ct_elf_probe *p)
{
	memset(p, 0, sizeof(*p));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	int fd = ct_open_regular(path);
	if (fd < 0)
		return -1;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t shstrndx, nph = 0;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx) < 0) {
		if (e)
			elf_end(e);
		close(fd);
		return -1;
	}
	p->is_static = 1;
	elf_getphdrnum(e, &nph);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
			p->is_static = 0;
	}
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB)
			p->symtab = 1;
		if (sh.sh_type == SHT_DYNSYM)
			ct_probe_hooks(e, scn, &sh, p);
		if (name && (!strcmp(name, "__patchable_function_entries") ||
			     !strcmp(name, "__mcount_loc")) && sh.sh_size)
			p->patchable = 1;
	}
	elf_end(e);
	close(fd);
	return 0;
}
