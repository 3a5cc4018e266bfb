/* SPDX-License-Identifier: MIT */
/* Patching code in memory: what patch.c (patchable entries) and dynpatch.c share. */
#ifndef CT_RUNTIME_PATCHING_H
#define CT_RUNTIME_PATCHING_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "../runtime.h"

struct ct_elf_map;

/* Memory for code, read-write until mprotected, within rel32 reach of [lo, hi); 0 if none. */
uintptr_t ct_map_near(uintptr_t lo, uintptr_t hi, size_t size) CT_HIDDEN;
/* A function left alone: counted by reason, named for calltrace info. */
void ct_patch_count_skip(int reason, const char *name) CT_HIDDEN;
/* Patch the functions -P selects in a module built with nothing special. */
void ct_dynpatch_module(const struct dl_phdr_info *info, const struct ct_elf_map *m,
			const char *path, int program) CT_HIDDEN;

/* --libcalls: redirect the module's calls into the libraries the patterns take. */
void ct_libcalls_module(const struct dl_phdr_info *info, const struct ct_elf_map *m) CT_HIDDEN;

#endif
