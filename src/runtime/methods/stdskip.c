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
 * The other half, DWARF's decl_file in a system header, the recorder reads
 * for the program before it starts (src/record/syshdr.c): the list it hands
 * over (CALLTRACE_SYSHDR) joins the names' for the module whose build-id it
 * names.
 *
 * The addresses are kept sorted in pages of their own: this may run inside
 * dlopen, where malloc is not ours to call.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runtime.h"
#include "elfmap.h"
#include "stdskip.h"
#include "../../common/syshdr.h"

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

/* The module's GNU build-id, from its section; 0 if none. */
static uint32_t ct_elf_build_id(const struct ct_elf_map *m, const uint8_t **id)
{
	const ElfW(Shdr) *sh = ct_elf_section(m, ".note.gnu.build-id");
	const uint8_t *p = sh ? ct_elf_contents(m, sh) : NULL;
	uint32_t w[3];
	if (!p || sh->sh_size < sizeof(w))
		return 0;
	memcpy(w, p, sizeof(w)); /* namesz, descsz, type */
	uint64_t desc = sizeof(w) + ((w[0] + 3ull) & ~3ull);
	if (w[2] != NT_GNU_BUILD_ID || w[1] > 32 || desc + w[1] > sh->sh_size)
		return 0;
	*id = p + desc;
	return w[1];
}

/*
 * The recorder's list of this module's functions declared in system headers
 * (CALLTRACE_SYSHDR), mapped: its addresses and count; 0 if there is none for
 * this module. *map and *len to unmap.
 */
static size_t ct_syshdr_list(const struct ct_elf_map *m, const uint64_t **addr, void **map,
			     size_t *len)
{
	const char *path = ct_getenv("CALLTRACE_SYSHDR");
	const uint8_t *id;
	uint32_t id_len = ct_elf_build_id(m, &id);
	struct stat st;
	struct ct_syshdr_head h;

	*map = NULL;
	if (!path || !*path || !id_len)
		return 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	void *p = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
				  (size_t)st.st_size >= sizeof(h) ?
			  mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) :
			  MAP_FAILED;
	close(fd);
	if (p == MAP_FAILED)
		return 0;
	memcpy(&h, p, sizeof(h));
	if (memcmp(h.magic, CT_SYSHDR_MAGIC, sizeof(h.magic)) || h.count > CT_SYSHDR_MAX ||
	    (size_t)st.st_size != sizeof(h) + (size_t)h.count * sizeof(uint64_t) ||
	    h.build_id_len != id_len || memcmp(h.build_id, id, id_len)) {
		munmap(p, (size_t)st.st_size);
		return 0;
	}
	*map = p;
	*len = (size_t)st.st_size;
	*addr = (const uint64_t *)((const char *)p + sizeof(h));
	return h.count;
}

void ct_stdskip_load(struct ct_stdskip *s, const struct ct_elf_map *m, uintptr_t base)
{
	size_t n = ct_std_symbols(m, base, NULL), len = 0;
	const uint64_t *sys = NULL;
	void *map;
	size_t nsys = ct_syshdr_list(m, &sys, &map, &len);

	memset(s, 0, sizeof(*s));
	if (n + nsys) {
		void *p = mmap(NULL, (n + nsys) * sizeof(uintptr_t), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) { /* else the functions are traced: nothing breaks */
			s->addr = p;
			s->cap = n + nsys;
			s->n = ct_std_symbols(m, base, s->addr);
			for (size_t i = 0; i < nsys; i++)
				s->addr[s->n++] = base + (uintptr_t)sys[i];
			ct_sort_addresses(s->addr, s->n);
		}
	}
	if (map)
		munmap(map, len);
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
		munmap(s->addr, s->cap * sizeof(uintptr_t));
	memset(s, 0, sizeof(*s));
}
