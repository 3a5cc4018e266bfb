/* SPDX-License-Identifier: MIT */
/*
 * The methods that make functions traced once the program runs, as the
 * other rooms call them: code built with -pg -mfentry (fentry.c), patchable
 * entries and dynamic patching (patch.c, dynpatch.c), library calls
 * (libcalls.c). What the patchers share among themselves is in patching.h.
 */
#ifndef CT_RUNTIME_METHODS_H
#define CT_RUNTIME_METHODS_H

#include "../runtime.h"

/* fentry.c: C++ unwinding reads return addresses from the stack */
void ct_fentry_unhook(struct ct_thread *t) CT_HIDDEN;
void ct_fentry_rehook(struct ct_thread *t) CT_HIDDEN;

/* patch.c: patchable entries of the modules not looked at yet become calls */
void ct_patch_modules(int may_allocate) CT_HIDDEN;
void ct_patch_forget(void) CT_HIDDEN; /* after dlclose: look at every module again */
/* patch.c: every module is looked at again (attach again: the code is as it was) */
void ct_patch_forget_all(void) CT_HIDDEN;

#endif
