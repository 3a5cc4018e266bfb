/* SPDX-License-Identifier: MIT */
/*
 * dlopen: the library it loads may have patchable entries, to patch before
 * the program calls into it.
 *
 * glibc searches a bare file name in the DT_RUNPATH (or DT_RPATH) of the
 * object that calls dlopen, which it finds from the return address: called
 * through us, that would be libcalltrace.so, which has none. So for a bare
 * name we search as glibc would for the real caller, LD_LIBRARY_PATH and its
 * RUNPATH (or its RPATH, the executable's, then LD_LIBRARY_PATH), and give
 * glibc the full path when the file is there; else the name, for the cache
 * and the default directories, which do not depend on the caller.
 */
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runtime.h"
#include "../methods/methods.h"

typedef void *(*ct_dlopen_fn)(const char *, int);

/* A DT_RUNPATH or DT_RPATH string of the object, or NULL. */
static const char *ct_dyn_path(const struct link_map *map, ElfW(Sxword) tag)
{
	const char *strtab = NULL;
	ElfW(Xword) off = 0;
	int found = 0;
	for (const ElfW(Dyn) *d = map->l_ld; d && d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_STRTAB)
			strtab = (const char *)d->d_un.d_ptr;
		else if (d->d_tag == tag) {
			off = d->d_un.d_val;
			found = 1;
		}
	}
	if (!found || !strtab)
		return NULL;
	if ((uintptr_t)strtab < map->l_addr) /* not relocated in place */
		strtab += map->l_addr;
	return strtab + off;
}

/* The directory of the object, for $ORIGIN. */
static void ct_origin(const struct link_map *map, char *out, size_t len)
{
	char exe[PATH_MAX];
	const char *name = map->l_name;
	if (!name || !*name) {
		ssize_t n = readlink(ct_self_exe(), exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = 0;
		name = exe;
	}
	const char *slash = strrchr(name, '/');
	snprintf(out, len, "%.*s", slash ? (int)(slash - name) : 1, slash ? name : ".");
}

/* Look for file in a colon-separated list; 1 with its path in out if there. */
static int ct_search(const char *list, const struct link_map *map, const char *file, char *out)
{
	char origin[PATH_MAX], dir[PATH_MAX];
	while (list && *list) {
		size_t n = strcspn(list, ":");
		snprintf(dir, sizeof(dir), "%.*s", (int)n, list);
		list += n + (list[n] == ':');
		if (strchr(dir, '$')) {
			if (strncmp(dir, "$ORIGIN", 7) && strncmp(dir, "${ORIGIN}", 9))
				continue; /* $LIB, $PLATFORM: left to glibc */
			ct_origin(map, origin, sizeof(origin));
			const char *rest = dir + (dir[1] == '{' ? 9 : 7);
			char full[PATH_MAX];
			snprintf(full, sizeof(full), "%s%s", origin, rest);
			snprintf(dir, sizeof(dir), "%s", full);
		}
		if (snprintf(out, PATH_MAX, "%s/%s", *dir ? dir : ".", file) < PATH_MAX &&
		    access(out, R_OK) == 0)
			return 1;
	}
	return 0;
}

static int ct_search_like(const char *file, const void *caller, char *out)
{
	Dl_info info;
	struct link_map *map = NULL;
	if (!dladdr1(caller, &info, (void **)&map, RTLD_DL_LINKMAP) || !map)
		return 0;
	const char *runpath = ct_dyn_path(map, DT_RUNPATH);
	const char *llp = getenv("LD_LIBRARY_PATH");
	if (runpath)
		return ct_search(llp, map, file, out) || ct_search(runpath, map, file, out);
	const char *rpath = ct_dyn_path(map, DT_RPATH);
	if (!rpath)
		return 0; /* nothing that depends on the caller */
	struct link_map *exe = map;
	while (exe->l_prev)
		exe = exe->l_prev;
	const char *exe_rpath = exe != map ? ct_dyn_path(exe, DT_RPATH) : NULL;
	return ct_search(rpath, map, file, out) || ct_search(exe_rpath, exe, file, out) ||
	       ct_search(llp, map, file, out);
}

CT_EXPORT void *dlopen(const char *file, int mode)
{
	static ct_dlopen_fn real;
	char path[PATH_MAX];
	const char *use = file;

	if (!real)
		real = (ct_dlopen_fn)ct_next_symbol("dlopen");
	if (file && !strchr(file, '/') && ct_search_like(file, __builtin_return_address(0), path))
		use = path;
	void *h = real(use, mode);
	if (h)
		ct_patch_modules(1);
	return h;
}
