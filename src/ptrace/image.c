/* SPDX-License-Identifier: MIT */
/*
 * The modules of a traced process, from /proc/PID/maps: described in MODULE
 * records for the readers, and given their breakpoints: entries of the
 * functions -P selects (all of the program's and its own libraries' by
 * default, a system library's when a pattern names it), and the few library
 * functions that move a thread's stack without returning (longjmp, a C++
 * catch), which the tracer follows.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracer.h"
#include "../common/event.h"
#include "../common/select.h"
#include "../symbols/symbols.h"

/* common/select.c reads its settings through this: the tool's are the environment */
const char *ct_getenv(const char *name)
{
	return getenv(name);
}

struct ct_pt_module {
	uint64_t lo, hi, base;
	char path[4096];
};

/* First PT_LOAD's address, page aligned: the module's load bias is its mapping's start minus this. */
static int ct_first_load(const char *path, uint64_t *vaddr)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Elf64_Ehdr eh;
	int r = -1;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64) {
		for (unsigned i = 0; i < eh.e_phnum && r < 0; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
			    sizeof(ph))
				break;
			if (ph.p_type == PT_LOAD) {
				*vaddr = ph.p_vaddr & ~(uint64_t)0xfff;
				r = 0;
			}
		}
	}
	close(fd);
	return r;
}

/*
 * Calls fn for each ELF module mapped with code: consecutive mappings of
 * one file, the first at file offset 0.
 */
typedef void (*ct_module_fn)(struct ct_tracer *tr, struct ct_pt_thread *t,
			     const struct ct_pt_module *m, void *arg);

static void ct_each_module(struct ct_tracer *tr, struct ct_pt_thread *t, ct_module_fn fn,
			   void *arg)
{
	char line[4096 + 128];
	int fd = ct_pt_proc_open(t->proc->pid, "maps", O_RDONLY);
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct ct_pt_module m = { 0 };
	int open_mod = 0, exec = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off;
		char perms[8];
		int n = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s%n", &lo, &hi, perms, &off, &n) < 4)
			continue;
		char *file = line + n;
		while (*file == ' ')
			file++;
		file[strcspn(file, "\n")] = 0;
		if (open_mod && !strcmp(file, m.path) && off != 0) {
			m.hi = hi;
			exec |= perms[2] == 'x';
			continue;
		}
		if (open_mod && exec)
			fn(tr, t, &m, arg);
		open_mod = 0;
		uint64_t first;
		if (file[0] != '/' || off != 0 || ct_first_load(file, &first) < 0)
			continue;
		open_mod = 1;
		exec = perms[2] == 'x';
		m.lo = lo;
		m.hi = hi;
		m.base = lo - first;
		snprintf(m.path, sizeof(m.path), "%s", file);
	}
	if (open_mod && exec)
		fn(tr, t, &m, arg);
	fclose(f);
}

static void ct_list_one(struct ct_tracer *tr, struct ct_pt_thread *t, const struct ct_pt_module *m,
			void *arg)
{
	struct ct_buf *b = arg;
	struct ct_ext_unload u = { m->base, m->lo, m->hi };
	(void)tr;
	(void)t;
	ct_buf_append(b, &u, sizeof(u));
}

/* A MODULE record, and the module in the list of arg. */
static void ct_describe_one(struct ct_tracer *tr, struct ct_pt_thread *t,
			    const struct ct_pt_module *m, void *arg)
{
	char buf[sizeof(struct ct_ext_module) + 4096];
	struct ct_ext_module *em = (void *)buf;
	memset(em, 0, sizeof(*em));
	em->base = m->base;
	em->lo = m->lo;
	em->hi = m->hi;
	size_t n = strlen(m->path);
	memcpy(em + 1, m->path, n + 1);
	em->path_len = (uint32_t)n + 1;
	ct_pt_emit_ext(tr, t, CT_EXT_MODULE, em, (uint32_t)sizeof(*em) + em->path_len);
	ct_list_one(tr, t, m, arg);
}

