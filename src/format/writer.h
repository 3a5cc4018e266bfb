/* SPDX-License-Identifier: MIT */
/* Appending blocks to a trace file. */
#ifndef CT_FORMAT_WRITER_H
#define CT_FORMAT_WRITER_H

#include <stdint.h>

#include "format.h"

struct ZSTD_CCtx_s;

struct ct_writer {
	int fd;
	uint64_t offset;   /* end of the last complete block */
	int error;	   /* errno of the first failed write; later writes are skipped */
	int created;	   /* ct_writer_open made the file */
	char *moved_aside; /* PATH.old, where an earlier file at the path went */
	struct ZSTD_CCtx_s *cctx;
	void *zbuf;
	size_t zcap;
};

/* Create path anew, 0600; a file or link already there is moved to PATH.old. */
int ct_writer_open(struct ct_writer *w, const char *path);
/* Truncate and write the file header: from here on the file is ours. */
int ct_writer_start(struct ct_writer *w);
/* Give up before ct_writer_start: remove the new file, put PATH.old back. */
void ct_writer_abandon(struct ct_writer *w, const char *path);
/* A block whose payload is the concatenation of a and b (either may be empty). */
int ct_writer_block(struct ct_writer *w, uint16_t type, uint16_t flags, const void *a,
		    uint32_t alen, const void *b, uint32_t blen);
/* The same, compressed with zstd. */
int ct_writer_block_zstd(struct ct_writer *w, uint16_t type, const void *payload, uint32_t len);
int ct_writer_close(struct ct_writer *w);

#endif
