/* SPDX-License-Identifier: MIT */
/*
 * A buffered writer for outputs that print millions of lines: appending to a
 * buffer and formatting numbers by hand is several times faster than stdio's
 * printf, which is what lets replay keep up with tens of millions of events.
 */
#ifndef CT_OUTPUT_OUT_H
#define CT_OUTPUT_OUT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct ct_out {
	FILE *f;
	size_t len;
	int error;
	char buf[1 << 16];
};

void ct_out_init(struct ct_out *o, FILE *f);
void ct_out_flush(struct ct_out *o);

static inline void ct_out_reserve(struct ct_out *o, size_t n)
{
	if (o->len + n > sizeof(o->buf))
		ct_out_flush(o);
}

static inline void ct_out_mem(struct ct_out *o, const char *s, size_t n)
{
	if (n > sizeof(o->buf) / 2) {
		ct_out_flush(o);
		if (fwrite(s, 1, n, o->f) != n)
			o->error = 1;
		return;
	}
	ct_out_reserve(o, n);
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static inline void ct_out_str(struct ct_out *o, const char *s)
{
	ct_out_mem(o, s, strlen(s));
}

static inline void ct_out_char(struct ct_out *o, char c)
{
	ct_out_reserve(o, 1);
	o->buf[o->len++] = c;
}

static inline void ct_out_spaces(struct ct_out *o, size_t n)
{
	while (n) {
		size_t k = n < 256 ? n : 256;
		ct_out_reserve(o, k);
		memset(o->buf + o->len, ' ', k);
		o->len += k;
		n -= k;
	}
}

/* v right-aligned in width (no padding if it is wider) */
void ct_out_uint(struct ct_out *o, uint64_t v, int width);
/* "%7.3f us"-style duration in 10 characters, like ct_fmt_duration */
void ct_out_duration(struct ct_out *o, double ns);
/* "%14.9f" seconds */
void ct_out_seconds(struct ct_out *o, double ns);

#endif
