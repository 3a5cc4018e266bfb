/* SPDX-License-Identifier: MIT */
/*
 * Prototypes by function: the runtime tells each captured function's
 * prototype once (CT_EXT_PROTOS: u64 address, u16 length, text, padded to 8
 * bytes), the recorder keeps them in PROTOS blocks with their instance.
 */
#include <stdlib.h>
#include <string.h>

#include "protomap.h"
#include "../util/util.h"

struct ct_proto_ref {
	const char *text;
	size_t len;
};

struct ct_protomap {
	struct ct_map index; /* instance, address -> entry + 1 */
	struct ct_proto_ref *v;
	size_t n;
};

static uint64_t ct_protomap_key(uint32_t instance, uint64_t addr)
{
	return (uint64_t)instance << 48 ^ addr;
}

static void ct_protomap_add(struct ct_protomap *m, uint32_t instance, const uint8_t *p, size_t len)
{
	for (size_t at = 0; at + 10 <= len;) {
		uint64_t addr;
		uint16_t n;
		memcpy(&addr, p + at, 8);
		memcpy(&n, p + at + 8, 2);
		if (n > len - at - 10)
			return; /* torn: the rest cannot be trusted */
		int added;
		uint64_t *slot = ct_map_put(&m->index, ct_protomap_key(instance, addr), &added);
		m->v = ct_realloc(m->v, (m->n + 1) * sizeof(*m->v));
		m->v[m->n++] = (struct ct_proto_ref){ (const char *)p + at + 10, n };
		*slot = m->n; /* a later prototype of the same function wins */
		at += (10 + (size_t)n + 7) & ~(size_t)7;
	}
}

struct ct_protomap *ct_protomap_open(const struct ct_trace *t)
{
	if (!t->nprotos)
		return NULL;
	struct ct_protomap *m = ct_calloc(1, sizeof(*m));
	ct_map_init(&m->index, 1024);
	for (size_t i = 0; i < t->nprotos; i++) {
		uint32_t instance;
		memcpy(&instance, t->protos[i].data, 4);
		ct_protomap_add(m, instance, t->protos[i].data + 4, t->protos[i].len - 4);
	}
	return m;
}

size_t ct_protomap_count(const struct ct_protomap *m)
{
	return m ? m->index.count : 0;
}

const char *ct_args_unavailable(const struct ct_trace *t)
{
	const char *captures = ct_trace_meta(t, "captures");
	const char *method = ct_trace_meta(t, "method");
	if (!captures || !strstr(captures, "args") || !method)
		return NULL;
	if (strstr(method, "finstrument"))
		return "-finstrument-functions";
	if (strstr(method, "mcount"))
		return "-pg without -mfentry";
	return NULL;
}

void ct_protomap_free(struct ct_protomap *m)
{
	if (!m)
		return;
	ct_map_free(&m->index);
	free(m->v);
	free(m);
}

const char *ct_protomap_find(const struct ct_protomap *m, uint32_t instance, uint64_t addr,
			     size_t *len)
{
	const uint64_t *slot = m ? ct_map_find(&m->index, ct_protomap_key(instance, addr)) : NULL;
	if (!slot || !*slot)
		return NULL;
	*len = m->v[*slot - 1].len;
	return m->v[*slot - 1].text;
}
