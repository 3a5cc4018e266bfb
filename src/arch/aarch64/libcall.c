// SPDX-License-Identifier: MIT
/* Library calls through aarch64 PLT entries and -fno-plt call sites (libcall.h). */
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "libcall.h"
#include "patch.h"

#define CT_A64_BTI_C	  0xd503245fu
#define CT_A64_AUTIA1716  0xd503219fu
#define CT_A64_BR_X17	  0xd61f0220u
#define CT_A64_GOT_WINDOW 16 /* instructions from a GOT load to the call through it, at most */

int ct_arch_plt_jump(const uint8_t *p, size_t len, struct ct_got_jump *j)
{
	struct ct_a64_insn adrp;
	size_t at = len >= 4 && ct_a64_word(p) == CT_A64_BTI_C ? 4 : 0; /* -z force-bti */
	if (len < at + 16)
		return 0;
	uint32_t ldr = ct_a64_word(p + at + 4), add = ct_a64_word(p + at + 8);
	size_t br = at + 12;
	if (len >= br + 8 && ct_a64_word(p + br) == CT_A64_AUTIA1716) /* -z pac-plt */
		br += 4;
	ct_a64_decode(ct_a64_word(p + at), (uintptr_t)p + at, &adrp);
	/* adrp x16; ldr x17, [x16, #imm12 * 8]; add x16, x16, #imm12; [autia1716;] br x17 */
	if (adrp.kind != CT_A64_ADRP || adrp.rt != 16 || (ldr & 0xffc003ffu) != 0xf9400211u ||
	    (add & 0xffc003ffu) != 0x91000210u || ct_a64_word(p + br) != CT_A64_BR_X17)
		return 0;
	uintptr_t off = ((ldr >> 10) & 0xfff) * 8;
	if (off != ((add >> 10) & 0xfff))
		return 0;
	j->at = (uintptr_t)p + at; /* the landing pad stays */
	j->slot = adrp.target + off;
	j->len = (uint8_t)(br + 4 - at > 16 ? 16 : br + 4 - at); /* the br after autia1716 stays */
	j->kind = CT_GOT_JUMP;
	return 1;
}

/* ---- -fno-plt: adrp xn, GOT page; ldr xt, [xn, #slot]; ... blr xt (br xt) ---------- */

/* ldr xt, [xn, #imm12 * 8]: its xt, xn and offset; 0 if the word is not one. */
static int ct_a64_ldr_x_imm(uint32_t w, unsigned *rt, unsigned *rn, uintptr_t *off)
{
	if ((w & 0xffc00000u) != 0xf9400000u)
		return 0;
	*rt = w & 31;
	*rn = (w >> 5) & 31;
	*off = ((w >> 10) & 0xfff) * 8;
	return 1;
}

/* A store (of general or vector registers): its rt and rt2 are read, not written. */
static int ct_a64_is_store(uint32_t w)
{
	int single = (w & 0x3b000000u) == 0x39000000u || /* unsigned offset */
		     (w & 0x3b200000u) == 0x38000000u;	 /* unscaled, pre/post-indexed */
	int pair = (w & 0x3a000000u) == 0x28000000u;
	return (single && !(w & 0x00c00000u)) || (pair && !(w & 0x00400000u));
}

/*
 * Might the instruction change register r? Said yes to whenever a field
 * that may be written holds r, and for what is not followed, so some rare
 * sites are left alone, never one wrongly taken.
 */
static int ct_a64_may_write(uint32_t w, unsigned r)
{
	int ls = (w & 0x0a000000u) == 0x08000000u;
	if (!ls)
		return (w & 31) == r;
	if ((w & 0x3f000000u) == 0x08000000u && ((w >> 16) & 31) == r)
		return 1; /* exclusives and cas write rs */
	if ((w & 0x3b000000u) != 0x39000000u && ((w >> 5) & 31) == r)
		return 1; /* write-back forms update rn */
	if (ct_a64_is_store(w))
		return 0;
	return (w & 31) == r || ((w & 0x3a000000u) == 0x28000000u && ((w >> 10) & 31) == r);
}

/* Branches, exceptions and system instructions, but hints (nop, bti, pac*sp) */
static int ct_a64_is_control(uint32_t w)
{
	return (w & 0x1c000000u) == 0x14000000u && (w & 0xfffff01fu) != 0xd503201fu;
}

