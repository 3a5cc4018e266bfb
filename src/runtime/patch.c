/* SPDX-License-Identifier: MIT */
/*
 * Patchable entries (-fpatchable-function-entry=5,0): the compiler leaves 5
 * bytes of nops at each function's entry and lists them in the allocated
 * section __patchable_function_entries (gcc's -mnop-mcount -mrecord-mcount
 * does the same in __mcount_loc). We write "call thunk" over the nops;
 * the thunk, in a page mapped within reach of the module, jumps to
 * __fentry__, which sees exactly what a -mfentry call gives it: the
 * function's return-address slot and a call site 5 bytes into the function.
 *
 * Modules are patched when the runtime starts (from our constructor when the
 * program itself has such entries: it may call no hook before), and those
 * dlopen adds when the runtime next looks for new modules (a thread's next
 * chunk). Code is writable only while we patch it; an entry that is not the
 * expected nops is left alone and counted.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime.h"
#include "../arch/x86_64/patch.h"

void __fentry__(void);

#define CT_MAX_MODULES 512
#define CT_SHDR_BYTES  (128 << 10)

static uintptr_t ct_done[CT_MAX_MODULES]; /* load bases of the modules looked at */
static unsigned ct_ndone;
static uintptr_t ct_thunks[CT_MAX_MODULES]; /* ours: a call to one is a patched entry */
static unsigned ct_nthunks;
static _Atomic int ct_busy;
static ElfW(Shdr) ct_shdrs[CT_SHDR_BYTES / sizeof(ElfW(Shdr))];
static char ct_names[64 << 10];

static int ct_already(uintptr_t base)
{
	for (unsigned i = 0; i < ct_ndone; i++)
		if (ct_done[i] == base)
			return 1;
	return 0;
}

/* The section's address and size in the module file; 0 if it has none. */
static int ct_find_section(const char *path, const char *want, uint64_t *addr, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ElfW(Ehdr) eh;
	int found = 0;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_shentsize != sizeof(ElfW(Shdr)) ||
	    (size_t)eh.e_shnum * sizeof(ElfW(Shdr)) > sizeof(ct_shdrs) || eh.e_shstrndx >= eh.e_shnum)
		goto out;
	size_t bytes = (size_t)eh.e_shnum * sizeof(ElfW(Shdr));
	if (pread(fd, ct_shdrs, bytes, (off_t)eh.e_shoff) != (ssize_t)bytes)
		goto out;
	const ElfW(Shdr) *strs = &ct_shdrs[eh.e_shstrndx];
	size_t n = strs->sh_size < sizeof(ct_names) - 1 ? strs->sh_size : sizeof(ct_names) - 1;
	if (pread(fd, ct_names, n, (off_t)strs->sh_offset) != (ssize_t)n)
		goto out;
	ct_names[n] = 0;
	for (unsigned i = 0; i < eh.e_shnum && !found; i++) {
		const ElfW(Shdr) *sh = &ct_shdrs[i];
		if (sh->sh_name < n && (sh->sh_flags & SHF_ALLOC) &&
		    !strcmp(ct_names + sh->sh_name, want)) {
			*addr = sh->sh_addr;
			*size = sh->sh_size;
			found = 1;
		}
	}
out:
	close(fd);
	return found;
}

/* A page for the thunk, within rel32 reach of [lo, hi). */
static uintptr_t ct_thunk_near(uintptr_t lo, uintptr_t hi)
{
	long page = sysconf(_SC_PAGESIZE);
	for (uintptr_t step = 1; step < 1024; step++) {
		uintptr_t want = (lo & ~(uintptr_t)(page - 1)) - step * (1u << 20);
		if (want > lo || hi - want >= (1ull << 31) - 4096)
			break;
		void *m = mmap((void *)want, (size_t)page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m == MAP_FAILED)
			continue;
		uint8_t thunk[CT_THUNK_LEN];
		ct_arch_encode_thunk(thunk, (uintptr_t)__fentry__);
		memcpy(m, thunk, sizeof(thunk));
		mprotect(m, (size_t)page, PROT_READ | PROT_EXEC);
		if (ct_nthunks < CT_MAX_MODULES)
			ct_thunks[ct_nthunks++] = (uintptr_t)m;
		return (uintptr_t)m;
	}
	return 0;
}

/* Patched already (a module looked at again after a dlclose elsewhere)? */
static int ct_patched_already(uintptr_t at)
{
	const uint8_t *p = (const uint8_t *)at;
	int32_t rel;
	if (p[0] != 0xe8)
		return 0;
	memcpy(&rel, p + 1, 4);
	uintptr_t to = at + CT_PATCH_LEN + (intptr_t)rel;
	for (unsigned i = 0; i < ct_nthunks; i++)
		if (ct_thunks[i] == to)
			return 1;
	return 0;
}

