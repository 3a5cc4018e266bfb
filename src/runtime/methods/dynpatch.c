/* SPDX-License-Identifier: MIT */
/*
 * Dynamic patching of a module built with nothing special: its functions
 * (from .symtab, else .dynsym) are decoded whole, those that can be moved
 * safely get a trampoline (src/arch/x86_64/relocate.h) in memory mapped
 * within reach of the module, and a jump to it over their first
 * instructions. The others are left exactly as they were and counted by
 * reason, with their names, for `calltrace info`.
 *
 * A branch from anywhere in the module into the bytes a patch would move
 * makes that function unsafe: every function is decoded for its branches,
 * selected or not. Code is writable only while the jumps are written. This
 * runs once per module (at start, or after dlopen), never on a call.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../runtime.h"
#include "../process/process.h"
#include "../modes/modes.h"
#include "elfmap.h"
#include "patching.h"
#include "../../common/select.h"
#include "../args/args.h"
#include "plancache.h"
#include "../hotpath/shadow.h"
#include "../../arch/patch.h"
#include "../../arch/relocate.h"

void ct_patch_entry(void) CT_HIDDEN;

#ifndef CT_AREA_THUNKS_LEN /* an architecture whose trampolines take the entry stub's thunk alone */
#define CT_AREA_THUNKS_LEN CT_THUNK_LEN
static inline void ct_arch_encode_area_thunks(uint8_t *out)
{
	ct_arch_encode_thunk(out, (uintptr_t)ct_patch_entry);
}
#endif

struct ct_landing_area ct_landing_areas[CT_LANDING_AREAS];
_Atomic uint32_t ct_nlanding_areas;

/*
 * A new area of trampolines, whose landings the hooks must know (shadow.h);
 * 0 if there is no room left to say so (hundreds of modules, or of attach
 * cycles): the module is then not patched. Areas are never forgotten: after
 * a detach, code may still return through the old ones, and an area a later
 * attach maps where one was takes its entry.
 */
static int ct_note_landings(uintptr_t area, size_t len)
{
	uint32_t n = atomic_load(&ct_nlanding_areas);
	for (uint32_t i = 0; i < n; i++) {
		struct ct_landing_area *a = &ct_landing_areas[i];
		if (area == a->lo) {
			if (len > a->len)
				a->len = len;
			return 1;
		}
	}
	if (n >= CT_LANDING_AREAS)
		return 0;
	ct_landing_areas[n] = (struct ct_landing_area){ area, len };
	atomic_store_explicit(&ct_nlanding_areas, n + 1, memory_order_release);
	return 1;
}

#define CT_MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels fault page by page */

struct ct_cand {
	struct ct_arch_func f;
	const char *name;
	uint32_t sym; /* its index in the symbol table (the plan cache finds the name by it) */
	uint8_t selected;
	uint8_t reason;
	uint8_t inner;	   /* lowest offset another function branches to (0: none) */
	uint32_t tramp_at; /* offset of its trampoline in the module's area */
};

struct ct_module_scan {
	struct ct_cand *c;
	size_t n;
	uint64_t text_lo, text_hi; /* the module's executable segments */
	const struct dl_phdr_info *info;
};

/*
 * By address: a radix sort on the offset in the module's code, a byte at a
 * time (stable), for tens of thousands of symbols are sorted at start-up.
 */
static int ct_sort_cands(struct ct_module_scan *s)
{
	struct ct_cand *tmp = malloc((s->n + 1) * sizeof(*tmp));
	size_t count[256];
	if (!tmp)
		return -1;
	for (unsigned shift = 0; shift < 32; shift += 8) {
		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < s->n; i++)
			count[(uint32_t)(s->c[i].f.addr - s->text_lo) >> shift & 0xff]++;
		for (size_t d = 0, at = 0; d < 256; d++) {
			size_t k = count[d];
			count[d] = at;
			at += k;
		}
		for (size_t i = 0; i < s->n; i++)
			tmp[count[(uint32_t)(s->c[i].f.addr - s->text_lo) >> shift & 0xff]++] = s->c[i];
		memcpy(s->c, tmp, s->n * sizeof(*tmp));
	}
	free(tmp);
	return 0;
}

