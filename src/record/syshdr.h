/* SPDX-License-Identifier: MIT */
/* syshdr.c: the program's functions declared in system headers, for the runtime to leave alone. */
#ifndef CT_RECORD_SYSHDR_H
#define CT_RECORD_SYSHDR_H

/* For a program with patchable entries: set CALLTRACE_SYSHDR for the runtime, if any. */
void ct_syshdr_offer(const char *path);

#endif
