/* SPDX-License-Identifier: MIT */
/* A loaded module's GNU build-id, from its notes in memory: shared by the tool and the runtime. */
#ifndef CT_COMMON_BUILDID_H
#define CT_COMMON_BUILDID_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

#ifndef CT_HIDDEN /* in the tool too: hidden inside the runtime, where it is defined */
#define CT_HIDDEN __attribute__((visibility("hidden")))
#endif

/* The build-id note's bytes in the module dl_iterate_phdr describes, *len of them; NULL if none. */
const uint8_t *ct_module_build_id_note(const struct dl_phdr_info *info, uint32_t *len) CT_HIDDEN;
/* n bytes as 2n lowercase hex digits, then a NUL, at out. */
void ct_hex_bytes(const uint8_t *b, size_t n, char *out) CT_HIDDEN;
/*
 * The module's build-id in hex into out (room bytes, the NUL included); 0 if
 * it has none, a short one (under 8 bytes), or one that does not fit.
 */
int ct_module_build_id_hex(const struct dl_phdr_info *info, char *out, size_t room) CT_HIDDEN;

#endif
