/* SPDX-License-Identifier: MIT */
/*
 * Library calls on x86-64. A call into a shared library goes through a slot
 * of the caller's GOT: from a PLT entry ("[endbr64] [bnd] jmp *slot(%rip)"),
 * or, in code built with -fno-plt, straight from the call site ("call
 * *slot(%rip)", "jmp *slot(%rip)" for a tail call), or through a register
 * loaded from the slot ("mov slot(%rip),%r12" ... "call *%r12": clang
 * hoists the load out of loops). We redirect that jump or call, or make the
 * load an "lea" of the imported function's trampoline
 *
 *	.quad	id		what the entry stub records
 *	call	entry_thunk	jmp *0(%rip) -> ct_patch_entry
 *	jmp	*slot(%rip)	on to the function, or to the lazy resolver
 *
 * which is laid out as a patched function's (relocate.h), so the entry stub
 * needs no lookup. The slot is read on every call, exactly as before, so
 * lazy binding and later rebinding keep working.
 */
#ifndef CT_ARCH_X86_64_LIBCALL_H
#define CT_ARCH_X86_64_LIBCALL_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#define CT_LIBCALL_TRAMP_LEN 19
/* The relocations that fill an imported function's GOT slot. */
#define CT_ARCH_R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define CT_ARCH_R_GLOB_DAT  R_X86_64_GLOB_DAT

enum { CT_GOT_JUMP, CT_GOT_CALL, CT_GOT_LOAD };

/* An indirect jump or call through a RIP-relative slot, or a load of it. */
struct ct_got_jump {
	uintptr_t at;	/* its first byte (a prefix, if any) */
	uintptr_t slot; /* the address it reads */
	uint8_t len;	/* bytes, prefixes included */
	uint8_t kind;	/* CT_GOT_*: a call returns after it; a load feeds only calls */
};

/* The jump of the PLT entry starting at p (len bytes of it): 1 and *j, or 0. */
int ct_arch_plt_jump(const uint8_t *p, size_t len, struct ct_got_jump *j);
/*
 * Every call or jump through a RIP-relative slot in [addr, addr + size), a
 * function, and every load of a slot into a register the function uses for
 * nothing but calls and jumps through it (so the value is seen by nobody
 * else: the function's address the program sees never changes); -1 if
 * undecodable.
 */
int ct_arch_got_jumps(uintptr_t addr, size_t size,
		      void (*found)(void *ctx, const struct ct_got_jump *j), void *ctx);
/* The trampoline of the function imported through slot, to run at at; 0 if out of reach. */
int ct_arch_build_libcall(uintptr_t id, uintptr_t slot, uintptr_t at, uintptr_t entry_thunk,
			  uint8_t out[CT_LIBCALL_TRAMP_LEN]);
/* What replaces the jump or call: the same to the trampoline, then filler; 0 if out of reach. */
int ct_arch_encode_libcall_jump(const struct ct_got_jump *j, uintptr_t tramp, uint8_t *out);

#endif
