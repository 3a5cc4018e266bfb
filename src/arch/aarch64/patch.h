/* SPDX-License-Identifier: MIT */
/*
 * aarch64 code patching: what a patchable entry looks like before we touch
 * it, the call we write there, and the far jump that takes it to the runtime.
 *
 * -fpatchable-function-entry=2,0 (gcc and clang) leaves two nops at the
 * function's start (after "bti c" when built with branch protection). We
 * write what the Linux kernel's ftrace writes there:
 *
 *	mov	x9, x30		the function's return address, kept in a scratch
 *	bl	thunk		register; x30 = where the function goes on
 *
 * and the stub (entry.S) returns to x30 with x30 set back from x9, or to our
 * return trampoline. x9 is free at a function's entry (not an argument, not
 * preserved), so nothing the function sees changes.
 */
#ifndef CT_ARCH_AARCH64_PATCH_H
#define CT_ARCH_AARCH64_PATCH_H

#include <stdint.h>
#include <string.h>

#define CT_PATCH_LEN 8	/* mov x9, x30; bl thunk */
#define CT_THUNK_LEN 16 /* ldr x16, 8; br x16; .quad target */
/* How far a bl reaches: ±128 MiB; the thunks are mapped within that. */
#define CT_ARCH_REACH (UINT64_C(1) << 27)

#define CT_A64_NOP	  0xd503201fu
#define CT_A64_BTI_C	  0xd503245fu
#define CT_A64_BTI_JC	  0xd50324dfu
#define CT_A64_PACIASP	  0xd503233fu
#define CT_A64_MOV_X9_X30 0xaa1e03e9u
#define CT_A64_BRK	  0xd4200000u

static inline uint32_t ct_a64_word(const uint8_t *p)
{
	uint32_t w;
	memcpy(&w, p, 4);
	return w;
}

static inline void ct_a64_put(uint8_t *p, uint32_t w)
{
	memcpy(p, &w, 4);
}

/* A branch landing pad a function may start with (kept in place when patching). */
static inline int ct_a64_is_landing_pad(uint32_t w)
{
	return w == CT_A64_BTI_C || w == CT_A64_BTI_JC;
}

static inline int ct_arch_is_entry_nop(const uint8_t *p)
{
	return ct_a64_word(p) == CT_A64_NOP && ct_a64_word(p + 4) == CT_A64_NOP;
}

/* "b" or "bl" (link) from at to to; 0 if out of reach. */
static inline int ct_a64_branch(uint32_t *out, uintptr_t at, uintptr_t to, int link)
{
	int64_t rel = (int64_t)(to - at);
	if ((rel & 3) || rel >= (int64_t)CT_ARCH_REACH || rel < -(int64_t)CT_ARCH_REACH)
		return 0;
	*out = (link ? 0x94000000u : 0x14000000u) | ((uint32_t)(rel >> 2) & 0x03ffffffu);
	return 1;
}

/* The patchable entry's call at at: "mov x9, x30; bl to"; 0 if to is out of reach. */
static inline int ct_arch_encode_call(uint8_t out[CT_PATCH_LEN], uintptr_t at, uintptr_t to)
{
	uint32_t bl;
	if (!ct_a64_branch(&bl, at + 4, to, 1))
		return 0;
	ct_a64_put(out, CT_A64_MOV_X9_X30);
	ct_a64_put(out + 4, bl);
	return 1;
}

/* An absolute jump to target through x16 (the intra-procedure scratch register). */
static inline void ct_arch_encode_thunk(uint8_t out[CT_THUNK_LEN], uintptr_t target)
{
	ct_a64_put(out, 0x58000050u);	  /* ldr x16, .+8 */
	ct_a64_put(out + 4, 0xd61f0200u); /* br x16 */
	memcpy(out + 8, &target, 8);
}

/*
 * The function whose patchable entry called the stub, from x30 there (the
 * call site: after "mov x9, x30; bl"), stepping back over "bti c".
 */
static inline uintptr_t ct_arch_entry_function(uintptr_t call_site)
{
	uintptr_t fn = call_site - CT_PATCH_LEN;
	return ct_a64_is_landing_pad(ct_a64_word((const uint8_t *)fn - 4)) ? fn - 4 : fn;
}

/* Make the instruction cache see code we wrote (x86-64 needs nothing). */
static inline void ct_arch_sync_code(void *start, size_t len)
{
	__builtin___clear_cache((char *)start, (char *)start + len);
}

#endif
