// SPDX-License-Identifier: MIT
/* Library calls through aarch64 PLT entries (libcall.h). */
#include <string.h>

#include "decode.h"
#include "libcall.h"
#include "patch.h"

int ct_arch_plt_jump(const uint8_t *p, size_t len, struct ct_got_jump *j)
{
	struct ct_a64_insn adrp;
	uintptr_t at = (uintptr_t)p;
	if (len < 16)
		return 0;
	uint32_t ldr = ct_a64_word(p + 4), add = ct_a64_word(p + 8), br = ct_a64_word(p + 12);
	ct_a64_decode(ct_a64_word(p), at, &adrp);
	/* adrp x16; ldr x17, [x16, #imm12 * 8]; add x16, x16, #imm12; br x17 */
	if (adrp.kind != CT_A64_ADRP || adrp.rt != 16 || (ldr & 0xffc003ffu) != 0xf9400211u ||
	    (add & 0xffc003ffu) != 0x91000210u || br != 0xd61f0220u)
		return 0;
	uintptr_t off = ((ldr >> 10) & 0xfff) * 8;
	if (off != ((add >> 10) & 0xfff))
		return 0;
	j->at = at;
	j->slot = adrp.target + off;
	j->len = 16;
	j->kind = CT_GOT_JUMP;
	return 1;
}

int ct_arch_got_jumps(uintptr_t addr, size_t size,
		      void (*found)(void *ctx, const struct ct_got_jump *j), void *ctx)
{
	(void)addr;
	(void)size;
	(void)found;
	(void)ctx;
	return 0; /* -fno-plt call sites: not redirected on aarch64 yet */
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
	ct_a64_put(out + 24, 0xd61f0220u); /* br x17 */
	memcpy(out + 28, &slot, 8);
	return 1;
}

int ct_arch_encode_libcall_jump(const struct ct_got_jump *j, uintptr_t tramp, uint8_t *out)
{
	uint32_t b;
	if (!ct_a64_branch(&b, j->at, tramp + 8, 0))
		return 0;
	ct_a64_put(out, b);
	for (unsigned i = 4; i + 4 <= j->len; i += 4)
		ct_a64_put(out + i, CT_A64_BRK);
	return 1;
}
