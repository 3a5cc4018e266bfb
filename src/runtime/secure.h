/* SPDX-License-Identifier: MIT */
/* attach.c: is this a process the kernel marks secure (AT_SECURE)? */
#ifndef CT_RUNTIME_SECURE_H
#define CT_RUNTIME_SECURE_H

/*
 * setuid, setgid, or file capabilities that lift the user who ran it: the
 * environment is that user's choice, so the runtime obeys none of it.
 */
int ct_secure_exec(void) __attribute__((visibility("hidden")));

#endif
