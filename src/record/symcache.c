/* SPDX-License-Identifier: MIT */
/*
 * The symbol table cache. Reading a module's symbols, naming its imports
 * after the libraries that define them and compressing the table costs the
 * recorder 3 to 4 ms a recording for yaml-cpp's program and libstdc++ (7,600
 * functions), 4 % of its CPU, and far more for a large program. What the
 * SYMTAB block holds depends only on:
 *
 *   - the module's file and the path it was loaded from (in the block's
 *     header): its build-id, and the file as it is on disk (device, inode,
 *     size, modification and change times), since stripping a file in place
 *     or copying the unstripped one back keeps its build-id;
 *   - for its unversioned imports, which of the process's other modules
 *     defines the name first (their paths, build-ids and files, in load
 *     order);
 *   - the rules that read it (calltrace's version and own build-id).
 *
 * So the block is kept in the cache directory (src/common/cachedir.c), in
 * symtab/BUILDID-HASH.symtab, HASH being that of the key (pruned apart from
 * the patch plans, least recently used first):
 *
 *	struct ct_symcache_head
 *	key		the text above, padded to 8 bytes
 *	data		the block's bytes after its raw length, padded to 8 bytes
 *	checksum	FNV-1a 64 of all that comes before
 *
 * A file that is not exactly what this key would write is ignored. What it
 * holds goes into the trace as any symbol table read from a file, which
 * readers check as they check the rest of a trace. The build-ids are those
 * the runtime saw in memory, so a cached table is the table of the code that
 * ran even when the file on disk has changed since; a table read from a file
 * whose build-id is not the one that ran is never cached. No cache with
 * --no-cache (CALLTRACE_NO_CACHE=1), without HOME, or for a module or a
 * library without a build-id. CALLTRACE_CACHE_DEBUG=1 says on stderr what
 * was done with each file (for the tests).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symcache.h"
#include "../common/buildid.h"
#include "../common/cachedir.h"
#include "../format/format.h"

#define CT_SYMCACHE_MAGIC "CTSYMT01"
#define CT_SYMCACHE_MAX	  (256u << 20) /* bytes of a file, at most */

struct ct_symcache_head {
	char magic[8];
	uint32_t key_len;
	uint16_t flags; /* the block's: CT_BLOCK_ZSTD or 0 */
	uint16_t pad;
	uint32_t raw_len; /* the table's bytes, uncompressed */
	uint32_t data_len;
};

static void ct_symcache_say(const struct ct_symcache *sc, const char *name, const char *what)
{
	if (sc->debug)
		fprintf(stderr, "calltrace: symbol cache %s: %s\n", name, what);
}

/* calltrace's own build-id in hex, from its notes in memory (the first module is the program) */
static int ct_find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct ct_symcache *sc = arg;
	(void)size;
	return ct_module_build_id_hex(info, sc->tool, sizeof(sc->tool)) ? 1 : -1;
}

void ct_symcache_open(struct ct_symcache *sc)
{
	const char *off = getenv("CALLTRACE_NO_CACHE"), *debug = getenv("CALLTRACE_CACHE_DEBUG");

	sc->dir = -1;
	sc->debug = debug && *debug == '1';
	if ((off && *off && strcmp(off, "0")) || !getenv("HOME"))
		return;
	/* a rebuilt calltrace may read symbols otherwise under the same version */
	if (dl_iterate_phdr(ct_find_self, sc) != 1)
		return;
	sc->dir = ct_cache_dir_open("symtab", NULL, 0);
}

void ct_symcache_close(struct ct_symcache *sc)
{
	if (sc->dir >= 0)
		close(sc->dir);
	sc->dir = -1;
}

/* The module of m's process loaded from path, first in load order. */
static const struct ct_rec_module *ct_module_at(const struct ct_collector *c, uint32_t instance,
						const char *path)
{
	for (size_t i = 0; i < c->nmods; i++)
		if (c->mods[i].instance == instance && !strcmp(c->mods[i].path, path))
			return &c->mods[i];
	return NULL;
}

/*
 * A module's line of the key: its build-id, and the file at its path as it
 * is now (device, inode, size, times), so that a file stripped or put back in
 * place, which keeps its build-id, is read again. 0 if there is no such file.
 */
