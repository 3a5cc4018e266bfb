/* SPDX-License-Identifier: MIT */
/*
 * --libcalls: calls from a traced module into shared libraries. Each
 * imported function the patterns take gets a trampoline
 * (src/arch/x86_64/libcall.h) near the module, and every way the module
 * reaches it is redirected there: its PLT entries (lazy binding, -z now,
 * -z bndplt, IBT's .plt.sec) and, for code built with -fno-plt, the call
 * and tail-jump sites that go through its GOT slot. The trampoline records
 * the entry with the GOT slot as the function, which readers name
 * "printf@libc.so.6" from the module's relocations, then jumps through the
 * slot as the original code did.
 *
 * Call sites are found by decoding the module's functions whole, so only
 * real instructions are rewritten; this runs before dynamic patching moves
 * any function's first bytes, which then carry the redirected call along.
 */
#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../runtime.h"
#include "../process/process.h"
#include "../modes/modes.h"
#include "elfmap.h"
#include "imports.h"
#include "patching.h"
#include "../../common/select.h"
#include "../args/args.h"
#include "../../arch/libcall.h"
#include "../../arch/relocate.h"
#include "../../arch/patch.h"

void ct_patch_entry(void) CT_HIDDEN;

struct ct_site {
	struct ct_got_jump j;
	struct ct_import *imp;
};

struct ct_libcall_scan {
	struct ct_imports im;
	struct ct_site *sites;
	size_t n, cap;
	uint64_t text_lo, text_hi;
	const struct ct_elf_map *m;
	uintptr_t base;
};

static void ct_add_site(void *ctx, const struct ct_got_jump *j)
{
	struct ct_libcall_scan *s = ctx;
	struct ct_import *imp = ct_import_at(&s->im, j->slot);
	if (!imp || !imp->selected || j->at < s->text_lo || j->at + j->len > s->text_hi)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct ct_site *v = realloc(s->sites, cap * sizeof(*v));
		if (!v)
			return;
		s->sites = v;
		s->cap = cap;
	}
	s->sites[s->n++] = (struct ct_site){ *j, imp };
	imp->used = 1;
}

/* The entries of .plt (no IBT), .plt.sec (IBT) and .plt.got (imports whose address is taken too). */
static void ct_find_plt_entries(struct ct_libcall_scan *s)
{
	static const char *const plts[] = { ".plt", ".plt.sec", ".plt.got" };
	for (size_t k = 0; k < CT_ARRAY_LEN(plts); k++) {
		const ElfW(Shdr) *sh = ct_elf_section(s->m, plts[k]);
		if (!sh || !(sh->sh_flags & SHF_EXECINSTR))
			continue;
		size_t step = sh->sh_entsize >= 8 ? sh->sh_entsize : 16, look = step;
#ifdef CT_ARCH_PLT_STEP /* entries of more than one size: look at every step */
		step = CT_ARCH_PLT_STEP;
		look = CT_ARCH_PLT_LOOK;
#endif
		const uint8_t *start = (const uint8_t *)(s->base + sh->sh_addr);
		for (size_t off = 0; off + step <= sh->sh_size; off += step) {
			struct ct_got_jump j;
			size_t len = sh->sh_size - off < look ? sh->sh_size - off : look;
			if (ct_arch_plt_jump(start + off, len, &j))
				ct_add_site(s, &j);
		}
	}
}

static int ct_site_order(const void *a, const void *b)
{
	const struct ct_site *x = a, *y = b;
	return (x->j.at > y->j.at) - (x->j.at < y->j.at);
}

/* In address order, once each (aliases decode the same function twice). */
static void ct_sort_sites(struct ct_libcall_scan *s)
{
	qsort(s->sites, s->n, sizeof(*s->sites), ct_site_order);
	size_t out = 0;
	for (size_t i = 0; i < s->n; i++)
		if (!out || s->sites[out - 1].j.at != s->sites[i].j.at)
			s->sites[out++] = s->sites[i];
	s->n = out;
}

/* Code built with -fno-plt calls through the GOT itself: decode every function for those calls. */
static void ct_find_got_calls(struct ct_libcall_scan *s)
{
	const ElfW(Shdr) *symtab = ct_elf_section_type(s->m, SHT_SYMTAB);
	if (!symtab)
		symtab = ct_elf_section_type(s->m, SHT_DYNSYM);
	if (!symtab || symtab->sh_entsize != sizeof(ElfW(Sym)))
		return;
	const ElfW(Sym) *sym = ct_elf_contents(s->m, symtab);
	for (size_t i = 0; i < symtab->sh_size / sizeof(ElfW(Sym)); i++) {
		uintptr_t addr = s->base + sym[i].st_value;
		if (ELF64_ST_TYPE(sym[i].st_info) != STT_FUNC || sym[i].st_shndx == SHN_UNDEF ||
		    !sym[i].st_value || !sym[i].st_size || addr < s->text_lo ||
		    sym[i].st_size > s->text_hi - addr)
			continue;
		ct_arch_got_jumps(addr, sym[i].st_size, ct_add_site, s);
	}
}

