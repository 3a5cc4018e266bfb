/* SPDX-License-Identifier: MIT */
/*
 * Moving a function's first instructions to its trampoline, with Zydis.
 *
 * Safe means: every byte of the function decodes; no branch, from the
 * function itself or (through the caller's checks) from any other, lands in
 * the bytes we move or loops back to the entry; no jump table whose targets
 * we cannot see; and every moved instruction can run elsewhere:
 *   - RIP-relative operands get their displacement recomputed;
 *   - jmp/jcc become their rel32 forms aimed at the same target;
 *   - a call (direct, or through the GOT) is always the last moved
 *     instruction (it is at least 5 bytes long), so it becomes "push the
 *     original return address, jump to the callee": the callee returns
 *     into the original function and unwinders see a real return address
 *     (the push is a call, for the processor's return stack: ct_push_return);
 *   - loop, jrcxz, xbegin and other calls cannot move: the function is
 *     skipped, never half-patched.
 */
#include <string.h>

#include "../../common/pool.h"
#include "decode.h"
#include "patch.h"
#include "relocate.h"

static int ct_is_branch(const ZydisDecodedInstruction *insn)
{
	return insn->raw.imm[0].is_relative;
}

/* Where a relative branch at ip goes. */
static uintptr_t ct_branch_target(const ZydisDecodedInstruction *insn, uintptr_t ip)
{
	return ip + insn->length + (intptr_t)insn->raw.imm[0].value.s;
}

/* jcc rel8 (70-7f) or rel32 (0f 80-8f): the condition in the opcode's low nibble */
static int ct_is_jcc(const ZydisDecodedInstruction *insn)
{
	return (insn->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT && (insn->opcode & 0xf0) == 0x70) ||
	       (insn->opcode_map == ZYDIS_OPCODE_MAP_0F && (insn->opcode & 0xf0) == 0x80);
}

/* Bytes a moved instruction takes in the trampoline; 0 if it cannot move. */
static int ct_moved_size(const ZydisDecodedInstruction *insn)
{
	switch (insn->meta.category) {
	case ZYDIS_CATEGORY_UNCOND_BR:
		return ct_is_branch(insn) ? 5 : insn->length;
	case ZYDIS_CATEGORY_COND_BR:
		return ct_is_jcc(insn) ? 6 : 0; /* loop, jrcxz and friends have no rel32 form */
	case ZYDIS_CATEGORY_CALL:
		/* call .+6; int3; movl lo,(%rsp); movl hi,4(%rsp); jmp (ct_push_return) */
		if (ct_is_branch(insn))
			return 6 + 7 + 8 + 5;
		return ct_x86_is_rip_relative(insn) ? 6 + 7 + 8 + 6 : 0;
	default:
		if (ct_is_branch(insn)) /* xbegin */
			return 0;
		return insn->length;
	}
}

/* The instructions to move: whole ones covering CT_PATCH_JUMP_LEN bytes. */
static int ct_plan_moved(struct ct_arch_func *f, const uint8_t *code)
{
	size_t off = f->patch_off, tramp = CT_TRAMP_BODY + 5;
	ZydisDecodedInstruction insn;

	while (off < f->patch_off + CT_PATCH_JUMP_LEN) {
		if (off >= f->size)
			return CT_SKIP_TOO_SHORT;
		if (!ct_x86_decode(code + off, f->size - off, &insn))
			return CT_SKIP_UNDECODABLE;
		int n = ct_moved_size(&insn);
		if (!n)
			return CT_SKIP_INSTRUCTION;
		tramp += (size_t)n;
		off += insn.length;
	}
	f->moved = (uint8_t)(off - f->patch_off);
	f->tramp_len = (uint16_t)tramp;
	return CT_SKIP_NONE;
}

