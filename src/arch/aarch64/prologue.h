/* SPDX-License-Identifier: MIT */
/* aarch64 -pg: where a function calling _mcount was entered (prologue.c). */
#ifndef CT_ARCH_AARCH64_PROLOGUE_H
#define CT_ARCH_AARCH64_PROLOGUE_H

#include <stdint.h>

/*
 * The distance from a function's frame record (its x29) up to its entry sp,
 * read from the prologue before the "bl _mcount" whose return address is
 * call_site; 0 when the prologue is not one we can read, or signs its return
 * address (pac-ret): that call is then not traced.
 */
uintptr_t ct_a64_mcount_frame(uintptr_t call_site) __attribute__((visibility("hidden")));

#endif
