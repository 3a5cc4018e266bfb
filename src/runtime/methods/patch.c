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
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../runtime.h"
#include "methods.h"
#include "../modes/modes.h"
#include "elfmap.h"
#include "patching.h"
#include "../../common/select.h"
#include "../args/args.h"
#include "stdskip.h"
#include "../../arch/patch.h"

void __fentry__(void);

#define CT_MAX_MODULES 512

static uintptr_t ct_done[CT_MAX_MODULES]; /* load bases of the modules looked at */
static unsigned ct_ndone;
static uintptr_t ct_thunks[CT_MAX_MODULES]; /* ours: a call to one is a patched entry */
static unsigned ct_nthunks;
static _Atomic int ct_busy;
static int ct_may_allocate;
static const struct ct_stdskip *ct_std; /* the module's standard library: left alone */

static int ct_already(uintptr_t base)
{
	for (unsigned i = 0; i < ct_ndone; i++)
		if (ct_done[i] == base)
			return 1;
	return 0;
}

/* How far the code's call or jump reaches (aarch64's bl: 128 MiB; x86-64's rel32: 2 GiB). */
#ifndef CT_ARCH_REACH
#define CT_ARCH_REACH (1ull << 31)
#endif

/* No page of [at, at + size) is mapped: msync says ENOMEM for each. */
static int ct_range_free(uintptr_t at, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	for (uintptr_t p = at; p < at + size; p += (uintptr_t)page)
		if (msync((void *)p, (size_t)page, MS_ASYNC) == 0 || errno != ENOMEM)
			return 0;
	return 1;
}