/*
 * Jump tables. A switch compiles to "jmp *TABLE(,%reg,8)" (absolute
 * entries) or, in position-independent code, "lea TABLE(%rip),%rb; movslq
 * (%rb,%ri,4),%rx; add %rb,%rx; jmp *%rx" (entries relative to the table).
 * Every entry that lands in the function is a branch target like any other.
 * An indirect jump that is neither (jmp *%rax after loading a function
 * pointer, jmp *8(%rdi)) is a tail call, and lands elsewhere.
 */
#define CT_MAX_TABLE_BASES 16
#define CT_MAX_TABLE_ENTRIES 4096

struct ct_tables {
	uintptr_t lea[16];			 /* the rip-relative address each register got last */
	uintptr_t rel_base[CT_MAX_TABLE_BASES]; /* read by movslq (%base,%idx,4) */
	uintptr_t abs_base[CT_MAX_TABLE_BASES];
	int nrel, nabs;
	int reg_jump; /* jmp *%reg */
	int lost;     /* a table whose base we do not know, or too many */
};

static void ct_add_base(uintptr_t *bases, int *n, uintptr_t base, int *lost)
{
	for (int i = 0; i < *n; i++)
		if (bases[i] == base)
			return;
	if (*n < CT_MAX_TABLE_BASES)
		bases[(*n)++] = base;
	else
		*lost = 1;
}

/* Encodings without REX (VEX, EVEX) are never part of a table dispatch. */
static unsigned ct_rex_bit(const ZydisDecodedInstruction *insn, int r)
{
	if (insn->encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY)
		return 0;
	return r ? insn->raw.rex.R : insn->raw.rex.B;
}

static void ct_note_table_parts(const ZydisDecodedInstruction *insn, uintptr_t ip,
				struct ct_tables *t)
{
	int has_sib = (insn->attributes & ZYDIS_ATTRIB_HAS_SIB) != 0;
	if (insn->mnemonic == ZYDIS_MNEMONIC_LEA && ct_x86_is_rip_relative(insn)) {
		unsigned reg = insn->raw.modrm.reg | ct_rex_bit(insn, 1) << 3;
		t->lea[reg] = ip + insn->length + (intptr_t)insn->raw.disp.value;
	} else if (insn->mnemonic == ZYDIS_MNEMONIC_MOVSXD && has_sib && insn->raw.sib.scale == 2) {
		unsigned base = insn->raw.sib.base | ct_rex_bit(insn, 0) << 3;
		if (t->lea[base])
			ct_add_base(t->rel_base, &t->nrel, t->lea[base], &t->lost);
		else
			t->lost = 1;
	} else if (insn->meta.category == ZYDIS_CATEGORY_UNCOND_BR && !ct_is_branch(insn)) {
		if (insn->raw.modrm.mod == 3)
			t->reg_jump = 1;
		else if (has_sib && insn->raw.modrm.mod == 0 && insn->raw.sib.base == 5)
			ct_add_base(t->abs_base, &t->nabs,
				    (uintptr_t)(intptr_t)insn->raw.disp.value, &t->lost);
	}
}

static int ct_bad_target(const struct ct_arch_func *f, uintptr_t to)
{
	uintptr_t lo = f->addr + f->patch_off, hi = lo + f->moved;
	return to == f->addr || (to >= lo && to < hi);
}

/* Entries of one table, while they land in the function: 1 if one lands in moved bytes. */
static int ct_table_hits(const struct ct_arch_func *f, const struct ct_arch_env *env,
			 uintptr_t base, int relative)
{
	size_t width = relative ? 4 : 8;
	for (size_t i = 0; i < CT_MAX_TABLE_ENTRIES; i++) {
		uintptr_t at = base + i * width, to;
		if (!env->readable(env->ctx, at, width))
			break;
		if (relative) {
			int32_t rel;
			memcpy(&rel, (const void *)at, 4);
			to = base + (intptr_t)rel;
		} else {
			memcpy(&to, (const void *)at, 8);
		}
		if (to < f->addr || to >= f->addr + f->size)
			break;
		if (ct_bad_target(f, to))
			return 1;
	}
	return 0;
}

