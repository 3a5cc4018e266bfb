// SPDX-License-Identifier: MIT
/* The aarch64 pc-relative instruction classes (Arm ARM, "A64 instruction set encoding"). */
#include "decode.h"

/* The signed field of bits [lo, lo + bits) of w. */
static int64_t ct_a64_field(uint32_t w, int lo, int bits)
{
	uint64_t v = (w >> lo) & ((UINT64_C(1) << bits) - 1);
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

void ct_a64_decode(uint32_t w, uintptr_t pc, struct ct_a64_insn *i)
{
	i->word = w;
	i->kind = CT_A64_OTHER;
	i->rt = (uint8_t)(w & 31);
	i->target = 0;
	if ((w & 0x7c000000u) == 0x14000000u) { /* b, bl */
		i->kind = w >> 31 ? CT_A64_BL : CT_A64_B;
		i->target = pc + (uintptr_t)(ct_a64_field(w, 0, 26) * 4);
	} else if ((w & 0xff000010u) == 0x54000000u) { /* b.cond */
		i->kind = CT_A64_BCOND;
		i->target = pc + (uintptr_t)(ct_a64_field(w, 5, 19) * 4);
	} else if ((w & 0x7e000000u) == 0x34000000u) { /* cbz, cbnz */
		i->kind = CT_A64_CBZ;
		i->target = pc + (uintptr_t)(ct_a64_field(w, 5, 19) * 4);
	} else if ((w & 0x7e000000u) == 0x36000000u) { /* tbz, tbnz */
		i->kind = CT_A64_TBZ;
		i->target = pc + (uintptr_t)(ct_a64_field(w, 5, 14) * 4);
	} else if ((w & 0x1f000000u) == 0x10000000u) { /* adr, adrp: immhi:immlo */
		int64_t imm = ct_a64_field(w, 5, 19) * 4 | ((w >> 29) & 3);
		if (w >> 31) {
			i->kind = CT_A64_ADRP;
			i->target = (pc & ~(uintptr_t)4095) + (uintptr_t)(imm * 4096);
		} else {
			i->kind = CT_A64_ADR;
			i->target = pc + (uintptr_t)imm;
		}
	} else if ((w & 0x3b000000u) == 0x18000000u) { /* load register (literal) */
		unsigned opc = w >> 30, v = (w >> 26) & 1;
		i->target = pc + (uintptr_t)(ct_a64_field(w, 5, 19) * 4);
		if (v)
			i->kind = opc == 3 ? CT_A64_OTHER : CT_A64_LDR_LIT_V;
		else
			i->kind = opc == 3 ? CT_A64_PRFM_LIT : CT_A64_LDR_LIT;
	} else if ((w & 0xfe1f0000u) ==
		   0xd61f0000u) { /* br, blr, ret (and the pointer-auth forms) */
		i->kind = CT_A64_BR;
	}
}
