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
 * describes (split DWARF included): its ELF address, its name (the linkage
 * name if it has one) and its prototype text (NUL-terminated, at most
 * CT_PROTO_MAX_TEXT bytes, cut after a whole parameter if longer; "|" for
 * no parameters and void). A function may come twice (C++ constructors and
 * destructors emitted at one address are not). Returns the number of calls
 * of cb, or -1 if the file cannot be opened or has no DWARF.
 */
int ct_dwarf_protos(const char *path, ct_dwarf_proto_fn cb, void *ctx);

#endif
