/* SPDX-License-Identifier: MIT */
/*
 * How the runtime came to be in the process: loaded by calltrace attach
 * (attached.c), started without a recorder (standalone.c); and the API the
 * program calls (api.c: its gate is in ../hotpath/hotpath.h).
 */
#ifndef CT_RUNTIME_MODES_H
#define CT_RUNTIME_MODES_H

#include "../runtime.h"

/* standalone.c: no recorder started us; start one */
int ct_standalone_wanted(void) CT_HIDDEN;
const char *ct_standalone_start(void) CT_HIDDEN; /* the pool's path, or NULL */
void ct_standalone_join(int execed) CT_HIDDEN;
void ct_standalone_fork(int delta) CT_HIDDEN;
void ct_standalone_after_fork(void) CT_HIDDEN;
void ct_standalone_leave(void) CT_HIDDEN;

/* attached.c: remember the len bytes at addr before we change them (data: a GOT slot) */
void ct_undo_save(uintptr_t addr, size_t len, int data) CT_HIDDEN;
/* attached.c: memory of ours for code, to unmap once tracing stopped */
void ct_attach_note_area(void *addr, size_t len) CT_HIDDEN;

#endif
