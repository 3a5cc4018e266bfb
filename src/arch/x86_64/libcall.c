/* SPDX-License-Identifier: MIT */
/* Finding and redirecting calls through the GOT (libcall.h). */
#include <string.h>

#include "decode.h"
#include "libcall.h"
#include "patch.h"
#include "relocate.h"

int ct_arch_plt_jump(const uint8_t *p, size_t len, struct ct_got_jump *j)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t off = len >= 4 && !memcmp(p, endbr64, 4) ? 4 : 0;
	size_t start = off;
	int32_t disp;

	if (off < len && p[off] == 0xf2) /* bnd, from -z bndplt */
		off++;
	if (off + 6 > len || p[off] != 0xff || p[off + 1] != 0x25)
		return 0;
	memcpy(&disp, p + off + 2, 4);
	j->at = (uintptr_t)p + start;
	j->len = (uint8_t)(off + 6 - start);
	j->slot = (uintptr_t)p + off + 6 + (intptr_t)disp;
	j->kind = CT_GOT_JUMP;
	return 1;
}

/* call *x(%rip) is ff /2, jmp *x(%rip) ff /4; a bnd or notrack prefix may come first. */
static int ct_is_got_jump(const ZydisDecodedInstruction *insn)
{
	if (insn->opcode_map != ZYDIS_OPCODE_MAP_DEFAULT || insn->opcode != 0xff ||
	    !ct_x86_is_rip_relative(insn) || insn->length > 7)
		return 0;
	return insn->raw.modrm.reg == 2 || insn->raw.modrm.reg == 4;
}

/* mov x(%rip),%r64: REX.W 8b /r with a disp32, 7 bytes. */
static int ct_is_got_load(const ZydisDecodedInstruction *insn)
{
	return insn->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT && insn->opcode == 0x8b &&
	       insn->length == 7 && insn->raw.rex.W && ct_x86_is_rip_relative(insn);
}

static ZydisRegister ct_full_reg(ZydisRegister r)
{
	return r == ZYDIS_REGISTER_NONE
		       ? r
		       : ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
}

/* Does the instruction read r, other than to call or jump through it? */
static int ct_reads_reg(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops,
			ZydisRegister r)
{
	int through = insn->mnemonic == ZYDIS_MNEMONIC_CALL || insn->mnemonic == ZYDIS_MNEMONIC_JMP;
	for (unsigned i = 0; i < insn->operand_count; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER && ct_full_reg(op->reg.value) == r &&
		    (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ) && !(through && i == 0))
			return 1;
		if (op->type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    (ct_full_reg(op->mem.base) == r || ct_full_reg(op->mem.index) == r))
			return 1;
	}
	return 0;
}

static int ct_caller_saved(ZydisRegister r)
{
	return r == ZYDIS_REGISTER_RAX || r == ZYDIS_REGISTER_RCX || r == ZYDIS_REGISTER_RDX ||
	       r == ZYDIS_REGISTER_RSI || r == ZYDIS_REGISTER_RDI ||
	       (r >= ZYDIS_REGISTER_R8 && r <= ZYDIS_REGISTER_R11);
}

/* Does it set all of r (a 32-bit write clears the top half) without reading it? */
static int ct_kills_reg(const ZydisDecodedInstruction *insn, const ZydisDecodedOperand *ops,
			ZydisRegister r)
{
	for (unsigned i = 0; i < insn->operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    ct_full_reg(ops[i].reg.value) == r &&
		    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) && ops[i].size >= 32)
			return 1;
	return 0;
}

/*
 * Does the value loaded into r at [at, at + len) of the function only ever
 * serve as a call or jump target? Followed from the load to where r is set
 * anew (or, for a register calls clobber, to the next call, or to a return):
 * every read in between must be a call or jump through r, and every branch
 * in between must stay in between, so the value goes nowhere else.
 */
