/* SPDX-License-Identifier: MIT */
/* The prototypes a trace carries (CT_BLOCK_PROTOS): function -> its text (src/common/proto.h). */
#ifndef CT_ANALYSIS_PROTOMAP_H
#define CT_ANALYSIS_PROTOMAP_H

#include <stddef.h>
#include <stdint.h>

#include "../format/reader.h"

struct ct_protomap;

/* NULL if the trace has no prototypes (nothing was captured). */
struct ct_protomap *ct_protomap_open(const struct ct_trace *t);
void ct_protomap_free(struct ct_protomap *m);
/* The text of the function at addr of process image instance; NULL if none. */
const char *ct_protomap_find(const struct ct_protomap *m, uint32_t instance, uint64_t addr,
			     size_t *len);

/* Functions with a prototype. */
size_t ct_protomap_count(const struct ct_protomap *m);
/*
 * record -a was asked but the hooks the program was built with cannot see
 * arguments (-finstrument-functions, -pg without -mfentry): the reason, else NULL.
 */
const char *ct_args_unavailable(const struct ct_trace *t);

#endif