static int ct_check_tables(const struct ct_arch_func *f, const struct ct_arch_env *env,
			   const struct ct_tables *t)
{
	if (t->reg_jump && t->lost)
		return CT_SKIP_INDIRECT_JUMP; /* a table we cannot find */
	for (int i = 0; t->reg_jump && i < t->nrel; i++)
		if (ct_table_hits(f, env, t->rel_base[i], 1))
			return CT_SKIP_BRANCH_IN;
	for (int i = 0; i < t->nabs; i++)
		if (ct_table_hits(f, env, t->abs_base[i], 0))
			return CT_SKIP_BRANCH_IN;
	return CT_SKIP_NONE;
}

/*
 * Every branch is told to the caller even when the function itself cannot be
 * patched: it may land in the entry of another that can.
 */
int ct_arch_analyse(struct ct_arch_func *f, const struct ct_arch_env *env)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	const uint8_t *code = (const uint8_t *)f->addr;
	ZydisDecodedInstruction insn;
	struct ct_tables tables = { 0 };

	f->patch_off = f->size >= 4 && !memcmp(code, endbr64, 4) ? 4 : 0;
	int why = ct_plan_moved(f, code);
	if (why)
		f->moved = 0;
	for (size_t off = 0; off < f->size; off += insn.length) {
		if (!ct_x86_decode(code + off, f->size - off, &insn))
			return CT_SKIP_UNDECODABLE;
		ct_note_table_parts(&insn, f->addr + off, &tables);
		if (!ct_is_branch(&insn))
			continue;
		uintptr_t to = ct_branch_target(&insn, f->addr + off);
		int call = insn.meta.category == ZYDIS_CATEGORY_CALL;
		/* a jump back to the entry is a loop: each turn would count as a call */
		uintptr_t lo = f->addr + f->patch_off;
		if (!why && (call ? to > lo && to < lo + f->moved : ct_bad_target(f, to)))
			why = CT_SKIP_BRANCH_IN;
		if (to < f->addr || to >= f->addr + f->size)
			env->target(env->ctx, to);
	}
	return why ? why : ct_check_tables(f, env, &tables);
}

int ct_arch_plan_entry(struct ct_arch_func *f)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	const uint8_t *code = (const uint8_t *)f->addr;
	f->patch_off = f->size >= 4 && !memcmp(code, endbr64, 4) ? 4 : 0;
	return ct_plan_moved(f, code);
}

/*
 * "Push" the original return address without touching flags or registers,
 * by a call whose pushed address is then overwritten: the processor's return
 * stack gets an entry for the callee's ret to take. Its prediction is wrong
 * (the callee returns to the original code), but the stack stays balanced:
 * with "lea -8(%rsp),%rsp" instead, that ret took its caller's entry, and
 * every return above it went mispredicted in turn. Not "call .+5", which
 * processors may recognise as reading the pc, and leave their stack alone.
 */
static uint8_t *ct_push_return(uint8_t *p, uintptr_t ret)
{
	static const uint8_t call[6] = { 0xe8, 0x01, 0x00, 0x00, 0x00, 0xcc }; /* call .+6; int3 */
	uint32_t lo = (uint32_t)ret, hi = (uint32_t)(ret >> 32);
	memcpy(p, call, 6);
	p += 6;
	*p++ = 0xc7; /* movl $lo, (%rsp) */
	*p++ = 0x04;
	*p++ = 0x24;
	memcpy(p, &lo, 4);
	p += 4;
	*p++ = 0xc7; /* movl $hi, 4(%rsp) */
	*p++ = 0x44;
	*p++ = 0x24;
	*p++ = 0x04;
	memcpy(p, &hi, 4);
	return p + 4;
}

