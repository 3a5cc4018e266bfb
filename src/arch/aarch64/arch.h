/* SPDX-License-Identifier: MIT */
/*
 * aarch64 specifics of the runtime's hot path: the same operations as
 * src/arch/x86_64/arch.h.
 */
#ifndef CT_ARCH_AARCH64_H
#define CT_ARCH_AARCH64_H

#include <stdint.h>

/*
 * The virtual counter: constant rate (cntfrq_el0), monotonic, readable from
 * user space on Linux, the same on every CPU. The isb keeps it from being
 * read ahead of the code before it, as rdtsc's ordering does in practice.
 */
static inline uint64_t ct_arch_clock(void)
{
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

/* The counter's rate in Hz, as the firmware set it. */
static inline uint64_t ct_arch_clock_hz(void)
{
	uint64_t f;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
	return f;
}

/*
 * The caller's stack pointer as it was when it called the function this
 * expands in: its canonical frame address. (gcc puts the frame record at the
 * bottom of an aarch64 frame, so the frame pointer alone does not give it.)
 */
#define CT_ARCH_CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa())

/*
 * Reserve bytes at *pos and return the old value, signal-atomically: a
 * load-exclusive/store-exclusive pair, whose store fails (and is retried)
 * if a signal handler ran in between, since an exception return clears the
 * exclusive monitor. No barrier: *pos belongs to this thread alone. Written
 * out rather than left to __atomic_fetch_add, which gcc may make a call to
 * libgcc's outlined atomics (the fast hooks call nothing).
 */
static inline uint64_t *ct_arch_reserve(uint64_t **pos, uintptr_t bytes)
{
	uintptr_t old, next;
	uint32_t fail;
	__asm__ volatile("1:	ldxr	%0, %3\n"
			 "	add	%1, %0, %4\n"
			 "	stxr	%w2, %1, %3\n"
			 "	cbnz	%w2, 1b"
			 : "=&r"(old), "=&r"(next), "=&r"(fail), "+Q"(*pos)
			 : "r"(bytes)
			 : "memory");
	return (uint64_t *)old;
}

/* Add delta to a thread-local counter signal-atomically; returns the new value. */
static inline long ct_arch_add(long *n, long delta)
{
	long v;
	uint32_t fail;
	__asm__ volatile("1:	ldxr	%0, %2\n"
			 "	add	%0, %0, %3\n"
			 "	stxr	%w1, %0, %2\n"
			 "	cbnz	%w1, 1b"
			 : "=&r"(v), "=&r"(fail), "+Q"(*n)
			 : "r"(delta)
			 : "memory");
	return v;
}

/* Increment a thread-local counter (signal-atomic). */
static inline void ct_arch_inc(long *n)
{
	ct_arch_add(n, 1);
}

/* Decrement it; true if it is still non-zero. */
static inline int ct_arch_dec(long *n)
{
	return ct_arch_add(n, -1) != 0;
}

/* Program counter and stack pointer of a signal's ucontext. */
#include <ucontext.h>

static inline uint64_t ct_arch_uc_pc(const void *uc)
{
	return (uint64_t)((const ucontext_t *)uc)->uc_mcontext.pc;
}

static inline uint64_t ct_arch_uc_sp(const void *uc)
{
	return (uint64_t)((const ucontext_t *)uc)->uc_mcontext.sp;
}

/*
 * The stack pointer a glibc jmp_buf will restore. glibc's aarch64 setjmp
 * stores x19-x28, x29, the mangled lr, then at __jmpbuf[13] the mangled sp:
 * xor with the pointer guard (__pointer_chk_guard, kept by ld.so; no
 * rotation on aarch64). The guard is learnt once by a setjmp of our own
 * whose stack pointer we know (ct_arch_learn_guard, interpose side).
 */
#define CT_ARCH_JMPBUF_SP_WORD 13
extern uint64_t ct_arch_ptr_guard __attribute__((visibility("hidden")));
extern int ct_arch_ptr_guard_known __attribute__((visibility("hidden")));
void ct_arch_learn_guard(void) __attribute__((visibility("hidden")));

static inline uintptr_t ct_arch_jmpbuf_sp(const void *env)
{
	uint64_t v;
	if (!__atomic_load_n(&ct_arch_ptr_guard_known, __ATOMIC_ACQUIRE))
		ct_arch_learn_guard();
	__builtin_memcpy(&v, (const char *)env + CT_ARCH_JMPBUF_SP_WORD * 8, 8);
	return (uintptr_t)(v ^ ct_arch_ptr_guard);
}

#endif
