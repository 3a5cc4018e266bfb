// SPDX-License-Identifier: MIT
/*
 * Moving a function's first instruction to its trampoline (relocate.h).
 *
 * One fixed-size instruction moves, so the questions are only: can it run
 * elsewhere, and does any branch land on it. A pc-relative instruction is
 * rewritten to compute the same thing at its new place:
 *   - adr/adrp: the value, loaded from a literal after the code;
 *   - ldr literal: the address from a literal, then the load through it;
 *   - b/bl: a b/bl when in reach, else through x16 (bl also sets x30 to the
 *     original next instruction, so the callee returns into the function);
 *   - b.cond/cbz/cbnz/tbz/tbnz: the same condition over a short hop to a far
 *     jump; prfm literal: dropped (a hint).
 * Branches from the function itself (or, through the caller, from others)
 * that land on the moved instruction, a loop back to the entry in
 * particular, skip the function: every turn would count as a call.
 */
#include <string.h>

#include "../../common/pool.h"
#include "decode.h"
#include "patch.h"
#include "relocate.h"

#define CT_A64_LDR_X16_LIT(words) (0x58000010u | (uint32_t)(words) << 5) /* ldr x16, .+4*words */
#define CT_A64_BR_X16		  0xd61f0200u

struct ct_a64_out {
	uint32_t *p;  /* the next word */
	uintptr_t at; /* its address when it runs */
};

static void ct_emit(struct ct_a64_out *o, uint32_t w)
{
	ct_a64_put((uint8_t *)o->p++, w);
	o->at += 4;
}

static void ct_emit_quad(struct ct_a64_out *o, uint64_t v)
{
	memcpy(o->p, &v, 8);
	o->p += 2;
	o->at += 8;
}

/* "ldr xN, lit; b over; lit: .quad v": xN = v. */
static void ct_load_const(struct ct_a64_out *o, unsigned reg, uint64_t v)
{
	ct_emit(o, 0x58000000u | 2u << 5 | reg); /* ldr xN, .+8 */
	ct_emit(o, 0x14000003u);		 /* b .+12 */
	ct_emit_quad(o, v);
}

/* Go to to, from anywhere: a b when it reaches, else through x16. */
static void ct_jump(struct ct_a64_out *o, uintptr_t to)
{
	uint32_t b;
	if (ct_a64_branch(&b, o->at, to, 0)) {
		ct_emit(o, b);
		return;
	}
	ct_emit(o, CT_A64_LDR_X16_LIT(2));
	ct_emit(o, CT_A64_BR_X16);
	ct_emit_quad(o, to);
}

/* The same conditional branch, aimed 20 bytes ahead (over the far fall-through jump). */
static uint32_t ct_retarget_short(const struct ct_a64_insn *i)
{
	switch (i->kind) {
	case CT_A64_BCOND:
	case CT_A64_CBZ:
		return (i->word & ~(0x7ffffu << 5)) | 5u << 5;
	default: /* tbz */
		return (i->word & ~(0x3fffu << 5)) | 5u << 5;
	}
}

/* Words a relocated instruction takes, the way back included, at most. */
static int ct_moved_words(const struct ct_a64_insn *i)
{
	switch (i->kind) {
	case CT_A64_B:
		return 4;
	case CT_A64_BL:
		return 4 + 4;
	case CT_A64_BCOND:
	case CT_A64_CBZ:
	case CT_A64_TBZ:
		return 1 + 4 + 4;
	case CT_A64_ADR:
	case CT_A64_ADRP:
		return 4 + 4;
	case CT_A64_LDR_LIT:
	case CT_A64_LDR_LIT_V:
		return 4 + 1 + 4;
	case CT_A64_PRFM_LIT:
		return 4;
	case CT_A64_BR:
		return 1;
	default:
		return 1 + 4;
	}
}

/* The far form of ct_jump always: a fixed size to branch over. */
static void ct_jump_far(struct ct_a64_out *o, uintptr_t to)
{
	ct_emit(o, CT_A64_LDR_X16_LIT(2));
	ct_emit(o, CT_A64_BR_X16);
	ct_emit_quad(o, to);
}

