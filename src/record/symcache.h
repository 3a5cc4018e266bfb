/* SPDX-License-Identifier: MIT */
/*
 * The symbol table cache (symcache.c): a module's SYMTAB block as the
 * recorder wrote it, kept in calltrace's cache directory by the build-ids it
 * depends on, so that the next recording of the same builds copies it
 * instead of reading the ELF files again.
 */
#ifndef CT_RECORD_SYMCACHE_H
#define CT_RECORD_SYMCACHE_H

#include <stdint.h>

#include "record.h"

struct ct_symcache {
	int dir; /* the cache directory, open; -1: no cache */
	int debug;
	char tool[65]; /* calltrace's own build-id in hex */
};

/* What a module's table depends on, and the file it is kept in. */
struct ct_symkey {
	char *text;
	size_t len;
	char name[112];
};

/* The cache, if there is one to use (not with --no-cache, without HOME, or a directory not ours). */
void ct_symcache_open(struct ct_symcache *sc);
void ct_symcache_close(struct ct_symcache *sc);
/*
 * The key of module m's table, its imports named after libs (the modules of
 * its process in load order): 0 if it cannot be cached (no cache, or m or
 * one of libs has no build-id).
 */
int ct_symcache_key(const struct ct_symcache *sc, const struct ct_collector *c,
		    const struct ct_rec_module *m, const char *const *libs, struct ct_symkey *k);
void ct_symkey_free(struct ct_symkey *k);
/* The table kept for k written as the SYMTAB block: 1 if it was. */
int ct_symcache_use(struct ct_symcache *sc, const struct ct_symkey *k, struct ct_writer *w);
/* Keep the block just written for k: its flags, raw length and bytes. */
void ct_symcache_save(struct ct_symcache *sc, const struct ct_symkey *k, uint16_t flags,
		      uint32_t raw, const void *data, uint32_t len);

#endif