/* The function whose first bytes contain addr, if any. */
static struct ct_cand *ct_cand_at(struct ct_module_scan *s, uintptr_t addr)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->c[mid].f.addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - s->c[lo - 1].f.addr >= CT_MOVED_MAX + 4)
		return NULL;
	return &s->c[lo - 1];
}

static void ct_note_target(void *ctx, uintptr_t target)
{
	struct ct_module_scan *s = ctx;
	struct ct_cand *c = ct_cand_at(s, target);
	if (c && target != c->f.addr) {
		uint8_t off = (uint8_t)(target - c->f.addr);
		if (!c->inner || off < c->inner)
			c->inner = off;
	}
}

/* Inside one of the module's readable segments (jump tables are read there). */
static int ct_readable(void *ctx, uintptr_t addr, size_t len)
{
	const struct ct_module_scan *s = ctx;
	for (int i = 0; i < s->info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &s->info->dlpi_phdr[i];
		uintptr_t start = s->info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && addr >= start &&
		    addr + len <= start + ph->p_filesz)
			return 1;
	}
	return 0;
}

static int ct_in_text(const struct ct_module_scan *s, uintptr_t addr, uint64_t size)
{
	return addr >= s->text_lo && size <= s->text_hi - addr;
}

/* The module's function symbols, sorted, one per address. */
static void ct_collect(struct ct_module_scan *s, const struct ct_elf_map *m, uintptr_t base)
{
	const ElfW(Shdr) *symtab = ct_elf_section_type(m, SHT_SYMTAB);
	if (!symtab)
		symtab = ct_elf_section_type(m, SHT_DYNSYM);
	if (!symtab || symtab->sh_entsize != sizeof(ElfW(Sym)))
		return;
	const ElfW(Shdr) *strtab = ct_elf_section_at(m, symtab->sh_link);
	const ElfW(Sym) *sym = ct_elf_contents(m, symtab);
	size_t count = symtab->sh_size / sizeof(ElfW(Sym));
	s->c = calloc(count + 1, sizeof(*s->c));
	if (!s->c)
		return;
	for (size_t i = 0; i < count; i++) {
		const ElfW(Sym) *y = &sym[i];
		uintptr_t addr = base + y->st_value;
		if (ELF64_ST_TYPE(y->st_info) != STT_FUNC || y->st_shndx == SHN_UNDEF ||
		    !y->st_value || !ct_in_text(s, addr, y->st_size))
			continue;
		struct ct_cand *c = &s->c[s->n++];
		c->f.addr = addr;
		c->f.size = (uint32_t)y->st_size;
		c->name = ct_elf_string(m, strtab, y->st_name);
		c->sym = (uint32_t)i;
	}
	if (ct_sort_cands(s) < 0) {
		s->n = 0;
		return;
	}
	size_t out = 0; /* one per address: the alias with a size */
	for (size_t i = 0; i < s->n; i++) {
		if (!out || s->c[out - 1].f.addr != s->c[i].f.addr)
			s->c[out++] = s->c[i];
		else if (s->c[i].f.size > s->c[out - 1].f.size)
			s->c[out - 1] = s->c[i];
	}
	s->n = out;
}

static void ct_skip(struct ct_cand *c, int reason)
{
	c->reason = (uint8_t)reason;
	ct_patch_count_skip(reason, c->name);
}

