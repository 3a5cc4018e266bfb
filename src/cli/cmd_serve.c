/* SPDX-License-Identifier: MIT */
/*
 * calltrace __serve PID FD: not for people. The runtime of a program that
 * runs without a recorder (standalone mode) starts it; settings come from the
 * environment the program had: CALLTRACE_OUTPUT, CALLTRACE_RING,
 * CALLTRACE_LOSSY, CALLTRACE_BUFFER_SIZE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "cli.h"
#include "../record/record.h"

/* The program's command line, for the trace's "command". */
static char **ct_cmdline(pid_t pid, char **buf)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	struct ct_buf b = { 0 };
	FILE *f = fopen(path, "re");
	char chunk[4096];
	size_t got;
	while (f && (got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		ct_buf_append(&b, chunk, got);
	if (f)
		fclose(f);
	size_t len = b.len;
	ct_buf_append(&b, "", 1);
	*buf = (char *)b.data;
	size_t n = 0;
	for (size_t i = 0; *buf && i < len; i++)
		n += (*buf)[i] == 0;
	char **argv = ct_calloc(n + 2, sizeof(*argv));
	size_t k = 0;
	for (size_t i = 0; *buf && i < len && k < n; i += strlen(*buf + i) + 1)
		argv[k++] = *buf + i;
	if (!k)
		argv[k++] = "?";
	return argv;
}

static int ct_env_size(const char *name, uint64_t min, uint64_t *out)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return 0;
	if (ct_parse_size(v, out) < 0 || *out < min) {
		ct_error("%s=%s is not a size like 64M", name, v);
		return -1;
	}
	return 1;
}

int ct_cmd_serve(int argc, char **argv)
{
	if (argc != 3) {
		ct_error("__serve is started by libcalltrace.so, not by hand");
		return CT_EXIT_USAGE;
	}
	/* started with privileges its caller lacks: the environment is the caller's, obey none of it */
	if (getauxval(AT_SECURE)) {
		ct_error("__serve will not run in a setuid, setgid or file-capability process");
		return CT_EXIT_USAGE;
	}
	struct ct_record_opts o = {
		.output = CT_DEFAULT_OUTPUT,
		.buffer_size = CT_DEFAULT_BUFFER,
		.chunk_size = CT_DEFAULT_CHUNK,
		.level = CT_DEFAULT_ZSTD_LEVEL,
		.serve_pid = (pid_t)atoi(argv[1]),
	};
	int fd = atoi(argv[2]);
	const char *out = getenv("CALLTRACE_OUTPUT");
	if (out && *out)
		o.output = out;
	const char *lossy = getenv("CALLTRACE_LOSSY");
	o.lossy = lossy && *lossy && strcmp(lossy, "0");
	int given = ct_env_size("CALLTRACE_BUFFER_SIZE", 256 << 10, &o.buffer_size);
	int ring = ct_env_size("CALLTRACE_RING", 8 << 10, &o.ring_size);
	if (given < 0 || ring < 0)
		return CT_EXIT_USAGE;
	if (o.ring_size) {
		o.lossy = 0;
		if (!given)
			o.buffer_size = ct_max(o.buffer_size, 16 * ct_max(o.ring_size, 2ull * o.chunk_size) +
								      8ull * o.chunk_size);
	}
	char *buf = NULL;
	o.argv = ct_cmdline(o.serve_pid, &buf);
	int rc = ct_serve(&o, fd);
	free(o.argv);
	free(buf);
	return rc;
}
