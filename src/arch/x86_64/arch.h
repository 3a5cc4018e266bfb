/* SPDX-License-Identifier: MIT */
/*
 * x86-64 specifics of the runtime's hot path. Another architecture provides
 * the same four operations in src/arch/<arch>/arch.h.
 */
#ifndef CT_ARCH_X86_64_H
#define CT_ARCH_X86_64_H

#include <stdint.h>

/* The time stamp counter; constant and non-stop on the CPUs we trust it on. */
static inline uint64_t ct_arch_clock(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/*
 * The caller's stack pointer as it was when it called the function this
 * expands in (its canonical frame address). Needs a frame pointer in that
 * function, so the hooks are built with -fno-omit-frame-pointer.
 */
#define CT_ARCH_CALLER_SP() ((uintptr_t)__builtin_frame_address(0) + 16)

/*
 * Reserve bytes at *pos and return the old value, in one instruction, so that
 * a signal handler running hooks of its own can never be given the same slot.
 * Not a locked operation: *pos belongs to this thread alone.
 */
static inline uint64_t *ct_arch_reserve(uint64_t **pos, uintptr_t bytes)
{
	uintptr_t old = bytes;
	__asm__ volatile("xaddq %0, %1" : "+r"(old), "+m"(*pos) : : "memory");
	return (uint64_t *)old;
}

/* Increment a thread-local counter in one instruction (signal-atomic). */
static inline void ct_arch_inc(long *n)
{
	__asm__ volatile("incq %0" : "+m"(*n) : : "memory");
}

/* Decrement it in one instruction; true if it is still non-zero. */
static inline int ct_arch_dec(long *n)
{
	unsigned char nz;
	__asm__ volatile("decq %0\n\tsetnz %1" : "+m"(*n), "=q"(nz) : : "memory", "cc");
	return nz;
}

/* Program counter and stack pointer of a signal's ucontext. */
#include <ucontext.h>

static inline uint64_t ct_arch_uc_pc(const void *uc)
{
	return (uint64_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
}

static inline uint64_t ct_arch_uc_sp(const void *uc)
{
	return (uint64_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
}

/*
 * The stack pointer a glibc jmp_buf will restore. glibc stores it at
 * __jmpbuf[6], mangled: rotated left by 17 bits after an xor with the
 * thread's pointer guard (at %fs:0x30).
 */
static inline uintptr_t ct_arch_jmpbuf_sp(const void *env)
{
	uint64_t v, guard;
	__builtin_memcpy(&v, (const char *)env + 6 * 8, 8);
	__asm__("movq %%fs:0x30, %0" : "=r"(guard));
	v = (v >> 17 | v << 47) ^ guard;
	return (uintptr_t)v;
}

#endif
