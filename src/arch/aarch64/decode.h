/* SPDX-License-Identifier: MIT */
/*
 * The aarch64 instructions that matter to patching, decoded by their fixed
 * fields: every instruction is one 32-bit word, and only these read the pc.
 */
#ifndef CT_ARCH_AARCH64_DECODE_H
#define CT_ARCH_AARCH64_DECODE_H

#include <stdint.h>

enum ct_a64_kind {
	CT_A64_OTHER,	  /* does not read the pc */
	CT_A64_B,	  /* b imm26 */
	CT_A64_BL,	  /* bl imm26 */
	CT_A64_BCOND,	  /* b.cond imm19 */
	CT_A64_CBZ,	  /* cbz/cbnz imm19 */
	CT_A64_TBZ,	  /* tbz/tbnz imm14 */
	CT_A64_ADR,	  /* adr: pc + imm21 */
	CT_A64_ADRP,	  /* adrp: pc's page + imm21 pages */
	CT_A64_LDR_LIT,	  /* ldr/ldrsw (general register) literal */
	CT_A64_LDR_LIT_V, /* ldr (s, d or q register) literal */
	CT_A64_PRFM_LIT,  /* prfm literal: a hint */
	CT_A64_BR,	  /* br/blr/ret through a register: leaves, or a table */
};

struct ct_a64_insn {
	uint32_t word;
	uint8_t kind;	  /* enum ct_a64_kind */
	uint8_t rt;	  /* the register written (adr, adrp, ldr literal) */
	uintptr_t target; /* what it addresses, for the kinds that read the pc */
};

/* Decode the word at pc. */
void ct_a64_decode(uint32_t word, uintptr_t pc, struct ct_a64_insn *insn);

/* A branch whose target is known (b, bl, b.cond, cbz/cbnz, tbz/tbnz). */
static inline int ct_a64_is_direct_branch(const struct ct_a64_insn *i)
{
	return i->kind >= CT_A64_B && i->kind <= CT_A64_TBZ;
}

#endif
