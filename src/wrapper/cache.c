// SPDX-License-Identifier: MIT
/*
 * The probe's answer, cached in ${XDG_CACHE_HOME:-$HOME/.cache}/calltrace/ so
 * that a build of a thousand files runs the probe once, not a thousand times.
 * The key is the compiler's real path, mtime and size (an upgrade changes
 * them), the language and the options that move the include directories. A
 * cache that cannot be read or written is never an error: we probe again.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wrapper.h"

static char *cache_key(const char *path, const char *argv0, bool cxx, const struct strv *pflags)
{
	char real[PATH_MAX], *key;
	const char *base = strrchr(argv0, '/');
	struct stat st;

	if (!realpath(path, real) || stat(real, &st))
		return NULL;
	key = xasprintf("calltrace-cc probe 1\ncompiler %s\nargv0 %s\nmtime %lld.%09ld\n"
			"size %lld\nlang %s\n",
			real, base ? base + 1 : argv0, (long long)st.st_mtim.tv_sec,
			st.st_mtim.tv_nsec, (long long)st.st_size, cxx ? "c++" : "c");
	for (size_t i = 0; i < pflags->n; i++)
		key = xasprintf("%sflag %s\n", key, pflags->v[i]);
	return key;
}

static char *cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	/* the XDG spec says to ignore a relative XDG_CACHE_HOME */
	if (xdg && xdg[0] == '/')
		return xasprintf("%s/calltrace", xdg);
	if (home && home[0] == '/')
		return xasprintf("%s/.cache/calltrace", home);
	return NULL;
}

/* FNV-1a: a file name for the key; the key itself is checked when read. */
static char *cache_file(const char *dir, const char *key)
{
	unsigned long long h = 0xcbf29ce484222325ULL;

	for (const char *s = key; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return xasprintf("%s/probe-%016llx", dir, h);
}

static bool parse_value(char *line, struct probe *p)
{
	if (!strcmp(line, "family gcc"))
		p->family = CC_GCC;
	else if (!strcmp(line, "family clang"))
		p->family = CC_CLANG;
	else if (!strcmp(line, "family other"))
		p->family = CC_OTHER;
	else if (!strcmp(line, "pic 1") || !strcmp(line, "pic 0"))
		p->pic = line[4] == '1';
	else if (has_prefix(line, "include /"))
		strv_push(&p->includes, line + 8);
	else
		return false;
	return true;
}

/* The answer stored for key, ending with "end": a torn file is a miss. */
static bool cache_load(const char *file, const char *key, struct probe *p)
{
	char *text = read_text(file), *line, *save = NULL;

	memset(p, 0, sizeof(*p));
	if (!text || !has_prefix(text, key))
		return false;
	for (line = strtok_r(text + strlen(key), "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strcmp(line, "end"))
			return true;
		if (!parse_value(line, p))
			return false;
	}
	return false;
}

static char *cache_text(const char *key, const struct probe *p)
{
	static const char *const family[] = { "other", "gcc", "clang" };
	char *text = xasprintf("%sfamily %s\npic %d\n", key, family[p->family], p->pic);

	for (size_t i = 0; i < p->includes.n; i++)
		if (p->includes.v[i][0] == '/' && !strchr(p->includes.v[i], '\n'))
			text = xasprintf("%sinclude %s\n", text, p->includes.v[i]);
	return xasprintf("%send\n", text);
}

/* mkdir -p, private like the XDG base directories. */
static int make_dirs(const char *dir)
{
	char *copy = xstrdup(dir);

	for (char *s = copy + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(copy, 0700) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(copy, 0700) && errno != EEXIST ? -1 : 0;
}

/* Written to a file of our own, then renamed: parallel builds never read half. */
static int cache_store(const char *dir, const char *file, const char *text)
{
	char *tmp = xasprintf("%s.%ld.tmp", file, (long)getpid());
	size_t len = strlen(text);
	int fd, err;

	if (make_dirs(dir))
		return -1;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	err = write(fd, text, len) != (ssize_t)len;
	err |= close(fd);
	if (err || rename(tmp, file)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

void probe_cached(const char *path, const char *argv0, bool cxx, const struct strv *pflags,
		  bool verbose, struct probe *p)
{
	char *key = cache_key(path, argv0, cxx, pflags);
	char *dir = cache_dir();
	char *file = key && dir ? cache_file(dir, key) : NULL;

	if (file && cache_load(file, key, p))
		return;
	if (!probe_run(path, argv0, cxx, pflags, p)) {
		/* an unknown compiler: the plain flags, no -mnop-mcount */
		memset(p, 0, sizeof(*p));
		p->pic = true;
		return;
	}
	if (file && cache_store(dir, file, cache_text(key, p)) && verbose)
		fprintf(stderr, "%s: cannot write the cache %s: %s\n", ct_prog, file,
			strerror(errno));
}
