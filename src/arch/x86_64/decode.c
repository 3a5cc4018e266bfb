/* SPDX-License-Identifier: MIT */
/* The decoder is set up on first use: patching runs once per module, never on a call. */
#include "decode.h"

static const ZydisDecoder *ct_decoder(void)
{
	static ZydisDecoder decoder;
	static int ready;

	if (!ready) {
		ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
		ready = 1;
	}
	return &decoder;
}

int ct_x86_decode(const uint8_t *p, size_t len, ZydisDecodedInstruction *insn)
{
	return ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(ct_decoder(), NULL, p, len, insn));
}

int ct_x86_decode_full(const uint8_t *p, size_t len, ZydisDecodedInstruction *insn,
		       ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT])
{
	return ZYAN_SUCCESS(ZydisDecoderDecodeFull(ct_decoder(), p, len, insn, ops));
}
