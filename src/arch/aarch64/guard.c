// SPDX-License-Identifier: MIT
/*
 * glibc's pointer guard on aarch64, for reading the stack pointer a jmp_buf
 * restores (arch.h). It lives in ld.so (__pointer_chk_guard, a private
 * symbol), not at a fixed offset from the thread pointer as on x86-64, so we
 * learn it from a setjmp of our own: the stored word is our stack pointer
 * xor the guard.
 */
#include <setjmp.h>

#include "arch.h"

uint64_t ct_arch_ptr_guard;
int ct_arch_ptr_guard_known;

/* Not inlined: its stack pointer must not move between the read and the call. */
__attribute__((noinline)) void ct_arch_learn_guard(void)
{
	jmp_buf env;
	uintptr_t sp;
	uint64_t word;

	__asm__ volatile("mov %0, sp" : "=r"(sp));
	if (setjmp(env))
		return;
	__builtin_memcpy(&word, (const char *)env + CT_ARCH_JMPBUF_SP_WORD * 8, 8);
	ct_arch_ptr_guard = word ^ sp;
	__atomic_store_n(&ct_arch_ptr_guard_known, 1, __ATOMIC_RELEASE);
}
