/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the EVENTS block decoder (src/format/events.c) on
 * arbitrary payloads, and what readers do with the extended records it
 * yields: captured arguments (ct_captured_decode), prototypes
 * (ct_proto_parse) and their formatting (ct_format_args/_retval).
 *
 * Input: a sequence of [u32 length][EVENTS payload] (a length past the end
 * takes the rest). The payloads go through one decoder one after another, as
 * a thread's blocks do: the decoder's buffers sized by one block are reused by
 * the next, which is where a size computed in 32 bits went wrong.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/common/proto.h"
#include "../../src/format/events.h"
#include "../../src/output/values.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A CT_EXT_PROTOS payload: entries of u64 address, u16 length, text padded to 8. */
static int fuzz_last_proto(const uint8_t *p, uint32_t len, struct ct_proto *out)
{
	int found = 0;
	uint32_t off = 0;

	while (len - off >= 10) {
		uint16_t n;
		memcpy(&n, p + off + 8, 2);
		if (n > len - off - 10)
			break;
		if (ct_proto_parse((const char *)p + off + 10, n, out) == 0)
			found = 1;
		off += (10 + n + 7) & ~7u;
		if (off > len)
			break;
	}
	return found;
}

static void fuzz_ext(const struct ct_event *ev, struct ct_proto *proto, int *have_proto)
{
	struct ct_captured c;
	char text[1024];

	if (ev->ext_type == CT_EXT_PROTOS) {
		*have_proto = fuzz_last_proto(ev->ext, ev->ext_len, proto);
		return;
	}
	if (ev->ext_type != CT_EXT_ARGS && ev->ext_type != CT_EXT_RETVAL)
		return;
	if (ev->ext_len & 7)
		return;
	/* as the walker does (src/analysis/walk.c): from an aligned copy of its own size */
	uint64_t *words = malloc(ev->ext_len ? ev->ext_len : 1);
	memcpy(words, ev->ext, ev->ext_len);
	if (ct_captured_decode(words, ev->ext_len / 8, &c) < 0 || !*have_proto) {
		free(words);
		return;
	}
	if (ev->ext_type == CT_EXT_ARGS)
		ct_format_args(proto, &c, text, sizeof(text));
	else
		ct_format_retval(proto, &c, text, sizeof(text));
	free(words);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ct_decoder d;
	struct ct_event ev;
	struct ct_proto proto;
	int have_proto = 0;

	ct_decoder_init(&d);
	while (size >= 4) {
		uint32_t len;
		memcpy(&len, data, 4);
		data += 4;
		size -= 4;
		if (len > size)
			len = (uint32_t)size;
		/* a copy of its own size, so that ASan sees any read past the payload */
		uint8_t *payload = malloc(len ? len : 1);
		memcpy(payload, data, len);
		if (ct_decoder_begin(&d, payload, len) == 0)
			while (ct_decoder_next(&d, &ev) > 0)
				if (ev.kind == CT_EV_EXT)
					fuzz_ext(&ev, &proto, &have_proto);
		free(payload);
		data += len;
		size -= len;
	}
	ct_decoder_free(&d);
	return 0;
}
