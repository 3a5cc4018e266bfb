/* SPDX-License-Identifier: MIT */
/* Appending blocks to a trace file. */
#ifndef CT_FORMAT_WRITER_H
#define CT_FORMAT_WRITER_H

#include <stdint.h>

#include "format.h"

struct ZSTD_CCtx_s;

struct ct_writer {
	int fd;
	uint64_t offset; /* end of the last complete block */
	int error;	 /* errno of the first failed write; later writes are skipped */
	char *path;	 /* the trace's place */
	char *tmp;	 /* its name until ct_writer_start puts it there */
	struct ZSTD_CCtx_s *cctx;
	void *zbuf;
	size_t zcap;
	/* whole blocks not written yet: many go out in one write (ct_writer_flush) */
	uint8_t *pend;
	size_t pend_len, pend_cap;
	uint64_t pend_since; /* CLOCK_MONOTONIC ns of the oldest block held back */
};

/* A new 0600 file beside path, not yet in its place; what is at path stays. */
int ct_writer_open(struct ct_writer *w, const char *path);
/* Move what is at path to PATH.old, put ours there, write the file header. */
int ct_writer_start(struct ct_writer *w);
/* Give up before ct_writer_start: the new file goes, what was at path stays. */
void ct_writer_abandon(struct ct_writer *w, const char *path);
/* A block whose payload is the concatenation of a and b (either may be empty). */
int ct_writer_block(struct ct_writer *w, uint16_t type, uint16_t flags, const void *a,
		    uint32_t alen, const void *b, uint32_t blen);
/* The same, compressed with zstd. */
int ct_writer_block_zstd(struct ct_writer *w, uint16_t type, const void *payload, uint32_t len);
/*
 * A block as ct_writer_block_zstd writes it: *flags (CT_BLOCK_ZSTD, or 0
 * when zstd did not shrink it), *raw (the payload's length), and the bytes
 * that follow the raw length (or the payload itself), in the writer's
 * buffer until its next block. Returns their length.
 */
uint32_t ct_writer_compress(struct ct_writer *w, const void *payload, uint32_t len, uint16_t *flags,
			    const void **out);
/* The block ct_writer_compress made (or any made so): its flags, raw length and bytes. */
int ct_writer_block_packed(struct ct_writer *w, uint16_t type, uint16_t flags, uint32_t raw,
			   const void *data, uint32_t len);
/* Write the blocks held back so far. */
int ct_writer_flush(struct ct_writer *w);
/* The same if the oldest was held back age_ns or more: the recorder calls it before it waits. */
int ct_writer_flush_stale(struct ct_writer *w, uint64_t age_ns);
int ct_writer_close(struct ct_writer *w);

#endif
