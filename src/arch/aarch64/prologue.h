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
 * What the prologues read say, by call site: the call site << 16 | the
 * frame record's distance to the entry sp / 8 (0: not traceable). One
 * 64-bit word each, written and read whole: threads share it without a lock.
 */
#define CT_A64_FRAME_CACHE 4096u
extern uint64_t ct_a64_frame_cache[CT_A64_FRAME_CACHE] __attribute__((visibility("hidden")));

/*
 * The distance from a function's frame record (its x29) up to its entry sp,
 * read from the prologue before the "bl _mcount" whose return address is
 * call_site (and kept in the cache); 0 when the prologue is not one we can
 * read, or signs its return address (pac-ret): that call is then not traced.
 */
uintptr_t ct_a64_mcount_frame(uintptr_t call_site) __attribute__((visibility("hidden")));

static inline uint64_t *ct_a64_frame_entry(uintptr_t call_site)
{
	return &ct_a64_frame_cache[(call_site >> 2) % CT_A64_FRAME_CACHE];
}

/* The cached distance: 1 if known (*size then 0 for a call not traced), 0 if not yet read. */
static inline __attribute__((always_inline)) int ct_a64_frame_cached(uintptr_t call_site,
								     uintptr_t *size)
{
	uint64_t e = __atomic_load_n(ct_a64_frame_entry(call_site), __ATOMIC_RELAXED);
	if (e >> 16 != call_site)
		return 0;
	*size = (uintptr_t)(e & 0xffff) * 8;
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
