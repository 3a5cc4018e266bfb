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
 * The slot is read on every call, so lazy binding keeps working. Calls
 * through the GOT without a PLT entry (-fno-plt) are not redirected yet, nor
 * PLTs with BTI landing pads.
 */
#ifndef CT_ARCH_AARCH64_LIBCALL_H
#define CT_ARCH_AARCH64_LIBCALL_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#define CT_LIBCALL_TRAMP_LEN 36
#define CT_ARCH_R_JUMP_SLOT  R_AARCH64_JUMP_SLOT
#define CT_ARCH_R_GLOB_DAT   R_AARCH64_GLOB_DAT

enum { CT_GOT_JUMP, CT_GOT_CALL, CT_GOT_LOAD };

struct ct_got_jump {
	uintptr_t at;	/* the PLT entry's first instruction */
	uintptr_t slot; /* the GOT slot it reads */
	uint8_t len;	/* bytes replaced: the whole entry */
	uint8_t kind;	/* CT_GOT_JUMP */
};

int ct_arch_plt_jump(const uint8_t *p, size_t len, struct ct_got_jump *j);
int ct_arch_got_jumps(uintptr_t addr, size_t size,
		      void (*found)(void *ctx, const struct ct_got_jump *j), void *ctx);
int ct_arch_build_libcall(uintptr_t id, uintptr_t slot, uintptr_t at, uintptr_t entry_thunk,
			  uint8_t out[CT_LIBCALL_TRAMP_LEN]);
int ct_arch_encode_libcall_jump(const struct ct_got_jump *j, uintptr_t tramp, uint8_t *out);

#endif
