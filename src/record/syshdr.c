/* SPDX-License-Identifier: MIT */
/*
 * Functions declared in system headers, kept out at record time (issue 21
 * item 4). Patchable entries (calltrace-cc's default) mark every function
 * the compiler emitted, those of glibc's and the compiler's headers too (an
 * out-of-line __gthread_mutex_lock, a static inline helper of a header);
 * report --no-std hides them by their DWARF decl_file, which the runtime
 * cannot read (no libdw in the program, and patching may run inside
 * dlopen). So before the program starts, the recorder lists the program's
 * functions that --no-std would hide by DWARF (ct_dwarf_declared_in_system),
 * in a sealed memfd named in CALLTRACE_SYSHDR; the runtime leaves their
 * entries unpatched like the standard library's, in the module whose
 * build-id is the program's. Only the program: its own libraries are known
 * only once loaded, and those are left to --no-std.
 *
 * Walking the DWARF takes a while on a big program (140-200 ms for sqlite3's
 * shell, one unit of 8 MB), so the list is kept in the patch plan cache's
 * directory, by build-id and calltrace's version (BUILDID-HASH.syshdr,
 * pruned with the plans), and CALLTRACE_SYSHDR names that file; without a
 * cache (--no-cache, no HOME) it names a sealed memfd of ours instead.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "syshdr.h"
#include "../common/buildid.h"
#include "../common/cachedir.h"
#include "../common/syshdr.h"
#include "../symbols/symbols.h"
#include "../util/util.h"

/* The list in a sealed memfd of ours, named in the environment the program inherits. */
static void ct_syshdr_hand(const struct ct_syshdr_head *h, const uint64_t *addr)
{
	int fd = memfd_create("calltrace-syshdr", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return;
	if (ct_write_all_fd(fd, h, sizeof(*h)) < 0 ||
	    ct_write_all_fd(fd, addr, h->count * sizeof(*addr)) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		close(fd);
		return;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)getpid(), fd);
	setenv("CALLTRACE_SYSHDR", path, 1); /* fd stays open while we record */
}

/*
 * The cache directory the runtime keeps its plans in (src/common/cachedir.c),
 * open, its path in path; -1 if there is none of ours (or --no-cache).
 */
static int ct_syshdr_cache_dir(char *path, size_t room)
{
	const char *off = getenv("CALLTRACE_NO_CACHE");
	if ((off && *off && strcmp(off, "0")) || !getenv("HOME"))
		return -1;
	return ct_cache_dir_open(NULL, path, room);
}

/* BUILDID-HASH.syshdr: the hash of calltrace's version, whose rule made the list. */
static void ct_syshdr_cache_name(const struct ct_syshdr_head *h, char *name, size_t room)
{
	static const char key[] = "calltrace-syshdr " CT_VERSION;
	uint64_t hash = ct_fnv1a(key, sizeof(key) - 1, CT_FNV_START);
	char id[2 * sizeof(h->build_id) + 1];
	ct_hex_bytes(h->build_id, ct_min(h->build_id_len, sizeof(h->build_id)), id);
	snprintf(name, room, "%s-%016llx.syshdr", id, (unsigned long long)hash);
}

/* Name the list dir/name to the runtime. */
static void ct_syshdr_name(const char *dir, const char *name)
{
	char *path = ct_printf("%s/%s", dir, name);
	setenv("CALLTRACE_SYSHDR", path, 1);
	free(path);
}

/*
 * A cached list whole and for this build-id: its time set (it was used).
 * Only its head is read: the runtime maps the rest, checking the size again.
 */
static int ct_syshdr_cached(int dir, const char *name, const struct ct_syshdr_head *want)
{
	struct ct_syshdr_head h;
	struct stat st;
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), ok = 0;
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 022) && read(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) &&
	    !memcmp(h.magic, CT_SYSHDR_MAGIC, sizeof(h.magic)) && h.count <= CT_SYSHDR_MAX &&
	    (uint64_t)st.st_size == sizeof(h) + (uint64_t)h.count * sizeof(uint64_t) &&
	    h.build_id_len == want->build_id_len &&
	    !memcmp(h.build_id, want->build_id, h.build_id_len)) {
		futimens(fd, NULL);
		ok = 1;
	}
	close(fd);
	return ok;
}

/* Keep the list (a temporary file renamed into place); 0 if it could not be. */
static int ct_syshdr_keep(int dir, const char *name, const struct ct_syshdr_head *h,
			  const uint64_t *addr)
{
	struct iovec parts[] = { { (void *)h, sizeof(*h) },
				 { (void *)addr, h->count * sizeof(*addr) } };
	return ct_cache_write(dir, name, parts, 2) == 0;
}

struct ct_syshdr_found {
	uint64_t *addr;
	size_t n, cap;
};

static void ct_syshdr_add(void *arg, uint64_t at)
{
	struct ct_syshdr_found *f = arg;
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 256;
		f->addr = ct_realloc(f->addr, f->cap * sizeof(*f->addr));
	}
	f->addr[f->n++] = at;
}

static int ct_syshdr_order(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The program's build-id in the head; 0 if it has none (then nothing is handed over). */
static int ct_syshdr_head_for(const char *path, struct ct_syshdr_head *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, CT_SYSHDR_MAGIC, sizeof(h->magic));
	h->build_id_len = (uint32_t)ct_elf_build_id(path, h->build_id);
	return h->build_id_len >= 8;
}

void ct_syshdr_offer(const char *path)
{
	struct ct_syshdr_found found = { 0 };
	struct ct_syshdr_head h;

	unsetenv("CALLTRACE_SYSHDR");
	if (!ct_syshdr_head_for(path, &h))
		return;
	char dir_path[4096], name[2 * sizeof(h.build_id) + 32];
	int dir = ct_syshdr_cache_dir(dir_path, sizeof(dir_path));
	ct_syshdr_cache_name(&h, name, sizeof(name));
	if (dir >= 0 && ct_syshdr_cached(dir, name, &h)) {
		ct_syshdr_name(dir_path, name);
		close(dir);
		return;
	}
	ct_dwarf_system_functions(path, ct_syshdr_add, &found);
	if (found.n <= CT_SYSHDR_MAX) {
		if (found.n) /* none found: no array to sort */
			qsort(found.addr, found.n, sizeof(*found.addr), ct_syshdr_order);
		h.count = (uint32_t)found.n;
		/* an empty list is kept too: the walk is what costs */
		if (dir >= 0 && ct_syshdr_keep(dir, name, &h, found.addr))
			ct_syshdr_name(dir_path, name);
		else if (found.n)
			ct_syshdr_hand(&h, found.addr);
	}
	free(found.addr);
	if (dir >= 0)
		close(dir);
}
