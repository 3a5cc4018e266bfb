/* SPDX-License-Identifier: MIT */
/* src/arch/<the architecture compiled for>/arch.h: one source tree, any target. */
#ifndef CT_ARCH_SELECT_ARCH_H
#define CT_ARCH_SELECT_ARCH_H

/*
 * CT_ARCH_NAME: what a trace's META "arch" says (docs/FORMAT.md); CT_ARCH_CLOCK_NAME:
 * its "clock" when the hot path reads the architecture's counter; CT_ARCH_ELF_MACHINE:
 * the e_machine of the images its runtime can be loaded into.
 */
#if defined(__aarch64__)
#include "aarch64/arch.h"
#define CT_ARCH_NAME	    "aarch64"
#define CT_ARCH_CLOCK_NAME  "cntvct"
#define CT_ARCH_ELF_MACHINE 183 /* EM_AARCH64: the executables the runtime can join */
#elif defined(__x86_64__)
#include "x86_64/arch.h"
#define CT_ARCH_NAME	    "x86_64"
#define CT_ARCH_CLOCK_NAME  "tsc"
#define CT_ARCH_ELF_MACHINE 62 /* EM_X86_64 */
#else
#error "calltrace: unsupported architecture (x86_64 and aarch64 are)"
#endif

#endif
