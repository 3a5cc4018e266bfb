/* SPDX-License-Identifier: MIT */
/* calltrace's cache directory: see cachedir.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cachedir.h"

/* What the cache keeps (see ct_cache_prune). */
#define CT_CACHE_KEEP_DAYS  30
#define CT_CACHE_KEEP_FILES 256
#define CT_CACHE_KEEP_BYTES (64ull << 20)
#define CT_CACHE_SCAN_MAX   4096 /* files looked at in one pruning */
#define CT_CACHE_TMP_SECS   3600 /* a temporary file older than this was left by a crash */

uint64_t ct_fnv1a(const void *p, size_t n, uint64_t h)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* ours and nobody else's to write in: else its files could be anyone's */
static int ct_dir_ours(int fd)
{
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022))) {
		close(fd);
		return -1;
	}
	return fd;
}

int ct_cache_dir_open(const char *sub, char *path, size_t room)
{
	char base[4096];
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;
	if (xdg && *xdg == '/')
		n = snprintf(base, sizeof(base), "%s", xdg);
	else if (home && *home == '/')
		n = snprintf(base, sizeof(base), "%s/.cache", home);
	else
		return -1;
	if (n < 0 || (size_t)n + sizeof("/calltrace") > sizeof(base))
		return -1;
	mkdir(base, 0700);
	strcat(base, "/calltrace");
	mkdir(base, 0700);
	int fd = ct_dir_ours(open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
	if (fd >= 0 && sub) {
		mkdirat(fd, sub, 0700);
		int in = ct_dir_ours(openat(fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
		close(fd);
		fd = in;
	}
	if (fd >= 0 && path) {
		n = snprintf(path, room, "%s%s%s", base, sub ? "/" : "", sub ? sub : "");
		if (n < 0 || (size_t)n >= room) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

int ct_cache_read(int dir, const char *name, size_t min, size_t max, void **data, size_t *len)
{
	struct stat st;
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	*data = NULL;
	*len = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || (uint64_t)st.st_size < min || (uint64_t)st.st_size > max) {
		close(fd);
		return -2;
	}
	size_t want = (size_t)st.st_size, got = 0;
	char *p = malloc(want ? want : 1);
	while (p && got < want) {
		ssize_t r = read(fd, p + got, want - got);
		if (r <= 0 && !(r < 0 && errno == EINTR))
			break;
		if (r > 0)
			got += (size_t)r;
	}
	close(fd);
	if (!p || got != want) {
		free(p);
		return -1;
	}
	*data = p;
	*len = want;
	return 0;
}

int ct_write_all_fd(int fd, const void *p, size_t n)
{
	const char *b = p;
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

int ct_cache_write(int dir, const char *name, const struct iovec *iov, int n)
{
	char tmp[160];
	if (snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", name, (long)getpid()) >= (int)sizeof(tmp))
		return -1;
	int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	int bad = fchmod(fd, 0600) < 0;
	for (int i = 0; i < n && !bad; i++)
		bad = ct_write_all_fd(fd, iov[i].iov_base, iov[i].iov_len) < 0;
	bad |= close(fd) < 0;
	if (bad || renameat(dir, tmp, dir, name) < 0) {
		unlinkat(dir, tmp, 0);
		return -1;
	}
	return 0;
}

/* ---- keeping the cache small ---------------------------------------------- */

struct ct_cache_file {
	time_t used; /* its mtime: set when written or used */
	off_t size;
	char name[96];
};

static int ct_ends_with(const char *name, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len > n && !strcmp(name + len - n, suffix);
}

/*
 * A name the cache gives (hex digits and '-', then ".plan", ".syshdr" or
 * ".symtab"): 'p'; a temporary file of ours (".NAME.PID.tmp", or the
 * recorder's older "NAME.syshdr.PID.tmp"): 't'; else 0, left alone.
 */
static int ct_cache_file_kind(const char *name)
{
	size_t len = strlen(name), hex = strspn(name, "0123456789abcdef-");
	if (len > 5 && len < sizeof(((struct ct_cache_file *)0)->name) &&
	    (!strcmp(name + hex, ".plan") || !strcmp(name + hex, ".syshdr") ||
	     !strcmp(name + hex, ".symtab")))
		return 'p';
	if (ct_ends_with(name, len, ".tmp") &&
	    ((name[0] == '.' && (strstr(name, ".plan.") || strstr(name, ".symtab."))) ||
	     strstr(name, ".syshdr.")))
		return 't';
	return 0;
}

static int ct_cache_newer_first(const void *a, const void *b)
{
	const struct ct_cache_file *x = a, *y = b;
	return (x->used < y->used) - (x->used > y->used);
}

/*
 * The cache's files in the directory (regular files of ours, by their
 * names), with those unused for too long and stale temporary files removed
 * on the way.
 */
static size_t ct_cache_list(int dir, struct ct_cache_file *out, size_t room)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	time_t now = time(NULL);
	size_t n = 0;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (n < room && (e = readdir(d))) {
		struct stat st;
		int kind = ct_cache_file_kind(e->d_name);
		if (!kind || fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (kind == 't') {
			if (now - st.st_mtime > CT_CACHE_TMP_SECS)
				unlinkat(dir, e->d_name, 0);
		} else if (now - st.st_mtime > (time_t)CT_CACHE_KEEP_DAYS * 86400) {
			unlinkat(dir, e->d_name, 0);
		} else {
			out[n].used = st.st_mtime;
			out[n].size = st.st_size;
			snprintf(out[n].name, sizeof(out[n].name), "%s", e->d_name);
			n++;
		}
	}
	closedir(d);
	return n;
}

/*
 * The most recently used files are kept while they fit the bounds; from the
 * first that does not, every older one goes. keep (just written) stays.
 */
void ct_cache_prune(int dir, const char *keep)
{
	struct ct_cache_file *f = malloc(CT_CACHE_SCAN_MAX * sizeof(*f));
	unsigned long long bytes = 0;
	size_t kept = 0;
	int full = 0;

	if (!f)
		return;
	size_t n = ct_cache_list(dir, f, CT_CACHE_SCAN_MAX);
	qsort(f, n, sizeof(*f), ct_cache_newer_first);
	for (size_t i = 0; i < n; i++) {
		bytes += (unsigned long long)f[i].size;
		full |= ++kept > CT_CACHE_KEEP_FILES || bytes > CT_CACHE_KEEP_BYTES;
		if (full && strcmp(f[i].name, keep))
			unlinkat(dir, f[i].name, 0);
	}
	free(f);
}
