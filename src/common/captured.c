/* SPDX-License-Identifier: MIT */
/*
 * The payload of CT_EXT_ARGS and CT_EXT_RETVAL records, in 8-byte words:
 *
 *   word 0   the call's return address (0: not kept)
 *   word 1   nint | nsse << 8 | nstack << 16 | strs << 24 | sp << 32, sp
 *            the call's stack pointer as its event carries it (ct_ev_sp):
 *            a record whose event was never written matches no event
 *   then     nint integer registers, nsse xmm registers (low 8 bytes;
 *            both halves, low first, when nsse has CT_CAPTURE_WIDE),
 *            nstack stack words
 *   then     for each bit n of strs, lowest first: one word, bytes kept
 *            (bits 0-31) | CT_STR_* flags << 32, then the bytes, padded
 *            to a whole word
 *
 * At return, the integer registers are rax and rdx, the xmm ones xmm0 and
 * xmm1 (aarch64: x0, x1, v0-v3), and bit 0 of strs is the string rax points to.
 */
#include <string.h>

#include "proto.h"

int ct_captured_decode(const uint64_t *w, size_t nwords, struct ct_captured *c)
{
	memset(c, 0, sizeof(*c));
	if (nwords < 2)
		return -1;
	c->call_site = w[0];
	c->nint = (uint8_t)w[1];
	c->nsse = (uint8_t)(w[1] >> 8) & ~CT_CAPTURE_WIDE;
	c->wide = ((uint8_t)(w[1] >> 8) & CT_CAPTURE_WIDE) != 0;
	c->nstack = (uint8_t)(w[1] >> 16);
	c->strs = (uint8_t)(w[1] >> 24);
	c->sp_tag = (uint32_t)(w[1] >> 32);
	size_t at = 2 + (size_t)c->nint + (c->wide ? 2u : 1u) * c->nsse + c->nstack;
	if (c->nint > CT_CAPTURE_MAX_INT || c->nsse > 8 || c->nstack > CT_CAPTURE_MAX_STACK ||
	    at > nwords)
		return -1;
	c->ints = w + 2;
	c->sse = c->ints + c->nint;
	c->stack = c->sse + (c->wide ? 2 : 1) * c->nsse;
	for (int n = 0; n < CT_CAPTURE_MAX_INT; n++) {
		if (!(c->strs & (1u << n)))
			continue;
		if (at >= nwords)
			return -1;
		uint32_t len = (uint32_t)w[at];
		size_t words = ((size_t)len + 7) / 8;
		if (words > nwords - at - 1)
			return -1;
		c->str[n].len = len;
		c->str[n].flags = (uint8_t)(w[at] >> 32);
		c->str[n].bytes = (const char *)(w + at + 1);
		at += 1 + words;
	}
	return 0;
}
