/* SPDX-License-Identifier: MIT */
/*
 * The modules of the process: described (path, load bias, executable range,
 * build-id) when the process starts and whenever the loader has added some
 * since, so the reader can name every address; and, around dlclose, those
 * that went away, so a module loaded later at the same address is not taken
 * for the one that was there before.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "../runtime.h"
#include "../hotpath/hotpath.h"
#include "../methods/methods.h"
#include "process.h"
#if defined(__aarch64__)
#include "../../arch/aarch64/prologue.h"
#endif

static _Atomic int ct_scanning;
static unsigned long long ct_seen_adds;
/* Room for one record; used with signals blocked, by one thread at a time. */
static uint64_t ct_module_buf[CT_EXT_MAX_WORDS];

static int ct_count_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(unsigned long long *)data = info->dlpi_adds;
	return 1;
}

/* The loader added modules since we last described them. */
int ct_modules_changed(void)
{
	unsigned long long adds = 0;
	dl_iterate_phdr(ct_count_cb, &adds);
	return adds != ct_seen_adds;
}

void ct_modules_forget(void)
{
	ct_seen_adds = 0;
}

struct ct_scan {
	struct ct_thread *t;
	int emit;
	unsigned long long adds;
};

static void ct_module_build_id(struct dl_phdr_info *info, struct ct_ext_module *m)
{
	uint32_t len;
	const uint8_t *id = ct_module_build_id_note(info, &len);
	if (id && len <= sizeof(m->build_id)) {
		memcpy(m->build_id, id, len);
		m->build_id_len = (uint8_t)len;
	}
}

static int ct_segments_range(const struct dl_phdr_info *info, uint32_t flags, uint64_t *lo,
			     uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || (ph->p_flags & flags) != flags)
			continue;
		uint64_t start = info->dlpi_addr + ph->p_vaddr;
		if (start < *lo)
			*lo = start;
		if (start + ph->p_memsz > *hi)
			*hi = start + ph->p_memsz;
	}
	return *lo != UINT64_MAX;
}

/* The runtime range of a module's executable segments; 0 if it has none. */
int ct_module_range(const struct dl_phdr_info *info, uint64_t *lo, uint64_t *hi)
{
	return ct_segments_range(info, PF_X, lo, hi);
}

/*
 * What the module record covers: every segment, for the ids of library
 * calls are GOT slots (libcalls.c); a module with no code is not described.
 */
static int ct_module_extent(const struct dl_phdr_info *info, uint64_t *lo, uint64_t *hi)
{
	uint64_t xlo, xhi;
	return ct_module_range(info, &xlo, &xhi) && ct_segments_range(info, 0, lo, hi);
}

static int ct_module_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct ct_scan *scan = data;
	(void)size;

	scan->adds = info->dlpi_adds;
	if (!scan->emit)
		return 1;
	if (!strncmp(info->dlpi_name, "linux-vdso", 10) ||
	    !strncmp(info->dlpi_name, "linux-gate", 10))
		return 0;

	struct ct_ext_module *m = (void *)ct_module_buf;
	char *path = (char *)(m + 1);
	uint32_t room = sizeof(ct_module_buf) - sizeof(*m) - 1;

	memset(m, 0, sizeof(*m));
	m->base = info->dlpi_addr;
	if (!ct_module_extent(info, &m->lo, &m->hi))
		return 0;
	ct_module_build_id(info, m);

	size_t n;
	if (info->dlpi_name[0]) {
		n = strnlen(info->dlpi_name, room);
		memcpy(path, info->dlpi_name, n);
	} else {
		ssize_t r = readlink(ct_self_exe(), path, room);
		n = r < 0 ? 0 : (size_t)r;
	}
	path[n] = 0;
	m->path_len = (uint32_t)n + 1;
	ct_write_ext(scan->t, CT_EXT_MODULE, m, (uint32_t)sizeof(*m) + m->path_len, 1);
	return 0;
}

/* Describe the loaded modules again if the loader added any since last time. */
int ct_check_modules(struct ct_thread *t, int force)
{
	if (atomic_exchange(&ct_scanning, 1))
		return 0;

	struct ct_scan scan = { .t = t, .emit = 0 };
	dl_iterate_phdr(ct_module_cb, &scan);
	if (force || scan.adds != ct_seen_adds) {
		ct_seen_adds = scan.adds;
		scan.emit = 1;
		dl_iterate_phdr(ct_module_cb, &scan);
	}
	atomic_store(&ct_scanning, 0);
	if (scan.emit)
		ct_patch_modules(0); /* the loader added some: any patchable entries? */
	return scan.emit;
}


/* dlclose: the modules before, and those no longer there after. */
#define CT_MAX_SPANS 512

struct ct_spans {
	struct ct_ext_unload span[CT_MAX_SPANS];
	size_t n;
};

static int ct_span_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct ct_spans *s = data;
	struct ct_ext_unload u = { .base = info->dlpi_addr };
	(void)size;
	if (s->n < CT_MAX_SPANS && ct_module_extent(info, &u.lo, &u.hi))
		s->span[s->n++] = u;
	return 0;
}

static int ct_span_present(const struct ct_spans *s, const struct ct_ext_unload *u)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->span[i].base == u->base && s->span[i].lo == u->lo)
			return 1;
	return 0;
}

typedef int (*ct_dlclose_fn)(void *);

CT_EXPORT int dlclose(void *handle)
{
	static struct ct_spans before, after; /* big: not on the program's stack */
	ct_dlclose_fn real = (ct_dlclose_fn)ct_next_symbol("dlclose");
	int traced = atomic_load(&ct_state) == CT_RT_READY;

	if (!traced)
		return real(handle);
	/* name what may go away while it is there (one dlclose at a time: the loader's lock) */
	ct_describe_modules();
	before.n = after.n = 0;
	dl_iterate_phdr(ct_span_cb, &before);
	int r = real(handle);
	int err = errno;
	dl_iterate_phdr(ct_span_cb, &after);
	for (size_t i = 0; i < before.n; i++)
		if (!ct_span_present(&after, &before.span[i])) {
			ct_emit_ext(CT_EXT_UNLOAD, &before.span[i], sizeof(before.span[i]), 1);
			ct_patch_forget(); /* another may be loaded where it was */
#if defined(__aarch64__)
			ct_a64_frames_forget(before.span[i].lo, before.span[i].hi); /* -pg's prologues */
#endif
		}
	errno = err;
	return r;
}
