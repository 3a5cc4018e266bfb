/* SPDX-License-Identifier: MIT */
/*
 * Creating the shared-memory pool. It lives in a memfd that only the recorder
 * holds; traced processes open it through /proc/<recorder>/fd/<n>, which
 * works after fork, after exec, and even if the program closed every file
 * descriptor it inherited.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"

int ct_pool_create(struct ct_pool *p, uint32_t chunk_size, uint32_t nchunks, uint32_t flags,
		   uint32_t clock, uint32_t ring_chunks)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t slots =
		sizeof(struct ct_pool_ctl) + (uint64_t)nchunks * sizeof(struct ct_chunk_desc);
	slots = (slots + 63) / 64 * 64;
	uint64_t text = slots + CT_LOST_SLOTS * sizeof(struct ct_lost_slot);
	uint64_t ctl = text + CT_SKIP_TEXT;
	ctl = (ctl + (uint64_t)page - 1) / (uint64_t)page * (uint64_t)page;

	memset(p, 0, sizeof(*p));
	p->size = ctl + (uint64_t)nchunks * chunk_size;
	p->fd = memfd_create("calltrace-pool", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (p->fd < 0)
		return -1;
	/* sealed: a program that opens the pool cannot shrink it under our mapping (SIGBUS) */
	if (ftruncate(p->fd, (off_t)p->size) < 0 ||
	    fcntl(p->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		goto fail;
	p->ctl = mmap(NULL, p->size, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (p->ctl == MAP_FAILED)
		goto fail;

	struct ct_pool_ctl *c = p->ctl;
	c->version = CT_POOL_VERSION;
	c->ctl_size = (uint32_t)ctl;
	c->chunk_size = chunk_size;
	c->nchunks = nchunks;
	c->flags = flags;
	c->clock = clock;
	c->recorder_pid = getpid();
	c->ring_chunks = ring_chunks;
	c->lost_slots_offset = (uint32_t)slots;
	c->skip_text_offset = (uint32_t)text;
	p->geo = (struct ct_pool_geo){ .ctl_size = c->ctl_size,
				       .chunk_size = chunk_size,
				       .nchunks = nchunks,
				       .ring_chunks = ring_chunks,
				       .lost_slots_offset = c->lost_slots_offset,
				       .skip_text_offset = c->skip_text_offset };
	/*
	 * The lowest chunks on top of the free stack, so a quiet program touches
	 * few pages. A flight recorder's threads never wait, so its chunks all go
	 * at once; others get a first share.
	 */
	p->released = flags & CT_POOL_RING
			      ? nchunks
			      : (uint32_t)ct_min(nchunks, ct_max(CT_POOL_FIRST / chunk_size, 4));
	for (uint32_t i = p->released; i-- > 0;)
		ct_pool_push_free(c, i);
	atomic_thread_fence(memory_order_seq_cst);
	c->magic = CT_POOL_MAGIC;
	snprintf(p->path, sizeof(p->path), "/proc/%d/fd/%d", (int)getpid(), p->fd);
	return 0;
fail:
	close(p->fd);
	p->fd = -1;
	p->ctl = NULL;
	return -1;
}

/* A chunk back on the free stack (bounded: see ct_pool_push_free). */
void ct_pool_give_back(struct ct_pool *p, uint32_t idx)
{
	ct_pool_push_free(p->ctl, idx);
}

/*
 * Threads lack chunks and hold every one released: release as many again
 * (up to the cap), lowest on top. Returns how many; 0 at the cap. Only this
 * private count bounds the recorder's scans: a chunk above it that the
 * program puts on the free stack itself is never read (the liar's loss).
 */
uint32_t ct_pool_release_more(struct ct_pool *p)
{
	uint32_t from = p->released, to = (uint32_t)ct_min((uint64_t)from * 2, p->geo.nchunks);

	for (uint32_t i = to; i-- > from;)
		ct_pool_give_back(p, i);
	p->released = to;
	return to - from;
}

/*
 * Zero the first bytes of a chunk for its reuse. A chunk of which we do not
 * know how much was written (CT_ZERO_ALL: a dead thread's, salvaged; a
 * refused one) may be mostly pages nobody touched: its pages are given back
 * instead (they read as zero afterwards), so zeroing it makes none exist. A
 * published chunk is written over, its pages kept: the next thread to take
 * it finds them in memory, and likely in cache (the free stack is LIFO).
 */
void ct_pool_zero(struct ct_pool *p, uint32_t idx, uint64_t bytes)
{
	uint32_t size = p->geo.chunk_size;
	uint64_t off = (uint64_t)((char *)ct_rec_chunk(p, idx) - (char *)p->ctl);

	if (bytes == CT_ZERO_ALL &&
	    fallocate(p->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, size) == 0)
		return;
	memset(ct_rec_chunk(p, idx), 0, ct_min(bytes, size));
}

/* Bytes of the pool that exist: the pages threads and the recorder touched. */
uint64_t ct_pool_resident(const struct ct_pool *p)
{
	struct stat st;
	return fstat(p->fd, &st) == 0 ? (uint64_t)st.st_blocks * 512 : 0;
}

void ct_pool_destroy(struct ct_pool *p)
{
	if (p->ctl)
		munmap(p->ctl, p->size);
	if (p->fd >= 0)
		close(p->fd);
	p->ctl = NULL;
	p->fd = -1;
}

/* The TSC when the CPU says it is constant and does not stop; else CLOCK_MONOTONIC. */
uint32_t ct_pick_clock(void)
{
	const char *force = getenv("CALLTRACE_CLOCK");
	if (force && !strcmp(force, "monotonic"))
		return CT_CLOCK_MONOTONIC;
#if defined(__x86_64__)
	if (force && !strcmp(force, "tsc"))
		return CT_CLOCK_TSC;
	FILE *f = fopen("/proc/cpuinfo", "r");
	char *line = NULL;
	size_t cap = 0;
	int ok = 0;
	while (f && getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5))
			continue;
		ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
		break;
	}
	free(line);
	if (f)
		fclose(f);
	return ok ? CT_CLOCK_TSC : CT_CLOCK_MONOTONIC;
#elif defined(__aarch64__)
	return CT_CLOCK_TSC; /* cntvct_el0: constant rate, the same on every CPU (Armv8 requires it) */
#else
	return CT_CLOCK_MONOTONIC;
#endif
}
