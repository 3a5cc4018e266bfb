/* SPDX-License-Identifier: MIT */
/*
 * Resolving addresses when reading a trace: (process image, address) ->
 * module -> symbol, with the modules and symbol tables the trace carries.
 * Every answer is cached, so each distinct address is looked up once.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "symbols.h"
#include "../common/names.h"
#include "../common/event.h"
#include "../format/reader.h"

struct ct_symtab {
	const char *path;
	uint8_t build_id[32];
	uint8_t build_id_len;
	size_t n;
	uint64_t *values, *sizes;
	const char **names;
};

struct ct_inst_mod {
	uint32_t instance;
	uint64_t base, lo, hi;
	uint64_t unload_clock; /* UINT64_MAX: never unloaded */
	const char *path;
	long symtab; /* -1: none */
};

struct ct_srclines;
static void ct_srclines_free(struct ct_srclines *c);

struct ct_symbols {
	const struct ct_trace *t;
	struct ct_symtab *tabs;
	size_t ntabs;
	struct ct_elf_funcs *disk; /* tables read from the files, for traces that lack them */
	size_t ndisk;
	size_t nsymtabs_seen; /* of t->symtabs, parsed into tabs */
	struct ct_inst_mod *mods;
	size_t nmods;
	size_t nunloads_seen; /* of t->unloads, applied to mods */
	struct ct_map unloading; /* instances some module was unloaded from: not cached */
	struct ct_map cache;  /* instance << 47 | addr -> id + 1 */
	struct ct_map byfunc; /* identity of a function -> id + 1 */
	struct ct_map rows;   /* module and symbol less any clone suffix -> CT_ROW_* | id + 1 */
	struct ct_func *funcs;
	size_t nfuncs, cap;
	int demangle;
	struct ct_srclines *srclines; /* --srcline's answers, made on first use */
};

static int ct_parse_symtab(const struct ct_buf *b, struct ct_symtab *tab)
{
	struct ct_symtab_hdr h;
	if (b->len < sizeof(h))
		return -1;
	memcpy(&h, b->data, sizeof(h));
	const uint8_t *p = b->data + sizeof(h), *end = b->data + b->len;
	if (h.path_len == 0 || h.path_len > (size_t)(end - p) || p[h.path_len - 1])
		return -1;
	memset(tab, 0, sizeof(*tab));
	tab->path = (const char *)p;
	tab->build_id_len = h.build_id_len > 32 ? 32 : h.build_id_len;
	memcpy(tab->build_id, h.build_id, sizeof(tab->build_id));
	p += h.path_len;
	tab->values = ct_malloc(h.nsyms * sizeof(uint64_t) + 1);
	tab->sizes = ct_malloc(h.nsyms * sizeof(uint64_t) + 1);
	tab->names = ct_malloc(h.nsyms * sizeof(char *) + 1);
	for (uint32_t i = 0; i < h.nsyms; i++) {
		if (end - p < 17)
			break;
		const uint8_t *nul = memchr(p + 16, 0, (size_t)(end - p - 16));
		if (!nul)
			break;
		memcpy(&tab->values[i], p, 8);
		memcpy(&tab->sizes[i], p + 8, 8);
		tab->names[i] = (const char *)p + 16;
		tab->n++;
		p = nul + 1;
	}
	return 0;
}

static long ct_find_symtab(const struct ct_symbols *s, const struct ct_module_info *m)
{
	long fallback = -1;
	for (size_t i = 0; i < s->ntabs; i++) {
		const struct ct_symtab *tab = &s->tabs[i];
		if (strcmp(tab->path, m->path))
			continue;
		if (tab->build_id_len == m->rec.build_id_len &&
		    !memcmp(tab->build_id, m->rec.build_id, tab->build_id_len))
			return (long)i;
		fallback = (long)i;
	}
	return fallback;
}

/*
 * A trace whose recorder was stopped has no symbol tables: read them from the
 * module's file if it is still the same file (same build-id).
 */
