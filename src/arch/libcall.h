/* SPDX-License-Identifier: MIT */
/* src/arch/<the architecture compiled for>/libcall.h: one source tree, any target. */
#ifndef CT_ARCH_SELECT_LIBCALL_H
#define CT_ARCH_SELECT_LIBCALL_H

#if defined(__aarch64__)
#include "aarch64/libcall.h"
#elif defined(__x86_64__)
#include "x86_64/libcall.h"
#else
#error "calltrace: unsupported architecture (x86_64 and aarch64 are)"
#endif

#endif
