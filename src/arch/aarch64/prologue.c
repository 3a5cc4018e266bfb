// SPDX-License-Identifier: MIT
/*
 * -pg on aarch64: gcc and clang call _mcount (mcount.S) after the prologue,
 *
 *	stp	x29, x30, [sp, #-N]!	or	sub	sp, sp, #N
 *	mov	x29, sp				stp	x29, x30, [sp, #M]
 *	...					add	x29, sp, #M
 *	bl	_mcount
 *
 * so the function's return address is already in its frame record, at x29 + 8,
 * where the return trampoline goes. The shadow stack keys a frame by its
 * entry sp (16 bytes below it, as the patchable entries' stubs do: entry.S),
 * because that is what the return trampoline finds again, and a tail call's
 * callee, entered with the same sp, has the same key. x29 alone does not say
 * where the entry sp was (gcc puts the frame record at the bottom of the
 * frame, clang often at its top): the prologue does. We read it backwards
 * from the x29 it sets up to the function's start, adding up what it takes
 * from sp; anything else that moves sp there, and we leave the call
 * untraced rather than guess. A function that starts with paciasp
 * (pacibsp) has signed its return address with the entry sp: the cache says
 * so, and the hooks strip it and sign what they put there (fentry.c).
 */
#include <stdint.h>
#include <string.h>

#include "prologue.h"

uint64_t ct_a64_frame_cache[CT_A64_FRAME_CACHE];

#define CT_MCOUNT_SCAN 64 /* instructions, from the call back to the function's start */

#define CT_A64_XPACLRI 0xd50320ffu /* gcc's own, before "mov x0, x30" */
#define CT_A64_PACIASP 0xd503233fu
#define CT_A64_PACIBSP 0xd503237fu

static uint32_t ct_mc_word(uintptr_t at)
{
	uint32_t w;
	memcpy(&w, (const void *)at, 4);
	return w;
}

/* What a function may end with (or what pads it): the one before ours ends here. */
static int ct_mc_ends(uint32_t w)
{
	return (w & 0x7c000000u) == 0x14000000u || /* b, bl (of a noreturn function) */
	       (w & 0xfe000000u) == 0xd6000000u || /* br, blr, ret */
	       (w & 0xff000000u) == 0xd4000000u || /* svc, brk, hlt */
	       (w & 0xffff0000u) == 0 ||	   /* udf, zero padding */
	       (w & 0xfffff01fu) == 0xd503201fu;   /* hints: nop padding, bti c at a start */
}

/* A conditional branch: in no prologue, and no function ends with one (a stack probe's loop). */
static int ct_mc_cond_branch(uint32_t w)
{
	return (w & 0xff000010u) == 0x54000000u || /* b.cond */
	       (w & 0x7e000000u) == 0x34000000u || /* cbz, cbnz */
	       (w & 0x7e000000u) == 0x36000000u;   /* tbz, tbnz */
}

static int64_t ct_mc_sext(uint32_t v, unsigned bits)
{
	return (int64_t)((uint64_t)v << (64 - bits)) >> (64 - bits);
}

/* add x29, sp, #imm (mov x29, sp included): the frame record's address, sp + *imm. */
static int ct_mc_sets_fp(uint32_t w, uint32_t *imm)
{
	if ((w & 0xff8003ffu) != 0x910003fdu)
		return 0;
	*imm = ((w >> 10) & 0xfff) << (w & (1u << 22) ? 12 : 0);
	return 1;
}

/*
 * What the prologue's instruction w takes from sp, into *taken; for
 * "sub sp, sp, xR" the register is left in *reg for the mov before it.
 * -1: it moves sp in a way we do not read.
 */
static int ct_mc_sp_taken(uint32_t w, uint64_t *taken, int *reg)
{
	unsigned rn = (w >> 5) & 31;

	*taken = 0;
	if ((w & 0xff8003ffu) == 0xd10003ffu) { /* sub sp, sp, #imm{, lsl #12} */
		*taken = ((w >> 10) & 0xfff) << (w & (1u << 22) ? 12 : 0);
		return 0;
	}
	if ((w & 0xffe0ffffu) == 0xcb2063ffu) { /* sub sp, sp, xR (gcc's large frames) */
		*reg = (int)((w >> 16) & 31);
		return 0;
	}
	if ((w & 0x1f000000u) == 0x11000000u && !(w & (1u << 29)) && (w & 31) == 31)
		return -1; /* another add/sub (immediate) writing sp */
	if ((w & 0x1f200000u) == 0x0b200000u && !(w & (1u << 29)) && (w & 31) == 31)
		return -1; /* another add/sub (extended register) writing sp */
	if ((w & 0x3a800000u) == 0x28800000u && rn == 31) { /* a pair, sp written back */
		unsigned opc = w >> 30, simd = (w >> 26) & 1;
		unsigned scale = simd ? 4u << opc : (opc == 2 ? 8 : 4);
		int64_t off = ct_mc_sext((w >> 15) & 0x7f, 7) * scale;
		if ((w & (7u << 22)) != (6u << 22) || off > 0 || (!simd && opc == 1) || opc == 3)
			return -1; /* post-index, a load, or not a plain store pair */
		*taken = (uint64_t)-off;
		return 0;
	}
	if ((w & 0x3b200400u) == 0x38000400u && rn == 31) { /* one register, sp written back */
		int64_t off = ct_mc_sext((w >> 12) & 0x1ff, 9);
		if (!(w & (1u << 11)) || (w & (3u << 22)) || off > 0)
			return -1; /* post-index or a load */
		*taken = (uint64_t)-off;
		return 0;
	}
	return 0;
}

