/* SPDX-License-Identifier: MIT */
/*
 * Counting what lossy mode drops. A thread with no chunk drops its events; it
 * counts them in a slot of shared memory (claimed at its first drop), without
 * any syscall, so a dropping thread costs about what a recording one does and
 * its count outlives it. When it gets a chunk again it says how many it
 * dropped there, in a lost record; what it could not say (it was killed, it
 * crashed, it ended while dropping) the recorder writes for it.
 */
#include "../runtime.h"
#include "hotpath.h"

static struct ct_lost_slot *ct_lost_slot(struct ct_thread *t)
{
	if (t->lost_slot > 0)
		return &ct_rt_lost_slots()[t->lost_slot - 1];
	if (t->lost_slot < 0)
		return NULL; /* none was free */

	struct ct_lost_slot *slots = ct_rt_lost_slots();
	ct_identify(t); /* a thread may drop before it ever had a chunk */
	uint32_t start = (uint32_t)t->tid * 2654435761u % CT_LOST_SLOTS;
	for (uint32_t k = 0; k < CT_LOST_SLOTS; k++) {
		uint32_t i = (start + k) % CT_LOST_SLOTS;
		int32_t free_tid = 0;
		if (atomic_compare_exchange_strong(&slots[i].tid, &free_tid, t->tid)) {
			slots[i].pid = t->pid;
			slots[i].instance = ct_instance;
			atomic_store(&slots[i].dropped, 0);
			atomic_store(&slots[i].told, 0);
			t->lost_slot = (int32_t)i + 1;
			return &slots[i];
		}
	}
	t->lost_slot = -1;
	return NULL;
}

/* One event dropped (async-signal-safe, no syscall). */
void ct_drop(struct ct_thread *t, uint64_t n)
{
	struct ct_lost_slot *s = ct_lost_slot(t);
	if (s)
		atomic_store_explicit(&s->dropped, atomic_load_explicit(&s->dropped,
									memory_order_relaxed) + n,
				      memory_order_relaxed);
	else
		t->lost += n; /* no slot: told in the stream only */
}

/* Dropped and not yet told in the stream. */
uint64_t ct_untold(struct ct_thread *t)
{
	if (t->lost_slot <= 0)
		return t->lost;
	struct ct_lost_slot *s = &ct_rt_lost_slots()[t->lost_slot - 1];
	return atomic_load(&s->dropped) - atomic_load(&s->told) + t->lost;
}

/* The count was told in the stream (written in a lost record). */
void ct_told(struct ct_thread *t, uint64_t n)
{
	t->lost = 0;
	if (t->lost_slot > 0) {
		struct ct_lost_slot *s = &ct_rt_lost_slots()[t->lost_slot - 1];
		atomic_store(&s->told, atomic_load(&s->told) + n);
	}
}
