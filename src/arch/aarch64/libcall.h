/* SPDX-License-Identifier: MIT */
/*
 * Library calls on aarch64 (the interface of x86_64/libcall.h). A call into a
 * shared library goes through its PLT entry
 *
 *	adrp	x16, page of the GOT slot
 *	ldr	x17, [x16, #slot's offset]
 *	add	x16, x16, #slot's offset
 *	br	x17
 *
 * whose first instruction we make "b trampoline + 8", the trampoline being
 *
 *	.quad	id		what the entry stub records
 *	mov	x9, x30		as a patched function's (relocate.h)
 *	bl	entry_thunk
 *	ldr	x16, =slot	then what the PLT entry did: x16 = the slot, as
 *	ldr	x17, [x16]	the lazy resolver expects, x17 = its value
 *	br	x17
 *
 * The slot is read on every call, so lazy binding keeps working. Branch
 * protection's entries (-z force-bti) start with "bti c", which stays; the
 * rest is replaced the same way. With -z pac-plt an "autia1716" comes before
 * the br: the trampoline does not authenticate (glibc's loader signs no GOT
 * slot, so only where pointer authentication is off do such entries run).
 *
 * Code built with -fno-plt loads the slot at each call site,
 *
 *	adrp	xn, page of the GOT slot
 *	ldr	xt, [xn, #slot's offset]
 *	...	(nothing writes xt, no branch goes in or out)
 *	blr	xt		(br xt: a tail call)
 *
 * and only the blr (br) becomes "bl trampoline + 8" (b): the load still
 * runs, so the GOT keeps the real address for code that takes it as a value.
 */
#ifndef CT_ARCH_AARCH64_LIBCALL_H
#define CT_ARCH_AARCH64_LIBCALL_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#define CT_LIBCALL_TRAMP_LEN 36
#define CT_ARCH_R_JUMP_SLOT  R_AARCH64_JUMP_SLOT
#define CT_ARCH_R_GLOB_DAT   R_AARCH64_GLOB_DAT
#define CT_ARCH_PLT_STEP     8	/* PLT entries of 16 or 24 bytes (-z pac-plt), 8-aligned */
#define CT_ARCH_PLT_LOOK     24 /* the longest: bti c, 4 instructions, autia1716 */

enum { CT_GOT_JUMP, CT_GOT_CALL, CT_GOT_LOAD };

struct ct_got_jump {
	uintptr_t at;	/* the PLT entry's first instruction (after bti c), or the blr/br */
	uintptr_t slot; /* the GOT slot it reads */
	uint8_t len;	/* bytes replaced: the whole entry, or the one instruction */
	uint8_t kind;	/* CT_GOT_JUMP (a PLT entry, a br), CT_GOT_CALL (a blr) */
};

int ct_arch_plt_jump(const uint8_t *p, size_t len, struct ct_got_jump *j);
int ct_arch_got_jumps(uintptr_t addr, size_t size,
		      void (*found)(void *ctx, const struct ct_got_jump *j), void *ctx);
int ct_arch_build_libcall(uintptr_t id, uintptr_t slot, uintptr_t at, uintptr_t entry_thunk,
			  uint8_t out[CT_LIBCALL_TRAMP_LEN]);
int ct_arch_encode_libcall_jump(const struct ct_got_jump *j, uintptr_t tramp, uint8_t *out);

#endif