struct ct_lib_ctx {
	const struct ct_libcall_scan *s;
	const struct ct_import *imp;
	char buf[256];
};

static const char *ct_lib_of(void *ctx)
{
	struct ct_lib_ctx *c = ctx;
	return ct_import_library(c->s->m, c->imp, c->s->base, c->buf, sizeof(c->buf));
}

/* Which imports the patterns take; 1 if one of them is reached through the GOT directly. */
static int ct_select_imports(struct ct_libcall_scan *s)
{
	int got_calls = 0;
	for (size_t i = 0; i < s->im.n; i++) {
		struct ct_import *imp = &s->im.v[i];
		struct ct_lib_ctx c = { .s = s, .imp = imp };
		imp->selected = (uint8_t)ct_select_libcall(imp->name, ct_lib_of, &c);
		got_calls |= imp->selected && !imp->plt;
	}
	return got_calls;
}

/* One trampoline per import some site goes through, in an area within reach of code and GOT. */
static uintptr_t ct_build_libcall_area(struct ct_libcall_scan *s)
{
	uintptr_t lo = s->text_lo, hi = s->text_hi;
	size_t total = (CT_THUNK_LEN + 7) & ~(size_t)7;
	for (size_t i = 0; i < s->im.n; i++) {
		struct ct_import *imp = &s->im.v[i];
		if (!imp->used)
			continue;
		imp->tramp_at = (uint32_t)total;
		total += (CT_LIBCALL_TRAMP_LEN + 7) & ~(size_t)7;
		lo = imp->slot < lo ? imp->slot : lo;
		hi = imp->slot + 8 > hi ? imp->slot + 8 : hi;
	}
	uintptr_t area = ct_map_near(lo, hi, total);
	if (!area)
		return 0;
	uint8_t *p = (uint8_t *)area;
	ct_arch_encode_thunk(p, (uintptr_t)ct_patch_entry);
	for (size_t i = 0; i < s->im.n; i++) {
		struct ct_import *imp = &s->im.v[i];
		uint64_t id = imp->slot;
		if (imp->used)
			id |= (uint64_t)ct_args_libcall(imp->slot, imp->name) << CT_TRAMP_ID_BITS;
		if (imp->used && !ct_arch_build_libcall(id, imp->slot, area + imp->tramp_at, area,
							p + imp->tramp_at))
			imp->used = 0;
	}
	__builtin___clear_cache((char *)p, (char *)p + total); /* x86-64: nothing */
	mprotect(p, total, PROT_READ | PROT_EXEC);
	return area;
}

/* Rewrite the sites; only the pages they are on are writable, and only meanwhile. */
static void ct_write_sites(struct ct_libcall_scan *s, uintptr_t area)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = s->sites[0].j.at & ~(uintptr_t)(page - 1);
	uintptr_t hi = s->sites[s->n - 1].j.at + s->sites[s->n - 1].j.len;
	uint32_t written = 0, hooked = 0;

	if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC) < 0) {
		ct_patch_count_skip(CT_SKIP_UNWRITABLE, "library calls");
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		struct ct_site *site = &s->sites[i];
		uint8_t code[16];
		if (!site->imp->used ||
		    !ct_arch_encode_libcall_jump(&site->j, area + site->imp->tramp_at, code))
			continue;
		ct_undo_save(site->j.at, site->j.len, 0);
		memcpy((void *)site->j.at, code, site->j.len);
		__builtin___clear_cache((char *)site->j.at, (char *)site->j.at + site->j.len);
		site->imp->used = 2; /* reached: counted once below */
		written++;
	}
	mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC);
	__builtin___clear_cache((char *)lo, (char *)hi);
	for (size_t i = 0; i < s->im.n; i++)
		hooked += s->im.v[i].used == 2;
	atomic_fetch_add(&ct_ctl->libcalls, hooked);
	atomic_fetch_add(&ct_ctl->libcall_sites, written);
}

void ct_libcalls_module(const struct dl_phdr_info *info, const struct ct_elf_map *m)
{
	struct ct_libcall_scan s = { .m = m, .base = info->dlpi_addr };

	if (!ct_module_range(info, &s.text_lo, &s.text_hi))
		return;
	ct_imports_read(m, info->dlpi_addr, &s.im);
	if (!s.im.n)
		return;
	int got_calls = ct_select_imports(&s);
	if (got_calls)
		ct_find_got_calls(&s);
	ct_find_plt_entries(&s);
	ct_sort_sites(&s);
	uintptr_t area = s.n ? ct_build_libcall_area(&s) : 0;
	ct_args_module_end(); /* the prototypes told */
	if (area)
		ct_write_sites(&s, area);
	else if (s.n)
		ct_patch_count_skip(CT_SKIP_OUT_OF_REACH, "library calls");
	free(s.sites);
	free(s.im.v);
}
