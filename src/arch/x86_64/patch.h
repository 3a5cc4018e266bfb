/* SPDX-License-Identifier: MIT */
/*
 * x86-64 code patching: what a patchable entry looks like before we touch it,
 * the call we write there, and the far jump that takes it to the runtime.
 */
#ifndef CT_ARCH_X86_64_PATCH_H
#define CT_ARCH_X86_64_PATCH_H

#include <stdint.h>
#include <string.h>

#define CT_PATCH_LEN 5 /* call rel32 */
#define CT_THUNK_LEN 14 /* jmp *0(%rip); .quad target */

/*
 * -fpatchable-function-entry=5,0: gcc's five 1-byte nops, clang's one 5-byte
 * nop (nopl disp8(%rax,%rax,1), whatever the displacement).
 */
static inline int ct_arch_is_entry_nop(const uint8_t *p)
{
	static const uint8_t gcc_nops[5] = { 0x90, 0x90, 0x90, 0x90, 0x90 };
	static const uint8_t nopl[4] = { 0x0f, 0x1f, 0x44, 0x00 };
	return !memcmp(p, gcc_nops, 5) || !memcmp(p, nopl, 4);
}

/* The rel32 from the end of an instruction (from_end) to to, into out; 0 if out of reach. */
static inline int ct_arch_rel32(uintptr_t from_end, uintptr_t to, uint8_t *out)
{
	int64_t rel = (int64_t)(to - from_end);
	if (rel != (int32_t)rel)
		return 0;
	int32_t r32 = (int32_t)rel;
	memcpy(out, &r32, 4);
	return 1;
}

/* "call to" at at; 0 if to is farther than a rel32 reaches. */
static inline int ct_arch_encode_call(uint8_t out[CT_PATCH_LEN], uintptr_t at, uintptr_t to)
{
	out[0] = 0xe8;
	return ct_arch_rel32(at + CT_PATCH_LEN, to, out + 1);
}

/*
 * The head of a trampoline (relocate.h, libcall.h) at at: ".quad id; call
 * entry_thunk", so the entry stub finds id 13 bytes before its return address.
 */
static inline int ct_arch_encode_tramp_head(uint8_t *out, uintptr_t id, uintptr_t at,
					    uintptr_t entry_thunk)
{
	memcpy(out, &id, 8);
	out[8] = 0xe8;
	return ct_arch_rel32(at + 13, entry_thunk, out + 9);
}

/* An absolute jump to target, reachable by rel32 from the code it serves. */
static inline void ct_arch_encode_thunk(uint8_t out[CT_THUNK_LEN], uintptr_t target)
{
	static const uint8_t jmp_rip[6] = { 0xff, 0x25, 0x00, 0x00, 0x00, 0x00 };
	memcpy(out, jmp_rip, 6);
	memcpy(out + 6, &target, 8);
}

/*
 * The thunks at the start of dynamic patching's area of trampolines
 * (relocate.h): the entry stub's, then the return stub's, which is where
 * each trampoline's landing jumps. Stubs of the runtime (fentry.S).
 */
#define CT_AREA_THUNKS_LEN (2 * CT_THUNK_LEN)
void ct_patch_call_entry(void) __attribute__((visibility("hidden")));
void ct_patch_return(void) __attribute__((visibility("hidden")));

static inline void ct_arch_encode_area_thunks(uint8_t out[CT_AREA_THUNKS_LEN])
{
	ct_arch_encode_thunk(out, (uintptr_t)ct_patch_call_entry);
	ct_arch_encode_thunk(out + CT_THUNK_LEN, (uintptr_t)ct_patch_return);
}

/*
 * The function's first byte, from where its call to the hook returns: the
 * call is "call rel32" (5 bytes) or, in position-independent code, "call
 * *rel32(%rip)" through the GOT (6 bytes), after endbr64 (4 bytes) under
 * -fcf-protection. Inline and vector-free: the fast hooks use it too.
 */
static inline __attribute__((always_inline)) uintptr_t ct_arch_entry_function(uintptr_t call_site)
{
	const uint8_t *p = (const uint8_t *)call_site;
	uintptr_t fn = p[-6] == 0xff && p[-5] == 0x15 ? call_site - 6 : call_site - 5;
	uint32_t before;
	__builtin_memcpy(&before, (const void *)(fn - 4), 4);
	return before == 0xfa1e0ff3u /* endbr64 */ ? fn - 4 : fn;
}

#endif
