/* SPDX-License-Identifier: MIT */
/* aarch64: the return addresses the unwinder reads, given back and taken again (unwind.c). */
#ifndef CT_ARCH_AARCH64_UNWIND_H
#define CT_ARCH_AARCH64_UNWIND_H

#include <stddef.h>
#include <stdint.h>

/*
 * A traced frame: its slot (entry.S), its real return address, and pac: if
 * the function signs the return address in its frame record (-pg code with
 * pac-ret, prologue.h), which key signs it, the modifier being its entry sp.
 */
struct ct_arch_hooked {
	uintptr_t slot, ret;
	unsigned pac;
};

/*
 * Before an unwind: in the frame records above the caller, each saved x30
 * equal to tramp gets the real return address of the frame it is in; f: the
 * traced frames whose return went to tramp, innermost (lowest slot) first.
 * Returns how many were put back.
 */
size_t ct_arch_unhook(uintptr_t tramp, const struct ct_arch_hooked *f, size_t n)
	__attribute__((visibility("hidden")));
/* After a catch: the places put back whose frame (by slot) is among live get tramp again. */
void ct_arch_rehook(uintptr_t tramp, const uintptr_t *live, size_t n)
	__attribute__((visibility("hidden")));

#endif
