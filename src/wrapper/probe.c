// SPDX-License-Identifier: MIT
/*
 * Ask the compiler about itself, once: `CC -x c++ -E -dM -v - </dev/null`
 * prints its predefined macros (which compiler it really is, whether it makes
 * position-independent code by default) and, with -v, the "#include <...>"
 * search list: the system include directories whose functions gcc is told
 * not to instrument. Call Stack Logger reads the same list from cc1plus -v.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wrapper.h"

static void run_child(const char *path, char **argv, int out)
{
	int null = open("/dev/null", O_RDONLY);

	if (null >= 0)
		dup2(null, 0);
	dup2(out, 1);
	dup2(out, 2);
	/* the search list's headings are translated in other locales */
	setenv("LC_ALL", "C", 1);
	execv(path, argv);
	_exit(127);
}

static void probe_define(const char *line, struct probe *p)
{
	if (has_prefix(line, "#define __clang__ "))
		p->family = CC_CLANG;
	else if (has_prefix(line, "#define __GNUC__ ") && p->family == CC_OTHER)
		p->family = CC_GCC;
	else if (has_prefix(line, "#define __INTEL_COMPILER "))
		p->family = CC_OTHER; /* claims __GNUC__ but is not gcc */
	else if (has_prefix(line, "#define __PIC__ "))
		p->pic = true;
}

/* One line of the probe's output (stdout and stderr, in one stream). */
static void parse_line(const char *line, bool *in_list, struct probe *p)
{
	if (has_prefix(line, "#include <...> search starts here:")) {
		*in_list = true;
	} else if (has_prefix(line, "End of search list.")) {
		*in_list = false;
	} else if (*in_list && line[0] == ' ') {
		char *dir = xstrdup(line + 1);
		char *end = strstr(dir, " (framework directory)");

		if (end)
			*end = '\0';
		dir[strcspn(dir, "\n")] = '\0';
		if (*dir && !strv_has(&p->includes, dir))
			strv_push(&p->includes, dir);
	} else if (has_prefix(line, "#define ")) {
		probe_define(line, p);
	}
}

static void read_output(FILE *f, struct probe *p)
{
	char *line = NULL;
	size_t cap = 0;
	bool in_list = false;

	while (getline(&line, &cap, f) > 0)
		parse_line(line, &in_list, p);
	free(line);
}

bool probe_run(const char *path, const char *argv0, bool cxx, const struct strv *pflags,
	       struct probe *p)
{
	struct strv argv = { 0 };
	int fds[2], status;
	pid_t pid;
	FILE *f;

	memset(p, 0, sizeof(*p));
	strv_push(&argv, argv0);
	strv_append(&argv, pflags);
	strv_push(&argv, "-x");
	strv_push(&argv, cxx ? "c++" : "c");
	strv_push(&argv, "-E");
	strv_push(&argv, "-dM");
	strv_push(&argv, "-v");
	strv_push(&argv, "-");
	if (pipe(fds))
		return false;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		run_child(path, argv.v, fds[1]);
	}
	close(fds[1]);
	if (pid < 0 || !(f = fdopen(fds[0], "r"))) {
		close(fds[0]);
		return false;
	}
	read_output(f, p);
	fclose(f);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
