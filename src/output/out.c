/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "out.h"
#include "../util/util.h"

/* One write(2) per 64 KiB: the system calls cost nothing next to the formatting. */
#define CT_OUT_CHUNK (1u << 16)

void ct_out_init(struct ct_out *o, FILE *f)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
	o->cap = CT_OUT_CHUNK;
	o->buf = ct_malloc(o->cap);
}

/* errno is left as it was, or says the first error: callers may still report it from there */
void ct_out_direct(struct ct_out *o, const void *p, size_t n)
{
	int saved = errno;
	if (o->err || !n)
		return;
	errno = 0;
	if (fwrite(p, 1, n, o->f) != n)
		o->err = errno ? errno : EIO;
	errno = o->err ? o->err : saved;
}

void ct_out_flush(struct ct_out *o)
{
	ct_out_direct(o, o->buf, o->len);
	o->len = 0;
}

void ct_out_grow(struct ct_out *o, size_t n)
{
	ct_out_flush(o);
	if (o->cap < n) {
		free(o->buf);
		o->cap = n;
		o->buf = ct_malloc(n);
	}
}

int ct_out_finish(struct ct_out *o)
{
	ct_out_flush(o);
	int saved = errno;
	errno = 0;
	if (fflush(o->f) != 0 && !o->err)
		o->err = errno ? errno : EIO;
	errno = o->err ? o->err : saved;
	free(o->buf);
	o->buf = NULL;
	o->cap = 0;
	return o->err;
}

void ct_out_uint(struct ct_out *o, uint64_t v, int width)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	uint8_t *p = ct_out_room(o, (size_t)(n > width ? n : width));
	for (int i = n; i < width; i++)
		*p++ = ' ';
	while (n)
		*p++ = (uint8_t)tmp[--n];
	ct_out_commit(o, p);
}

/* value with three decimals, the integer part right-aligned in width */
static void ct_out_fixed3(struct ct_out *o, double v, int width)
{
	uint64_t milli = (uint64_t)(v * 1000 + 0.5);
	ct_out_uint(o, milli / 1000, width);
	uint8_t *p = ct_out_room(o, 4);
	*p++ = '.';
	*p++ = (uint8_t)('0' + milli / 100 % 10);
	*p++ = (uint8_t)('0' + milli / 10 % 10);
	*p++ = (uint8_t)('0' + milli % 10);
	ct_out_commit(o, p);
}

void ct_out_duration(struct ct_out *o, double ns)
{
	if (ns < 0)
		ns = 0;
	if (ns < 999999.5) {
		ct_out_fixed3(o, ns / 1e3, 3);
		ct_out_mem(o, " us", 3);
	} else if (ns < 999999.5e3) {
		ct_out_fixed3(o, ns / 1e6, 3);
		ct_out_mem(o, " ms", 3);
	} else if (ns < 1e12) {
		ct_out_fixed3(o, ns / 1e9, 3);
		ct_out_mem(o, "  s", 3);
	} else {
		ct_out_uint(o, ct_sat_u64(ns / 1e9), 7);
		ct_out_mem(o, "  s", 3);
	}
}

void ct_out_seconds(struct ct_out *o, double ns)
{
	if (ns < 0)
		ns = 0;
	uint64_t nano = ct_sat_u64(ns + 0.5);
	ct_out_uint(o, nano / 1000000000u, 4);
	ct_out_char(o, '.');
	char frac[9];
	uint64_t f = nano % 1000000000u;
	for (int i = 8; i >= 0; i--) {
		frac[i] = (char)('0' + f % 10);
		f /= 10;
	}
	ct_out_mem(o, frac, 9);
}