static long ct_symtab_from_disk(struct ct_symbols *s, const struct ct_module_info *m)
{
	for (size_t i = 0; i < s->ntabs; i++)
		if (!strcmp(s->tabs[i].path, m->path))
			return (long)i;

	struct ct_elf_funcs f;
	char err[256];
	const char **libs = ct_malloc((s->t->nmods + 1) * sizeof(char *));
	size_t n = 0;
	for (size_t i = 0; i < s->t->nmods; i++)
		if (s->t->mods[i].rec.instance == m->rec.instance)
			libs[n++] = s->t->mods[i].path;
	libs[n] = NULL;
	int r = ct_elf_read_funcs(m->path, libs, &f, err, sizeof(err));
	free(libs);
	if (r < 0)
		return -1;
	if (f.build_id_len != m->rec.build_id_len ||
	    memcmp(f.build_id, m->rec.build_id, f.build_id_len)) {
		ct_elf_funcs_free(&f);
		return -1;
	}
	s->disk = ct_realloc(s->disk, (s->ndisk + 1) * sizeof(*s->disk));
	s->disk[s->ndisk++] = f;
	s->tabs = ct_realloc(s->tabs, (s->ntabs + 1) * sizeof(*s->tabs));
	struct ct_symtab *tab = &s->tabs[s->ntabs];
	memset(tab, 0, sizeof(*tab));
	tab->path = m->path;
	memcpy(tab->build_id, m->rec.build_id, sizeof(tab->build_id));
	tab->build_id_len = m->rec.build_id_len;
	tab->n = f.n;
	tab->values = ct_malloc(f.n * sizeof(uint64_t) + 1);
	tab->sizes = ct_malloc(f.n * sizeof(uint64_t) + 1);
	tab->names = ct_malloc(f.n * sizeof(char *) + 1);
	for (size_t i = 0; i < f.n; i++) {
		tab->values[i] = f.syms[i].value;
		tab->sizes[i] = f.syms[i].size;
		tab->names[i] = f.syms[i].name;
	}
	return (long)s->ntabs++;
}

/* Each unload ends the first module of its place still loaded. */
static void ct_apply_unloads(struct ct_symbols *s)
{
	const struct ct_trace *t = s->t;
	for (; s->nunloads_seen < t->nunloads; s->nunloads_seen++) {
		const struct ct_unload_rec *u = &t->unloads[s->nunloads_seen];
		int added;
		ct_map_put(&s->unloading, u->instance + 1, &added);
		for (size_t i = 0; i < s->nmods; i++) {
			struct ct_inst_mod *m = &s->mods[i];
			if (m->instance == u->instance && m->base == u->base && m->lo == u->lo &&
			    m->unload_clock == UINT64_MAX) {
				m->unload_clock = u->clock;
				break;
			}
		}
	}
}

uint64_t ct_symbols_next_unload(const struct ct_symbols *s, uint32_t instance, uint64_t clock)
{
	uint64_t next = UINT64_MAX;
	for (size_t i = 0; i < s->nmods; i++)
		if (s->mods[i].instance == instance && s->mods[i].unload_clock > clock &&
		    s->mods[i].unload_clock < next)
			next = s->mods[i].unload_clock;
	return next;
}

/* Modules and symbol tables the trace has gained since we last looked. */
void ct_symbols_refresh(struct ct_symbols *s)
{
	const struct ct_trace *t = s->t;
	if (t->nsymtabs > s->nsymtabs_seen) {
		s->tabs = ct_realloc(s->tabs, (s->ntabs + t->nsymtabs - s->nsymtabs_seen) *
						      sizeof(*s->tabs));
		for (size_t i = s->nsymtabs_seen; i < t->nsymtabs; i++)
			if (ct_parse_symtab(&t->symtabs[i], &s->tabs[s->ntabs]) == 0)
				s->ntabs++;
		s->nsymtabs_seen = t->nsymtabs;
	}
	if (t->nmods > s->nmods) {
		s->mods = ct_realloc(s->mods, t->nmods * sizeof(*s->mods));
		for (size_t i = s->nmods; i < t->nmods; i++) {
			const struct ct_module_info *m = &t->mods[i];
			long tab = ct_find_symtab(s, m);
			if (tab < 0 && !t->has_end)
				tab = ct_symtab_from_disk(s, m);
			s->mods[i] = (struct ct_inst_mod){
				.instance = m->rec.instance,
				.base = m->rec.base,
				.lo = m->rec.lo,
				.hi = m->rec.hi,
				.path = m->path,
				.symtab = tab,
				.unload_clock = UINT64_MAX,
			};
		}
		s->nmods = t->nmods;
	}
	ct_apply_unloads(s);
}

