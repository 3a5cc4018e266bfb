/* SPDX-License-Identifier: MIT */
/*
 * Dynamic patching on aarch64: the same interface as x86_64/relocate.h. The
 * function's first instruction (after "bti c", which stays) moves to the
 * trampoline and a "b trampoline" takes its place. The trampoline is
 *
 *	.quad	function	what the entry stub records (and, from bit 48,
 *				what to capture of its arguments)
 *	mov	x9, x30		as a patchable entry's call (patch.h), so the
 *	bl	entry_thunk	same stub serves both; x30 = the call site
 *	<the moved instruction, relocated>
 *	b	function + patch_off + 4
 *
 * so the entry stub finds the function 16 bytes before its call site.
 */
#ifndef CT_ARCH_AARCH64_RELOCATE_H
#define CT_ARCH_AARCH64_RELOCATE_H

#include <stddef.h>
#include <stdint.h>

#define CT_PATCH_JUMP_LEN 4  /* b imm26 */
#define CT_TRAMP_HEAD	  16 /* .quad function; mov x9, x30; bl entry_thunk */
#define CT_TRAMP_MAX	  64
#define CT_MOVED_MAX	  4 /* one instruction */

struct ct_arch_func {
	uintptr_t addr;	    /* the function's first byte, in this process */
	uint32_t size;	    /* from its symbol */
	uint8_t patch_off;  /* where the jump goes: 4 after bti c, else 0 */
	uint8_t moved;	    /* bytes moved from there: 4 */
	uint16_t tramp_len; /* bytes its trampoline takes */
	uint16_t capture;   /* kept above the address in the trampoline's head */
};

#define CT_TRAMP_ID_BITS 48

struct ct_arch_env {
	void (*target)(void *ctx, uintptr_t to);
	int (*readable)(void *ctx, uintptr_t addr, size_t len);
	void *ctx;
};

int ct_arch_analyse(struct ct_arch_func *f, const struct ct_arch_env *env);
int ct_arch_plan_entry(struct ct_arch_func *f);
int ct_arch_build_trampoline(const struct ct_arch_func *f, uintptr_t at, uintptr_t entry_thunk,
			     uint8_t *out);
int ct_arch_encode_patch(const struct ct_arch_func *f, uintptr_t tramp, uint8_t *out);

#define CT_OOL_MAX 48
int ct_arch_build_ool(const uint8_t *code, size_t avail, uintptr_t orig, uintptr_t at, uint8_t *out,
		      uint8_t *insn_len);

#endif
