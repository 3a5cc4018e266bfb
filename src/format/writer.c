/* SPDX-License-Identifier: MIT */
/*
 * Appending blocks. Small blocks are held back and go out together in one
 * write (a system call for each block of the recorder cost 7 % of its CPU),
 * when they fill CT_WRITER_BATCH or, the recorder about to wait, once the
 * oldest has waited a while (it waits after most blocks when it keeps up);
 * a large one goes out in one writev. So a recorder killed at any moment leaves
 * whole blocks and at most one torn block at the end, which readers skip. A
 * failed write (disk full, say) is undone with ftruncate and every later
 * write is skipped: the file stays readable as far as it got.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "writer.h"
#include "../util/time_ns.h"
#include "../util/util.h"

/*
 * The trace holds command lines, the working directory and, with -a,
 * argument strings: it is created 0600, as perf's are, and only ever as a new
 * file. It is made under a unique name beside its place (mkostemp: O_CREAT |
 * O_EXCL, so no link planted in a shared directory is followed) and renamed
 * there when the recording starts; a failed start leaves what was at the path
 * alone. Only a file or a link may be replaced, not a directory or a device.
 */
int ct_writer_open(struct ct_writer *w, const char *path)
{
	struct stat st;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return -1;
	}
	w->path = ct_strdup(path);
	w->tmp = ct_printf("%s.XXXXXX", path);
	w->fd = mkostemp(w->tmp, O_CLOEXEC);
	if (w->fd < 0) {
		int err = errno;
		free(w->tmp);
		free(w->path);
		w->tmp = w->path = NULL;
		errno = err;
		return -1;
	}
	return 0;
}

/*
 * The trace takes its place: a file or a link already there is moved aside
 * to PATH.old (a link is moved, not followed), then ours is renamed in. From
 * here a recorder killed at any moment leaves a readable trace at PATH.
 */
static int ct_take_place(struct ct_writer *w)
{
	struct stat st;
	char *old = NULL;
	if (lstat(w->path, &st) == 0) {
		old = ct_printf("%s.old", w->path);
		if (rename(w->path, old) < 0) {
			free(old);
			return -1;
		}
	}
	if (rename(w->tmp, w->path) < 0) {
		free(old);
		return -1;
	}
	/* a trace the user may still want went aside: say where, once */
	if (old)
		ct_error("the previous %s is now %s", w->path, old);
	free(old);
	free(w->tmp);
	w->tmp = NULL;
	return 0;
}

int ct_writer_start(struct ct_writer *w)
{
	struct ct_file_header h = { .version = CT_FILE_VERSION, .header_size = sizeof(h) };
	memcpy(h.magic, CT_FILE_MAGIC, sizeof(h.magic));
	if (ct_take_place(w) < 0 || write(w->fd, &h, sizeof(h)) != (ssize_t)sizeof(h)) {
		w->error = errno ? errno : EIO;
		return -1;
	}
	w->offset = sizeof(h);
	w->cctx = ZSTD_createCCtx();
	return 0;
}

static void ct_writer_forget(struct ct_writer *w)
{
	if (w->tmp)
		unlink(w->tmp); /* never took its place */
	free(w->tmp);
	free(w->path);
	w->tmp = w->path = NULL;
}

