/* SPDX-License-Identifier: MIT */
/*
 * aarch64 -pg: where a function calling _mcount was entered (prologue.c),
 * and the frame's key in the shadow stack, for the fast hook (built
 * general-registers only, calling nothing: it reads the cache alone) and
 * the full one.
 */
#ifndef CT_ARCH_AARCH64_PROLOGUE_H
#define CT_ARCH_AARCH64_PROLOGUE_H

#include <stdint.h>

/*
 * What the prologues read say, by call site: the call site << 16 | how its
 * return address is signed << 14 | the frame record's distance to the entry
 * sp / 8 (0: not traceable). One 64-bit word each, written and read whole:
 * threads share it without a lock.
 */
#define CT_A64_FRAME_CACHE 4096u
#define CT_A64_FRAME_MASK  0x3fffu
#define CT_A64_PAC_A	   1u /* paciasp: key A, the entry sp as modifier */
#define CT_A64_PAC_B	   2u /* pacibsp */
extern uint64_t ct_a64_frame_cache[CT_A64_FRAME_CACHE] __attribute__((visibility("hidden")));

/*
 * The distance from a function's frame record (its x29) up to its entry sp,
 * read from the prologue before the "bl _mcount" whose return address is
 * call_site (and kept in the cache); 0 when the prologue is not one we can
 * read: that call is then not traced. *pac: CT_A64_PAC_A or _B if the
 * function signs its return address, else 0.
 */
uintptr_t ct_a64_mcount_frame(uintptr_t call_site, unsigned *pac)
	__attribute__((visibility("hidden")));

/* A module's code in [lo, hi) went away: what was read of it is forgotten. */
void ct_a64_frames_forget(uintptr_t lo, uintptr_t hi) __attribute__((visibility("hidden")));

/* mcount.S: value signed (pacia1716, pacib1716) or stripped (xpaclri) as by the function itself;
 * hint instructions, which leave value as it is on a processor without pointer authentication */
uint64_t ct_a64_pac_sign(uint64_t value, uint64_t modifier, unsigned pac)
	__attribute__((visibility("hidden")));
uint64_t ct_a64_pac_strip(uint64_t value) __attribute__((visibility("hidden")));

static inline uint64_t *ct_a64_frame_entry(uintptr_t call_site)
{
	return &ct_a64_frame_cache[(call_site >> 2) % CT_A64_FRAME_CACHE];
}

/* The cached distance: 1 if known (*size then 0 for a call not traced), 0 if not yet read. */
static inline __attribute__((always_inline)) int ct_a64_frame_cached(uintptr_t call_site,
								     uintptr_t *size, unsigned *pac)
{
	uint64_t e = __atomic_load_n(ct_a64_frame_entry(call_site), __ATOMIC_RELAXED);
	if (e >> 16 != call_site)
		return 0;
	*size = (uintptr_t)(e & CT_A64_FRAME_MASK) * 8;
	*pac = (unsigned)(e >> 14) & 3;
	return 1;
}

/*
 * The key of the frame whose return address is at slot (in its frame record)
 * given its size: 16 bytes below its entry sp, as the patchable entries'
 * stubs keep theirs (entry.S), which the return trampoline finds again. 0:
 * not traced (an sp at a call is 16-byte aligned, and the caller's frame
 * record, if it keeps one, is above it: else the prologue was misread).
 */
static inline __attribute__((always_inline)) uintptr_t ct_a64_mcount_key(const uintptr_t *slot,
									   uintptr_t size)
{
	uintptr_t entry_sp = (uintptr_t)(slot - 1) + size, caller_fp = slot[-1];
	if (!size || entry_sp % 16 || (caller_fp && caller_fp < entry_sp))
		return 0;
	return entry_sp - 16;
}

#endif