struct ct_symbols *ct_symbols_open(const struct ct_trace *t, int demangle)
{
	struct ct_symbols *s = ct_calloc(1, sizeof(*s));
	s->t = t;
	s->demangle = demangle;
	ct_map_init(&s->cache, 1024);
	ct_map_init(&s->byfunc, 1024);
	ct_map_init(&s->rows, 1024);
	ct_map_init(&s->unloading, 16);
	ct_symbols_refresh(s);
	return s;
}

void ct_symbols_close(struct ct_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ntabs; i++) {
		free(s->tabs[i].values);
		free(s->tabs[i].sizes);
		free(s->tabs[i].names);
	}
	for (size_t i = 0; i < s->nfuncs; i++) {
		free(s->funcs[i].name);
		free(s->funcs[i].symbol);
	}
	for (size_t i = 0; i < s->ndisk; i++)
		ct_elf_funcs_free(&s->disk[i]);
	free(s->disk);
	free(s->tabs);
	free(s->mods);
	free(s->funcs);
	ct_map_free(&s->cache);
	ct_map_free(&s->byfunc);
	ct_map_free(&s->rows);
	ct_map_free(&s->unloading);
	ct_srclines_free(s->srclines);
	free(s);
}

/*
 * The module at addr at time clock: of those that were ever there, the one
 * unloaded first after clock (or never).
 */
static const struct ct_inst_mod *ct_find_module(const struct ct_symbols *s, uint32_t instance,
						uint64_t addr, uint64_t clock)
{
	for (int hops = 0; instance && hops < 64; hops++) {
		int any = 0;
		const struct ct_inst_mod *best = NULL;
		for (size_t i = 0; i < s->nmods; i++) {
			const struct ct_inst_mod *m = &s->mods[i];
			if (m->instance != instance)
				continue;
			any = 1;
			if (addr >= m->lo && addr < m->hi && m->unload_clock > clock &&
			    (!best || m->unload_clock < best->unload_clock))
				best = m;
		}
		if (any)
			return best;
		/* no module list for this image: a forked child inherits its parent's */
		const struct ct_process_info *p = ct_trace_process(s->t, instance);
		instance = p ? p->rec.parent_instance : 0;
	}
	return NULL;
}

/*
 * Its names; a library call's "_ZdlPv@libstdc++.so.6" keeps "@libstdc++.so.6" after them.
 * A clone (f.constprop.0, _Z1fi.isra.0) is named as its function; its symbol
 * keeps the clone's note ("f(int) [clone .isra.0]"). Returns the length of the
 * symbol without its clone suffix, or 0 if it has none.
 */
static size_t ct_name_func(struct ct_func *f, const char *raw, int demangle)
{
	const char *at = strrchr(raw, '@');
	const char *lib = at ? at : "";
	size_t len = at ? (size_t)(at - raw) : strlen(raw);
	char *bare = ct_strndup(raw, len);
	size_t base = demangle ? ct_clone_base_len(bare) : len;
	char *d = demangle ? ct_demangle(bare) : NULL, *shortname;
	if (d) {
		shortname = ct_short_name(d);
	} else if (base < len) { /* foo.part.0, or a suffix the demangler does not know */
		char *b = ct_strndup(bare, base), *db = ct_demangle(b);
		shortname = db ? ct_short_name(db) : ct_strdup(b);
		free(db);
		free(b);
	} else {
		shortname = ct_strdup(bare);
	}
	f->symbol = ct_printf("%s%s", d ? d : bare, lib);
	f->name = ct_printf("%s%s", shortname, lib);
	free(shortname);
	free(d);
	free(bare);
	return base < len ? base : 0;
}

/* CT_ROW_* flags of a rows entry: some function of the row is no clone. */
#define CT_ROW_HAS_ORIGINAL (UINT64_C(1) << 32)

/*
 * The row a function of a symbol table joins: a clone joins its function's
 * (or an earlier clone's); the function joins its clones' if no function of
 * that name did already (two static functions of one name stay apart).
 */
