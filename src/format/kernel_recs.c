// SPDX-License-Identifier: MIT
/*
 * KERNEL blocks (record --kernel) as readers see them: every record of the
 * trace in one array, checked, then sorted by thread and time for the
 * readers that place them in the tree.
 */
#include <stdlib.h>
#include <string.h>

#include "reader.h"

#define CT_KREC_MAX_SIZE 4096u /* a later version's record: still a small one */

/*
 * A KERNEL payload (unpacked, NUL after it): header, count records of
 * rec_size bytes, each at least the first version's 72. A record that ends
 * before it starts, or of a kind not known, is dropped, not the trace.
 */
int ct_kernel_recs_add(struct ct_trace *t, const uint8_t *p, size_t len)
{
	struct ct_kernel_hdr h;
	if (len < sizeof(h))
		return -1;
	memcpy(&h, p, sizeof(h));
	if (h.rec_size < CT_KREC_MIN_SIZE || h.rec_size > CT_KREC_MAX_SIZE ||
	    (uint64_t)h.count * h.rec_size != len - sizeof(h))
		return -1;
	t->klost += h.lost;
	t->krecs = ct_realloc(t->krecs, (t->nkrecs + h.count) * sizeof(*t->krecs));
	for (uint32_t i = 0; i < h.count; i++) {
		struct ct_kernel_rec r = { 0 }; /* fields a shorter record lacks read as 0 */
		memcpy(&r, p + sizeof(h) + (size_t)i * h.rec_size, ct_min(h.rec_size, sizeof(r)));
		if (r.end < r.start || r.tid <= 0 ||
		    (r.kind != CT_KREC_SYSCALL && r.kind != CT_KREC_OFFCPU))
			continue;
		t->krecs[t->nkrecs++] = r;
	}
	t->ksorted = 0;
	return 0;
}

static int ct_krec_order(const void *a, const void *b)
{
	const struct ct_kernel_rec *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* a system call before the off-CPU interval inside it */
	return (x->kind > y->kind) - (x->kind < y->kind);
}

/* The records of thread tid, in time order (n: how many; NULL if none). */
const struct ct_kernel_rec *ct_trace_kernel(struct ct_trace *t, int32_t tid, size_t *n)
{
	if (!t->ksorted) {
		qsort(t->krecs, t->nkrecs, sizeof(*t->krecs), ct_krec_order);
		t->ksorted = 1;
	}
	size_t lo = 0, hi = t->nkrecs;
	while (lo < hi) { /* the first of tid */
		size_t mid = lo + (hi - lo) / 2;
		if (t->krecs[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < t->nkrecs && t->krecs[end].tid == tid)
		end++;
	*n = end - lo;
	return *n ? &t->krecs[lo] : NULL;
}

static uint64_t ct_karg_key(int32_t tid, uint64_t start)
{
	return (start * UINT64_C(0x9e3779b97f4a7c15) ^ (uint32_t)tid) | UINT64_C(1) << 63;
}

/*
 * A KARGS payload: entries of a struct ct_karg_rec and its len bytes, one
 * after another. An entry that runs past the payload makes the trace
 * corrupt; one of a kind not known is kept (nothing shows it).
 */
int ct_kargs_add(struct ct_trace *t, const uint8_t *p, size_t len)
{
	size_t at = 0;
	if (!t->kargs_index.keys)
		ct_map_init(&t->kargs_index, 64);
	while (at < len) {
		struct ct_karg a;
		if (len - at < sizeof(a.rec))
			return -1;
		memcpy(&a.rec, p + at, sizeof(a.rec));
		at += sizeof(a.rec);
		if (len - at < a.rec.len)
			return -1;
		a.off = t->kargs_data.len;
		ct_buf_append(&t->kargs_data, p + at, a.rec.len);
		at += a.rec.len;
		int added;
		uint64_t *slot =
			ct_map_put(&t->kargs_index, ct_karg_key(a.rec.tid, a.rec.start), &added);
		if (!added)
			continue; /* a second for one call (or two keys alike): the first stays */
		t->kargs = ct_realloc(t->kargs, (t->nkargs + 1) * sizeof(*t->kargs));
		t->kargs[t->nkargs++] = a;
		*slot = t->nkargs;
	}
	return 0;
}

const struct ct_karg_rec *ct_trace_karg(const struct ct_trace *t, int32_t tid, uint64_t start,
					const uint8_t **data)
{
	const uint64_t *slot =
		t->nkargs ? ct_map_find(&t->kargs_index, ct_karg_key(tid, start)) : NULL;
	if (!slot)
		return NULL;
	const struct ct_karg *a = &t->kargs[*slot - 1];
	if (a->rec.tid != tid || a->rec.start != start)
		return NULL; /* another call's key */
	*data = t->kargs_data.data ? (const uint8_t *)t->kargs_data.data + a->off
				   : (const uint8_t *)"";
	return &a->rec;
}