static int ct_key_add(struct ct_buf *b, const char *what, const uint8_t *id, size_t id_len,
		      const char *path)
{
	char hex[65];
	struct stat st;
	if (stat(path, &st) < 0)
		return 0;
	ct_hex_bytes(id, id_len, hex);
	char *line = ct_printf("%s=%s %llx:%llx:%llx:%lld.%09ld:%lld.%09ld %s\n", what, hex,
			       (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
			       (unsigned long long)st.st_size, (long long)st.st_mtim.tv_sec,
			       st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
			       path);
	ct_buf_append(b, line, strlen(line));
	free(line);
	return 1;
}

int ct_symcache_key(const struct ct_symcache *sc, const struct ct_collector *c,
		    const struct ct_rec_module *m, const char *const *libs, struct ct_symkey *k)
{
	struct ct_buf b = { 0 };
	char hex[65];

	memset(k, 0, sizeof(*k));
	if (sc->dir < 0 || m->build_id_len < 8 || m->build_id_len > sizeof(m->build_id))
		return 0;
	char *head = ct_printf("calltrace-symtab %s\ntool=%s\n", CT_VERSION, sc->tool);
	ct_buf_append(&b, head, strlen(head));
	free(head);
	int ok = ct_key_add(&b, "module", m->build_id, m->build_id_len, m->path);
	for (size_t i = 0; ok && libs[i]; i++) {
		const struct ct_rec_module *lib = ct_module_at(c, m->instance, libs[i]);
		/* without a build-id, which names it defines cannot be told from the key */
		ok = lib && lib->build_id_len >= 8 && lib->build_id_len <= sizeof(lib->build_id) &&
		     ct_key_add(&b, "lib", lib->build_id, lib->build_id_len, lib->path);
	}
	if (!ok) {
		ct_buf_free(&b);
		return 0;
	}
	ct_hex_bytes(m->build_id, m->build_id_len, hex);
	snprintf(k->name, sizeof(k->name), "%s-%016llx.symtab", hex,
		 (unsigned long long)ct_fnv1a(b.data, b.len, CT_FNV_START));
	k->text = (char *)b.data;
	k->len = b.len;
	return 1;
}

void ct_symkey_free(struct ct_symkey *k)
{
	free(k->text);
	memset(k, 0, sizeof(*k));
}

/* The head, key, sizes and checksum are exactly what this key would write. */
static int ct_symcache_well_formed(const struct ct_symkey *k, const uint8_t *p, size_t len,
				   struct ct_symcache_head *h)
{
	uint64_t sum;
	if (len < sizeof(*h) + sizeof(sum))
		return 0;
	memcpy(h, p, sizeof(*h));
	uint64_t body = sizeof(*h) + ct_cache_pad8(h->key_len) + ct_cache_pad8(h->data_len);
	/* the sizes first: the key is compared only once it is known to be in the file */
	if (memcmp(h->magic, CT_SYMCACHE_MAGIC, 8) || h->key_len != k->len ||
	    body + sizeof(sum) != len || (h->flags != 0 && h->flags != CT_BLOCK_ZSTD) ||
	    !h->data_len || (!h->flags && h->raw_len != h->data_len) ||
	    memcmp(p + sizeof(*h), k->text, k->len))
		return 0;
	memcpy(&sum, p + body, sizeof(sum));
	return sum == ct_fnv1a(p, body, CT_FNV_START);
}

int ct_symcache_use(struct ct_symcache *sc, const struct ct_symkey *k, struct ct_writer *w)
{
	struct ct_symcache_head h;
	void *data;
	size_t len;
	int r = ct_cache_read(sc->dir, k->name, sizeof(h), CT_SYMCACHE_MAX, &data, &len);

	if (r == -2)
		ct_symcache_say(sc, k->name, "ignored (not a file of the user's own, or its size)");
	if (r < 0)
		return 0;
	if (!ct_symcache_well_formed(k, data, len, &h)) {
		ct_symcache_say(sc, k->name, "ignored (not well-formed)");
		free(data);
		return 0;
	}
	const uint8_t *bytes = (const uint8_t *)data + sizeof(h) + ct_cache_pad8(h.key_len);
	ct_writer_block_packed(w, CT_BLOCK_SYMTAB, h.flags, h.raw_len, bytes, h.data_len);
	free(data);
	utimensat(sc->dir, k->name, NULL, AT_SYMLINK_NOFOLLOW); /* used: kept longer */
	ct_symcache_say(sc, k->name, "used");
	return 1;
}

void ct_symcache_save(struct ct_symcache *sc, const struct ct_symkey *k, uint16_t flags,
		      uint32_t raw, const void *data, uint32_t len)
{
	static const char zeros[8];
	struct ct_symcache_head h = { CT_SYMCACHE_MAGIC, (uint32_t)k->len, flags, 0, raw, len };
	size_t kpad = ct_cache_pad8(k->len) - k->len, dpad = ct_cache_pad8(len) - len;

	if (sc->dir < 0 || k->len > CT_SYMCACHE_MAX || len > CT_SYMCACHE_MAX - k->len)
		return;
	uint64_t sum = ct_fnv1a(&h, sizeof(h), CT_FNV_START);
	sum = ct_fnv1a(k->text, k->len, sum);
	sum = ct_fnv1a(zeros, kpad, sum);
	sum = ct_fnv1a(data, len, sum);
	sum = ct_fnv1a(zeros, dpad, sum);
	struct iovec parts[] = { { &h, sizeof(h) },	  { k->text, k->len }, { (void *)zeros, kpad },
				 { (void *)data, len }, { (void *)zeros, dpad }, { &sum, sizeof(sum) } };
	if (ct_cache_write(sc->dir, k->name, parts, 6) < 0)
		return;
	ct_symcache_say(sc, k->name, "written");
	ct_cache_prune(sc->dir, k->name);
}
