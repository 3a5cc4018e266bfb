/* SPDX-License-Identifier: MIT */
/*
 * Split units in a DWARF package (prog.dwp beside prog), for a libdw that
 * cannot read one itself (elfutils before 0.191 only looks for .dwo files).
 * The package's .debug_cu_index says where each unit's part of every
 * section is; the parts of one unit, copied into an ELF image in memory,
 * make a .dwo that libdw reads. Its addresses (DW_FORM_addrx) are indexes
 * into the program's .debug_addr, from its skeleton's DW_AT_addr_base:
 * ct_dwp_addr reads them there, as libdw would with the unit linked.
 */
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protos_int.h"
#include "../common/regfile.h"

/* The package's sections a unit has a part of, by DW_SECT_* number (index versions 5, 2). */
static const char *const ct_sect5[] = { NULL,
					".debug_info.dwo",
					NULL,
					".debug_abbrev.dwo",
					".debug_line.dwo",
					".debug_loclists.dwo",
					".debug_str_offsets.dwo",
					".debug_macro.dwo",
					".debug_rnglists.dwo" };
static const char *const ct_sect2[] = { NULL,
					".debug_info.dwo",
					NULL, /* .debug_types.dwo: type units are not read */
					".debug_abbrev.dwo",
					".debug_line.dwo",
					".debug_loc.dwo",
					".debug_str_offsets.dwo",
					".debug_macinfo.dwo",
					".debug_macro.dwo" };
#define CT_NSECT 9

struct ct_dwp {
	int fd;
	Elf *elf;
	Elf_Data *index;
	Elf_Data *sect[CT_NSECT]; /* by DW_SECT_* number */
	Elf_Data *str;		  /* .debug_str.dwo: shared by all the units */
	int version;
};

static Elf_Data *ct_section(Elf *elf, const char *want)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name =
			gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (!name || strcmp(name, want) || sh.sh_type == SHT_NOBITS)
			continue;
		if (sh.sh_flags & SHF_COMPRESSED)
			elf_compress(scn, 0, 0);
		Elf_Data *d = elf_getdata(scn, NULL);
		return d && d->d_buf ? d : NULL;
	}
	return NULL;
}

static uint32_t ct_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

struct ct_dwp *ct_dwp_open(const char *program)
{
	size_t len = strlen(program);
	char *path = malloc(len + 5);
	struct ct_dwp *p = calloc(1, sizeof(*p));
	if (p)
		p->fd = -1;
	if (!path || !p)
		goto fail;
	memcpy(path, program, len);
	memcpy(path + len, ".dwp", 5);
	p->fd = ct_open_regular(path);
	if (p->fd < 0 || !(p->elf = elf_begin(p->fd, ELF_C_READ_MMAP, NULL)))
		goto fail;
	p->index = ct_section(p->elf, ".debug_cu_index");
	if (!p->index || p->index->d_size < 16)
		goto fail;
	p->version = (int)(ct_u32(p->index->d_buf) & 0xffff);
	if (p->version != 5 && p->version != 2)
		goto fail;
	for (int s = 1; s < CT_NSECT; s++) {
		const char *name = p->version == 5 ? ct_sect5[s] : ct_sect2[s];
		p->sect[s] = name ? ct_section(p->elf, name) : NULL;
	}
	p->str = ct_section(p->elf, ".debug_str.dwo");
	if (p->sect[DW_SECT_INFO] && p->sect[DW_SECT_ABBREV]) {
		free(path);
		return p;
	}
fail:
	free(path);
	ct_dwp_close(p);
	return NULL;
}

