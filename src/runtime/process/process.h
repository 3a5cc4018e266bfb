/* SPDX-License-Identifier: MIT */
/*
 * Following the process: the modules it loads (modules.c, dlopen.c), the
 * processes it makes and the images it becomes (process.c, handoff.h), its
 * signals and crashes (signal.c, crash.c), its jumps and exceptions
 * (interpose.c), its threads' names (thread_names.c), its sandbox
 * (sandbox.c).
 */
#ifndef CT_RUNTIME_PROCESS_H
#define CT_RUNTIME_PROCESS_H

#include "../runtime.h"

struct sigaction;
struct dl_phdr_info;

/* modules.c: describe the modules the loader added since; 1 if it wrote records */
int ct_check_modules(struct ct_thread *t, int force) CT_HIDDEN;
int ct_modules_changed(void) CT_HIDDEN;
void ct_modules_forget(void) CT_HIDDEN;
/* modules.c: the runtime range of a module's executable segments; 0 if it has none */
int ct_module_range(const struct dl_phdr_info *info, uint64_t *lo, uint64_t *hi) CT_HIDDEN;
/* the module's GNU build-id note in memory: src/common/buildid.h */
#include "../../common/buildid.h"

/* init.c: this process was counted in the pool's started_processes (not so in a vfork child) */
int ct_process_counted(void) CT_HIDDEN;

/* process.c: keep the variables an exec'd image needs, at start */
void ct_remember_env(void) CT_HIDDEN;

/* crash.c: record fatal signals the program leaves at their default action */
void ct_install_crash_handlers(void) CT_HIDDEN;
/* Fill sa with our crash handler if sig is fatal and we record crashes; 1 if so. */
int ct_crash_action(int sig, struct sigaction *sa) CT_HIDDEN;
int ct_is_crash_handler(const struct sigaction *sa) CT_HIDDEN;

/* signal.c: the C library's sigaction, past our own */
int ct_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old) CT_HIDDEN;

/* interpose.c: the real longjmp and unwinder functions we stand in front of */
void ct_resolve_interposed(void) CT_HIDDEN;

/* thread_names.c: this thread can be found by its pthread_t */
void ct_register_thread(int32_t tid) CT_HIDDEN;
void ct_unregister_thread(void) CT_HIDDEN;
/* thread_names.c: every thread we know lets go of its chunk (the pool is about to go) */
void ct_forget_chunks_of_all_threads(void) CT_HIDDEN;

#endif
