/* SPDX-License-Identifier: MIT */
/*
 * The flight recorder (record --ring SIZE): each thread keeps its newest
 * ring_chunks chunks and nothing older. When its chunk is full a thread takes
 * a free one while its ring is not full yet, else it zeroes and reuses the
 * oldest of its own: it never waits for the recorder, and pays per call what
 * the streaming mode pays. Chunks of a ring are linked through their
 * descriptors, oldest first.
 *
 * The recorder copies rings while threads write them (a snapshot); a chunk
 * being reused is marked RECYCLING and gets a new sequence number, so a copy
 * taken across a reuse is seen to be stale and dropped.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "../runtime.h"
#include "hotpath.h"
#include "../process/process.h"

/* Rings leave a few chunks free, for the names of processes and libraries. */
#define CT_RING_RESERVE 4

/* Move to the next chunk of this thread's ring; 0 if it has none and none is free. */
int ct_ring_next(struct ct_thread *t)
{
	struct ct_pool_ctl *ctl = ct_ctl;
	int64_t idx = -1;

	if (t->ring_count < ct_geo.ring_chunks &&
	    (atomic_load(&ctl->free_count) > CT_RING_RESERVE || !t->ring_count))
		idx = ct_rt_pop_free(ctl);
	if (idx >= 0) {
		t->ring_count++;
	} else if (t->ring_count && t->ring_head > 0 && (uint32_t)t->ring_head <= ct_geo.nchunks) {
		idx = t->ring_head - 1;
		/* the link is in shared memory: a bad one ends the ring at the next turn */
		uint32_t next = atomic_load(&ctl->desc[idx].next);
		t->ring_head = next <= ct_geo.nchunks ? (int32_t)next : 0;
		atomic_store(&ctl->desc[idx].state, CT_CHUNK_RECYCLING);
		memset(ct_rt_chunk((uint32_t)idx), 0, ct_geo.chunk_size);
	} else {
		return 0;
	}
	atomic_store(&ctl->desc[idx].next, 0);
	if (t->ring_tail && t->ring_tail != idx + 1)
		atomic_store(&ctl->desc[t->ring_tail - 1].next, (uint32_t)idx + 1);
	if (!t->ring_head)
		t->ring_head = (int32_t)idx + 1;
	t->ring_tail = (int32_t)idx + 1;
	ct_make_current(t, (uint32_t)idx, 1);
	return 1;
}

/* SIGUSR2 asks the recorder for a snapshot: async-signal-safe, no record written. */
static void ct_on_snapshot_signal(int sig)
{
	struct ct_pool_ctl *ctl = ct_ctl;
	int err = errno;
	(void)sig;
	ct_pool_request_snapshot(ctl);
	errno = err;
}

/* Only if the program leaves SIGUSR2 alone: its own handler comes first. */
void ct_install_snapshot_signal(void)
{
	struct sigaction sa, old;

	if (ct_real_sigaction(SIGUSR2, NULL, &old) < 0 || old.sa_handler != SIG_DFL ||
	    (old.sa_flags & SA_SIGINFO))
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ct_on_snapshot_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	ct_real_sigaction(SIGUSR2, &sa, NULL);
}
