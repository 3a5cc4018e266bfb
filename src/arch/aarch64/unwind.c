// SPDX-License-Identifier: MIT
/*
 * C++ unwinding through functions whose return goes to our trampoline
 * (entry.S). On x86-64 the return address the unwinder reads is the stack
 * slot the entry stub was given; on aarch64 the function itself saved x30
 * (the trampoline, by then) in its frame record, wherever its prologue put
 * it. The frame records form a chain through x29, which gcc and clang keep
 * in every function that calls (only leaves may drop it, and a leaf is never
 * in the middle of an unwind): walking it, each saved x30 that is the
 * trampoline gets back the real address of the traced function whose frame
 * holds the record (the innermost whose slot, 16 bytes below its entry sp,
 * is at or above the record). The places are kept with their frame's slot:
 * after the catch, those of the frames still traced get the trampoline
 * again (the others' memory may be a live frame of someone else by then).
 * A function that signs its return address (pac-ret: -pg code, whose hook
 * signed the trampoline alike) gets both signed, as the unwinder
 * authenticates them with the frame's CFA, its entry sp (the slot + 16).
 */
#include <stddef.h>
#include <stdint.h>

#include "prologue.h"
#include "unwind.h"

#define CT_A64_KEPT_MAX 512

struct ct_unhooked {
	uintptr_t *at;
	uintptr_t slot;
	unsigned pac;
};
static __thread struct ct_unhooked ct_unhooked[CT_A64_KEPT_MAX];
static __thread size_t ct_nunhooked;

size_t ct_arch_unhook(uintptr_t tramp, const struct ct_arch_hooked *f, size_t n)
{
	uintptr_t *fp = __builtin_frame_address(0);
	size_t used = 0, k = 0;
	/* places of an earlier unwind not yet caught (a rethrow, a throw in a cleanup) are kept */
	/* records go up the stack; a chain that does not is not one to follow */
	for (unsigned depth = 0; fp && k < n && depth < 1000000; depth++) {
		uintptr_t *next = (uintptr_t *)fp[0];
		while (k < n && f[k].slot < (uintptr_t)fp)
			k++;
		if (k < n && (fp[1] == tramp || (f[k].pac && ct_a64_pac_strip(fp[1]) == tramp))) {
			fp[1] = f[k].pac ? ct_a64_pac_sign(f[k].ret, f[k].slot + 16, f[k].pac)
					 : f[k].ret;
			used++;
			if (ct_nunhooked < CT_A64_KEPT_MAX)
				ct_unhooked[ct_nunhooked++] =
					(struct ct_unhooked){ &fp[1], f[k].slot, f[k].pac };
		}
		if (next <= fp)
			break;
		fp = next;
	}
	return used;
}

void ct_arch_rehook(uintptr_t tramp, const uintptr_t *live, size_t n)
{
	for (size_t i = 0; i < ct_nunhooked; i++)
		for (size_t k = 0; k < n; k++)
			if (live[k] == ct_unhooked[i].slot) {
				struct ct_unhooked *u = &ct_unhooked[i];
				*u->at = u->pac ? ct_a64_pac_sign(tramp, u->slot + 16, u->pac) : tramp;
				break;
			}
	ct_nunhooked = 0;
}
