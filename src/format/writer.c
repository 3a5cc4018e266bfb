/* SPDX-License-Identifier: MIT */
/*
 * Appending blocks. Each block goes out in one writev, so a recorder killed at
 * any moment leaves whole blocks and at most one torn block at the end, which
 * readers skip. A failed write (disk full, say) is undone with ftruncate and
 * every later write is skipped: the file stays readable as far as it got.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zstd.h>

#include "writer.h"
#include "../util/util.h"

/*
 * What is at path before a recording: a file or a symbolic link is moved
 * aside to PATH.old (a link is moved, not followed), so the trace is a new
 * file. A directory or a device is not ours to move.
 */
static int ct_move_aside(struct ct_writer *w, const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1; /* gone meanwhile: try again */
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EEXIST;
		return -1;
	}
	char *old = ct_printf("%s.old", path);
	if (rename(path, old) < 0) {
		int err = errno;
		free(old);
		errno = err;
		return -1;
	}
	free(w->moved_aside);
	w->moved_aside = old;
	return 0;
}

/*
 * The trace holds command lines, the working directory and, with -a,
 * argument strings: it is created 0600, as perf's are, and only ever as a new
 * file (O_EXCL, O_NOFOLLOW), so that a link planted at its path in a shared
 * directory makes us write nowhere else.
 */
int ct_writer_open(struct ct_writer *w, const char *path)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	for (int tries = 0; tries < 3 && w->fd < 0; tries++) {
		w->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (w->fd >= 0 || errno != EEXIST || ct_move_aside(w, path) < 0)
			break;
	}
	w->created = w->fd >= 0;
	return w->fd < 0 ? -1 : 0;
}

int ct_writer_start(struct ct_writer *w)
{
	struct ct_file_header h = { .version = CT_FILE_VERSION, .header_size = sizeof(h) };
	memcpy(h.magic, CT_FILE_MAGIC, sizeof(h.magic));
	if (ftruncate(w->fd, 0) < 0 || write(w->fd, &h, sizeof(h)) != (ssize_t)sizeof(h)) {
		w->error = errno ? errno : EIO;
		return -1;
	}
	w->offset = sizeof(h);
	w->cctx = ZSTD_createCCtx();
	return 0;
}

void ct_writer_abandon(struct ct_writer *w, const char *path)
{
	close(w->fd);
	w->fd = -1;
	if (w->created)
		unlink(path);
	if (w->created && w->moved_aside) /* nothing recorded: the earlier trace is back */
		rename(w->moved_aside, path);
	free(w->moved_aside);
	w->moved_aside = NULL;
}

static int ct_write_all(struct ct_writer *w, struct iovec *iov, int n, size_t total)
{
	size_t done = 0;
	while (done < total) {
		ssize_t r = writev(w->fd, iov, n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0) {
			errno = EIO;
			return -1;
		}
		done += (size_t)r;
		while (n && (size_t)r >= iov->iov_len) {
			r -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n) {
			iov->iov_base = (char *)iov->iov_base + r;
			iov->iov_len -= (size_t)r;
		}
	}
	return 0;
}

int ct_writer_block(struct ct_writer *w, uint16_t type, uint16_t flags, const void *a,
		    uint32_t alen, const void *b, uint32_t blen)
{
	if (w->error)
		return -1;

	struct ct_block_header h = {
		.magic = CT_BLOCK_MAGIC, .type = type, .flags = flags, .length = alen + blen
	};
	uint32_t crc = ct_crc32c(0, &h, 12);
	crc = ct_crc32c(crc, a, alen);
	h.crc = ct_crc32c(crc, b, blen);

	struct iovec iov[3] = { { &h, sizeof(h) }, { (void *)a, alen }, { (void *)b, blen } };
	if (ct_write_all(w, iov, 3, sizeof(h) + alen + blen) < 0) {
		w->error = errno ? errno : EIO;
		/* leave no torn block behind if we can help it */
		if (ftruncate(w->fd, (off_t)w->offset) == 0)
			lseek(w->fd, (off_t)w->offset, SEEK_SET);
		return -1;
	}
	w->offset += sizeof(h) + alen + blen;
	return 0;
}

int ct_writer_block_zstd(struct ct_writer *w, uint16_t type, const void *payload, uint32_t len)
{
	size_t bound = ZSTD_compressBound(len);
	if (bound > w->zcap) {
		free(w->zbuf);
		w->zbuf = ct_malloc(bound);
		w->zcap = bound;
	}
	size_t n = ZSTD_compressCCtx(w->cctx, w->zbuf, w->zcap, payload, len, 3);
	if (ZSTD_isError(n))
		return ct_writer_block(w, type, 0, payload, len, NULL, 0);
	uint32_t raw = len;
	return ct_writer_block(w, type, CT_BLOCK_ZSTD, &raw, sizeof(raw), w->zbuf, (uint32_t)n);
}

int ct_writer_close(struct ct_writer *w)
{
	int r = w->error ? -1 : 0;
	if (w->fd >= 0 && close(w->fd) < 0 && !r) {
		w->error = errno;
		r = -1;
	}
	w->fd = -1;
	ZSTD_freeCCtx(w->cctx);
	free(w->zbuf);
	w->cctx = NULL;
	w->zbuf = NULL;
	free(w->moved_aside);
	w->moved_aside = NULL;
	if (r)
		errno = w->error;
	return r;
}