/* Decode everything, then decide: a function is safe once all branches are known. */
static void ct_analyse_all(struct ct_module_scan *s, const char *path, int program)
{
	const struct ct_arch_env env = { ct_note_target, ct_readable, s };
	for (size_t i = 0; i < s->n; i++) {
		struct ct_cand *c = &s->c[i];
		c->selected = (uint8_t)ct_select_function(path, program, c->name);
		if (!c->f.size) {
			c->reason = CT_SKIP_NO_SIZE;
			continue;
		}
		c->reason = (uint8_t)ct_arch_analyse(&c->f, &env);
	}
	for (size_t i = 0; i < s->n; i++) {
		struct ct_cand *c = &s->c[i];
		if (!c->selected)
			continue;
		if (!c->reason && c->inner > c->f.patch_off &&
		    c->inner < c->f.patch_off + c->f.moved)
			c->reason = CT_SKIP_BRANCH_IN;
		if (c->reason)
			ct_skip(c, c->reason);
	}
}

/* Trampolines for the patchable ones, in one area near the module; 0 if none could be had. */
static uintptr_t ct_build_trampolines(struct ct_module_scan *s, size_t *area_len)
{
	size_t total = CT_AREA_THUNKS_LEN + 2;
	for (size_t i = 0; i < s->n; i++) {
		struct ct_cand *c = &s->c[i];
		if (c->selected && !c->reason) {
			c->f.capture = ct_args_function(c->f.addr, c->f.addr - s->info->dlpi_addr,
							c->name);
			total = (total + 7) & ~(size_t)7;
			c->tramp_at = (uint32_t)total;
			total += c->f.tramp_len;
		}
	}
	uintptr_t area = ct_map_near(s->text_lo, s->text_hi, total);
	if (!area)
		return 0;
	*area_len = total;
	uint8_t *p = (uint8_t *)area;
	ct_arch_encode_area_thunks(p);
	for (size_t i = 0; i < s->n; i++) {
		struct ct_cand *c = &s->c[i];
		if (c->selected && !c->reason &&
		    !ct_arch_build_trampoline(&c->f, area + c->tramp_at, area, p + c->tramp_at))
			ct_skip(c, CT_SKIP_OUT_OF_REACH);
	}
	__builtin___clear_cache((char *)area, (char *)area + total); /* x86-64: nothing */
	mprotect((void *)area, total, PROT_READ | PROT_EXEC);
	return ct_note_landings(area, total) ? area : 0;
}

/* Write the jumps; the code is writable only meanwhile. */
static void ct_write_jumps(struct ct_module_scan *s, uintptr_t area)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = s->text_lo & ~(uintptr_t)(page - 1);
	size_t len = s->text_hi - lo;
	uint32_t patched = 0;

	if (mprotect((void *)lo, len, PROT_READ | PROT_WRITE | PROT_EXEC) < 0) {
		for (size_t i = 0; i < s->n; i++)
			if (s->c[i].selected && !s->c[i].reason)
				ct_skip(&s->c[i], CT_SKIP_UNWRITABLE);
		return;
	}
	/* copy-on-write of every page in one call, not one fault per page */
	madvise((void *)lo, len, CT_MADV_POPULATE_WRITE);
	for (size_t i = 0; i < s->n; i++) {
		struct ct_cand *c = &s->c[i];
		uint8_t jump[CT_MOVED_MAX];
		if (!c->selected || c->reason)
			continue;
		if (!ct_arch_encode_patch(&c->f, area + c->tramp_at, jump)) {
			ct_skip(c, CT_SKIP_OUT_OF_REACH);
			continue;
		}
		ct_undo_save(c->f.addr + c->f.patch_off, c->f.moved, 0);
		memcpy((void *)(c->f.addr + c->f.patch_off), jump, c->f.moved);
		__builtin___clear_cache((char *)(c->f.addr + c->f.patch_off),
					(char *)(c->f.addr + c->f.patch_off + c->f.moved));
		patched++;
	}
	mprotect((void *)lo, len, PROT_READ | PROT_EXEC);
	__builtin___clear_cache((char *)lo, (char *)s->text_hi);
	atomic_fetch_add(&ct_ctl->patched, patched);
	if (patched) {
		atomic_fetch_or(&ct_ctl->methods, CT_METHOD_PATCH);
		atomic_fetch_add(&ct_ctl->patched_modules, 1);
	}
}

