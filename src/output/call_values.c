/* SPDX-License-Identifier: MIT */
/*
 * A call's captured values as text, for every output that shows them
 * (replay, the exports): the prototype parsed once per function in a row.
 */
#include "values.h"
#include "../analysis/walk.h"

static const struct ct_proto *ct_cached_proto(struct ct_values_cache *vc,
					      const struct ct_call_values *v)
{
	if (!v || !v->proto)
		return NULL;
	if (v->proto != vc->text) {
		vc->text = v->proto;
		vc->ok = ct_proto_parse(v->proto, v->proto_len, &vc->parsed) == 0;
	}
	return vc->ok ? &vc->parsed : NULL;
}

typedef size_t (*ct_format_fn)(const struct ct_proto *, const struct ct_captured *, char *, size_t);

/* what, as fmt writes it with the call's prototype; "" without one (v may be NULL). */
static size_t ct_call_text(struct ct_values_cache *vc, const struct ct_call_values *v,
			   const struct ct_captured *what, ct_format_fn fmt, char *buf, size_t len)
{
	const struct ct_proto *p = ct_cached_proto(vc, v);
	if (len)
		buf[0] = 0;
	return p && what ? fmt(p, what, buf, len) : 0;
}

size_t ct_call_args_text(struct ct_values_cache *vc, const struct ct_call_values *v, char *buf,
			 size_t len)
{
	return ct_call_text(vc, v, v ? v->args : NULL, ct_format_args, buf, len);
}

size_t ct_call_ret_text(struct ct_values_cache *vc, const struct ct_call_values *v, char *buf,
			size_t len)
{
	return ct_call_text(vc, v, v ? v->ret : NULL, ct_format_retval, buf, len);
}
