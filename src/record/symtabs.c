/* SPDX-License-Identifier: MIT */
/*
 * At the end of a recording, the symbol tables of every module some event
 * points into, read from the files on disk and saved into the trace, once per
 * distinct file (path and build-id), so the trace reads anywhere. A table
 * made before for the same builds comes from the cache (symcache.c).
 */
#include <stdlib.h>

#include "record.h"
#include "symcache.h"
#include "../symbols/symbols.h"

static void ct_mark_hits(struct ct_collector *c)
{
	const struct ct_map *seen = &c->seen;
	for (size_t i = 0; i < seen->cap; i++) {
		uint64_t key = seen->keys[i];
		if (!key)
			continue;
		uint32_t instance = (uint32_t)(key >> 47);
		uint64_t addr = key & CT_EV_ADDR_MASK;
		for (size_t m = 0; m < c->nmods; m++) {
			struct ct_rec_module *mod = &c->mods[m];
			/* every module that was ever there: one was unloaded, another took its place */
			if (mod->instance == instance && addr >= mod->lo && addr < mod->hi)
				mod->hit = 1;
		}
	}
}

static int ct_same_file(const struct ct_rec_module *a, const struct ct_rec_module *b)
{
	return !strcmp(a->path, b->path) && a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len);
}

static int ct_listed(const char **paths, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(paths[i], path))
			return 1;
	return 0;
}

/* Module m's table, serialized for its SYMTAB block; 0 if it has none (said why). */
static int ct_read_symtab(const struct ct_rec_module *m, const char *const *libs, struct ct_buf *b,
			  int *changed)
{
	struct ct_elf_funcs funcs;
	char err[512];

	if (ct_elf_read_funcs(m->path, libs, &funcs, err, sizeof(err)) < 0) {
		ct_warn("no symbols for %s: %s", m->path, err);
		return 0;
	}
	*changed = m->build_id_len && (funcs.build_id_len != m->build_id_len ||
				       memcmp(funcs.build_id, m->build_id, m->build_id_len));
	if (*changed)
		ct_warn("%s changed on disk while it was traced: its names may be wrong", m->path);

	struct ct_symtab_hdr h = { .nsyms = (uint32_t)funcs.n,
				   .path_len = (uint32_t)strlen(m->path) + 1,
				   .build_id_len = m->build_id_len };
	size_t bytes = sizeof(h) + h.path_len;
	for (size_t i = 0; i < funcs.n; i++) /* the block's size first: one allocation */
		bytes += 16 + strlen(funcs.syms[i].name) + 1;
	ct_buf_reserve(b, bytes);
	memcpy(h.build_id, m->build_id, sizeof(h.build_id));
	ct_buf_append(b, &h, sizeof(h));
	ct_buf_append(b, m->path, h.path_len);
	for (size_t i = 0; i < funcs.n; i++) {
		ct_buf_append(b, &funcs.syms[i].value, 8);
		ct_buf_append(b, &funcs.syms[i].size, 8);
		ct_buf_append(b, funcs.syms[i].name, strlen(funcs.syms[i].name) + 1);
	}
	ct_elf_funcs_free(&funcs);
	return 1;
}

static void ct_write_symtab(struct ct_collector *c, const struct ct_rec_module *m,
			    struct ct_symcache *sc)
{
	const char **libs = ct_malloc((c->nmods + 1) * sizeof(char *));
	size_t n = 0;
	for (size_t i = 0; i < c->nmods; i++) /* the process's modules, in load order */
		if (c->mods[i].instance == m->instance && !ct_listed(libs, n, c->mods[i].path))
			libs[n++] = c->mods[i].path;
	libs[n] = NULL;

	struct ct_symkey key;
	struct ct_buf b = { 0 };
	int cached = ct_symcache_key(sc, c, m, libs, &key), changed = 0;
	if (cached && ct_symcache_use(sc, &key, c->w)) {
		c->symtabs_cached++;
	} else if (ct_read_symtab(m, libs, &b, &changed)) {
		uint16_t flags;
		const void *out;
		uint32_t len = ct_writer_compress(c->w, b.data, (uint32_t)b.len, &flags, &out);
		uint32_t raw = (uint32_t)b.len;
		ct_writer_block_packed(c->w, CT_BLOCK_SYMTAB, flags, raw, out, len);
		if (cached && !changed) /* not the code that ran: never kept */
			ct_symcache_save(sc, &key, flags, raw, out, len);
	}
	ct_buf_free(&b);
	ct_symkey_free(&key);
	free(libs);
}

void ct_write_symtabs(struct ct_collector *c)
{
	struct ct_symcache sc;
	int opened = 0;

	ct_mark_hits(c);
	for (size_t i = 0; i < c->nmods; i++) {
		if (!c->mods[i].hit)
			continue;
		int done = 0;
		for (size_t j = 0; j < i && !done; j++)
			done = c->mods[j].hit && ct_same_file(&c->mods[i], &c->mods[j]);
		if (done)
			continue;
		if (!opened++)
			ct_symcache_open(&sc);
		ct_write_symtab(c, &c->mods[i], &sc);
	}
	if (opened)
		ct_symcache_close(&sc);
}
