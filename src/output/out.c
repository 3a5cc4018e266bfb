/* SPDX-License-Identifier: MIT */
#include "out.h"
#include "../util/util.h"

void ct_out_init(struct ct_out *o, FILE *f)
{
	o->f = f;
	o->len = 0;
	o->error = 0;
}

void ct_out_flush(struct ct_out *o)
{
	if (o->len && fwrite(o->buf, 1, o->len, o->f) != o->len)
		o->error = 1;
	o->len = 0;
}

void ct_out_uint(struct ct_out *o, uint64_t v, int width)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ct_out_reserve(o, (size_t)(n > width ? n : width));
	for (int i = n; i < width; i++)
		o->buf[o->len++] = ' ';
	while (n)
		o->buf[o->len++] = tmp[--n];
}

/* value with three decimals, the integer part right-aligned in width */
static void ct_out_fixed3(struct ct_out *o, double v, int width)
{
	uint64_t milli = (uint64_t)(v * 1000 + 0.5);
	ct_out_uint(o, milli / 1000, width);
	ct_out_reserve(o, 4);
	o->buf[o->len++] = '.';
	o->buf[o->len++] = (char)('0' + milli / 100 % 10);
	o->buf[o->len++] = (char)('0' + milli / 10 % 10);
	o->buf[o->len++] = (char)('0' + milli % 10);
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
