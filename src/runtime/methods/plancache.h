/* SPDX-License-Identifier: MIT */
/*
 * The patch plan cache (plancache.c): what dynamic patching found in a
 * module (which functions, where the jump goes, how many bytes move, why
 * the others are left alone), kept in a file per module build-id so that
 * the next run skips decoding every function.
 */
#ifndef CT_RUNTIME_PLANCACHE_H
#define CT_RUNTIME_PLANCACHE_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "../runtime.h"

struct ct_elf_map;

#define CT_PLAN_BYTES 36 /* endbr64 and the moved bytes (CT_MOVED_MAX) */

/* One selected function, as the cache file keeps it (fixed size, no pointers). */
struct ct_plan_rec {
	uint32_t off;	   /* from the module's load base */
	uint32_t size;	   /* from its symbol */
	uint32_t sym;	   /* its index in the symbol table the names come from */
	uint8_t reason;	   /* CT_SKIP_*: 0 if it is to be patched */
	uint8_t patch_off; /* 4 after endbr64, else 0 */
	uint8_t moved;
	uint8_t pad;
	/* the code at off, patch_off + moved bytes of it (the functions to patch) */
	uint8_t bytes[CT_PLAN_BYTES];
};

struct ct_plancache {
	int usable;	/* a key and a directory: the cache may be read and written */
	int dir;	/* the cache directory, open */
	char name[96];	/* the file's name in it */
	char key[8192]; /* what the plan depends on, kept in the file */
	size_t key_len;
	uint64_t text_off, text_len; /* the module's code, from its base */
	void *data;		     /* the file read, once checked */
	size_t len;
	int offered;	       /* its records were handed out */
	int save_tried, saved; /* a plan was made here; it was written */
};

/* Find the cache of this module (dynamic patching): usable is 0 when there is none to be had. */
void ct_plancache_open(struct ct_plancache *pc, const struct dl_phdr_info *info, const char *path,
		       int program, uint64_t text_lo, uint64_t text_hi) CT_HIDDEN;
/* The records of a well-formed file for this very key, or NULL; *n gets their count. */
const struct ct_plan_rec *ct_plancache_records(struct ct_plancache *pc, size_t *n) CT_HIDDEN;
/* The name of symbol sym if it is the function at off with that size, else NULL. */
const char *ct_plancache_name(const struct ct_elf_map *m, uint32_t sym, uint32_t off,
			      uint32_t size) CT_HIDDEN;
/* Write the plan (a temporary file renamed over the old one, mode 0600). */
void ct_plancache_save(struct ct_plancache *pc, const struct ct_plan_rec *r, size_t n) CT_HIDDEN;
/* What became of the cached plan (used, or refused for code that differs): said if asked. */
void ct_plancache_say(struct ct_plancache *pc, const char *what) CT_HIDDEN;
/*
 * Done with the module: counted in the pool (from the cache, or planned and
 * maybe cached); a plan used is marked used (its time), one written makes
 * the cache prune its oldest files.
 */
void ct_plancache_close(struct ct_plancache *pc) CT_HIDDEN;

#endif
