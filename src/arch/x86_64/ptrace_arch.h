/* SPDX-License-Identifier: MIT */
/* x86-64 specifics of the ptrace method: registers, the breakpoint, system calls. */
#ifndef CT_ARCH_X86_64_PTRACE_H
#define CT_ARCH_X86_64_PTRACE_H

#include <elf.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/user.h>

#include "relocate.h"

#define CT_ARCH_NAME "x86-64"

#define CT_ARCH_BREAK	   0xcc /* int3 */
#define CT_ARCH_BREAK_SIZE 1	/* bytes the breakpoint covers */
#define CT_ARCH_BREAK_PC   1	/* the pc after its trap is its address + 1 */
#define CT_ARCH_STUB_LEN   3	/* syscall; int3 */
#define CT_ARCH_STUB_BREAK 2	/* where the stub's int3 is */
#define CT_ARCH_DWARF_SP   7	/* rsp's DWARF register number */

/* A call's key, its "slot": where its return address is, just below the caller's sp. */
#define CT_ARCH_SLOT_BELOW_CFA 8
#define CT_ARCH_RET_AT_SLOT    1
/* Where user mappings end, for the gap search. */
#define CT_ARCH_USER_TOP UINT64_C(0x7ffffffff000)

typedef struct user_regs_struct ct_regs;

static inline int ct_regs_get(pid_t tid, ct_regs *r)
{
	return ptrace(PTRACE_GETREGS, tid, 0, r) == 0 ? 0 : -1;
}

static inline int ct_regs_set(pid_t tid, const ct_regs *r)
{
	return ptrace(PTRACE_SETREGS, tid, 0, r) == 0 ? 0 : -1;
}

static inline uint64_t ct_regs_pc(const ct_regs *r)
{
	return r->rip;
}

static inline void ct_regs_set_pc(ct_regs *r, uint64_t pc)
{
	r->rip = pc;
}

static inline uint64_t ct_regs_sp(const ct_regs *r)
{
	return r->rsp;
}

/* The first argument register (a jmp_buf for longjmp). */
static inline uint64_t ct_regs_arg0(const ct_regs *r)
{
	return r->rdi;
}

/* The caller's stack pointer seen from a function's first instruction: above the return address. */
static inline uint64_t ct_regs_entry_cfa(const ct_regs *r)
{
	return r->rsp + 8;
}

/* The return address at a function's first instruction: 0, on the stack at sp. */
static inline int ct_regs_ret_reg(const ct_regs *r, uint64_t *ret)
{
	(void)r;
	(void)ret;
	return 0;
}

/* The thread pointer (fs_base). */
static inline int ct_thread_pointer(pid_t tid, const ct_regs *r, uint64_t *tp)
{
	(void)tid;
	*tp = r->fs_base;
	return 0;
}

/* Stopped in a system call (orig_rax is its number)? */
static inline int ct_regs_in_syscall(const ct_regs *r, uint32_t insn_at_pc)
{
	(void)insn_at_pc;
	return (int64_t)r->orig_rax >= 0;
}

/* Where the thread's pointer guard is (glibc: %fs:0x30). */
#define CT_ARCH_GUARD_FROM_AUXV 0
static inline uint64_t ct_regs_guard_addr(const ct_regs *r, uint64_t at_random)
{
	(void)at_random;
	return r->fs_base + 0x30;
}

/* The stack pointer a glibc jmp_buf at env restores, from its mangled word. */
#define CT_ARCH_JMPBUF_SP_OFF (6 * 8)
static inline uint64_t ct_arch_demangle(uint64_t v, uint64_t guard)
{
	return (v >> 17 | v << 47) ^ guard;
}

/* The breakpoint's bytes. */
static inline void ct_arch_break_bytes(uint8_t out[CT_ARCH_BREAK_SIZE])
{
	out[0] = CT_ARCH_BREAK;
}