/* The instruction i from its place (i was decoded there) into o; then on to next unless it left. */
static void ct_relocate_one(const struct ct_a64_insn *i, uintptr_t next, struct ct_a64_out *o)
{
	switch (i->kind) {
	case CT_A64_BL:
		ct_load_const(o, 30, next); /* the callee returns into the function */
		ct_jump(o, i->target);
		return;
	case CT_A64_B:
		ct_jump(o, i->target);
		return;
	case CT_A64_BCOND:
	case CT_A64_CBZ:
	case CT_A64_TBZ:
		ct_emit(o, ct_retarget_short(i));
		ct_jump_far(o, next); /* not taken */
		ct_jump(o, i->target);
		return;
	case CT_A64_ADR:
	case CT_A64_ADRP:
		ct_load_const(o, i->rt, i->target);
		break;
	case CT_A64_LDR_LIT: {
		unsigned opc = i->word >> 30;
		ct_load_const(o, 16, i->target);
		/* ldr wt / ldr xt / ldrsw xt, [x16] */
		static const uint32_t ops[3] = { 0xb9400200u, 0xf9400200u, 0xb9800200u };
		ct_emit(o, ops[opc] | i->rt);
		break;
	}
	case CT_A64_LDR_LIT_V: {
		unsigned opc = i->word >> 30;
		ct_load_const(o, 16, i->target);
		/* ldr st / dt / qt, [x16] */
		static const uint32_t ops[3] = { 0xbd400200u, 0xfd400200u, 0x3dc00200u };
		ct_emit(o, ops[opc] | i->rt);
		break;
	}
	case CT_A64_PRFM_LIT:
		break;
	default:
		ct_emit(o, i->word);
		if (i->kind == CT_A64_BR)
			return;
	}
	ct_jump(o, next);
}

static int ct_entry_off(const struct ct_arch_func *f)
{
	return f->size >= 8 && ct_a64_is_landing_pad(ct_a64_word((const uint8_t *)f->addr)) ? 4 : 0;
}

int ct_arch_plan_entry(struct ct_arch_func *f)
{
	struct ct_a64_insn i;
	f->patch_off = (uint8_t)ct_entry_off(f);
	if (f->patch_off + 4u > f->size)
		return CT_SKIP_TOO_SHORT;
	uintptr_t at = f->addr + f->patch_off;
	ct_a64_decode(ct_a64_word((const uint8_t *)at), at, &i);
	if (i.word == CT_A64_PACIASP || (i.word & 0xfffffc1fu) == 0xd4200000u /* brk */)
		return CT_SKIP_INSTRUCTION; /* signs x30 with sp: must run in place */
	f->moved = 4;
	f->tramp_len = (uint16_t)(CT_TRAMP_HEAD + 4 * ct_moved_words(&i));
	return CT_SKIP_NONE;
}

int ct_arch_analyse(struct ct_arch_func *f, const struct ct_arch_env *env)
{
	const uint8_t *code = (const uint8_t *)f->addr;
	int why = ct_arch_plan_entry(f);
	if (why)
		f->moved = 0;
	uintptr_t lo = f->addr + f->patch_off;
	for (size_t off = 0; off + 4 <= f->size; off += 4) {
		struct ct_a64_insn i;
		ct_a64_decode(ct_a64_word(code + off), f->addr + off, &i);
		if (!ct_a64_is_direct_branch(&i))
			continue;
		/* a loop back to the entry: each turn would count as a call */
		if (!why && i.kind != CT_A64_BL && i.target >= f->addr && i.target < lo + f->moved)
			why = CT_SKIP_BRANCH_IN;
		if (i.target < f->addr || i.target >= f->addr + f->size)
			env->target(env->ctx, i.target);
	}
	return why;
}

int ct_arch_build_trampoline(const struct ct_arch_func *f, uintptr_t at, uintptr_t entry_thunk,
			     uint8_t *out)
{
	struct ct_a64_out o = { (uint32_t *)(void *)out, at };
	struct ct_a64_insn i;
	uint32_t bl;
	uintptr_t from = f->addr + f->patch_off;

	ct_emit_quad(&o, f->addr | (uint64_t)f->capture << CT_TRAMP_ID_BITS);
	ct_emit(&o, CT_A64_MOV_X9_X30);
	if (!ct_a64_branch(&bl, o.at, entry_thunk, 1))
		return 0;
	ct_emit(&o, bl);
	ct_a64_decode(ct_a64_word((const uint8_t *)from), from, &i);
	ct_relocate_one(&i, from + 4, &o);
	return (uintptr_t)o.p - (uintptr_t)out <= f->tramp_len;
}

int ct_arch_encode_patch(const struct ct_arch_func *f, uintptr_t tramp, uint8_t *out)
{
	uint32_t b;
	if (!ct_a64_branch(&b, f->addr + f->patch_off, tramp + 8, 0))
		return 0;
	ct_a64_put(out, b);
	return 1;
}

int ct_arch_build_ool(const uint8_t *code, size_t avail, uintptr_t orig, uintptr_t at, uint8_t *out,
		      uint8_t *insn_len)
{
	struct ct_a64_out o = { (uint32_t *)(void *)out, at };
	struct ct_a64_insn i;
	if (avail < 4)
		return 0;
	ct_a64_decode(ct_a64_word(code), orig, &i);
	if ((size_t)ct_moved_words(&i) * 4 > CT_OOL_MAX)
		return 0;
	*insn_len = 4;
	ct_relocate_one(&i, orig + 4, &o);
	return (int)((uintptr_t)o.p - (uintptr_t)out);
}