/* movz/movk xR: *val gets their bits (read backwards: movk first); 1 once the movz is seen. */
static int ct_mc_mov_of(uint32_t w, int reg, uint64_t *val, int *seen)
{
	if ((int)(w & 31) != reg)
		return 0;
	unsigned shift = ((w >> 21) & 3) * 16;
	uint64_t bits = (uint64_t)((w >> 5) & 0xffff) << shift;
	if ((w & 0xff800000u) == 0xf2800000u) { /* movk */
		*val |= bits;
		return 0;
	}
	if ((w & 0xff800000u) == 0xd2800000u) { /* movz */
		*val |= bits;
		*seen = 1;
		return 1;
	}
	return -1; /* anything else written to it: not read */
}

static uintptr_t ct_a64_read_prologue(uintptr_t call_site, unsigned *pac)
{
	uintptr_t at = call_site - 4, end = call_site - 4 * CT_MCOUNT_SCAN;
	uint32_t w, fp_off = 0;

	if ((ct_mc_word(at) & 0xfc000000u) != 0x94000000u)
		return 0; /* not called by bl */
	/* back to the instruction that sets x29: what moves sp after it does not matter */
	for (;;) {
		if ((at -= 4) <= end)
			return 0;
		w = ct_mc_word(at);
		if (ct_mc_sets_fp(w, &fp_off))
			break;
		if ((ct_mc_ends(w) && w != CT_A64_XPACLRI) || ct_mc_cond_branch(w))
			return 0;
	}
	/* then on to the start, adding up what was taken from sp before it */
	uint64_t size = 0, val = 0;
	int reg = -1;
	for (;;) {
		uint64_t taken;
		int seen = 0;
		if ((at -= 4) <= end)
			return 0; /* no start found */
		w = ct_mc_word(at);
		if (w == CT_A64_PACIASP || w == CT_A64_PACIBSP) {
			*pac = w == CT_A64_PACIASP ? CT_A64_PAC_A : CT_A64_PAC_B;
			break; /* the function's start (its landing pad too) */
		}
		if (ct_mc_ends(w))
			break;
		if (ct_mc_cond_branch(w))
			return 0;
		if (reg >= 0) {
			if (ct_mc_mov_of(w, reg, &val, &seen) < 0)
				return 0;
			if (seen) {
				size += val;
				reg = -1;
				val = 0;
				continue;
			}
		}
		int by = -1;
		if (ct_mc_sp_taken(w, &taken, &by) < 0 || (by >= 0 && reg >= 0))
			return 0; /* not read, or a second register before the first one's mov */
		if (by >= 0)
			reg = by;
		size += taken;
	}
	if (reg >= 0 || size < (uint64_t)fp_off + 16 || size - fp_off > (UINT64_C(1) << 30) ||
	    (size - fp_off) % 8)
		return 0;
	return (uintptr_t)(size - fp_off);
}

uintptr_t ct_a64_mcount_frame(uintptr_t call_site, unsigned *pac)
{
	uintptr_t size;
	if (ct_a64_frame_cached(call_site, &size, pac))
		return size;
	*pac = 0;
	size = ct_a64_read_prologue(call_site, pac);
	if (!size)
		*pac = 0;
	/* 14 bits of eighths: frames up to 128 KiB are kept, larger ones read again */
	if (call_site >> 48 == 0 && size / 8 <= CT_A64_FRAME_MASK)
		__atomic_store_n(ct_a64_frame_entry(call_site),
				 (uint64_t)call_site << 16 | (uint64_t)*pac << 14 | size / 8,
				 __ATOMIC_RELAXED);
	return size;
}

/* A module went away (dlclose): another may be loaded where its code was. */
void ct_a64_frames_forget(uintptr_t lo, uintptr_t hi)
{
	for (size_t i = 0; i < CT_A64_FRAME_CACHE; i++) {
		uint64_t site = __atomic_load_n(&ct_a64_frame_cache[i], __ATOMIC_RELAXED) >> 16;
		if (site - lo < hi - lo)
			__atomic_store_n(&ct_a64_frame_cache[i], 0, __ATOMIC_RELAXED);
	}
}
