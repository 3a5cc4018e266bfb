/* SPDX-License-Identifier: MIT */
/* Arguments, return values and call sites: which functions (args.c), and the capture (capture.c). */
#ifndef CT_RUNTIME_ARGS_H
#define CT_RUNTIME_ARGS_H

#include <stdint.h>

#include "../runtime.h"
#include "../../common/proto.h"

#define CT_MAX_CAPTURES	    4096 /* distinct captures; the index fits the trampoline head */
#define CT_CAPTURE_CALLSITE 1	 /* the index of "the call site only" */
#define CT_CAPTURE_SHIFT    48	 /* where a trampoline head keeps it, above the address */
#define CT_STR_LIMIT	    1024 /* record -s at most */
#define CT_ARGS_HASH_BITS   20

/* ct_args_mode */
#define CT_ARGS_DWARF	  1 /* record -a */
#define CT_ARGS_SPECS	  2 /* -A, -R */
#define CT_ARGS_CALLSITES 4 /* --srcline: every call's return address */

extern struct ct_capture ct_captures[CT_MAX_CAPTURES] CT_HIDDEN;
extern uint32_t ct_str_max CT_HIDDEN; /* record -s: bytes of a string kept */
extern int ct_args_mode CT_HIDDEN;

/* Function address -> capture index, for the hooks of -pg -mfentry and patchable entries. */
struct ct_args_slot {
	uintptr_t addr;
	uint16_t ci;
};
extern struct ct_args_slot *ct_args_hash CT_HIDDEN;

static inline uint32_t ct_args_hash_start(uintptr_t addr)
{
	return (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> (64 - CT_ARGS_HASH_BITS));
}

/* The capture index of the function at fn (0: none). */
static inline uint16_t ct_args_find(uintptr_t fn)
{
	struct ct_args_slot *h = __atomic_load_n(&ct_args_hash, __ATOMIC_ACQUIRE);
	uint32_t mask = (1u << CT_ARGS_HASH_BITS) - 1;
	if (!h)
		return ct_args_mode & CT_ARGS_CALLSITES ? CT_CAPTURE_CALLSITE : 0;
	for (uint32_t i = ct_args_hash_start(fn);; i = (i + 1) & mask) {
		uintptr_t a = __atomic_load_n(&h[i].addr, __ATOMIC_ACQUIRE);
		if (a == fn)
			return h[i].ci;
		if (!a)
			return ct_args_mode & CT_ARGS_CALLSITES ? CT_CAPTURE_CALLSITE : 0;
	}
}

/* args.c: decided once per function, when its module is patched */
int ct_args_wanted(void) CT_HIDDEN; /* CT_ARGS_* asked for (0: none) */
/* Outside dl_iterate_phdr (it holds a lock of the loader): load the DWARF reader if asked. */
void ct_args_prepare(void) CT_HIDDEN;
void ct_args_module_begin(const char *path) CT_HIDDEN;
void ct_args_module_end(void) CT_HIDDEN;
/* The capture index of the function at addr (elf_addr in its file, symbol raw). */
uint16_t ct_args_function(uintptr_t addr, uint64_t elf_addr, const char *raw) CT_HIDDEN;
/* The same for a library call (id: its GOT slot) to the function raw. */
uint16_t ct_args_libcall(uintptr_t id, const char *raw) CT_HIDDEN;
/* Every function of the module being looked at, into the table by address. */
void ct_args_module_by_address(uintptr_t bias) CT_HIDDEN;
void ct_args_hash_add(uintptr_t addr, uint16_t ci) CT_HIDDEN;
/* builtin_protos.c: the prototype of a common C library function, or NULL */
const char *ct_builtin_proto(const char *raw) CT_HIDDEN;

/*
 * capture.c: a call's enter (exit) event with what it was given (returned),
 * in one reservation. regs: the registers an entry stub or the return
 * trampoline saved (fentry.S); args: the first stack word of the arguments.
 */
void ct_emit_enter_args(uintptr_t fn, uintptr_t sp, uint16_t ci, const uint64_t *regs,
			const uint64_t *args, uintptr_t ret) CT_HIDDEN;
void ct_emit_exit_retval(uintptr_t fn, uintptr_t sp, uint16_t ci, const uint64_t *regs) CT_HIDDEN;
/* capture.c: the modules changed; where strings can be read directly (patching code only) */
void ct_capture_note_modules(void) CT_HIDDEN;

/* capture.c: field n (1-based, as proc(5) numbers them) of /proc/self/stat; 0 if unreadable */
uint64_t ct_self_stat_field(int n) CT_HIDDEN;

#endif
