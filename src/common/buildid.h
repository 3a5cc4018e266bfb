/* SPDX-License-Identifier: MIT */
/* A loaded module's GNU build-id, from its notes in memory: shared by the tool and the runtime. */
#ifndef CT_COMMON_BUILDID_H
#define CT_COMMON_BUILDID_H

#include <link.h>
#include <stdint.h>

#ifndef CT_HIDDEN /* in the tool too: hidden inside the runtime, where it is defined */
#define CT_HIDDEN __attribute__((visibility("hidden")))
#endif

/* The build-id note's bytes in the module dl_iterate_phdr describes, *len of them; NULL if none. */
const uint8_t *ct_module_build_id_note(const struct dl_phdr_info *info, uint32_t *len) CT_HIDDEN;

#endif
