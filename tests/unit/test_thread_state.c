/* SPDX-License-Identifier: MIT */
/*
 * The one reset of a thread's state in the pool (ct_thread_leave_pool, used
 * by a fork's child and by attach's stop): every field of struct ct_thread
 * is listed here as reset or kept, so a field added to the struct fails
 * this test until someone decides which it is.
 */
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "unit.h"
#include "../../src/runtime/runtime.h"

struct field {
	const char *name;
	size_t off, size, align;
	int reset; /* 1: ct_thread_leave_pool zeroes it; 0: it stays */
};

#define F(name, reset)                                                                             \
	{ #name, offsetof(struct ct_thread, name), sizeof(((struct ct_thread *)0)->name),          \
	  alignof(__typeof__(((struct ct_thread *)0)->name)), reset }

/* In the struct's order. nest is checked apart: its pending bit goes, its count stays. */
static const struct field fields[] = {
	F(pos, 1),	   F(end, 1),	     F(nest, 0),      F(shadow, 0),	F(sdepth, 0),
	F(resume_from, 0), F(gate, 0),	     F(shadow_gone, 0), F(unhooked, 0), F(scap, 0),
	F(start, 1),	   F(chunk, 1),	     F(tid, 0),	      F(pid, 0),	F(ring_count, 1),
	F(ring_head, 1),   F(ring_tail, 1),  F(thread_seq, 1), F(lost, 1),	F(lost_slot, 1),
	F(key_armed, 0),   F(in_slow, 0),    F(in_ring, 1),   F(dropping, 1),	F(npending, 1),
	F(pending, 0),
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static size_t align_up(size_t n, size_t a)
{
	return (n + a - 1) / a * a;
}

/* The fields listed cover the struct: nothing between them but alignment padding. */
static void test_every_field_listed(void)
{
	size_t end = 0;
	for (size_t i = 0; i < NFIELDS; i++) {
		if (fields[i].off != align_up(end, fields[i].align))
			fprintf(stderr, "  a field before %s is not listed\n", fields[i].name);
		CHECK(fields[i].off == align_up(end, fields[i].align));
		end = fields[i].off + fields[i].size;
	}
	CHECK(align_up(end, alignof(struct ct_thread)) == sizeof(struct ct_thread));
}

/* What is listed as reset is zero afterwards (the ring too); what is kept is untouched. */
static void test_leave_pool(void)
{
	struct ct_thread t, before;
	memset(&t, 0xa5, sizeof(t));
	t.nest = 3 + CT_NEST_PENDING; /* three hooks in progress, chunks pending */
	before = t;
	ct_thread_leave_pool(&t);
	for (size_t i = 0; i < NFIELDS; i++) {
		const unsigned char *now = (const unsigned char *)&t + fields[i].off;
		const unsigned char *was = (const unsigned char *)&before + fields[i].off;
		if (!strcmp(fields[i].name, "nest"))
			continue;
		for (size_t k = 0; k < fields[i].size; k++) {
			int ok = fields[i].reset ? now[k] == 0 : now[k] == was[k];
			if (!ok) {
				fprintf(stderr, "  %s %s\n", fields[i].name,
					fields[i].reset ? "not reset" : "changed");
				ct_unit_failed = 1;
				break;
			}
		}
	}
	CHECK(t.nest == 3);
	CHECK(t.ring_head == 0 && t.ring_tail == 0 && t.ring_count == 0);
}

int main(void)
{
	int failures = 0;
	RUN(test_every_field_listed);
	RUN(test_leave_pool);
	return failures != 0;
}
