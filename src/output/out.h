/* SPDX-License-Identifier: MIT */
/*
 * The one buffered writer of the outputs that print millions of lines or
 * events (replay, the exports): appending to a buffer and formatting numbers
 * by hand is several times faster than stdio's printf, which is what lets
 * replay keep up with tens of millions of events. It writes to a FILE, so
 * what it writes keeps its place among what others print there with stdio.
 * The first failed write sticks (its errno); nothing is written after it.
 */
#ifndef CT_OUTPUT_OUT_H
#define CT_OUTPUT_OUT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct ct_out {
	FILE *f;
	int err; /* errno of the first failed write, 0 if none */
	uint8_t *buf;
	size_t len, cap;
};

void ct_out_init(struct ct_out *o, FILE *f);
/* Hand what is buffered to the FILE (which may keep some of it: fflush for the rest). */
void ct_out_flush(struct ct_out *o);
/* Flush, fflush the FILE and free the buffer (the FILE stays open): 0 or an errno. */
int ct_out_finish(struct ct_out *o);
/* Flush, and make the buffer hold n bytes at least. */
void ct_out_grow(struct ct_out *o, size_t n);
/* n bytes written past the buffer (after a flush). */
void ct_out_direct(struct ct_out *o, const void *p, size_t n);

/* Room for n more bytes at the returned place; ct_out_commit() says where they end. */
static inline uint8_t *ct_out_room(struct ct_out *o, size_t n)
{
	if (o->cap - o->len < n)
		ct_out_grow(o, n);
	return o->buf + o->len;
}

static inline void ct_out_commit(struct ct_out *o, uint8_t *end)
{
	o->len = (size_t)(end - o->buf);
}

static inline void ct_out_mem(struct ct_out *o, const void *s, size_t n)
{
	if (n > o->cap / 2) {
		ct_out_flush(o);
		ct_out_direct(o, s, n);
		return;
	}
	uint8_t *d = ct_out_room(o, n);
	memcpy(d, s, n);
	o->len += n;
}

static inline void ct_out_str(struct ct_out *o, const char *s)
{
	ct_out_mem(o, s, strlen(s));
}

static inline void ct_out_char(struct ct_out *o, char c)
{
	*ct_out_room(o, 1) = (uint8_t)c;
	o->len++;
}

static inline void ct_out_spaces(struct ct_out *o, size_t n)
{
	while (n) {
		size_t k = n < 256 ? n : 256;
		memset(ct_out_room(o, k), ' ', k);
		o->len += k;
		n -= k;
	}
}

/* Decimal digits of v at p; returns the end. */
static inline uint8_t *ct_put_u64(uint8_t *p, uint64_t v)
{
	uint8_t tmp[20];
	int n = 0;
	do {
		tmp[n++] = (uint8_t)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* v right-aligned in width (no padding if it is wider) */
void ct_out_uint(struct ct_out *o, uint64_t v, int width);
/* "%7.3f us"-style duration in 10 characters, like ct_fmt_duration */
void ct_out_duration(struct ct_out *o, double ns);
/* "%14.9f" seconds */
void ct_out_seconds(struct ct_out *o, double ns);

#endif
