/* SPDX-License-Identifier: MIT */
/* src/arch/<the architecture compiled for>/patch.h: one source tree, any target. */
#ifndef CT_ARCH_SELECT_PATCH_H
#define CT_ARCH_SELECT_PATCH_H

#if defined(__aarch64__)
#include "aarch64/patch.h"
#elif defined(__x86_64__)
#include "x86_64/patch.h"
#else
#error "calltrace: unsupported architecture (x86_64 and aarch64 are)"
#endif

#endif
