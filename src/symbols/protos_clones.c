/* SPDX-License-Identifier: MIT */
/*
 * The addresses of gcc's clones: foo.isra.0 (parameters removed or split),
 * foo.constprop.0 (a constant parameter dropped), foo.part.0 (a part of foo,
 * taking what it needs). DWARF describes each as the function it was made
 * from, whose parameters it does not take: the symbol table tells them.
 */
#include <stdlib.h>
#include <string.h>

#include "protos_int.h"

static int ct_is_clone_name(const char *name)
{
	static const char *const marks[] = { ".isra.", ".constprop.", ".part." };
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (strstr(name, marks[i]))
			return 1;
	return 0;
}

static int ct_addr_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void ct_clones_read(Elf *elf, struct ct_clones *c)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	memset(c, 0, sizeof(*c));
	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_entsize
				      ? elf_getdata(scn, NULL)
				      : NULL;
		size_t n = d ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(d, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !(name = elf_strptr(elf, sh.sh_link, sym.st_name)) ||
			    !ct_is_clone_name(name))
				continue;
			if (c->n == c->cap) {
				size_t cap = c->cap ? 2 * c->cap : 64;
				uint64_t *a = realloc(c->addrs, cap * sizeof(*a));
				if (!a)
					return;
				c->addrs = a;
				c->cap = cap;
			}
			c->addrs[c->n++] = sym.st_value;
		}
	}
	if (c->n)
		qsort(c->addrs, c->n, sizeof(*c->addrs), ct_addr_cmp);
}

int ct_is_clone(const struct ct_clones *c, uint64_t addr)
{
	return c->n && bsearch(&addr, c->addrs, c->n, sizeof(*c->addrs), ct_addr_cmp);
}

void ct_clones_free(struct ct_clones *c)
{
	free(c->addrs);
	memset(c, 0, sizeof(*c));
}
