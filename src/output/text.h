/* SPDX-License-Identifier: MIT */
/*
 * Text the outputs hand to other programs: JSON strings (report --json,
 * export chrome, the flame page), protobuf strings (export perfetto), folded
 * stacks. Those must be UTF-8, while a name in a trace is whatever bytes the
 * symbol table held. One rule for every output: a byte that is not part of a
 * well-formed UTF-8 sequence is replaced by U+FFFD, one for each such byte.
 */
#ifndef CT_OUTPUT_TEXT_H
#define CT_OUTPUT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "../util/util.h"

/*
 * The length (2 to 4) of the well-formed UTF-8 sequence starting at s[0], a
 * byte of 0x80 or more, that fits in the n bytes at s; 0 if there is none:
 * a stray continuation byte, an overlong form, a surrogate, a code point past
 * U+10FFFF, or a sequence cut short. As RFC 3629 defines UTF-8.
 */
size_t ct_utf8_len(const unsigned char *s, size_t n);

/* s[0..n) appended to b, each byte that is not well-formed UTF-8 replaced by U+FFFD. */
void ct_utf8_append(struct ct_buf *b, const char *s, size_t n);

/* 1 if s[0..n) is all well-formed UTF-8. */
int ct_utf8_valid(const char *s, size_t n);

enum ct_json_flags {
	/* also escape '<', '>', '&' and DEL: safe to embed in an HTML <script> */
	CT_JSON_SCRIPT = 1,
};

/*
 * s as a JSON string, quotes included, appended to b: '"' and '\' escaped,
 * control characters as \u00XX, bytes that are not UTF-8 as \ufffd.
 */
void ct_json_quote(struct ct_buf *b, const char *s, unsigned flags);

/* The same, written to f. */
void ct_json_fput(FILE *f, const char *s, unsigned flags);

#endif
