// SPDX-License-Identifier: MIT
/*
 * The C++ standard library's functions are left unpatched in modules built
 * with patchable entries (calltrace-cc's default): a template of the library
 * instantiated in the program gets entries like the program's own code, and
 * tracing each std::vector::operator[] would cost what -finstrument-functions'
 * exclude list saves. Names are all the runtime has (no DWARF here), so this
 * is the name half of what `report --no-std` decides: std::, __gnu_cxx::,
 * __cxxabiv1::, __gnu_debug::, told apart in their mangled form.
 *
 * The addresses are kept sorted in pages of their own: this may run inside
 * dlopen, where malloc is not ours to call.
 */
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>

#include "../runtime.h"
#include "../elfmap.h"
#include "../stdskip.h"

/* After _ZN: cv- and ref-qualifiers of a member function, then the scope. */
static int ct_std_scope(const char *s)
{
	static const char *const scopes[] = { "St",	      "Sa",	      "Sb", "Ss",
					      "Si",	      "So",	      "Sd", "9__gnu_cxx",
					      "10__cxxabiv1", "11__gnu_debug" };
	while (*s == 'r' || *s == 'V' || *s == 'K' || *s == 'R' || *s == 'O')
		s++;
	for (size_t i = 0; i < CT_ARRAY_LEN(scopes); i++)
		if (!strncmp(s, scopes[i], strlen(scopes[i])))
			return 1;
	return 0;
}

int ct_is_std_mangled(const char *name)
{
	if (strncmp(name, "_Z", 2))
		return 0;
	if (name[2] == 'N')
		return ct_std_scope(name + 3);
	return !strncmp(name + 2, "St", 2); /* std::f<...>() */
}

static void ct_sift(uintptr_t *a, size_t root, size_t n)
{
	for (size_t child; (child = 2 * root + 1) < n; root = child) {
		if (child + 1 < n && a[child + 1] > a[child])
			child++;
		if (a[root] >= a[child])
			return;
		uintptr_t t = a[root];
		a[root] = a[child];
		a[child] = t;
	}
}

/* Heapsort: no allocation, no recursion. */
static void ct_sort_addresses(uintptr_t *a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		ct_sift(a, i, n);
	for (size_t end = n; end-- > 1;) {
		uintptr_t t = a[0];
		a[0] = a[end];
		a[end] = t;
		ct_sift(a, 0, end);
	}
}

/* The standard library's defined functions: their count, and into out if given. */
static size_t ct_std_symbols(const struct ct_elf_map *m, uintptr_t base, uintptr_t *out)
{
	const ElfW(Shdr) *symtab = ct_elf_section_type(m, SHT_SYMTAB);
	size_t n = 0;

	if (!symtab || symtab->sh_entsize != sizeof(ElfW(Sym)))
		return 0;
	const ElfW(Shdr) *strtab = ct_elf_section_at(m, symtab->sh_link);
	const ElfW(Sym) *sym = ct_elf_contents(m, symtab);
	if (!strtab || !sym)
		return 0;
	for (size_t i = 0; i < symtab->sh_size / sizeof(ElfW(Sym)); i++) {
		if (ELF64_ST_TYPE(sym[i].st_info) != STT_FUNC || sym[i].st_shndx == SHN_UNDEF ||
		    !sym[i].st_value)
			continue;
		const char *name = ct_elf_string(m, strtab, sym[i].st_name);
		if (name && ct_is_std_mangled(name)) {
			if (out)
				out[n] = base + sym[i].st_value;
			n++;
		}
	}
	return n;
}

void ct_stdskip_load(struct ct_stdskip *s, const struct ct_elf_map *m, uintptr_t base)
{
	size_t n = ct_std_symbols(m, base, NULL);

	memset(s, 0, sizeof(*s));
	if (!n)
		return;
	void *p = mmap(NULL, n * sizeof(uintptr_t), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return; /* then the library is traced: nothing breaks */
	s->addr = p;
	s->n = ct_std_symbols(m, base, s->addr);
	ct_sort_addresses(s->addr, s->n);
}

static int ct_stdskip_has(const struct ct_stdskip *s, uintptr_t at)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->addr[mid] == at)
			return 1;
		if (s->addr[mid] < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The entry is a function's first byte, or follows its 4-byte endbr64. */
int ct_stdskip_entry(const struct ct_stdskip *s, uintptr_t entry)
{
	return s && s->n && (ct_stdskip_has(s, entry) || ct_stdskip_has(s, entry - 4));
}

void ct_stdskip_free(struct ct_stdskip *s)
{
	if (s->addr)
		munmap(s->addr, s->n * sizeof(uintptr_t));
	memset(s, 0, sizeof(*s));
}
