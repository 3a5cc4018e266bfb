/* SPDX-License-Identifier: MIT */
/*
 * DWARF, through elfutils' libdw: where a function was declared. Used by
 * --no-std to hide what system headers declare (inline functions of the C++
 * standard library, of glibc's headers), the way Call Stack Logger keeps them
 * out of its instrumentation. One Dwarf handle per module file, kept open.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "symbols.h"

struct ct_dwarf_file {
	char *path;
	int fd;
	Dwarf *dbg; /* NULL: no DWARF in it */
};

static struct ct_dwarf_file *ct_files;
static size_t ct_nfiles;

static Dwarf *ct_dwarf_for(const char *path)
{
	for (size_t i = 0; i < ct_nfiles; i++)
		if (!strcmp(ct_files[i].path, path))
			return ct_files[i].dbg;
	ct_files = ct_realloc(ct_files, (ct_nfiles + 1) * sizeof(*ct_files));
	struct ct_dwarf_file *f = &ct_files[ct_nfiles++];
	f->path = ct_strdup(path);
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	f->dbg = f->fd >= 0 ? dwarf_begin(f->fd, DWARF_C_READ) : NULL;
	return f->dbg;
}

/*
 * The compile unit holding addr. clang writes no .debug_aranges, which
 * dwarf_addrdie relies on: then look at each unit's ranges.
 */
static int ct_cu_for(Dwarf *dbg, uint64_t addr, Dwarf_Die *cu)
{
	if (dwarf_addrdie(dbg, addr, cu))
		return 1;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dbg, off + hsize, cu) && dwarf_haspc(cu, addr) > 0)
			return 1;
		off = next;
	}
	return 0;
}

static int ct_is_system_path(const char *file)
{
	static const char *const dirs[] = { "/usr/include/", "/usr/lib/gcc/", "/usr/lib/llvm",
					    "/usr/local/include/", "/usr/lib/clang/" };
	for (size_t i = 0; i < CT_ARRAY_SIZE(dirs); i++)
		if (!strncmp(file, dirs[i], strlen(dirs[i])))
			return 1;
	return 0;
}

/* 1 if the function at ELF address addr of path is declared in a system header, 0 if not or unknown. */
int ct_dwarf_declared_in_system(const char *path, uint64_t addr)
{
	Dwarf *dbg = path ? ct_dwarf_for(path) : NULL;
	Dwarf_Die cu, *scopes = NULL;
	if (!dbg || !ct_cu_for(dbg, addr, &cu))
		return 0;
	int n = dwarf_getscopes(&cu, addr, &scopes);
	int system = 0;
	/* the outermost subprogram holding addr: the function itself, not what it inlined */
	for (int i = n - 1; i >= 0; i--) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		const char *file = dwarf_decl_file(&scopes[i]);
		system = file && ct_is_system_path(file);
		break;
	}
	free(scopes);
	return system;
}

/* "file.c:42" for the instruction at ELF address addr of path; 0 if unknown. */
int ct_dwarf_srcline(const char *path, uint64_t addr, char *buf, size_t len)
{
	Dwarf *dbg = path ? ct_dwarf_for(path) : NULL;
	Dwarf_Die cu;
	int line = 0;
	if (!dbg || !ct_cu_for(dbg, addr, &cu))
		return 0;
	Dwarf_Line *l = dwarf_getsrc_die(&cu, addr);
	const char *file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	if (!file || dwarf_lineno(l, &line) != 0 || line <= 0)
		return 0;
	snprintf(buf, len, "%s:%d", ct_basename(file), line);
	return 1;
}