uintptr_t ct_map_near(uintptr_t lo, uintptr_t hi, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	size = (size + (size_t)page - 1) & ~(size_t)(page - 1);
	for (uintptr_t step = 1; step < 2048; step++) {
		uintptr_t want = (lo & ~(uintptr_t)(page - 1)) - size - step * (1u << 20);
		if (want > lo || hi - want >= CT_ARCH_REACH - 4096)
			break;
		void *m = mmap((void *)want, size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m != MAP_FAILED && (uintptr_t)m != want) {
			/* taken as a hint (a kernel before 4.17, qemu-user): only a free range will do */
			munmap(m, size);
			m = ct_range_free(want, size) ? mmap((void *)want, size, PROT_READ | PROT_WRITE,
						      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
						 : MAP_FAILED;
		}
		if (m != MAP_FAILED) {
			ct_attach_note_area(m, size);
			return (uintptr_t)m;
		}
	}
	return 0;
}

/* A "C text\n" line in a part of the control area's text: [from, from + room), counted by used. */
static void ct_skip_text_line(char code, const char *text_in, uint32_t from, uint32_t room,
			      _Atomic uint32_t *used)
{
	char *text = (char *)ct_ctl + ct_geo.skip_text_offset + from;
	size_t len = strlen(text_in) + 3;
	uint32_t at = atomic_fetch_add(used, (uint32_t)len);
	if (at + len <= room) {
		text[at] = code;
		text[at + 1] = ' ';
		memcpy(text + at + 2, text_in, len - 3);
		text[at + len - 1] = '\n';
	}
}

void ct_patch_count_skip(int reason, const char *name)
{
	atomic_fetch_add(&ct_ctl->patch_skipped, 1);
	atomic_fetch_add(&ct_ctl->skips[reason], 1);
	if (!name) /* a patchable entry: the reader has no name for it either */
		return;
	/* the end of the text is kept for the libraries left unpatched */
	ct_skip_text_line((char)('a' + reason), name, 0, CT_SKIP_TEXT - CT_UNPATCHED_TEXT,
			  &ct_ctl->skip_text_used);
}

/* Defined functions of a module (.symtab, else .dynsym): what -P 'lib:*' would weigh. */
static uint32_t ct_count_functions(const struct ct_elf_map *m)
{
	const ElfW(Shdr) *symtab = ct_elf_section_type(m, SHT_SYMTAB);
	if (!symtab)
		symtab = ct_elf_section_type(m, SHT_DYNSYM);
	if (!symtab || symtab->sh_entsize != sizeof(ElfW(Sym)))
		return 0;
	const ElfW(Sym) *sym = ct_elf_contents(m, symtab);
	uint32_t n = 0;
	for (size_t i = 0; sym && i < symtab->sh_size / sizeof(ElfW(Sym)); i++)
		n += ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC && sym[i].st_shndx != SHN_UNDEF &&
		     sym[i].st_value;
	return n;
}

/* A library of the system that the program, patched, calls into but that is left as it is. */
static void ct_note_unpatched(const struct ct_elf_map *m, const char *path)
{
	char line[4096];
	uint32_t n = ct_count_functions(m);
	if (n && snprintf(line, sizeof(line), "%u %s", n, path) < (int)sizeof(line))
		ct_skip_text_line(CT_UNPATCHED_CODE, line, CT_SKIP_TEXT - CT_UNPATCHED_TEXT,
				  CT_UNPATCHED_TEXT, &ct_ctl->unpatched_text_used);
}

/* A page for the thunk to __fentry__, within rel32 reach of [lo, hi). */
static uintptr_t ct_thunk_near(uintptr_t lo, uintptr_t hi)
{
	uintptr_t m = ct_map_near(lo, hi, CT_THUNK_LEN);
	if (!m)
		return 0;
	ct_arch_encode_thunk((uint8_t *)m, (uintptr_t)__fentry__);
	__builtin___clear_cache((char *)m, (char *)m + CT_THUNK_LEN);
	mprotect((void *)m, CT_THUNK_LEN, PROT_READ | PROT_EXEC);
	if (ct_nthunks < CT_MAX_MODULES)
		ct_thunks[ct_nthunks++] = m;
	return m;
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
	uint32_t patched = 0;

	for (size_t i = 0; i < n; i++) {
		uintptr_t at = entries[i];
		uint8_t call[CT_PATCH_LEN];
		if (at && (ct_patched_already(at) || ct_stdskip_entry(ct_std, at)))
			continue;
		if (!at || !ct_arch_is_entry_nop((const uint8_t *)at) ||
		    !ct_arch_encode_call(call, at, thunk)) {
			ct_patch_count_skip(at ? CT_SKIP_NOT_NOPS : CT_SKIP_NO_SIZE, NULL);
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
				ct_patch_count_skip(CT_SKIP_UNWRITABLE, NULL);
				continue;
			}
		}
		ct_undo_save(at, CT_PATCH_LEN, 0);
		memcpy((void *)at, call, CT_PATCH_LEN);
		__builtin___clear_cache((char *)at, (char *)at + CT_PATCH_LEN); /* x86-64: nothing */
		patched++;
	}
	if (open_page)
		mprotect((void *)open_page, (size_t)page * 2, PROT_READ | PROT_EXEC);
	atomic_fetch_add(&ct_ctl->patched, patched);
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
		for (size_t i = 0; i < n; i++)
			ct_patch_count_skip(CT_SKIP_OUT_OF_REACH, NULL);
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

/* Entries listed by the compiler, or none: then dynamic patching, if wanted. */
static int ct_has_entry_list(const struct ct_elf_map *m)
{
	for (size_t k = 0; k < CT_ARRAY_LEN(ct_entry_sections); k++) {
		const ElfW(Shdr) *sh = ct_elf_section(m, ct_entry_sections[k]);
		if (sh && (sh->sh_flags & SHF_ALLOC) && sh->sh_size)
			return 1;
	}
	return 0;
}

/* The module calls one of these hooks of ours. */
static int ct_calls_hook(const struct ct_elf_map *m, const char *const *hooks, size_t nhooks)
{
	const ElfW(Shdr) *dynsym = ct_elf_section_type(m, SHT_DYNSYM);
	if (!dynsym || dynsym->sh_entsize != sizeof(ElfW(Sym)))
		return 0;
	const ElfW(Shdr) *strtab = ct_elf_section_at(m, dynsym->sh_link);
	const ElfW(Sym) *sym = ct_elf_contents(m, dynsym);
	for (size_t i = 0; i < dynsym->sh_size / sizeof(ElfW(Sym)); i++) {
		const char *name = ct_elf_string(m, strtab, sym[i].st_name);
		for (size_t k = 0; k < nhooks; k++)
			if (sym[i].st_shndx == SHN_UNDEF && !strcmp(name, hooks[k]))
				return 1;
	}
	return 0;
}

/* Built with hooks of its own: -finstrument-functions, -pg (with or without -mfentry). */
static int ct_has_hooks(const struct ct_elf_map *m)
{
	static const char *const hooks[] = { "__cyg_profile_func_enter", "__fentry__", "mcount",
					     "_mcount" /* aarch64's */ };
	return ct_calls_hook(m, hooks, CT_ARRAY_LEN(hooks));
}

/*
 * record -a: the functions of a module whose hooks know only their address
 * (-pg -mfentry, patchable entries) are found by it in a table.
 */
static int ct_args_by_address(const struct ct_elf_map *m, int entries)
{
	static const char *const fentry[] = { "__fentry__" };
	return ct_args_wanted() && (entries || ct_calls_hook(m, fentry, 1));
}

/*
 * Calls into libraries, from the modules that are traced: not from the
 * system's libraries, nor from a stripped program of the system (the shell
 * system() runs) that auto leaves alone.
 */
static int ct_plan_libcalls(const struct ct_elf_map *m, const char *path, int program, int traced)
{
	if (!ct_select_libcalls() || (!program && ct_select_never_library(path)))
		return 0;
	return traced || ct_has_hooks(m);
}

static int ct_program_dynamic; /* this image's program is patched in memory */

/*
 * A library of the program's own (a build tree, /usr/local, $HOME: not the
 * system's directories) is patched with the program, unless it has hooks
 * or patchable entries of its own, or a -P pattern says what to take.
 */
static int ct_own_library_patched(const struct ct_elf_map *m, const char *path, int entries)
{
	return ct_program_dynamic && !entries && ct_select_own_library(path) && !ct_has_hooks(m);
}

/* What to do with a module: patch its entry list, patch it dynamically, or neither. */
static void ct_module_plan(const struct ct_elf_map *m, const char *path, int program, int *entries,
			   int *dynamic, int *libcalls)
{
	int method = ct_select_method();
	*entries = (method == CT_SEL_AUTO || method == CT_SEL_PATCHABLE) && ct_has_entry_list(m);
	if (!program)
		*dynamic = (method == CT_SEL_AUTO || method == CT_SEL_PATCH) &&
			   (ct_select_library(path) || ct_own_library_patched(m, path, *entries));
	else if (method == CT_SEL_PATCH)
		*dynamic = 1;
	else /* auto: programs with a symbol table, not the stripped ones of the system */
		*dynamic = method == CT_SEL_AUTO && !*entries && !ct_has_hooks(m) &&
			   ct_elf_section_type(m, SHT_SYMTAB);
	if (program)
		ct_program_dynamic = *dynamic;
	*libcalls = ct_plan_libcalls(m, path, program, *entries || *dynamic);
}

static int ct_patch_module(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	int *want_init = data;
	int program = !info->dlpi_name || !*info->dlpi_name;
	const char *path = program ? ct_self_exe() : info->dlpi_name;
	struct ct_elf_map m;
	int entries, dynamic, libcalls;

	if (ct_ndone >= CT_MAX_MODULES || ct_already(info->dlpi_addr))
		return 0;
	if (ct_elf_map(path, &m) < 0)
		return 0;
	ct_module_plan(&m, path, program, &entries, &dynamic, &libcalls);
	int by_address = ct_args_by_address(&m, entries);
	if ((dynamic || libcalls || by_address) && !want_init && !ct_may_allocate) {
		ct_elf_unmap(&m); /* for the dlopen wrapper, which comes next */
		return 0;
	}
	if (!want_init)
		ct_done[ct_ndone++] = info->dlpi_addr;
	if (want_init) {
		*want_init |= entries || dynamic || libcalls || by_address;
	} else {
		if (by_address) {
			ct_args_module_begin(path);
			ct_args_module_by_address(info->dlpi_addr);
			ct_args_module_end();
		}
		if (libcalls) /* first: the moved entries then carry the redirected calls */
			ct_libcalls_module(info, &m);
		struct ct_stdskip std;
		if (entries)
			ct_stdskip_load(&std, &m, info->dlpi_addr);
		ct_std = entries ? &std : NULL;
		for (size_t k = 0; entries && k < CT_ARRAY_LEN(ct_entry_sections); k++) {
			const ElfW(Shdr) *sh = ct_elf_section(&m, ct_entry_sections[k]);
			if (sh && (sh->sh_flags & SHF_ALLOC))
				ct_patch_list((const uintptr_t *)(info->dlpi_addr + sh->sh_addr),
					      sh->sh_size / sizeof(uintptr_t));
		}
		ct_std = NULL;
		if (entries)
			ct_stdskip_free(&std);
		if (dynamic)
			ct_dynpatch_module(info, &m, path, program);
		else if (!program && !entries && ct_program_dynamic &&
			 !ct_select_never_library(path) && !ct_has_hooks(&m))
			ct_note_unpatched(&m, path);
	}
	ct_elf_unmap(&m);
	return want_init && *want_init;
}

static int ct_still_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	uintptr_t *keep = data;
	for (unsigned i = 0; i < ct_ndone; i++)
		if (ct_done[i] == info->dlpi_addr)
			keep[i] = 1;
	return 0;
}