static void ct_join_row(struct ct_symbols *s, uint32_t id, const char *raw, size_t base)
{
	struct ct_func *f = &s->funcs[id];
	uint64_t h = UINT64_C(1469598103934665603);
	for (const char *c = f->path ? f->path : ""; *c; c++)
		h = (h ^ (uint8_t)*c) * UINT64_C(1099511628211);
	h = (h ^ 0xff) * UINT64_C(1099511628211);
	size_t n = base ? base : strlen(raw);
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)raw[i]) * UINT64_C(1099511628211);
	const char *at = base ? strrchr(raw, '@') : NULL;
	for (const char *c = at ? at : ""; *c; c++)
		h = (h ^ (uint8_t)*c) * UINT64_C(1099511628211);

	int added;
	uint64_t *slot = ct_map_put(&s->rows, ct_hash64(h), &added);
	f->row = id;
	if (added) {
		*slot = (id + UINT64_C(1)) | (base ? 0 : CT_ROW_HAS_ORIGINAL);
		return;
	}
	uint32_t row = (uint32_t)(*slot & 0xffffffff) - 1;
	/* the same short name in the same module: a stray hash collision would show here */
	if (strcmp(s->funcs[row].name, f->name) || s->funcs[row].path != f->path)
		return;
	if (!base) {
		if (*slot & CT_ROW_HAS_ORIGINAL)
			return;
		*slot |= CT_ROW_HAS_ORIGINAL;
	}
	f->row = row;
}

static uint32_t ct_add_func(struct ct_symbols *s, uint64_t identity, const char *raw,
			    const char *module, uint64_t addr, enum ct_func_kind kind,
			    int from_symtab)
{
	int added;
	uint64_t *slot = ct_map_put(&s->byfunc, identity, &added);
	if (!added)
		return (uint32_t)(*slot - 1);
	if (s->nfuncs == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->funcs = ct_realloc(s->funcs, s->cap * sizeof(*s->funcs));
	}
	uint32_t id = (uint32_t)s->nfuncs;
	struct ct_func *f = &s->funcs[id];
	size_t base = ct_name_func(f, raw, s->demangle && kind == CT_KIND_FUNCTION);
	f->module = module ? ct_basename(module) : "?";
	f->path = module;
	f->addr = addr;
	f->system = -1;
	f->kind = (uint8_t)kind;
	f->row = id;
	*slot = ++s->nfuncs;
	if (from_symtab && s->demangle)
		ct_join_row(s, id, raw, base);
	return id;
}

/* "[signal SIGINT]" and the like: one function each, whatever the process. */
static uint32_t ct_pseudo(struct ct_symbols *s, uint64_t addr)
{
	char name[64];
	if (ct_is_signal_frame(addr))
		snprintf(name, sizeof(name), "[signal %s]", ct_signal_name((int)(addr - CT_PSEUDO_SIGNAL)));
	else
		snprintf(name, sizeof(name), "[0x%llx]", (unsigned long long)addr);
	return ct_add_func(s, UINT64_C(0xffff) << 48 | (addr & 0xffffffff), name, NULL, 0,
			   ct_is_signal_frame(addr) ? CT_KIND_SIGNAL : CT_KIND_PSEUDO, 0);
}

static uint32_t ct_resolve(struct ct_symbols *s, uint32_t instance, uint64_t addr, uint64_t clock)
{
	const struct ct_inst_mod *m = ct_find_module(s, instance, addr, clock);
	char name[256];

	if (!m) {
		snprintf(name, sizeof(name), "0x%llx", (unsigned long long)addr);
		return ct_add_func(s, (uint64_t)instance << 47 | addr | UINT64_C(1) << 63, name,
				   NULL, addr, CT_KIND_FUNCTION, 0);
	}
	uint64_t off = addr - m->base;
	if (m->symtab >= 0) {
		const struct ct_symtab *tab = &s->tabs[m->symtab];
		size_t lo = 0, hi = tab->n;
		while (lo < hi) { /* first value > off */
			size_t mid = (lo + hi) / 2;
			if (tab->values[mid] <= off)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0 && off < tab->values[lo - 1] + ct_max(tab->sizes[lo - 1], 1)) {
			size_t k = lo - 1;
			return ct_add_func(s, (uint64_t)(m->symtab + 1) << 40 ^ k, tab->names[k],
					   m->path, tab->values[k], CT_KIND_FUNCTION, 1);
		}
	}
	/* no symbol: one function per module file and offset, whatever the process */
	uint64_t h = UINT64_C(1469598103934665603);
	for (const char *c = m->path; *c; c++)
		h = (h ^ (uint8_t)*c) * UINT64_C(1099511628211);
	snprintf(name, sizeof(name), "%s+0x%llx", ct_basename(m->path), (unsigned long long)off);
	return ct_add_func(s, (ct_hash64(h ^ off) | UINT64_C(1) << 62) & ~(UINT64_C(1) << 63), name,
			   m->path, off, CT_KIND_FUNCTION, 0);
}

