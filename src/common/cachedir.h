/* SPDX-License-Identifier: MIT */
/*
 * calltrace's cache directory, $XDG_CACHE_HOME/calltrace (else
 * ~/.cache/calltrace): the runtime's patch plans (plancache.c) and the
 * recorder's lists of functions from system headers (syshdr.c), and in its
 * subdirectory symtab/ the recorder's symbol tables (symcache.c). Shared by
 * the tool and the runtime.
 *
 * Its files are untrusted input: read only from a directory and a file the
 * user owns that nobody else may write, of a size the caller bounds; written
 * 0600 through a temporary file renamed into place, never through a link.
 * The directory stays small: whoever writes a file prunes it (ct_cache_prune).
 */
#ifndef CT_COMMON_CACHEDIR_H
#define CT_COMMON_CACHEDIR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifndef CT_HIDDEN /* in the tool too: hidden inside the runtime, where it is defined */
#define CT_HIDDEN __attribute__((visibility("hidden")))
#endif

#define CT_FNV_START 0xcbf29ce484222325ull

/* A cache file's parts are padded to 8 bytes. */
static inline uint64_t ct_cache_pad8(uint64_t n)
{
	return (n + 7) & ~(uint64_t)7;
}

/* FNV-1a 64 of n bytes at p, continuing from h (CT_FNV_START to begin). */
uint64_t ct_fnv1a(const void *p, size_t n, uint64_t h) CT_HIDDEN;

/*
 * The cache directory, or its subdirectory sub (each kind of file that
 * prunes alone has its own), made 0700 if missing, open; -1 if there is
 * none we may trust. Its path into path (room bytes) if not NULL, for a
 * file named to another process: -1 too if it does not fit.
 */
int ct_cache_dir_open(const char *sub, char *path, size_t room) CT_HIDDEN;

/*
 * File name in dir, whole, into a buffer of the caller's (free it): 0, or -1
 * if absent or unreadable, -2 if not a regular file of the user's own that
 * nobody else may write, or its size is not within [min, max].
 */
int ct_cache_read(int dir, const char *name, size_t min, size_t max, void **data,
		  size_t *len) CT_HIDDEN;

/* n bytes at p to fd, the whole of them (a write cut short goes on, EINTR too); 0 if they were. */
int ct_write_all_fd(int fd, const void *p, size_t n) CT_HIDDEN;

/* Write name in dir from n pieces (a temporary file renamed over it, 0600); 0 if it was. */
int ct_cache_write(int dir, const char *name, const struct iovec *iov, int n) CT_HIDDEN;

/*
 * Prune dir: files unused for 30 days go, and stale temporary files, then
 * the least recently used until at most 256 files and 64 MiB are left (keep,
 * just written, stays). A file's time is set when it is written or used.
 */
void ct_cache_prune(int dir, const char *keep) CT_HIDDEN;

#endif