static inline int ct_arch_is_break(const uint8_t *code)
{
	return code[0] == CT_ARCH_BREAK;
}

/* "syscall; int3": a system call of ours, then a stop. */
static inline void ct_arch_syscall_stub(uint8_t out[CT_ARCH_STUB_LEN])
{
	out[0] = 0x0f;
	out[1] = 0x05;
	out[2] = CT_ARCH_BREAK;
}

/* Registers for system call nr with up to six arguments, to start at pc. */
static inline void ct_regs_syscall(ct_regs *r, uint64_t pc, long nr, const long *a, int n)
{
	uint64_t *regs[6] = { (uint64_t *)&r->rdi, (uint64_t *)&r->rsi, (uint64_t *)&r->rdx,
			      (uint64_t *)&r->r10, (uint64_t *)&r->r8,	(uint64_t *)&r->r9 };
	r->rax = (uint64_t)nr;
	r->orig_rax = UINT64_MAX; /* not in a system call: nothing to restart */
	for (int i = 0; i < n && i < 6; i++)
		*regs[i] = (uint64_t)a[i];
	r->rip = pc;
}

/*
 * Registers for a call of fn with up to six arguments that returns to ret,
 * on the stack below the thread's (past the red zone, 16-byte aligned at
 * the call); ret goes at the stack pointer this returns.
 */
static inline uint64_t ct_regs_call(ct_regs *r, uint64_t fn, uint64_t ret, const uint64_t *a, int n)
{
	uint64_t *regs[6] = { (uint64_t *)&r->rdi, (uint64_t *)&r->rsi, (uint64_t *)&r->rdx,
			      (uint64_t *)&r->rcx, (uint64_t *)&r->r8,	(uint64_t *)&r->r9 };
	for (int i = 0; i < n && i < 6; i++)
		*regs[i] = a[i];
	r->rsp = ((r->rsp - 256) & ~(uint64_t)15) - 8;
	r->rax = 0;		  /* no vector registers for a variadic callee */
	r->orig_rax = UINT64_MAX; /* out of any system call: none is restarted meanwhile */
	r->rip = fn;
	(void)ret;
	return r->rsp;
}

static inline long ct_regs_retval(const ct_regs *r)
{
	return (long)r->rax;
}

/*
 * The vector, x87 and control registers of a thread (its whole XSAVE area,
 * AVX-512 included): a call of ours (dlopen, memcpy) uses them, and the
 * thread may have been stopped with live values in them (the unwinder keeps
 * its context in xmm registers, for one).
 */
#define CT_ARCH_XSTATE_MAX 16384
struct ct_fpstate {
	unsigned int kind; /* NT_X86_XSTATE, or NT_PRFPREG on a kernel without it */
	size_t len;
	uint8_t area[CT_ARCH_XSTATE_MAX] __attribute__((aligned(64)));
};

static inline int ct_fpstate_get(pid_t tid, struct ct_fpstate *f)
{
	static const unsigned int kinds[] = { NT_X86_XSTATE, NT_PRFPREG };
	for (unsigned i = 0; i < 2; i++) {
		struct iovec iov = { f->area, sizeof(f->area) };
		if (ptrace(PTRACE_GETREGSET, tid, kinds[i], &iov) == 0) {
			f->kind = kinds[i];
			f->len = iov.iov_len;
			return 0;
		}
	}
	return -1;
}

static inline int ct_fpstate_set(pid_t tid, struct ct_fpstate *f)
{
	struct iovec iov = { f->area, f->len };
	return ptrace(PTRACE_SETREGSET, tid, f->kind, &iov) == 0 ? 0 : -1;
}

/* The instruction under a breakpoint, out of line (relocate.c). */
static inline int ct_arch_pt_build_ool(const uint8_t *code, size_t avail, uintptr_t orig,
				       uintptr_t at, uint8_t *out, uint8_t *insn_len)
{
	return ct_arch_build_ool(code, avail, orig, at, out, insn_len);
}

#endif