void ct_symbols_describe(struct ct_symbols *s, uint32_t instance, uint64_t addr, uint64_t clock,
			 char *buf, size_t len)
{
	const struct ct_inst_mod *m = ct_find_module(s, instance, addr, clock);
	if (!m) {
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
		return;
	}
	const struct ct_func *f = ct_symbols_func(s, ct_symbols_lookup(s, instance, addr, clock));
	uint64_t off = addr - m->base;
	/* at a symbol, or not in any (then the name is already module+offset) */
	if (off <= f->addr)
		snprintf(buf, len, "%s", f->name);
	else
		snprintf(buf, len, "%s+0x%llx", f->name, (unsigned long long)(off - f->addr));
}

int ct_symbols_srcline(struct ct_symbols *s, uint32_t instance, uint64_t addr, uint64_t clock,
		       char *buf, size_t len)
{
	const struct ct_inst_mod *m = ct_find_module(s, instance, addr, clock);
	return m && ct_dwarf_srcline(m->path, addr - m->base, buf, len);
}

uint32_t ct_symbols_lookup(struct ct_symbols *s, uint32_t instance, uint64_t addr, uint64_t clock)
{
	if (addr >= CT_PSEUDO_BASE)
		return ct_pseudo(s, addr);
	if (s->unloading.count && ct_map_find(&s->unloading, instance + 1))
		return ct_resolve(s, instance, addr, clock); /* depends on the time: callers cache */
	uint64_t key = (uint64_t)instance << 47 | addr;
	uint64_t *hit = ct_map_find(&s->cache, key);
	if (hit)
		return (uint32_t)(*hit - 1);
	uint32_t id = ct_resolve(s, instance, addr, clock);
	int added;
	*ct_map_put(&s->cache, key, &added) = id + 1;
	return id;
}

const struct ct_func *ct_symbols_func(const struct ct_symbols *s, uint32_t id)
{
	return &s->funcs[id];
}

uint32_t ct_symbols_count(const struct ct_symbols *s)
{
	return (uint32_t)s->nfuncs;
}


int ct_symbols_in_system_header(struct ct_symbols *s, uint32_t id)
{
	struct ct_func *f = &s->funcs[id];
	if (f->system < 0)
		f->system = (int8_t)ct_dwarf_declared_in_system(f->path, f->addr);
	return f->system;
}

/*
 * Source lines (replay --srcline), each looked up in DWARF once: a replay
 * asks for the same call sites again and again. The texts live in one pool;
 * a cache word is CT_LINE_NONE (DWARF does not know) or 2 + their offset << 16
 * | length, 0 in defs meaning not looked up yet.
 */
#define CT_LINE_NONE 1

struct ct_srclines {
	struct ct_map calls; /* instance << 47 | return address -> word */
	struct ct_map bymod; /* the same, by module: (index + 1) << 44 | ELF address -> word */
	uint64_t *defs;	     /* by function id */
	size_t ndefs;
	char *pool;
	size_t used, cap;
};

static struct ct_srclines *ct_srclines_get(struct ct_symbols *s)
{
	if (!s->srclines)
		s->srclines = ct_calloc(1, sizeof(*s->srclines));
	return s->srclines;
}

static void ct_srclines_free(struct ct_srclines *c)
{
	if (!c)
		return;
	ct_map_free(&c->calls);
	ct_map_free(&c->bymod);
	free(c->defs);
	free(c->pool);
	free(c);
}