/* Mark, in a bitmap of the function's instructions, those a direct branch goes to. */
static void ct_mark_targets(uintptr_t addr, size_t n, uint8_t *map)
{
	struct ct_a64_insn in;
	for (size_t i = 0; i < n; i++) {
		ct_a64_decode(ct_a64_word((const uint8_t *)addr + 4 * i), addr + 4 * i, &in);
		if (!ct_a64_is_direct_branch(&in) || in.target < addr || in.target >= addr + 4 * n)
			continue;
		size_t t = (in.target - addr) / 4;
		map[t / 8] |= (uint8_t)(1u << (t % 8));
	}
}

static int ct_is_target(const uint8_t *map, size_t i)
{
	return map[i / 8] >> (i % 8) & 1;
}

/* The GOT slot instruction i loads (from an adrp of its base before it); 0 if none. */
static uintptr_t ct_got_load(uintptr_t addr, size_t i, const uint8_t *map, unsigned *rt)
{
	const uint8_t *code = (const uint8_t *)addr;
	struct ct_a64_insn adrp;
	unsigned rn;
	uintptr_t off;
	if (!ct_a64_ldr_x_imm(ct_a64_word(code + 4 * i), rt, &rn, &off) || ct_is_target(map, i))
		return 0;
	for (size_t k = i; k-- > 0 && i - k <= CT_A64_GOT_WINDOW;) {
		uint32_t w = ct_a64_word(code + 4 * k);
		ct_a64_decode(w, addr + 4 * k, &adrp);
		if (adrp.kind == CT_A64_ADRP && adrp.rt == rn)
			return adrp.target + off;
		if (ct_is_target(map, k) || ct_a64_is_control(w) || ct_a64_may_write(w, rn))
			return 0;
	}
	return 0;
}

#define CT_VAL_BAD UINTPTR_MAX /* not one slot's value (0: not reached yet) */

static uintptr_t ct_join(uintptr_t a, uintptr_t b)
{
	return !a ? b : !b || a == b ? a : CT_VAL_BAD;
}

/* A register is kept across calls: x19-x28 (x29 and x30 are not followed). */
static int ct_callee_saved(unsigned r)
{
	return r >= 19 && r <= 28;
}

/* What register r holds after instruction k, given what it held before. */
static uintptr_t ct_transfer(uint32_t w, uintptr_t in, unsigned r, uintptr_t loaded)
{
	if (loaded)
		return loaded;
	if (ct_a64_may_write(w, r))
		return CT_VAL_BAD;
	/* bl, blr (and its pointer-authenticating forms): a call may change it */
	if (((w & 0xfc000000u) == 0x94000000u || (w & 0xfe3f0000u) == 0xd63f0000u) &&
	    !ct_callee_saved(r))
		return CT_VAL_BAD;
	return in;
}

/*
 * Which GOT slot's value register r holds before each instruction (val[k]:
 * 0 unreached, CT_VAL_BAD: none or more than one), from the function's
 * entry along its branches. loads[k]: the slot instruction k loads into r.
 */
static void ct_flow(const uint8_t *code, uintptr_t addr, size_t n, unsigned r,
		    const uintptr_t *loads, uintptr_t *val)
{
	struct ct_a64_insn in;
	int changed = 1;
	memset(val, 0, n * sizeof(*val));
	val[0] = CT_VAL_BAD; /* the caller's */
	for (size_t k = 1; k < n; k++) /* bti j, bti jc: a jump table may come here */
		if ((ct_a64_word(code + 4 * k) & 0xffffffbfu) == 0xd503249fu)
			val[k] = CT_VAL_BAD;
	while (changed) {
		changed = 0;
		for (size_t k = 0; k < n; k++) {
			if (!val[k])
				continue;
			uint32_t w = ct_a64_word(code + 4 * k);
			uintptr_t out = ct_transfer(w, val[k], r, loads[k]);
			ct_a64_decode(w, addr + 4 * k, &in);
			size_t succ[2], ns = 0;
			int uncond = in.kind == CT_A64_B ||
				     (in.kind == CT_A64_BR && !(w & 0x00200000u)); /* not blr */
			if (!uncond && k + 1 < n)
				succ[ns++] = k + 1;
			if (ct_a64_is_direct_branch(&in) && in.kind != CT_A64_BL &&
			    in.target >= addr && in.target < addr + 4 * n)
				succ[ns++] = (in.target - addr) / 4;
			for (size_t j = 0; j < ns; j++) {
				uintptr_t v = ct_join(val[succ[j]], out);
				if (v != val[succ[j]]) {
					val[succ[j]] = v;
					changed = 1;
				}
			}
		}
	}
}

