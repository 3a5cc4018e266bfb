/* SPDX-License-Identifier: MIT */
/*
 * A traced program that attacks its recorder: half-way through its work it
 * finds calltrace's shared pool in its own address space and writes over it
 * (usage: hostile SCENARIO SEED). Its output and exit status depend only on
 * its work, never on the pool, so they are the same with and without
 * calltrace; what it did to the pool goes to stderr.
 *
 * Scenarios: none, page (random bytes over the first page: the control
 * block), descs (over the first page of chunk descriptors), chunk (over the
 * first chunk), all (over everything), fakefull (every descriptor FULL with
 * random owners and lengths), plausible (FULL with our own ids and random
 * sequences and lengths), counts (the geometry in the control block raised,
 * descriptors faked FULL), freeloop (a loop in the free stack), freebad (a
 * free-stack head out of range), shrink (truncate the pool's file), wait
 * (nothing, but it sleeps 2 s before it ends: for calltrace snapshot).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../src/common/pool.h"

#define NOTRACE __attribute__((no_instrument_function))

static _Atomic unsigned long calls;
static uint64_t rng;

NOTRACE static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

__attribute__((noinline)) static long work(int n)
{
	atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
	return n < 2 ? n : work(n - 1) + work(n - 2);
}

static void *worker(void *arg)
{
	long sum = 0;
	for (int i = 0; i < 40; i++)
		sum += work(14);
	*(long *)arg = sum;
	return NULL;
}

/* The pool's mapping: the memfd the recorder named calltrace-pool. */
NOTRACE static char *find_pool(size_t *len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	char *at = NULL;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (strstr(line, "memfd:calltrace-pool") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
			at = (char *)lo;
			*len = hi - lo;
			break;
		}
	}
	if (f)
		fclose(f);
	return at;
}

NOTRACE static void scribble(char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (char)rnd();
}

NOTRACE static void fake_full(struct ct_pool_ctl *ctl, uint32_t nchunks, int plausible)
{
	for (uint32_t i = 0; i < nchunks; i++) {
		struct ct_chunk_desc *d = &ctl->desc[i];
		if (plausible) {
			d->instance = 1;
			d->pid = getpid();
			d->tid = (int32_t)syscall(SYS_gettid);
			d->thread_seq = rnd() % 64;
			d->used = (uint32_t)(rnd() % (2 * (uint64_t)ctl->chunk_size));
			d->flags = rnd() % 2;
		} else {
			d->instance = (uint32_t)rnd();
			d->pid = (int32_t)rnd();
			d->tid = (int32_t)rnd();
			d->thread_seq = rnd();
			d->used = (uint32_t)rnd();
			d->flags = (uint32_t)rnd();
		}
		d->base_clock = rnd();
		atomic_store(&d->state, CT_CHUNK_FULL);
	}
}

NOTRACE static void attack(const char *how)
{
	size_t len = 0;
	char *pool = find_pool(&len);
	if (!pool || !strcmp(how, "none"))
		return;
	struct ct_pool_ctl *ctl = (struct ct_pool_ctl *)pool;
	uint32_t ctl_size = ctl->ctl_size, chunk = ctl->chunk_size, n = ctl->nchunks;
	size_t done = 0;

	if (!strcmp(how, "page")) {
		scribble(pool, done = 4096);
	} else if (!strcmp(how, "descs")) {
		scribble((char *)ctl->desc, done = 4096);
	} else if (!strcmp(how, "chunk")) {
		scribble(pool + ctl_size, done = chunk);
	} else if (!strcmp(how, "all")) {
		scribble(pool, done = len);
	} else if (!strcmp(how, "fakefull") || !strcmp(how, "plausible")) {
		fake_full(ctl, n, how[0] == 'p');
		done = n;
	} else if (!strcmp(how, "counts")) {
		ctl->nchunks = n * 1000;
		ctl->chunk_size = chunk * 64;
		ctl->ctl_size = ctl_size * 16;
		ctl->lost_slots_offset = 0xfffffff0u;
		ctl->skip_text_offset = 0xfffffff0u;
		ctl->ring_chunks = 0xffffffffu;
		atomic_store(&ctl->skip_text_used, 0xfffffff0u);
		atomic_store(&ctl->next_instance, 0xffffffffu);
		fake_full(ctl, n, 0);
		done = n;
	} else if (!strcmp(how, "freeloop")) {
		atomic_store(&ctl->desc[0].next, 2);
		atomic_store(&ctl->desc[1].next, 1);
		atomic_store(&ctl->free_head, UINT64_C(77) << 32 | 1);
		done = 2;
	} else if (!strcmp(how, "freebad")) {
		atomic_store(&ctl->free_head, UINT64_C(77) << 32 | 0xfffffff0u);
		atomic_store(&ctl->desc[0].next, 0xfffffff0u);
		done = 1;
	} else if (!strcmp(how, "shrink")) {
		const char *path = getenv("CALLTRACE_POOL");
		int fd = path ? open(path, O_RDWR) : -1;
		int r = fd >= 0 ? ftruncate(fd, 4096) : -1;
		fprintf(stderr, "hostile: truncate %s\n", r == 0 ? "done" : "refused");
		if (fd >= 0)
			close(fd);
		done = r == 0;
	}
	fprintf(stderr, "hostile: %s: wrote %zu\n", how, done);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "none";
	rng = argc > 2 ? strtoull(argv[2], NULL, 10) | 1 : 1;
	long sum = 0, other = 0;
	pthread_t t;

	for (int i = 0; i < 20; i++)
		sum += work(16);
	pthread_create(&t, NULL, worker, &other);
	attack(how);
	for (int i = 0; i < 20; i++)
		sum += work(16);
	pthread_join(t, NULL);
	if (!strcmp(how, "wait"))
		sleep(2);
	printf("sum %ld other %ld calls %lu\n", sum, other, (unsigned long)calls);
	return 7;
}