/* The modules mapped now (a list of ct_list_one's) replace those kept; those gone are unloaded. */
static void ct_remember_modules(struct ct_tracer *tr, struct ct_pt_thread *t, struct ct_buf *now)
{
	struct ct_pt_proc *p = t->proc;
	const struct ct_ext_unload *had = (const void *)p->modules.data;
	const struct ct_ext_unload *has = (const void *)now->data;
	size_t nhad = p->modules.len / sizeof(*had), nhas = now->len / sizeof(*has);
	for (size_t i = 0; i < nhad; i++) {
		size_t j = 0;
		while (j < nhas && memcmp(&had[i], &has[j], sizeof(*has)))
			j++;
		if (j == nhas)
			ct_pt_emit_ext(tr, t, CT_EXT_UNLOAD, &had[i], sizeof(had[i]));
	}
	ct_buf_free(&p->modules);
	p->modules = *now;
}

void ct_pt_describe_modules(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	struct ct_buf now = { 0 };
	ct_each_module(tr, t, ct_describe_one, &now);
	ct_remember_modules(tr, t, &now);
}

/* Library functions whose stops tell the tracer that frames were abandoned. */
static const struct {
	const char *name;
	uint8_t flag;
} ct_hooks[] = {
	{ "longjmp", CT_BP_JUMP },	    { "_longjmp", CT_BP_JUMP },
	{ "siglongjmp", CT_BP_JUMP },	    { "__longjmp_chk", CT_BP_JUMP },
	{ "__libc_longjmp", CT_BP_JUMP },  { "__libc_siglongjmp", CT_BP_JUMP },
	{ "__cxa_begin_catch", CT_BP_CATCH },
};

static uint8_t ct_hook_flag(const char *name)
{
	for (size_t i = 0; i < CT_ARRAY_SIZE(ct_hooks); i++)
		if (!strcmp(ct_hooks[i].name, name))
			return ct_hooks[i].flag;
	return 0;
}

/* A module is known by where it is and what it is (another may take its place after dlclose). */
static uint64_t ct_module_key(const struct ct_pt_module *m)
{
	uint64_t key = ct_hash64(m->base) ^ m->lo ^ m->hi, h = 0;
	for (const char *c = m->path; *c; c++)
		h = h * 131 + (uint8_t)*c;
	return (key ^ h << 1) | 1;
}

struct ct_arm {
	const char *exe;
	int what; /* CT_ARM_* */
	size_t done;
};

static void ct_arm_one(struct ct_tracer *tr, struct ct_pt_thread *t, const struct ct_pt_module *m,
		       void *arg)
{
	struct ct_arm *a = arg;
	int program = !strcmp(m->path, a->exe);
	if (!(a->what & (program ? CT_ARM_PROGRAM : CT_ARM_LIBRARIES)))
		return;
	/* as the patch method: the program's own libraries too (not the system's) */
	int selected = program || ct_select_library(m->path) || ct_select_own_library(m->path);
	const char *b = ct_basename(m->path);
	int hooks = program || !strncmp(b, "libc.so", 7) || !strncmp(b, "libstdc++", 9);
	int loader = !strncmp(b, "ld-linux", 8);
	if (!selected && !hooks && !loader)
		return;
	int added;
	*ct_map_put(&t->proc->space->armed, ct_module_key(m), &added) = 1;
	if (!added)
		return; /* armed already (dlopen brought another module) */

	struct ct_elf_funcs funcs;
	char err[256];
	if (ct_elf_read_funcs(m->path, NULL, &funcs, err, sizeof(err)) < 0)
		return;
	uint32_t entries = 0;
	for (size_t i = 0; i < funcs.n; i++) {
		const struct ct_elf_sym *s = &funcs.syms[i];
		if (strchr(s->name, '@'))
			continue; /* an import, at its GOT slot */
		uint8_t flags = ct_hook_flag(s->name);
		if (loader && !strcmp(s->name, "_dl_debug_state"))
			flags |= CT_BP_LOADER;
		if (selected && s->size && ct_select_function(m->path, program, s->name))
			flags |= CT_BP_ENTRY;
		struct ct_pt_bp *old = ct_pt_bp_find(t->proc->space, m->base + s->value);
		int counted = old && (old->flags & CT_BP_ENTRY);
		if (flags && ct_pt_bp_set(tr, t, m->base + s->value, flags) && (flags & CT_BP_ENTRY) &&
		    !counted)
			entries++;
	}
	atomic_fetch_add(&tr->ctl->patched, entries);
	if (entries)
		atomic_fetch_add(&tr->ctl->patched_modules, 1);
	ct_elf_funcs_free(&funcs);
	a->done++;
}

