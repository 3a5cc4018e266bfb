/* SPDX-License-Identifier: MIT */
/*
 * Dynamic patching on x86-64: whether a function's entry can be moved to a
 * trampoline, and the trampoline itself. The first whole instructions that
 * cover 5 bytes (after endbr64, which stays) move to the trampoline and a
 * "jmp trampoline" takes their place. The trampoline is
 *
 *	.quad	function		what the entry stub records (and, from
 *					bit 48, what to capture of its arguments)
 *	call	entry_thunk		jmp *0(%rip) -> ct_patch_call_entry
 *	jne	body			the stub says: not traced through here
 *	lea	8(%rsp), %rsp		the return address is in the shadow stack,
 *	call	body			and this call puts the landing in its place
 * landing:
 *	jmp	return_thunk		jmp *0(%rip) -> ct_patch_return
 * body:
 *	<the moved instructions, relocated>
 *	jmp	function + patched bytes
 *
 * so the entry stub finds the function 13 bytes before its return address:
 * no lookup on a call. The function returns to the landing by the address
 * its trampoline's call pushed, and the return stub to the caller by the
 * one the caller's call pushed: the processor's return stack predicts both
 * (a return address replaced in memory, as with __fentry__, is mispredicted
 * at every return).
 */
#ifndef CT_ARCH_X86_64_RELOCATE_H
#define CT_ARCH_X86_64_RELOCATE_H

#include <stddef.h>
#include <stdint.h>

#define CT_PATCH_JUMP_LEN  5  /* jmp rel32 */
#define CT_TRAMP_HEAD	   13 /* .quad function; call entry_thunk */
#define CT_TRAMP_LANDING   25 /* after jne body (2), lea (5), call body (5) */
#define CT_TRAMP_BODY	   30 /* after jmp return_thunk */
#define CT_TRAMP_MAX	   160
#define CT_MOVED_MAX	   32 /* a prologue instruction is at most 15 bytes */

struct ct_arch_func {
	uintptr_t addr;	    /* the function's first byte, in this process */
	uint32_t size;	    /* from its symbol */
	uint8_t patch_off;  /* where the jump goes: 4 after endbr64, else 0 */
	uint8_t moved;	    /* bytes of whole instructions moved from there */
	uint16_t tramp_len; /* bytes its trampoline takes */
	uint16_t capture;   /* kept above the address in the trampoline's head */
};

/* The head's .quad: the function's address, and a capture index from this bit up. */
#define CT_TRAMP_ID_BITS 48

/* What the analysis needs from the module. */
struct ct_arch_env {
	/* a direct branch or call out of the function: no other may jump into moved bytes */
	void (*target)(void *ctx, uintptr_t to);
	/* may the analysis read there (a jump table)? */
	int (*readable)(void *ctx, uintptr_t addr, size_t len);
	void *ctx;
};

/* Decode the whole function: 0 (CT_SKIP_NONE) if it can be patched, else a CT_SKIP_* reason. */
int ct_arch_analyse(struct ct_arch_func *f, const struct ct_arch_env *env);
/*
 * The entry alone (patch_off, moved, tramp_len), without looking at the rest
 * of the function: for a plan read back from the cache. 0 if it can move.
 */
int ct_arch_plan_entry(struct ct_arch_func *f);
/*
 * Write f's trampoline, to run at address at, into out (tramp_len bytes); 0
 * if out of reach. thunks: the area's (ct_arch_encode_area_thunks, patch.h).
 */
int ct_arch_build_trampoline(const struct ct_arch_func *f, uintptr_t at, uintptr_t thunks,
			     uint8_t *out);
/* The bytes that replace the moved ones: a jump to the trampoline at tramp, then int3s. */
int ct_arch_encode_patch(const struct ct_arch_func *f, uintptr_t tramp, uint8_t *out);

/*
 * For attach's leaving (src/ptrace/attach_rt.c): is a thread stopped where a
 * trampoline's return address is half moved, from the entry stub's return
 * (the frame open, the slot not yet the landing's) to the call of the body,
 * or at the landing, or in a thunk into the runtime (code in [rt_lo,
 * rt_hi))? It is stepped on until it is not. before: the
 * CT_TRAMP_PEEK_BEFORE bytes before the pc (NULL if unreadable), at: the
 * CT_THUNK_LEN bytes from it.
 */
#define CT_TRAMP_PEEK_BEFORE (CT_TRAMP_LANDING - CT_TRAMP_HEAD)
int ct_arch_tramp_unsettled(const uint8_t *before, const uint8_t *at, uint64_t rt_lo,
			    uint64_t rt_hi);

/*
 * Out of line, for the ptrace method: the instruction at code (runtime
 * address orig, avail bytes readable) relocated to run at at, then a jump
 * back to the next one; into out (CT_OOL_MAX bytes). Returns the bytes
 * written, 0 if it cannot run elsewhere; *insn_len gets its length.
 */
#define CT_OOL_MAX 48
int ct_arch_build_ool(const uint8_t *code, size_t avail, uintptr_t orig, uintptr_t at,
		      uint8_t *out, uint8_t *insn_len);

#endif