/* One moved instruction, from old_ip to the trampoline at new_ip; NULL if out of reach. */
static uint8_t *ct_relocate_one(const ZydisDecodedInstruction *insn, const uint8_t *src,
				uintptr_t old_ip, uintptr_t new_ip, uint8_t *p)
{
	uintptr_t next = old_ip + insn->length;
	if (insn->meta.category == ZYDIS_CATEGORY_CALL) {
		uint8_t *q = ct_push_return(p, next);
		new_ip += (uintptr_t)(q - p);
		if (ct_is_branch(insn)) {
			*q = 0xe9;
			return ct_arch_rel32(new_ip + 5, ct_branch_target(insn, old_ip), q + 1) ? q + 5 : NULL;
		}
		int32_t disp = (int32_t)insn->raw.disp.value; /* call *x(%rip) -> jmp *x(%rip) */
		q[0] = 0xff;
		q[1] = 0x25;
		return ct_arch_rel32(new_ip + 6, next + disp, q + 2) ? q + 6 : NULL;
	}
	if (ct_is_branch(insn)) {
		uintptr_t to = ct_branch_target(insn, old_ip);
		if (insn->meta.category == ZYDIS_CATEGORY_UNCOND_BR) {
			*p = 0xe9;
			return ct_arch_rel32(new_ip + 5, to, p + 1) ? p + 5 : NULL;
		}
		/* jcc: the condition is the low nibble of the opcode in both forms */
		p[0] = 0x0f;
		p[1] = (uint8_t)(0x80 | (insn->opcode & 0x0f));
		return ct_arch_rel32(new_ip + 6, to, p + 2) ? p + 6 : NULL;
	}
	memcpy(p, src, insn->length);
	if (ct_x86_is_rip_relative(insn)) {
		int32_t disp = (int32_t)insn->raw.disp.value;
		if (!ct_arch_rel32(new_ip + insn->length, next + disp, p + insn->raw.disp.offset))
			return NULL;
	}
	return p + insn->length;
}

/* From after the head's call to the landing: the hijack by a call (relocate.h). */
static const uint8_t ct_tramp_hijack[] = {
	0x75, CT_TRAMP_BODY - CT_TRAMP_HEAD - 2,	 /* jne body */
	0x48, 0x8d, 0x64, 0x24, 0x08,			 /* lea 8(%rsp),%rsp */
	0xe8, CT_TRAMP_BODY - CT_TRAMP_LANDING, 0, 0, 0, /* call body */
};
_Static_assert(sizeof(ct_tramp_hijack) == CT_TRAMP_LANDING - CT_TRAMP_HEAD, "trampoline layout");

/* The hijack, then the landing's jump to the return thunk; 0 if out of reach. */
static int ct_tramp_landing(uint8_t *p, uintptr_t at, uintptr_t return_thunk)
{
	memcpy(p, ct_tramp_hijack, sizeof(ct_tramp_hijack));
	p += sizeof(ct_tramp_hijack);
	*p = 0xe9; /* jmp return_thunk */
	return ct_arch_rel32(at + CT_TRAMP_BODY, return_thunk, p + 1);
}

int ct_arch_tramp_unsettled(const uint8_t *before, const uint8_t *at, uint64_t rt_lo,
			    uint64_t rt_hi)
{
	static const uint8_t jmp_rip[6] = { 0xff, 0x25, 0x00, 0x00, 0x00, 0x00 };
	/* the pc at the jne, the lea, the call or the landing: how far into the hijack */
	static const uint8_t into[] = { 0, 2, 7, sizeof(ct_tramp_hijack) };
	uint8_t code[CT_TRAMP_PEEK_BEFORE + CT_THUNK_LEN];
	uint64_t target;

	memcpy(&target, at + 6, 8);
	if (!memcmp(at, jmp_rip, 6) && target >= rt_lo && target < rt_hi)
		return 1; /* a thunk */
	if (!before)
		return 0;
	memcpy(code, before, CT_TRAMP_PEEK_BEFORE);
	memcpy(code + CT_TRAMP_PEEK_BEFORE, at, CT_THUNK_LEN);
	for (size_t i = 0; i < sizeof(into); i++)
		if (!memcmp(code + CT_TRAMP_PEEK_BEFORE - into[i], ct_tramp_hijack,
			    sizeof(ct_tramp_hijack)))
			return 1;
	return 0;
}

