/* SPDX-License-Identifier: MIT */
/*
 * What the runtime obeys and whom it stands in front of. Started by record
 * (or standalone), it reads its settings from the environment; loaded by
 * calltrace attach, from what calltrace_attach_start was given. Every room
 * asks here, so that none of them needs to know which mode it runs in.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "runtime.h"
#include "process/handoff.h"
#include "../common/attach_abi.h"

CT_HIDDEN int ct_attached;
static char ct_conf[16384]; /* "NAME=VALUE\0" ..., then an empty string */

int ct_attach_loaded(void)
{
	static int known = -1;
	if (known < 0) {
		Dl_info info;
		const char *slash = NULL;
		if (dladdr((void *)ct_attach_loaded, &info) && info.dli_fname)
			slash = strrchr(info.dli_fname, '/');
		known = slash && !strcmp(slash + 1, CT_ATTACH_LIB);
	}
	return known;
}

int ct_attach_settings(const char *conf, long len)
{
	if (len <= 0 || (size_t)len >= sizeof(ct_conf) - 1)
		return -EINVAL;
	memset(ct_conf, 0, sizeof(ct_conf));
	memcpy(ct_conf, conf, (size_t)len);
	ct_attached = 1;
	return 0;
}

/*
 * A process the kernel marks secure (setuid, setgid, file capabilities that
 * lift its caller) runs with an environment its caller chose: none of our
 * variables is obeyed there. Asked once per image, never on the hot path.
 */
int ct_secure_exec(void)
{
	static int secure = -1;
	if (secure < 0)
		secure = getauxval(AT_SECURE) != 0;
	return secure;
}

/* Our settings: calltrace attach's (the tracer was allowed in), else the environment's. */
const char *ct_getenv(const char *name)
{
	if (!ct_attached) {
		if (ct_secure_exec())
			return NULL;
		ct_env_take_back(); /* what an exec wrapper added is ours, not the program's */
		const char *taken = ct_taken_env(name);
		return taken ? taken : getenv(name);
	}
	size_t n = strlen(name);
	for (const char *p = ct_conf; *p; p += strlen(p) + 1)
		if (!strncmp(p, name, n) && p[n] == '=')
			return p + n + 1;
	return NULL;
}

void *ct_next_symbol(const char *name)
{
	/* loaded locally, late: the real one is the first in the global scope */
	return dlsym(ct_attached ? RTLD_DEFAULT : RTLD_NEXT, name);
}

const char *ct_self_exe(void)
{
	char c;
	return readlink("/proc/self/exe", &c, 1) > 0 ? "/proc/self/exe" : "/proc/thread-self/exe";
}