/*
 * Jumps through a table (br xn but a tail call through x16/x17 or a
 * GOT-loaded register) go where the flow cannot follow.
 */
static int ct_has_table_jump(const uint8_t *code, size_t n, const uintptr_t *loaded_into)
{
	for (size_t k = 0; k < n; k++) {
		uint32_t w = ct_a64_word(code + 4 * k);
		unsigned rn = (w >> 5) & 31;
		if ((w & 0xfffffc1fu) == 0xd61f0000u && rn != 16 && rn != 17 && !loaded_into[rn])
			return 1;
	}
	return 0;
}

int ct_arch_got_jumps(uintptr_t addr, size_t size,
		      void (*found)(void *ctx, const struct ct_got_jump *j), void *ctx)
{
	const uint8_t *code = (const uint8_t *)addr;
	size_t n = size / 4;
	uintptr_t loaded_into[32] = { 0 }; /* registers some GOT load sets */
	unsigned rt;
	if (addr % 4 || !n || n > (1u << 20))
		return 0;
	uint8_t *map = calloc((n + 7) / 8, 1);
	uintptr_t *loads = calloc(n, sizeof(*loads)), *slots = calloc(n, sizeof(*slots));
	uintptr_t *val = calloc(n, sizeof(*val));
	int ret = -1;
	if (!map || !loads || !slots || !val)
		goto out;
	ct_mark_targets(addr, n, map);
	for (size_t i = 1; i < n; i++) {
		uintptr_t slot = ct_got_load(addr, i, map, &rt);
		if (slot && !(slot % 8)) {
			slots[i] = slot;
			loaded_into[rt] = 1;
		}
	}
	ret = 0;
	if (ct_has_table_jump(code, n, loaded_into))
		goto out;
	for (unsigned r = 0; r < 31; r++) {
		if (!loaded_into[r])
			continue;
		for (size_t k = 0; k < n; k++)
			loads[k] = slots[k] && (ct_a64_word(code + 4 * k) & 31) == r ? slots[k] : 0;
		ct_flow(code, addr, n, r, loads, val);
		for (size_t k = 0; k < n; k++) {
			uint32_t w = ct_a64_word(code + 4 * k);
			if ((w != (0xd63f0000u | r << 5) && w != (0xd61f0000u | r << 5)) ||
			    !val[k] || val[k] == CT_VAL_BAD)
				continue;
			struct ct_got_jump j = { addr + 4 * k, val[k], 4,
						 w & 0x00200000u ? CT_GOT_CALL : CT_GOT_JUMP };
			found(ctx, &j);
		}
	}
out:
	free(map);
	free(loads);
	free(slots);
	free(val);
	return ret;
}

int ct_arch_build_libcall(uintptr_t id, uintptr_t slot, uintptr_t at, uintptr_t entry_thunk,
			  uint8_t out[CT_LIBCALL_TRAMP_LEN])
{
	uint32_t bl;
	if (!ct_a64_branch(&bl, at + 12, entry_thunk, 1))
		return 0;
	memcpy(out, &id, 8);
	ct_a64_put(out + 8, CT_A64_MOV_X9_X30);
	ct_a64_put(out + 12, bl);
	ct_a64_put(out + 16, 0x58000070u); /* ldr x16, .+12 */
	ct_a64_put(out + 20, 0xf9400211u); /* ldr x17, [x16] */
	ct_a64_put(out + 24, CT_A64_BR_X17);
	memcpy(out + 28, &slot, 8);
	return 1;
}

int ct_arch_encode_libcall_jump(const struct ct_got_jump *j, uintptr_t tramp, uint8_t *out)
{
	uint32_t b;
	if (!ct_a64_branch(&b, j->at, tramp + 8, j->kind == CT_GOT_CALL))
		return 0;
	ct_a64_put(out, b);
	for (unsigned i = 4; i + 4 <= j->len; i += 4)
		ct_a64_put(out + i, CT_A64_BRK);
	return 1;
}