int ct_arch_build_trampoline(const struct ct_arch_func *f, uintptr_t at, uintptr_t thunks,
			     uint8_t *out)
{
	uintptr_t entry_thunk = thunks, return_thunk = thunks + CT_THUNK_LEN;
	const uint8_t *code = (const uint8_t *)f->addr;
	uint8_t *p = out;
	ZydisDecodedInstruction insn;

	if (!ct_arch_encode_tramp_head(p, f->addr | (uint64_t)f->capture << CT_TRAMP_ID_BITS, at,
				       entry_thunk) ||
	    !ct_tramp_landing(p + CT_TRAMP_HEAD, at, return_thunk))
		return 0;
	p += CT_TRAMP_BODY;
	for (size_t off = f->patch_off; off < f->patch_off + f->moved; off += insn.length) {
		if (!ct_x86_decode(code + off, f->size - off, &insn))
			return 0;
		p = ct_relocate_one(&insn, code + off, f->addr + off, at + (uintptr_t)(p - out), p);
		if (!p)
			return 0;
	}
	uintptr_t back = f->addr + f->patch_off + f->moved;
	*p = 0xe9;
	if (!ct_arch_rel32(at + (uintptr_t)(p - out) + 5, back, p + 1))
		return 0;
	return 1;
}

int ct_arch_encode_patch(const struct ct_arch_func *f, uintptr_t tramp, uint8_t *out)
{
	uintptr_t at = f->addr + f->patch_off;
	out[0] = 0xe9;
	if (!ct_arch_rel32(at + 5, tramp + 8, out + 1))
		return 0;
	memset(out + 5, 0xcc, f->moved - 5u);
	return 1;
}

/*
 * "call *r/m" (ff /2) whose operand does not use %rsp: pushing the return
 * address by hand and "jmp *r/m" (ff /4, the same operand) do the same.
 */
static uint8_t *ct_relocate_indirect_call(const ZydisDecodedInstruction *insn, const uint8_t *src,
					  uintptr_t old_ip, uint8_t *p)
{
	const uint8_t mod = insn->raw.modrm.mod, rm = insn->raw.modrm.rm;
	if (insn->opcode != 0xff || insn->raw.modrm.reg != 2 || ct_x86_is_rip_relative(insn))
		return NULL;
	if (!insn->raw.rex.B && ((mod == 3 && rm == 4) || (mod != 3 && rm == 4 && insn->raw.sib.base == 4)))
		return NULL;
	p = ct_push_return(p, old_ip + insn->length);
	memcpy(p, src, insn->length);
	p[insn->raw.modrm.offset] = (uint8_t)((p[insn->raw.modrm.offset] & ~0x38) | 4 << 3);
	return p + insn->length;
}

int ct_arch_build_ool(const uint8_t *code, size_t avail, uintptr_t orig, uintptr_t at,
		      uint8_t *out, uint8_t *insn_len)
{
	ZydisDecodedInstruction insn;
	if (!ct_x86_decode(code, avail, &insn))
		return 0;
	*insn_len = insn.length;
	uint8_t *p = NULL;
	if (ct_moved_size(&insn))
		p = ct_relocate_one(&insn, code, orig, at, out);
	else if (insn.meta.category == ZYDIS_CATEGORY_CALL)
		p = ct_relocate_indirect_call(&insn, code, orig, out);
	if (!p)
		return 0;
	if (insn.meta.category == ZYDIS_CATEGORY_CALL ||
	    insn.meta.category == ZYDIS_CATEGORY_UNCOND_BR || insn.meta.category == ZYDIS_CATEGORY_RET)
		return (int)(p - out); /* never falls through */
	*p = 0xe9;
	if (!ct_arch_rel32(at + (uintptr_t)(p - out) + 5, orig + insn.length, p + 1))
		return 0;
	return (int)(p + 5 - out);
}
