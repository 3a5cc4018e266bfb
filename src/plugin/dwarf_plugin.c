/* SPDX-License-Identifier: MIT */
/*
 * libcalltrace-dwarf.so: what the runtime loads into a traced process for
 * record -a, and only then, to read its modules' prototypes from DWARF
 * with libdw (src/symbols/protos.c) once, when they are patched. Kept apart
 * so that libcalltrace.so itself never brings elfutils into a process.
 */
#include <stdint.h>

#include "../symbols/protos.h"

/* The plugin's one entry point, looked up with dlsym by the runtime (src/runtime/args/args.c). */
int calltrace_dwarf_protos(const char *path,
			   void (*cb)(void *ctx, uint64_t addr, const char *name, const char *proto),
			   void *ctx);

__attribute__((visibility("default"))) int
calltrace_dwarf_protos(const char *path,
		       void (*cb)(void *ctx, uint64_t addr, const char *name, const char *proto),
		       void *ctx)
{
	return ct_dwarf_protos(path, cb, ctx);
}