/* Write the calls; pages are writable only meanwhile. */
static void ct_patch_entries(const uintptr_t *entries, size_t n, uintptr_t thunk)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t open_page = 0;
	uint32_t patched = 0, skipped = 0;

	for (size_t i = 0; i < n; i++) {
		uintptr_t at = entries[i];
		uint8_t call[CT_PATCH_LEN];
		if (at && ct_patched_already(at))
			continue;
		if (!at || !ct_arch_is_entry_nop((const uint8_t *)at) ||
		    !ct_arch_encode_call(call, at, thunk)) {
			skipped++;
			continue;
		}
		uintptr_t first = at & ~(uintptr_t)(page - 1);
		uintptr_t last = (at + CT_PATCH_LEN - 1) & ~(uintptr_t)(page - 1);
		if (first != open_page || last != open_page) {
			if (open_page)
				mprotect((void *)open_page, (size_t)page * 2, PROT_READ | PROT_EXEC);
			open_page = first;
			if (mprotect((void *)first, (size_t)page * 2,
				     PROT_READ | PROT_WRITE | PROT_EXEC) < 0) {
				open_page = 0;
				skipped++;
				continue;
			}
		}
		memcpy((void *)at, call, CT_PATCH_LEN);
		patched++;
	}
	if (open_page)
		mprotect((void *)open_page, (size_t)page * 2, PROT_READ | PROT_EXEC);
	atomic_fetch_add(&ct_ctl->patched, patched);
	atomic_fetch_add(&ct_ctl->patch_skipped, skipped);
	if (patched)
		atomic_fetch_or(&ct_ctl->methods, CT_METHOD_PATCHABLE);
}

/* The entries one section lists (absolute addresses, relocated): patch them. */
static void ct_patch_list(const uintptr_t *entries, size_t n)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (size_t i = 0; i < n; i++) {
		if (entries[i] && entries[i] < lo)
			lo = entries[i];
		if (entries[i] > hi)
			hi = entries[i];
	}
	uintptr_t thunk = lo <= hi ? ct_thunk_near(lo, hi) : 0;
	if (!thunk) {
		atomic_fetch_add(&ct_ctl->patch_skipped, (uint32_t)n);
		return;
	}
	ct_patch_entries(entries, n, thunk);
}

/*
 * The sections listing entries to patch: -fpatchable-function-entry's, and
 * gcc's -mrecord-mcount list of the nops -mnop-mcount left where -mfentry
 * calls would be.
 */
static const char *const ct_entry_sections[] = { "__patchable_function_entries", "__mcount_loc" };

static int ct_patch_module(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	int *want_init = data;
	const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
	uint64_t addr, bytes;
	if (ct_ndone >= CT_MAX_MODULES || ct_already(info->dlpi_addr))
		return 0;
	ct_done[ct_ndone++] = info->dlpi_addr;
	for (size_t k = 0; k < CT_ARRAY_LEN(ct_entry_sections); k++) {
		if (!ct_find_section(path, ct_entry_sections[k], &addr, &bytes) || !bytes)
			continue;
		if (want_init && (*want_init = 1))
			return 1; /* the caller only asked whether there is anything to patch */
		ct_patch_list((const uintptr_t *)(info->dlpi_addr + addr), bytes / sizeof(uintptr_t));
	}
	return 0;
}

/* dlclose: a module loaded later may take the place of one looked at. */
void ct_patch_forget(void)
{
	if (!atomic_exchange(&ct_busy, 1)) {
		ct_ndone = 0;
		atomic_store(&ct_busy, 0);
	}
}

/* Patch the modules not looked at yet (the runtime is tracing). */
void ct_patch_modules(void)
{
	if (atomic_load(&ct_state) != CT_RT_READY || atomic_exchange(&ct_busy, 1))
		return;
	dl_iterate_phdr(ct_patch_module, NULL);
	atomic_store(&ct_busy, 0);
}

/* At start: the program has patchable entries, so start the runtime now to patch them. */
__attribute__((constructor(102))) static void ct_patch_at_start(void)
{
	int found = 0;
	if (atomic_exchange(&ct_busy, 1))
		return;
	dl_iterate_phdr(ct_patch_module, &found);
	ct_ndone = 0; /* only looked */
	atomic_store(&ct_busy, 0);
	if (found && ct_init_outside() == 0)
		ct_patch_modules();
}