static int ct_load_feeds_only_calls(uintptr_t addr, size_t size, size_t at, size_t len,
				    ZydisRegister r)
{
	const uint8_t *code = (const uint8_t *)addr;
	ZydisDecodedInstruction insn;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uintptr_t lo = addr + at + len, hi = addr + size, far_lo = UINTPTR_MAX, far_hi = 0;
	int calls = 0;

	for (size_t off = at + len; off < size; off += insn.length) {
		if (!ct_x86_decode_full(code + off, size - off, &insn, ops))
			return 0;
		int call = insn.meta.category == ZYDIS_CATEGORY_CALL;
		if (ct_reads_reg(&insn, ops, r))
			return 0;
		int through = (call || insn.mnemonic == ZYDIS_MNEMONIC_JMP) &&
			      !insn.raw.imm[0].is_relative &&
			      ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
			      ct_full_reg(ops[0].reg.value) == r;
		calls |= through;
		if (insn.raw.imm[0].is_relative && !call) {
			uintptr_t to = addr + off + insn.length + (intptr_t)insn.raw.imm[0].value.s;
			far_lo = to < far_lo ? to : far_lo;
			far_hi = to > far_hi ? to : far_hi;
		} else if (insn.meta.category == ZYDIS_CATEGORY_UNCOND_BR && !through) {
			return 0; /* an indirect jump elsewhere: where to, we cannot tell */
		}
		if (insn.meta.category == ZYDIS_CATEGORY_RET || ct_kills_reg(&insn, ops, r) ||
		    (call && ct_caller_saved(r))) {
			hi = addr + off + insn.length;
			break;
		}
	}
	return calls && (far_hi == 0 || (far_lo >= lo && far_hi < hi));
}

int ct_arch_got_jumps(uintptr_t addr, size_t size,
		      void (*found)(void *ctx, const struct ct_got_jump *j), void *ctx)
{
	const uint8_t *code = (const uint8_t *)addr;
	ZydisDecodedInstruction insn;

	for (size_t off = 0; off < size; off += insn.length) {
		if (!ct_x86_decode(code + off, size - off, &insn))
			return -1;
		struct ct_got_jump j = {
			.at = addr + off,
			.len = insn.length,
			.slot = addr + off + insn.length + (intptr_t)insn.raw.disp.value,
		};
		if (ct_is_got_jump(&insn)) {
			j.kind = insn.raw.modrm.reg == 2 ? CT_GOT_CALL : CT_GOT_JUMP;
			found(ctx, &j);
		} else if (ct_is_got_load(&insn)) {
			ZydisRegister r =
				ZYDIS_REGISTER_RAX + (insn.raw.modrm.reg | insn.raw.rex.R << 3);
			j.kind = CT_GOT_LOAD;
			if (ct_load_feeds_only_calls(addr, size, off, insn.length, r))
				found(ctx, &j);
		}
	}
	return 0;
}

int ct_arch_build_libcall(uintptr_t id, uintptr_t slot, uintptr_t at, uintptr_t entry_thunk,
			  uint8_t out[CT_LIBCALL_TRAMP_LEN])
{
	out[13] = 0xff; /* jmp *slot(%rip) */
	out[14] = 0x25;
	return ct_arch_encode_tramp_head(out, id, at, entry_thunk) &&
	       ct_arch_rel32(at + CT_LIBCALL_TRAMP_LEN, slot, out + 15);
}

int ct_arch_encode_libcall_jump(const struct ct_got_jump *j, uintptr_t tramp, uint8_t *out)
{
	if (j->kind == CT_GOT_LOAD) { /* mov x(%rip),%r -> lea tramp(%rip),%r: same REX and ModRM */
		memcpy(out, (const void *)j->at, j->len);
		out[1] = 0x8d;
		return ct_arch_rel32(j->at + j->len, tramp + 8, out + 3);
	}
	out[0] = j->kind == CT_GOT_CALL ? 0xe8 : 0xe9;
	if (!ct_arch_rel32(j->at + 5, tramp + 8, out + 1))
		return 0;
	/* a call returns to the byte after it: a nop on to the next instruction */
	memset(out + 5, j->kind == CT_GOT_CALL ? 0x90 : 0xcc, j->len - 5u);
	return 1;
}