/* The word for a text just looked up (ok) or not found. */
static uint64_t ct_line_keep(struct ct_srclines *c, int ok, const char *text)
{
	if (!ok)
		return CT_LINE_NONE;
	size_t n = ct_min(strlen(text), 0xffff);
	if (c->used + n + 1 > c->cap) {
		c->cap = ct_max(c->cap * 2, c->used + n + 1 + 4096);
		c->pool = ct_realloc(c->pool, c->cap);
	}
	memcpy(c->pool + c->used, text, n);
	c->pool[c->used + n] = 0;
	uint64_t word = 2 + ((uint64_t)c->used << 16 | n);
	c->used += n + 1;
	return word;
}

static int ct_line_copy(const struct ct_srclines *c, uint64_t word, char *buf, size_t len)
{
	if (word == CT_LINE_NONE || !len)
		return 0;
	size_t n = ct_min((word - 2) & 0xffff, len - 1);
	memcpy(buf, c->pool + ((word - 2) >> 16), n);
	buf[n] = 0;
	return 1;
}

int ct_symbols_defline(struct ct_symbols *s, uint32_t id, char *buf, size_t len)
{
	struct ct_srclines *c = ct_srclines_get(s);
	if (id >= s->nfuncs)
		return 0;
	if (id >= c->ndefs) {
		size_t n = ct_max(s->nfuncs, c->ndefs * 2);
		c->defs = ct_realloc(c->defs, n * sizeof(*c->defs));
		memset(c->defs + c->ndefs, 0, (n - c->ndefs) * sizeof(*c->defs));
		c->ndefs = n;
	}
	if (!c->defs[id]) {
		const struct ct_func *f = &s->funcs[id];
		char text[PATH_MAX + 32];
		int ok = f->path && ct_dwarf_defline(f->path, f->addr, text, sizeof(text));
		c->defs[id] = ct_line_keep(c, ok, text);
	}
	return ct_line_copy(c, c->defs[id], buf, len);
}

static uint64_t ct_callline_of(struct ct_srclines *c, const struct ct_inst_mod *m, uint64_t ret)
{
	char text[PATH_MAX + 32];
	int ok = m && ct_dwarf_callline(m->path, ret - m->base, text, sizeof(text));
	return ct_line_keep(c, ok, text);
}

/*
 * In an image some module was unloaded from, an address may be in different
 * modules at different times: cache by module and ELF address instead.
 */
static int ct_callline_by_module(struct ct_symbols *s, uint32_t instance, uint64_t ret,
				 uint64_t clock, char *buf, size_t len)
{
	struct ct_srclines *c = s->srclines;
	const struct ct_inst_mod *m = ct_find_module(s, instance, ret, clock);
	if (!m)
		return 0;
	uint64_t off = ret - m->base, index = (uint64_t)(m - s->mods);
	if (off >> 44 || index >> 19)
		return ct_line_copy(c, ct_callline_of(c, m, ret), buf, len);
	uint64_t key = (index + 1) << 44 | off, *hit = ct_map_find(&c->bymod, key);
	if (!hit) {
		uint64_t word = ct_callline_of(c, m, ret);
		int added;
		hit = ct_map_put(&c->bymod, key, &added);
		*hit = word;
	}
	return ct_line_copy(c, *hit, buf, len);
}

int ct_symbols_callline(struct ct_symbols *s, uint32_t instance, uint64_t ret_addr, uint64_t clock,
			char *buf, size_t len)
{
	struct ct_srclines *c = ct_srclines_get(s);
	if (!ret_addr || ret_addr >= CT_PSEUDO_BASE)
		return 0;
	if (s->unloading.count && ct_map_find(&s->unloading, instance + 1))
		return ct_callline_by_module(s, instance, ret_addr, clock, buf, len);
	uint64_t key = (uint64_t)instance << 47 | ret_addr, *hit = ct_map_find(&c->calls, key);
	if (!hit) {
		const struct ct_inst_mod *m = ct_find_module(s, instance, ret_addr, clock);
		if (!m && !s->t->has_end)
			return 0; /* its module may be yet to come (live): not cached */
		uint64_t word = ct_callline_of(c, m, ret_addr);
		int added;
		hit = ct_map_put(&c->calls, key, &added);
		*hit = word;
	}
	return ct_line_copy(c, *hit, buf, len);
}
