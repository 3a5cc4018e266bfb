// SPDX-License-Identifier: MIT
/*
 * Which compiler to run, and where it is. The path is looked up here rather
 * than left to execvp() because the cache of its include directories is keyed
 * on the real file (an upgraded compiler must not use an old answer).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrapper.h"

/* The word "gcc" or "clang" in a program name, between '-'s or the ends. */
static const char *find_word(const char *base, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = strstr(base, word); p; p = strstr(p + 1, word)) {
		bool start = p == base || p[-1] == '-';
		bool end = p[len] == '\0' || p[len] == '-';

		if (start && end)
			return p;
	}
	return NULL;
}

/*
 * The C++ compiler that goes with a C compiler: gcc -> g++, clang-14 ->
 * clang++-14, /opt/bin/x86_64-linux-gnu-gcc-12 -> /opt/bin/x86_64-linux-gnu-g++-12.
 * NULL when the name is neither gcc nor clang.
 */
static char *cxx_sibling(const char *cc)
{
	const char *base = strrchr(cc, '/');
	const char *w;
	size_t at;

	base = base ? base + 1 : cc;
	if ((w = find_word(base, "gcc"))) {
		at = w - cc;
		return xasprintf("%.*sg++%s", (int)at, cc, w + 3);
	}
	if ((w = find_word(base, "clang"))) {
		at = w - cc;
		return xasprintf("%.*sclang++%s", (int)at, cc, w + 5);
	}
	return NULL;
}

const char *compiler_name(bool cxx)
{
	const char *cc = getenv("CALLTRACE_CC");
	const char *cxxc = getenv("CALLTRACE_CXX");
	char *sibling;

	if (!cxx)
		return cc && *cc ? cc : "gcc";
	if (cxxc && *cxxc)
		return cxxc;
	if (cc && *cc && (sibling = cxx_sibling(cc)))
		return sibling;
	return "g++";
}

static bool executable(const char *path, int *err)
{
	struct stat st;

	if (stat(path, &st) || S_ISDIR(st.st_mode))
		return false;
	if (access(path, X_OK)) {
		*err = EACCES; /* found, but cannot run: say so rather than "not found" */
		return false;
	}
	return true;
}

/* CALLTRACE_CC=calltrace-cc would exec itself forever. */
bool is_self(const char *path)
{
	char self[PATH_MAX], target[PATH_MAX];

	return realpath("/proc/self/exe", self) && realpath(path, target) && !strcmp(self, target);
}

/*
 * The path execvp() would run, or NULL with *err set; *masked when this
 * program came first in PATH under that name and was passed over.
 */
char *find_program(const char *name, int *err, bool *masked)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL;

	*err = ENOENT;
	*masked = false;
	if (!*name)
		return NULL;
	if (strchr(name, '/'))
		return executable(name, err) ? xstrdup(name) : NULL;
	if (!path)
		path = "/bin:/usr/bin";
	copy = xstrdup(path);
	/* strtok_r would skip empty entries, which mean the current directory */
	for (char *dir = copy; dir; dir = save) {
		char *full;

		save = strchr(dir, ':');
		if (save)
			*save++ = '\0';
		full = xasprintf("%s/%s", *dir ? dir : ".", name);
		if (executable(full, err)) {
			/* a "gcc" in PATH may be this wrapper under another name: look further */
			if (!is_self(full)) {
				free(copy);
				return full;
			}
			*masked = true;
		}
		free(full);
	}
	free(copy);
	return NULL;
}
