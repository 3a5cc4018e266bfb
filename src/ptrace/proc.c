/* SPDX-License-Identifier: MIT */
/* What /proc says about a traced process. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracer.h"

uint32_t ct_pt_proc_file(pid_t pid, const char *name, char *buf, uint32_t size)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, size, f);
	fclose(f);
	return (uint32_t)n;
}

uint32_t ct_pt_exe(pid_t pid, char *buf, uint32_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, buf, size - 1);
	n = n < 0 ? 0 : n;
	buf[n] = 0;
	return (uint32_t)n;
}

int ct_pt_status(pid_t tid, const char *field, unsigned long long *out)
{
	char path[64], line[256];
	size_t len = strlen(field);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	FILE *f = fopen(path, "re");
	int found = -1;
	while (f && found < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':') {
			/* the signal masks are hexadecimal, the ids decimal */
			int hex = !strncmp(field, "Sig", 3) || !strncmp(field, "Shd", 3);
			found = sscanf(line + len + 1, hex ? "%llx" : "%llu", out) == 1 ? 0 : -1;
		}
	if (f)
		fclose(f);
	return found;
}