/* dlclose: forget the modules that went away; one loaded later may take their place. */
void ct_patch_forget_all(void)
{
	ct_ndone = 0;
}

void ct_patch_forget(void)
{
	static uintptr_t keep[CT_MAX_MODULES];
	if (atomic_exchange(&ct_busy, 1))
		return;
	memset(keep, 0, sizeof(keep));
	dl_iterate_phdr(ct_still_loaded, keep);
	unsigned n = 0;
	for (unsigned i = 0; i < ct_ndone; i++)
		if (keep[i])
			ct_done[n++] = ct_done[i];
	ct_ndone = n;
	if (ct_args_wanted())
		ct_capture_note_modules();
	atomic_store(&ct_busy, 0);
}

/*
 * Patch the modules not looked at yet (the runtime is tracing). Dynamic
 * patching allocates: it waits for a caller outside the hooks' slow path.
 */
void ct_patch_modules(int may_allocate)
{
	if (atomic_load(&ct_state) != CT_RT_READY || atomic_exchange(&ct_busy, 1))
		return;
	ct_may_allocate = may_allocate;
	if (may_allocate) {
		ct_select_prepare();
		ct_args_prepare();
	}
	dl_iterate_phdr(ct_patch_module, NULL);
	if (ct_args_wanted())
		ct_capture_note_modules();
	atomic_store(&ct_busy, 0);
}

/* At start: the program has patchable entries, so start the runtime now to patch them. */
__attribute__((constructor(102))) static void ct_patch_at_start(void)
{
	int found = 0;
	if (ct_attach_loaded() || atomic_exchange(&ct_busy, 1))
		return; /* attach: calltrace_attach_start patches */
	dl_iterate_phdr(ct_patch_module, &found);
	atomic_store(&ct_busy, 0);
	if (found && ct_init_outside() == 0)
		ct_patch_modules(1);
}
