/* SPDX-License-Identifier: MIT */
/* src/arch/<the architecture compiled for>/ptrace_arch.h: one source tree, any target. */
#ifndef CT_ARCH_SELECT_PTRACE_ARCH_H
#define CT_ARCH_SELECT_PTRACE_ARCH_H

#if defined(__aarch64__)
#include "aarch64/ptrace_arch.h"
#elif defined(__x86_64__)
#include "x86_64/ptrace_arch.h"
#else
#error "calltrace: unsupported architecture (x86_64 and aarch64 are)"
#endif

#endif
