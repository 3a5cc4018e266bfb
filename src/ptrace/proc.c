/* SPDX-License-Identifier: MIT */
/* What /proc says about a traced process. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdlib.h>
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

int ct_pt_auxv(pid_t pid, uint64_t type, uint64_t *out)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	Elf64_auxv_t a;
	int r = -1;
	while (r < 0 && fread(&a, sizeof(a), 1, f) == 1 && a.a_type != AT_NULL) {
		if (a.a_type == type) {
			*out = a.a_un.a_val;
			r = 0;
		}
	}
	fclose(f);
	return r;
}

/*
 * /proc/PID/NAME, or the same file of one of its threads: what goes through
 * the thread group's leader (mem, maps, exe) is gone once the leader exited
 * while other threads run on; a thread that is alive still shows it.
 */
int ct_pt_proc_open(pid_t pid, const char *name, int flags)
{
	char path[96];
	int fd = -1;
	if (!ct_pt_thread_dead(pid)) { /* (a zombie's files open, but read empty) */
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
		return open(path, flags | O_CLOEXEC);
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && fd < 0 && (e = readdir(d)))
		if (atoi(e->d_name) > 0 && !ct_pt_thread_dead(atoi(e->d_name))) {
			snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid,
				 atoi(e->d_name), name);
			fd = open(path, flags | O_CLOEXEC);
		}
	if (d)
		closedir(d);
	return fd;
}

/* The process's executable (through a live thread: see ct_pt_proc_open). */
uint32_t ct_pt_exe(pid_t pid, char *buf, uint32_t size)
{
	char path[64];
	ssize_t n = -1;
	int fd = ct_pt_proc_open(pid, "exe", O_PATH);
	if (fd >= 0) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, buf, size - 1);
		close(fd);
	}
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