/* The analysis's result for the plan cache: the selected functions, before any trampoline. */
static void ct_plan_save(const struct ct_module_scan *s, struct ct_plancache *pc)
{
	size_t n = 0;
	struct ct_plan_rec *r = calloc(s->n + 1, sizeof(*r));
	if (!r)
		return;
	for (size_t i = 0; i < s->n; i++) {
		const struct ct_cand *c = &s->c[i];
		if (!c->selected)
			continue;
		r[n].off = (uint32_t)(c->f.addr - s->info->dlpi_addr);
		r[n].size = c->f.size;
		r[n].sym = c->sym;
		r[n].reason = c->reason;
		if (!c->reason) {
			r[n].patch_off = c->f.patch_off;
			r[n].moved = c->f.moved;
			memcpy(r[n].bytes, (const void *)c->f.addr, c->f.patch_off + c->f.moved);
		}
		n++;
	}
	ct_plancache_save(pc, r, n);
	free(r);
}

/*
 * One cached function, checked against the module as it is: its symbol, and
 * for one to patch, the bytes to move and its entry planned again.
 */
static int ct_plan_take(struct ct_cand *c, const struct ct_plan_rec *r, const struct ct_elf_map *m,
			uintptr_t base)
{
	c->f.addr = base + r->off;
	c->f.size = r->size;
	c->sym = r->sym;
	c->selected = 1;
	c->reason = r->reason;
	c->name = ct_plancache_name(m, r->sym, r->off, r->size);
	if (!c->name)
		return 0;
	if (c->reason)
		return 1;
	return !ct_arch_plan_entry(&c->f) && c->f.patch_off == r->patch_off &&
	       c->f.moved == r->moved &&
	       !memcmp((const void *)c->f.addr, r->bytes, r->patch_off + r->moved);
}

/* The plan from the cache, if there is one and every function in it still matches. */
static int ct_plan_load(struct ct_module_scan *s, struct ct_plancache *pc,
			const struct ct_elf_map *m)
{
	size_t n;
	const struct ct_plan_rec *r = ct_plancache_records(pc, &n);
	if (!r || !(s->c = calloc(n + 1, sizeof(*s->c))))
		return 0;
	for (s->n = 0; s->n < n; s->n++) {
		if (!ct_plan_take(&s->c[s->n], &r[s->n], m, s->info->dlpi_addr)) {
			ct_plancache_say(pc, "ignored (the code differs)");
			free(s->c);
			s->c = NULL;
			s->n = 0;
			return 0;
		}
	}
	for (size_t i = 0; i < s->n; i++)
		if (s->c[i].reason)
			ct_skip(&s->c[i], s->c[i].reason);
	ct_plancache_say(pc, "used");
	return 1;
}

void ct_dynpatch_module(const struct dl_phdr_info *info, const struct ct_elf_map *m,
			const char *path, int program)
{
	struct ct_module_scan s = { 0 };
	struct ct_plancache pc;
	size_t area_len = 0;

	s.info = info;
	if (!ct_module_range(info, &s.text_lo, &s.text_hi))
		return;
	ct_plancache_open(&pc, info, path, program, s.text_lo, s.text_hi);
	if (!ct_plan_load(&s, &pc, m)) {
		ct_collect(&s, m, info->dlpi_addr);
		ct_analyse_all(&s, path, program);
		ct_plan_save(&s, &pc);
	}
	ct_plancache_close(&pc);
	ct_args_module_begin(path);
	uintptr_t area = ct_build_trampolines(&s, &area_len);
	if (area) {
		ct_write_jumps(&s, area);
	} else {
		for (size_t i = 0; i < s.n; i++)
			if (s.c[i].selected && !s.c[i].reason)
				ct_skip(&s.c[i], CT_SKIP_OUT_OF_REACH);
	}
	ct_args_module_end();
	free(s.c);
}