void ct_dwp_close(struct ct_dwp *p)
{
	if (!p)
		return;
	if (p->elf)
		elf_end(p->elf);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

/* The unit's row of the index (1-based), or 0: the table is searched whole, it is small. */
static uint32_t ct_dwp_row(struct ct_dwp *p, uint64_t id, uint32_t *ncols, uint32_t *nunits)
{
	const uint8_t *d = p->index->d_buf;
	size_t size = p->index->d_size;
	uint32_t nslots = ct_u32(d + 12);
	*ncols = ct_u32(d + 4);
	*nunits = ct_u32(d + 8);
	/* header, signatures, row numbers, column ids, offsets, sizes */
	if (*ncols > 64 || *nunits > size || nslots > size ||
	    16 + 12ull * nslots + 4ull * *ncols * (1 + 2ull * *nunits) > size)
		return 0;
	for (uint32_t i = 0; i < nslots; i++) {
		uint64_t sig;
		memcpy(&sig, d + 16 + 8 * (size_t)i, 8);
		uint32_t row = ct_u32(d + 16 + 8 * (size_t)nslots + 4 * (size_t)i);
		if (sig == id && row && row <= *nunits)
			return row;
	}
	return 0;
}

/* The unit's part of each section, as offsets and sizes; 0 if the package has no such unit. */
static int ct_dwp_parts(struct ct_dwp *p, uint64_t id, uint64_t off[CT_NSECT],
			uint64_t len[CT_NSECT])
{
	uint32_t ncols, nunits, row = ct_dwp_row(p, id, &ncols, &nunits);
	const uint8_t *d = p->index->d_buf;
	uint32_t nslots = ct_u32(d + 12);
	if (!row)
		return 0;
	const uint8_t *cols = d + 16 + 12 * (size_t)nslots;
	const uint8_t *offs = cols + 4 * (size_t)ncols * row;
	const uint8_t *sizes =
		cols + 4 * (size_t)ncols * (1 + nunits) + 4 * (size_t)ncols * (row - 1);
	memset(off, 0, CT_NSECT * sizeof(*off));
	memset(len, 0, CT_NSECT * sizeof(*len));
	for (uint32_t c = 0; c < ncols; c++) {
		uint32_t s = ct_u32(cols + 4 * c);
		if (s >= CT_NSECT || !p->sect[s])
			continue;
		off[s] = ct_u32(offs + 4 * c);
		len[s] = ct_u32(sizes + 4 * c);
		if (off[s] + len[s] > p->sect[s]->d_size)
			return 0;
	}
	return len[DW_SECT_INFO] != 0;
}

/*
 * A relocatable ELF image of the given sections (names, data, sizes): the
 * header, the data, the section names, the section headers.
 */
static uint8_t *ct_elf_image(const char *const *names, const void *const *data,
			     const uint64_t *sizes, int n, size_t *image_len)
{
	size_t names_len = 1 + sizeof(".shstrtab"), data_len = 0;
	for (int i = 0; i < n; i++) {
		names_len += strlen(names[i]) + 1;
		data_len += sizes[i];
	}
	size_t shoff = (sizeof(Elf64_Ehdr) + data_len + names_len + 7) & ~(size_t)7;
	*image_len = shoff + (size_t)(n + 2) * sizeof(Elf64_Shdr);
	uint8_t *img = calloc(1, *image_len);
	if (!img)
		return NULL;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_REL;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_shoff = shoff;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = (uint16_t)(n + 2);
	eh->e_shstrndx = (uint16_t)(n + 1);
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + shoff);
	size_t at = sizeof(Elf64_Ehdr), name_at = 1;
	char *strtab = (char *)img + sizeof(Elf64_Ehdr) + data_len;
	for (int i = 0; i <= n; i++) {
		const char *name = i < n ? names[i] : ".shstrtab";
		Elf64_Shdr *s = &sh[i + 1];
		s->sh_name = (uint32_t)name_at;
		memcpy(strtab + name_at, name, strlen(name) + 1);
		name_at += strlen(name) + 1;
		s->sh_type = i < n ? SHT_PROGBITS : SHT_STRTAB;
		s->sh_addralign = 1;
		if (i < n) {
			s->sh_offset = at;
			s->sh_size = sizes[i];
			memcpy(img + at, data[i], sizes[i]);
			at += sizes[i];
		} else {
			s->sh_offset = (size_t)(strtab - (char *)img);
			s->sh_size = names_len;
		}
	}
	return img;
}

int ct_dwp_unit(struct ct_dwp *p, uint64_t id, struct ct_dwp_unit *u)
{
	const char *names[CT_NSECT + 1];
	const void *data[CT_NSECT + 1];
	uint64_t off[CT_NSECT], len[CT_NSECT], sizes[CT_NSECT + 1];
	int n = 0;
	size_t image_len;
	memset(u, 0, sizeof(*u));
	if (!p || !ct_dwp_parts(p, id, off, len))
		return -1;
	for (int s = 1; s < CT_NSECT; s++) {
		if (!len[s])
			continue;
		names[n] = p->version == 5 ? ct_sect5[s] : ct_sect2[s];
		data[n] = (const uint8_t *)p->sect[s]->d_buf + off[s];
		sizes[n++] = len[s];
	}
	if (p->str) {
		names[n] = ".debug_str.dwo";
		data[n] = p->str->d_buf;
		sizes[n++] = p->str->d_size;
	}
	u->image = ct_elf_image(names, data, sizes, n, &image_len);
	if (!u->image || !(u->elf = elf_memory((char *)u->image, image_len)) ||
	    !(u->dbg = dwarf_begin_elf(u->elf, DWARF_C_READ, NULL))) {
		ct_dwp_unit_end(u);
		return -1;
	}
	return 0;
}

void ct_dwp_unit_end(struct ct_dwp_unit *u)
{
	if (u->dbg)
		dwarf_end(u->dbg);
	if (u->elf)
		elf_end(u->elf);
	free(u->image);
	memset(u, 0, sizeof(*u));
}

/* The index an address attribute gives into .debug_addr; -1 if it is no index. */
static int64_t ct_addr_index(Dwarf_Attribute *at)
{
	const uint8_t *v = at->valp;
	uint64_t x = 0;
	switch (at->form) {
	case DW_FORM_addrx1:
		return v[0];
	case DW_FORM_addrx2:
		return v[0] | v[1] << 8;
	case DW_FORM_addrx3:
		return v[0] | v[1] << 8 | v[2] << 16;
	case DW_FORM_addrx4:
		return (int64_t)ct_u32(v);
	case DW_FORM_addrx:
	case DW_FORM_GNU_addr_index:
		for (int shift = 0; shift < 63; shift += 7, v++) {
			x |= (uint64_t)(*v & 0x7f) << shift;
			if (!(*v & 0x80))
				return (int64_t)x;
		}
		return -1;
	default:
		return -1;
	}
}

/* The low_pc of a DIE of a unit read from a package: the skeleton's .debug_addr has it. */
int ct_dwp_lowpc(Dwarf_Die *die, const Elf_Data *debug_addr, uint64_t addr_base, uint64_t *addr)
{
	Dwarf_Attribute at;
	int64_t i = dwarf_attr(die, DW_AT_low_pc, &at) ? ct_addr_index(&at) : -1;
	if (i < 0 || !debug_addr || addr_base + 8 * (uint64_t)i + 8 > debug_addr->d_size)
		return -1;
	memcpy(addr, (const uint8_t *)debug_addr->d_buf + addr_base + 8 * i, 8);
	return 0;
}

const Elf_Data *ct_debug_addr(Elf *elf)
{
	return elf ? ct_section(elf, ".debug_addr") : NULL;
}
