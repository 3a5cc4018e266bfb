/* SPDX-License-Identifier: MIT */
/* The decoder is set up on first use: patching runs once per module, never on a call. */
#include "decode.h"

int ct_x86_decode(const uint8_t *p, size_t len, ZydisDecodedInstruction *insn)
{
	static ZydisDecoder decoder;
	static int ready;

	if (!ready) {
		ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
		ready = 1;
	}
	return ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&decoder, NULL, p, len, insn));
}
