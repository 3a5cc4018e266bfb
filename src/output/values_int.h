/* SPDX-License-Identifier: MIT */
/* Shared by values.c (values, enums, structs) and values_text.c (the writer, scalars). */
#ifndef CT_OUTPUT_VALUES_INT_H
#define CT_OUTPUT_VALUES_INT_H

#include <stddef.h>
#include <stdint.h>

#define CT_ELLIPSIS "\xe2\x80\xa6" /* "…" */

/* A bounded writer: once full, it takes nothing more. */
struct ct_vout {
	char *buf;
	size_t len, pos;
	int full;
};

/* n bytes; cut, if they do not fit, before a UTF-8 sequence rather than inside it. */
void ct_vput(struct ct_vout *o, const char *s, size_t n);
void ct_vputs(struct ct_vout *o, const char *s);
void ct_vputf(struct ct_vout *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The little-endian integer in the first size (1-8) bytes. */
uint64_t ct_vload(const uint8_t *b, unsigned size);
/* An integer of size 1-8 or 16 bytes at b. */
void ct_vput_int(struct ct_vout *o, const uint8_t *b, unsigned size, int is_signed);
/* A float of size 2, 4, 8 or 16 (x87 extended) bytes at b. */
void ct_vput_fp(struct ct_vout *o, const uint8_t *b, unsigned size);
/* An IEEE binary128 at b (aarch64's long double), the same text on every host (values_quad.c). */
void ct_vput_quad(struct ct_vout *o, const uint8_t *b);
/* An x87 extended at b (10 bytes), as an x86-64 host writes it (values_quad.c). */
void ct_vput_x87(struct ct_vout *o, const uint8_t *b);
/* One byte as C writes it in a literal quoted by quote. */
void ct_vput_escaped(struct ct_vout *o, unsigned char ch, char quote);
/* n bytes in double quotes, escaped; valid UTF-8 as it is. */
void ct_vput_string(struct ct_vout *o, const char *s, size_t n);
/* 0x55d0c3a0, or NULL. */
void ct_vput_pointer(struct ct_vout *o, uint64_t p);

#endif
