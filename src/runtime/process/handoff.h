/* SPDX-License-Identifier: MIT */
/* handoff.c: the pool's descriptor and the environment across exec. */
#ifndef CT_RUNTIME_HANDOFF_H
#define CT_RUNTIME_HANDOFF_H

#include <limits.h>
#include <stddef.h>

#include "../../common/event.h"

/* What an exec wrapper keeps on its stack for the new image. */
struct ct_handoff {
	int fd;		    /* the pool's descriptor let through the exec, or -1 */
	char pool_fd[40];   /* "CALLTRACE_POOL_FD=N", or "" */
	char added[256];    /* "CALLTRACE_ADDED=NAME,..." */
	char preload[8192]; /* "LD_PRELOAD=..." if we add or change it */
};

/* Entries ct_handoff_env may add beyond the program's and the caller's kept[]. */
#define CT_HANDOFF_EXTRA 6

struct ct_exec_note_buf {
	struct ct_ext_exec_note h;
	char path[PATH_MAX];
};

int ct_runtime_preloaded(void) __attribute__((visibility("hidden")));
void ct_env_take_back(void) __attribute__((visibility("hidden")));
const char *ct_taken_env(const char *name) __attribute__((visibility("hidden")));
int ct_pool_fd_held(void) __attribute__((visibility("hidden")));
void ct_pool_fd_keep(int fd) __attribute__((visibility("hidden")));
void ct_pool_fd_drop(void) __attribute__((visibility("hidden")));
int ct_pool_fd_inherited(void) __attribute__((visibility("hidden")));
void ct_handoff_before_exec(const char *file, struct ct_handoff *h)
	__attribute__((visibility("hidden")));
void ct_handoff_exec_failed(const struct ct_handoff *h) __attribute__((visibility("hidden")));
void ct_handoff_env(char *const envp[], char **out, struct ct_handoff *h, const char *pool,
		    const char *nofollow, char *const kept[], size_t nkept)
	__attribute__((visibility("hidden")));

#endif
