/* SPDX-License-Identifier: MIT */
/*
 * DWARF, through elfutils' libdw: where a function was declared, and source
 * lines. --no-std hides what system headers declare (inline functions of the
 * C++ standard library, of glibc's headers), the way Call Stack Logger keeps
 * them out of its instrumentation; replay --srcline shows where a function is
 * defined and the line of a call (split units reached through their skeleton,
 * units found by their ranges when there is no .debug_aranges). One Dwarf
 * handle per module file, kept open.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "symbols.h"
#include "../common/regfile.h"

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
	f->fd = ct_open_regular(path);
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

/* The functions defined in die's children (and in its namespaces and classes') declared in a system header. */
static void ct_system_children(Dwarf_Die *die, void (*fn)(void *, uint64_t), void *arg)
{
	Dwarf_Die c;
	if (dwarf_child(die, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		Dwarf_Addr lo;
		if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		    tag == DW_TAG_structure_type) {
			ct_system_children(&c, fn, arg);
		} else if (tag == DW_TAG_subprogram && dwarf_lowpc(&c, &lo) == 0) {
			const char *file = dwarf_decl_file(&c);
			if (file && ct_is_system_path(file))
				fn(arg, lo);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

/*
 * Every function of path that DWARF declares in a system header, by its
 * ELF address: what ct_dwarf_declared_in_system says of each, in one pass
 * over the units (asking it of each function costs seconds for sqlite3).
 */
void ct_dwarf_system_functions(const char *path, void (*fn)(void *, uint64_t), void *arg)
{
	Dwarf *dbg = path ? ct_dwarf_for(path) : NULL;
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cu;
	while (dbg && dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dbg, off + hsize, &cu))
			ct_system_children(&cu, fn, arg);
		off = next;
	}
}

static uint64_t ct_past_entry_nops(Dwarf *dbg, uint64_t addr);

/* "file.c:42" for the instruction at ELF address addr of path; 0 if unknown. */
int ct_dwarf_srcline(const char *path, uint64_t addr, char *buf, size_t len)
{
	Dwarf *dbg = path ? ct_dwarf_for(path) : NULL;
	Dwarf_Die cu;
	int line = 0;
	if (dbg)
		addr = ct_past_entry_nops(dbg, addr);
	if (!dbg || !ct_cu_for(dbg, addr, &cu))
		return 0;
	Dwarf_Line *l = dwarf_getsrc_die(&cu, addr);
	const char *file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	if (!file || dwarf_lineno(l, &line) != 0 || line <= 0)
		return 0;
	snprintf(buf, len, "%s:%d", ct_basename(file), line);
	return 1;
}

/*
 * Source lines for replay --srcline. With -gsplit-dwarf the executable keeps
 * a skeleton unit (address ranges, the line table) and the DIEs are in a .dwo
 * file that libdw finds from the skeleton's dwo name: beside the executable,
 * or in the compile directory.
 */
static void ct_split_unit(Dwarf_Die *cu)
{
	Dwarf_Die split;
	uint8_t type;
	if (dwarf_cu_info(cu->cu, NULL, &type, NULL, &split, NULL, NULL, NULL) == 0 &&
	    type == DW_UT_skeleton && split.cu)
		*cu = split;
}

/* "file:line", file made absolute with the compile directory of unit cu (a split unit's skeleton's) */
static void ct_format_line(Dwarf_Die *cu, const char *file, int line, char *buf, size_t len)
{
	Dwarf_Attribute attr;
	const char *dir = NULL;
	if (file[0] != '/')
		dir = dwarf_formstring(dwarf_attr_integrate(cu, DW_AT_comp_dir, &attr));
	if (dir && !*dir)
		dir = NULL;
	while (dir && file[0] == '.' && file[1] == '/')
		file += 2;
	if (dir)
		snprintf(buf, len, "%s%s%s:%d", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", file,
			 line);
	else
		snprintf(buf, len, "%s:%d", file, line);
}

/*
 * Address range tables, made once and then binary-searched: the units of a
 * file, when it has no .debug_aranges (clang writes none, and dwarf_addrdie
 * needs them), and the functions of a unit. (Not dwarf_getscopes for those:
 * it does not look inside namespaces without addresses, which hold clang's
 * C++ functions, and from inlined code it climbs the inline function's own
 * scopes, not its caller's.)
 */
struct ct_range {
	uint64_t lo, hi;
	Dwarf_Die die;
};

struct ct_range_table {
	struct ct_range *v;
	size_t n, cap;
};

/* what a table is of (a Dwarf, a unit DIE's data: distinct objects) -> index + 1 in ct_tables */
static struct ct_map ct_tables_by_key;
static struct ct_range_table *ct_tables;
static size_t ct_ntables;

/* The table of key; the first time, empty with *added set: fill it. */
static struct ct_range_table *ct_table(const void *key, int *added)
{
	uint64_t *slot = ct_map_put(&ct_tables_by_key, (uint64_t)(uintptr_t)key, added);
	if (*added) {
		ct_tables = ct_realloc(ct_tables, (ct_ntables + 1) * sizeof(*ct_tables));
		memset(&ct_tables[ct_ntables++], 0, sizeof(*ct_tables));
		*slot = ct_ntables;
	}
	return &ct_tables[*slot - 1];
}

/* Each address range of die. Also dwarf_getfuncs' callback: each range of each function. */
static int ct_range_add(Dwarf_Die *die, void *table)
{
	struct ct_range_table *t = table;
	Dwarf_Addr base, lo, hi;
	for (ptrdiff_t off = 0; (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0;) {
		if (lo >= hi)
			continue; /* empty: it would hide one starting at the same address */
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 64;
			t->v = ct_realloc(t->v, t->cap * sizeof(*t->v));
		}
		t->v[t->n++] = (struct ct_range){ lo, hi, *die };
	}
	return DWARF_CB_OK;
}

static int ct_range_order(const void *a, const void *b)
{
	const struct ct_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The DIE whose range holds addr; fresh: the table was just filled, sort it first. */
static int ct_range_find(struct ct_range_table *t, int fresh, uint64_t addr, Dwarf_Die *die)
{
	if (fresh && t->n) /* an empty table has no array: qsort must not see NULL */
		qsort(t->v, t->n, sizeof(*t->v), ct_range_order);
	size_t lo = 0, hi = t->n;
	while (lo < hi) { /* the first range starting after addr */
		size_t mid = (lo + hi) / 2;
		if (t->v[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= t->v[lo - 1].hi)
		return 0;
	*die = t->v[lo - 1].die;
	return 1;
}

/* The compile unit holding addr (a skeleton, with split DWARF). */
static int ct_unit_at(Dwarf *dbg, uint64_t addr, Dwarf_Die *cu)
{
	if (dwarf_addrdie(dbg, addr, cu))
		return 1;
	int fresh;
	struct ct_range_table *t = ct_table(dbg, &fresh);
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (fresh && dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dbg, off + hsize, cu))
			ct_range_add(cu, t);
		off = next;
	}
	return ct_range_find(t, fresh, addr, cu);
}

/* The function whose code holds addr: the function itself, not what it inlined. */
static int ct_subprogram_at(Dwarf_Die *unit, uint64_t addr, Dwarf_Die *fn)
{
	int fresh;
	struct ct_range_table *t = ct_table(unit->addr, &fresh);
	if (fresh)
		dwarf_getfuncs(unit, ct_range_add, t, 0);
	return ct_range_find(t, fresh, addr, fn);
}

/*
 * A function's address in its patchable entry's nops on aarch64, where gcc
 * emits them (after "bti c") before the function's own DWARF: its
 * subprogram and its first line row start 8 or 12 bytes on, and the nops
 * are left in the rows of whatever came before (the end of the previous
 * function, often an inlined header's line). The function's address then
 * stands for where its DWARF starts. x86-64's nops are inside the function.
 */
static uint64_t ct_past_entry_nops(Dwarf *dbg, uint64_t addr)
{
	Elf *elf = dwarf_getelf(dbg);
	GElf_Ehdr eh;
	Dwarf_Die cu, unit, fn;
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_AARCH64)
		return addr;
	if (ct_unit_at(dbg, addr, &cu)) {
		unit = cu;
		ct_split_unit(&unit);
		if (ct_subprogram_at(&unit, addr, &fn))
			return addr; /* in a function's DWARF: nothing to skip */
	}
	for (uint64_t skip = 4; skip <= 12; skip += 4) { /* nop, nop; bti c, nop, nop */
		Dwarf_Addr lo;
		if (!ct_unit_at(dbg, addr + skip, &cu))
			continue;
		unit = cu;
		ct_split_unit(&unit);
		if (ct_subprogram_at(&unit, addr + skip, &fn) && dwarf_lowpc(&fn, &lo) == 0 &&
		    lo == addr + skip)
			return lo;
	}
	return addr;
}

/*
 * Where fn is declared: decl_file and decl_line, each taken from fn or what
 * it points to (DW_AT_specification: a C++ method's declaration in its class,
 * when the definition does not repeat them; DW_AT_abstract_origin: the inline
 * function an out-of-line instance is of). The file index is the unit's that
 * holds the attribute, and so is the compile directory. (Not dwarf_decl_file:
 * libdw 0.188 asserts on a split unit whose file table is its skeleton's.)
 */
static int ct_decl_line(Dwarf_Die *fn, char *buf, size_t len)
{
	Dwarf_Attribute attr;
	Dwarf_Word index;
	Dwarf_Files *files;
	Dwarf_Die cu;
	Dwarf_Half version;
	size_t nfiles;
	int line = 0;
	if (dwarf_decl_line(fn, &line) != 0 || line <= 0 ||
	    !dwarf_attr_integrate(fn, DW_AT_decl_file, &attr) ||
	    dwarf_formudata(&attr, &index) != 0 ||
	    !dwarf_cu_die(attr.cu, &cu, &version, NULL, NULL, NULL, NULL, NULL) ||
	    dwarf_getsrcfiles(&cu, &files, &nfiles) != 0 || index >= nfiles ||
	    (index == 0 && version < 5)) /* before DWARF 5, file 0 is none */
		return 0;
	const char *file = dwarf_filesrc(files, index, NULL, NULL);
	if (!file)
		return 0;
	ct_format_line(&cu, file, line, buf, len);
	return 1;
}

/* The line table's row for addr, as "/dir/file.c:42", or (base) "file.c:42". */
static int ct_table_line(Dwarf_Die *cu, uint64_t addr, int base, char *buf, size_t len)
{
	Dwarf_Line *l = dwarf_getsrc_die(cu, addr);
	const char *file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	int line = 0;
	if (!file || dwarf_lineno(l, &line) != 0 || line <= 0)
		return 0;
	if (base)
		snprintf(buf, len, "%s:%d", ct_basename(file), line);
	else
		ct_format_line(cu, file, line, buf, len);
	return 1;
}

/*
 * "/dir/file.c:88": where the function at ELF address addr of path is
 * defined. Without a subprogram DIE (assembly; split DWARF without its .dwo),
 * the line of its first instruction. 0 if unknown.
 */
int ct_dwarf_defline(const char *path, uint64_t addr, char *buf, size_t len)
{
	Dwarf *dbg = path ? ct_dwarf_for(path) : NULL;
	Dwarf_Die cu, unit, fn;
	if (dbg)
		addr = ct_past_entry_nops(dbg, addr);
	if (!dbg || !ct_unit_at(dbg, addr, &cu))
		return 0;
	unit = cu;
	ct_split_unit(&unit);
	if (ct_subprogram_at(&unit, addr, &fn) && ct_decl_line(&fn, buf, len))
		return 1;
	/* the skeleton, not the split unit: the line table stays in the executable */
	return ct_table_line(&cu, addr, 0, buf, len);
}

/*
 * "file.c:41": the line of the call whose return address is ret (an ELF
 * address of path), that is of the call instruction just before it. In
 * inlined code, the line in the innermost inlined function. 0 if unknown.
 */
int ct_dwarf_callline(const char *path, uint64_t ret, char *buf, size_t len)
{
	Dwarf *dbg = path && ret ? ct_dwarf_for(path) : NULL;
	Dwarf_Die cu;
	if (!dbg || !ct_unit_at(dbg, ret - 1, &cu))
		return 0;
	return ct_table_line(&cu, ret - 1, 1, buf, len);
}