void ct_writer_abandon(struct ct_writer *w, const char *path)
{
	(void)path; /* the writer knows it */
	close(w->fd);
	w->fd = -1;
	free(w->pend);
	w->pend = NULL;
	w->pend_len = w->pend_cap = 0;
	ct_writer_forget(w);
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

#define CT_WRITER_BATCH (256 * 1024)

/* A failed write: leave no torn block behind if we can help it. */
static int ct_write_failed(struct ct_writer *w)
{
	w->error = errno ? errno : EIO;
	w->pend_len = 0;
	if (ftruncate(w->fd, (off_t)w->offset) == 0)
		lseek(w->fd, (off_t)w->offset, SEEK_SET);
	return -1;
}

int ct_writer_flush(struct ct_writer *w)
{
	if (w->error)
		return -1;
	if (!w->pend_len)
		return 0;
	struct iovec iov = { w->pend, w->pend_len };
	if (ct_write_all(w, &iov, 1, w->pend_len) < 0)
		return ct_write_failed(w);
	w->offset += w->pend_len;
	w->pend_len = 0;
	return 0;
}

int ct_writer_flush_stale(struct ct_writer *w, uint64_t age_ns)
{
	if (!w->pend_len || ct_time_ns(CLOCK_MONOTONIC) - w->pend_since < age_ns)
		return w->error ? -1 : 0;
	return ct_writer_flush(w);
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

	/*
	 * A large block goes out in a write of its own, after the blocks held
	 * back: blocks reach the file in the order they were given (a thread's
	 * in its order, which readers rely on).
	 */
	size_t total = sizeof(h) + alen + blen;
	int alone = total > CT_WRITER_BATCH / 4;
	if ((alone || w->pend_len + total > CT_WRITER_BATCH) && ct_writer_flush(w) < 0)
		return -1;
	if (!alone) {
		if (!w->pend) {
			w->pend_cap = CT_WRITER_BATCH;
			w->pend = ct_malloc(w->pend_cap);
		}
		if (!w->pend_len)
			w->pend_since = ct_time_ns(CLOCK_MONOTONIC);
		uint8_t *p = w->pend + w->pend_len;
		memcpy(p, &h, sizeof(h));
		if (alen)
			memcpy(p + sizeof(h), a, alen);
		if (blen)
			memcpy(p + sizeof(h) + alen, b, blen);
		w->pend_len += total;
		return 0;
	}
	struct iovec iov[3] = { { &h, sizeof(h) }, { (void *)a, alen }, { (void *)b, blen } };
	if (ct_write_all(w, iov, 3, total) < 0)
		return ct_write_failed(w);
	w->offset += total;
	return 0;
}

/*
 * zstd's level 1 for the blocks written once (symbols, prototypes, kernel
 * records): a module's symbol table (yaml-cpp's and libstdc++'s, 300 KiB of
 * names) takes 0.6 ms less than at level 3, for 6 % more bytes.
 */
#define CT_ONCE_ZSTD_LEVEL 1

uint32_t ct_writer_compress(struct ct_writer *w, const void *payload, uint32_t len, uint16_t *flags,
			    const void **out)
{
	size_t bound = ZSTD_compressBound(len);
	if (bound > w->zcap) {
		free(w->zbuf);
		w->zbuf = ct_malloc(bound);
		w->zcap = bound;
	}
	size_t n = ZSTD_compressCCtx(w->cctx, w->zbuf, w->zcap, payload, len, CT_ONCE_ZSTD_LEVEL);
	if (ZSTD_isError(n)) {
		*flags = 0;
		*out = payload;
		return len;
	}
	*flags = CT_BLOCK_ZSTD;
	*out = w->zbuf;
	return (uint32_t)n;
}

int ct_writer_block_packed(struct ct_writer *w, uint16_t type, uint16_t flags, uint32_t raw,
			   const void *data, uint32_t len)
{
	if (!(flags & CT_BLOCK_ZSTD))
		return ct_writer_block(w, type, flags, data, len, NULL, 0);
	return ct_writer_block(w, type, flags, &raw, sizeof(raw), data, len);
}

int ct_writer_block_zstd(struct ct_writer *w, uint16_t type, const void *payload, uint32_t len)
{
	uint16_t flags;
	const void *out;
	uint32_t n = ct_writer_compress(w, payload, len, &flags, &out);
	return ct_writer_block_packed(w, type, flags, len, out, n);
}

int ct_writer_close(struct ct_writer *w)
{
	int r = w->fd >= 0 && ct_writer_flush(w) < 0 ? -1 : 0;
	if (w->error)
		r = -1;
	if (w->fd >= 0 && close(w->fd) < 0 && !r) {
		w->error = errno;
		r = -1;
	}
	w->fd = -1;
	ZSTD_freeCCtx(w->cctx);
	free(w->zbuf);
	free(w->pend);
	w->cctx = NULL;
	w->zbuf = NULL;
	w->pend = NULL;
	w->pend_len = w->pend_cap = 0;
	ct_writer_forget(w);
	if (r)
		errno = w->error;
	return r;
}
