/* SPDX-License-Identifier: MIT */
/*
 * The functions of a program that DWARF declares in a system header, as the
 * recorder hands them to the runtime (CALLTRACE_SYSHDR names a memfd of the
 * recorder's): a head, then count ELF addresses (uint64_t), ascending. The
 * runtime leaves those entries unpatched in the module with this build-id,
 * as it does the C++ standard library's (src/runtime/methods/stdskip.c).
 */
#ifndef CT_COMMON_SYSHDR_H
#define CT_COMMON_SYSHDR_H

#include <stdint.h>

#define CT_SYSHDR_MAGIC "CTSYSHD1"
#define CT_SYSHDR_MAX	(1u << 20) /* addresses, at most */

struct ct_syshdr_head {
	char magic[8];
	uint32_t build_id_len;
	uint32_t count;
	uint8_t build_id[32];
};

#endif
