/* SPDX-License-Identifier: MIT */
/* Finding and redirecting calls through the GOT (libcall.h). */
#include <string.h>

#include "decode.h"
#include "libcall.h"
#include "relocate.h"

static int ct_rel32_to(uintptr_t from_end, uintptr_t to, uint8_t *out)
{
	int64_t rel = (int64_t)(to - from_end);
	if (rel != (int32_t)rel)
		return 0;
	int32_t r = (int32_t)rel;
	memcpy(out, &r, 4);
	return 1;
}

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
	j->call = 0;
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

int ct_arch_got_jumps(uintptr_t addr, size_t size,
		      void (*found)(void *ctx, const struct ct_got_jump *j), void *ctx)
{
	const uint8_t *code = (const uint8_t *)addr;
	ZydisDecodedInstruction insn;

	for (size_t off = 0; off < size; off += insn.length) {
		if (!ct_x86_decode(code + off, size - off, &insn))
			return -1;
		if (!ct_is_got_jump(&insn))
			continue;
		struct ct_got_jump j = {
			.at = addr + off,
			.len = insn.length,
			.call = insn.raw.modrm.reg == 2,
			.slot = addr + off + insn.length + (intptr_t)insn.raw.disp.value,
		};
		found(ctx, &j);
	}
	return 0;
}

int ct_arch_build_libcall(uintptr_t id, uintptr_t slot, uintptr_t at, uintptr_t entry_thunk,
			  uint8_t out[CT_LIBCALL_TRAMP_LEN])
{
	memcpy(out, &id, 8);
	out[8] = 0xe8;
	out[13] = 0xff; /* jmp *slot(%rip) */
	out[14] = 0x25;
	return ct_rel32_to(at + CT_TRAMP_HEAD, entry_thunk, out + 9) &&
	       ct_rel32_to(at + CT_LIBCALL_TRAMP_LEN, slot, out + 15);
}

int ct_arch_encode_libcall_jump(const struct ct_got_jump *j, uintptr_t tramp, uint8_t *out)
{
	out[0] = j->call ? 0xe8 : 0xe9;
	if (!ct_rel32_to(j->at + 5, tramp + 8, out + 1))
		return 0;
	/* a call returns to the byte after it: a nop on to the next instruction */
	memset(out + 5, j->call ? 0x90 : 0xcc, j->len - 5u);
	return 1;
}
