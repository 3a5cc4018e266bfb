/* SPDX-License-Identifier: MIT */
/*
 * A module's ELF file as the runtime reads it when it patches: mapped
 * read-only, its section headers checked once, sections found by name or
 * type. No libelf in the traced process: these few lookups are all the
 * patching needs, and they run once per module, never on a call.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runtime.h"
#include "elfmap.h"

int ct_elf_map(const char *path, struct ct_elf_map *m)
{
	struct stat st;
	memset(m, 0, sizeof(*m));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(ElfW(Ehdr))) {
		close(fd);
		return -1;
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	m->data = p;
	m->len = (size_t)st.st_size;
	const ElfW(Ehdr) *eh = p;
	size_t shbytes = (size_t)eh->e_shnum * sizeof(ElfW(Shdr));
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff > m->len ||
	    shbytes > m->len - eh->e_shoff || eh->e_shstrndx >= eh->e_shnum) {
		ct_elf_unmap(m);
		return -1;
	}
	m->sh = (const ElfW(Shdr) *)(m->data + eh->e_shoff);
	m->nsh = eh->e_shnum;
	const ElfW(Shdr) *names = &m->sh[eh->e_shstrndx];
	if (names->sh_offset > m->len || names->sh_size > m->len - names->sh_offset) {
		ct_elf_unmap(m);
		return -1;
	}
	m->shstr = (const char *)m->data + names->sh_offset;
	m->shstr_len = names->sh_size;
	return 0;
}

void ct_elf_unmap(struct ct_elf_map *m)
{
	if (m->data)
		munmap((void *)m->data, m->len);
	memset(m, 0, sizeof(*m));
}

/* A section's contents are inside the file (SHT_NOBITS has none). */
static int ct_elf_in_file(const struct ct_elf_map *m, const ElfW(Shdr) *s)
{
	return s->sh_type != SHT_NOBITS && s->sh_offset <= m->len &&
	       s->sh_size <= m->len - s->sh_offset;
}

const ElfW(Shdr) *ct_elf_section(const struct ct_elf_map *m, const char *name)
{
	for (size_t i = 0; i < m->nsh; i++) {
		const ElfW(Shdr) *s = &m->sh[i];
		const char *n = m->shstr + s->sh_name;
		if (s->sh_name < m->shstr_len && memchr(n, 0, m->shstr_len - s->sh_name) &&
		    !strcmp(n, name) && ct_elf_in_file(m, s))
			return s;
	}
	return NULL;
}

const ElfW(Shdr) *ct_elf_section_type(const struct ct_elf_map *m, uint32_t type)
{
	for (size_t i = 0; i < m->nsh; i++)
		if (m->sh[i].sh_type == type && ct_elf_in_file(m, &m->sh[i]))
			return &m->sh[i];
	return NULL;
}

const ElfW(Shdr) *ct_elf_section_at(const struct ct_elf_map *m, size_t index)
{
	return index < m->nsh ? &m->sh[index] : NULL;
}

const void *ct_elf_contents(const struct ct_elf_map *m, const ElfW(Shdr) *s)
{
	return m->data + s->sh_offset;
}

const char *ct_elf_string(const struct ct_elf_map *m, const ElfW(Shdr) *strtab, size_t off)
{
	if (!strtab || off >= strtab->sh_size)
		return "";
	const char *s = (const char *)m->data + strtab->sh_offset + off;
	return memchr(s, 0, strtab->sh_size - off) ? s : "";
}
