/* SPDX-License-Identifier: MIT */
/*
 * Function prototypes from DWARF, in the text form of common/proto.h: what
 * record -a captures and readers show. Depends on libdw, libelf and libc
 * only, and keeps no state, so that it can also be linked into a library the
 * runtime loads inside traced processes.
 */
#ifndef CT_SYMBOLS_PROTOS_H
#define CT_SYMBOLS_PROTOS_H

#include <stdint.h>

typedef void (*ct_dwarf_proto_fn)(void *ctx, uint64_t addr, const char *name, const char *proto);

/*
 * Call cb for every function defined in the ELF file at path that DWARF
 * describes (split DWARF too: .dwo files beside it, or its .dwp): its ELF
 * address (its symbol's), its name (the linkage name if it has one, else
 * the DWARF name) and its prototype text (NUL-terminated, at most
 * CT_PROTO_MAX_TEXT bytes and CT_PROTO_MAX_PARAMS parameters, cut after a
 * whole parameter if longer; "|" for no parameters and void). Once per
 * subprogram DIE with code: symbols aliasing one address (a C++ C1 and C2
 * constructor) come once, and a clone gcc made (foo.isra.0) comes under the
 * name and, wrongly then, the prototype of the function it was made from.
 * Returns the number of calls of cb, or -1 if the file cannot be opened or
 * has no DWARF.
 */
int ct_dwarf_protos(const char *path, ct_dwarf_proto_fn cb, void *ctx);

#endif
