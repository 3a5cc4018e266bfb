/* SPDX-License-Identifier: MIT */
/* One x86-64 instruction decoded with Zydis, for the patching code. */
#ifndef CT_ARCH_X86_64_DECODE_H
#define CT_ARCH_X86_64_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <Zydis/Zydis.h>

/* 1 if the bytes at p (len of them readable) start with a valid instruction. */
int ct_x86_decode(const uint8_t *p, size_t len, ZydisDecodedInstruction *insn);

/* The same with its operands (what it reads and writes): for the rare cases that need them. */
int ct_x86_decode_full(const uint8_t *p, size_t len, ZydisDecodedInstruction *insn,
		       ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT]);

/* A memory operand addressed as disp32(%rip). */
static inline int ct_x86_is_rip_relative(const ZydisDecodedInstruction *insn)
{
	return (insn->attributes & ZYDIS_ATTRIB_HAS_MODRM) && insn->raw.modrm.mod == 0 &&
	       insn->raw.modrm.rm == 5;
}

#endif
