/* SPDX-License-Identifier: MIT */
/*
 * Captured argument and return values as text, the way a prototype
 * (common/proto.h) says to show them:
 *
 *   line="key = \"v\"\n", len=12, strict=true, ...
 *
 * Integers in decimal, pointers in hex (NULL for 0), strings C-escaped in
 * double quotes ("…" after them when the capture cut them short), chars as
 * 'x', enums by name, floating point in the shortest form that reads back
 * the same, small structs as {x=1, y=2} (else {…}), and "?" for a value
 * whose register or stack word was not captured.
 */
#ifndef CT_OUTPUT_VALUES_H
#define CT_OUTPUT_VALUES_H

#include <stddef.h>

#include "../common/proto.h"

/*
 * The arguments of one call, "name=value" separated by ", " (and ", ..." for
 * a variadic function), from what its CT_EXT_ARGS record captured. Returns
 * the length written; buf is always NUL-terminated (when len > 0), cut short
 * if it is too small, never in the middle of a UTF-8 sequence.
 */
size_t ct_format_args(const struct ct_proto *p, const struct ct_captured *c, char *buf, size_t len);

/* The return value alone, from a CT_EXT_RETVAL record; "" for void and values in memory. */
size_t ct_format_retval(const struct ct_proto *p, const struct ct_captured *c, char *buf,
			size_t len);

/* One value (a parameter's, or the return value's with a CT_EXT_RETVAL capture). */
size_t ct_format_value(const struct ct_pvalue *v, const struct ct_captured *c, char *buf,
		       size_t len);

/* call_values.c: a call's arguments or return value as text, its prototype parsed once in a row */
struct ct_call_values;
struct ct_values_cache {
	const char *text; /* the prototype last parsed */
	struct ct_proto parsed;
	int ok;
};
size_t ct_call_args_text(struct ct_values_cache *vc, const struct ct_call_values *v, char *buf,
			 size_t len);
size_t ct_call_ret_text(struct ct_values_cache *vc, const struct ct_call_values *v, char *buf,
			size_t len);

#endif