int ct_pt_arm_image(struct ct_tracer *tr, struct ct_pt_thread *t, int what)
{
	char exe[4096];
	if (!ct_pt_exe(t->proc->pid, exe, sizeof(exe)))
		return -1;
	struct ct_arm a = { .exe = exe, .what = what };
	ct_select_prepare();
	ct_each_module(tr, t, ct_arm_one, &a);
	return a.done ? 0 : -1;
}

/*
 * The loader changed the module list (dlopen, dlclose): breakpoints whose code
 * went are forgotten, modules that went are said to be unloaded and no longer
 * count as armed (one mapped where another was, or the same one loaded again,
 * gets its breakpoints at the next arming).
 */
struct ct_seen {
	struct ct_map still; /* armed modules still mapped */
	struct ct_buf now;   /* every module mapped (ct_list_one) */
};

static void ct_keep_armed(struct ct_tracer *tr, struct ct_pt_thread *t, const struct ct_pt_module *m,
			  void *arg)
{
	struct ct_seen *seen = arg;
	uint64_t key = ct_module_key(m);
	int added;
	if (ct_map_find(&t->proc->space->armed, key))
		*ct_map_put(&seen->still, key, &added) = 1;
	ct_list_one(tr, t, m, &seen->now);
}

void ct_pt_forget_unloaded(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	struct ct_pt_space *s = t->proc->space;
	struct ct_seen seen = { .now = { 0 } };
	ct_map_init(&seen.still, 16);
	ct_pt_bp_forget_unmapped(s);
	ct_each_module(tr, t, ct_keep_armed, &seen);
	ct_map_free(&s->armed);
	s->armed = seen.still;
	ct_remember_modules(tr, t, &seen.now);
}

struct ct_find {
	const char *prefix, *name;
	struct ct_pt_symbol *out;
	int found;
};

static void ct_find_one(struct ct_tracer *tr, struct ct_pt_thread *t, const struct ct_pt_module *m,
			void *arg)
{
	struct ct_find *f = arg;
	(void)tr;
	(void)t;
	if (f->found || strncmp(ct_basename(m->path), f->prefix, strlen(f->prefix)))
		return;
	struct ct_elf_funcs funcs;
	char err[256];
	if (ct_elf_read_funcs(m->path, NULL, &funcs, err, sizeof(err)) < 0)
		return;
	for (size_t i = 0; i < funcs.n && !f->found; i++) {
		if (strcmp(funcs.syms[i].name, f->name))
			continue;
		*f->out = (struct ct_pt_symbol){ .addr = m->base + funcs.syms[i].value,
						 .lo = m->lo, .hi = m->hi, .base = m->base };
		snprintf(f->out->path, sizeof(f->out->path), "%s", m->path);
		f->found = 1;
	}
	ct_elf_funcs_free(&funcs);
}

int ct_pt_find_function(struct ct_tracer *tr, struct ct_pt_thread *t, const char *prefix,
			const char *name, struct ct_pt_symbol *out)
{
	struct ct_find f = { prefix, name, out, 0 };
	ct_each_module(tr, t, ct_find_one, &f);
	return f.found ? 0 : -1;
}
