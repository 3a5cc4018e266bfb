/* SPDX-License-Identifier: MIT */
/*
 * aarch64 specifics of the ptrace method: the same interface as
 * x86_64/ptrace_arch.h, written against the kernel's aarch64 ptrace ABI.
 *
 *  - Registers through PTRACE_GETREGSET/SETREGSET: NT_PRSTATUS (struct
 *    user_regs_struct: x0-x30, sp, pc, pstate), NT_ARM_TLS (tpidr_el0, the
 *    thread pointer), NT_PRFPREG (v0-v31, fpsr, fpcr) and NT_ARM_SVE.
 *  - The breakpoint is "brk #0", a whole 4-byte instruction; after its trap
 *    the pc is still on it (x86-64's int3 leaves it one byte past).
 *  - A function's return address is in x30 at its first instruction, not on
 *    the stack; the tracer reads it there and changes nothing (it puts a
 *    breakpoint at that address, as on x86-64).
 *  - System calls of ours: "svc #0; brk #0" with x8 the number, x0-x5 the
 *    arguments, the result in x0.
 *  - Code written through /proc/PID/mem (as PTRACE_POKETEXT) is made
 *    coherent with the instruction cache by the kernel (copy_to_user_page).
 *
 * Not tested on aarch64 hardware: qemu-user, where the aarch64 build is
 * tested, implements no ptrace for its guests. tests/cross/ptrace_aarch64.c
 * checks what can be checked without it (a signal handler's ucontext stands
 * in for the tracee's registers).
 */
#ifndef CT_ARCH_AARCH64_PTRACE_H
#define CT_ARCH_AARCH64_PTRACE_H

#include <elf.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/user.h>

#include "patch.h"
#include "relocate.h"

#define CT_ARCH_NAME "aarch64"
/* commands built on this file say so before they run (docs/AARCH64.md) */
#define CT_ARCH_PTRACE_UNTESTED 1

#define CT_ARCH_BREAK_WORD 0xd4200000u /* brk #0 */
#define CT_ARCH_BREAK_SIZE 4	       /* bytes the breakpoint covers */
#define CT_ARCH_BREAK_PC   0	       /* the pc after its trap, from its address */
#define CT_ARCH_STUB_LEN   8	       /* svc #0; brk #0 */
#define CT_ARCH_STUB_BREAK 4	       /* where the stub's brk is */
#define CT_ARCH_DWARF_SP   31	       /* sp's DWARF register number */
#define CT_A64_SVC0	   0xd4000001u

/*
 * A call's key, its "slot": 16 bytes below the stack pointer it was entered
 * with, where the patch method's stub keeps the return address (entry.S):
 * so a frame's stack pointer in the records is the same whichever method
 * wrote it, and a longjmp or catch landing at sp keeps the frame entered at
 * sp + 16 or above (the caller's) and ends those entered at sp (its callees).
 */
#define CT_ARCH_SLOT_BELOW_CFA 16
/* The return address is not stored at the slot: attach cannot check it there. */
#define CT_ARCH_RET_AT_SLOT 0
/* Where user mappings end (48-bit virtual addresses), for the gap search. */
#define CT_ARCH_USER_TOP UINT64_C(0xfffffffff000)

/* PSTATE.BTYPE: a branch's type, checked at the target on BTI-guarded pages. */
#define CT_A64_PSTATE_BTYPE (UINT64_C(3) << 10)

typedef struct user_regs_struct ct_regs;

static inline int ct_regs_get(pid_t tid, ct_regs *r)
{
	struct iovec iov = { r, sizeof(*r) };
	return ptrace(PTRACE_GETREGSET, tid, NT_PRSTATUS, &iov) == 0 ? 0 : -1;
}

static inline int ct_regs_set(pid_t tid, const ct_regs *r)
{
	struct iovec iov = { (void *)r, sizeof(*r) };
	return ptrace(PTRACE_SETREGSET, tid, NT_PRSTATUS, &iov) == 0 ? 0 : -1;
}

static inline uint64_t ct_regs_pc(const ct_regs *r)
{
	return r->pc;
}

static inline void ct_regs_set_pc(ct_regs *r, uint64_t pc)
{
	r->pc = pc;
}

static inline uint64_t ct_regs_sp(const ct_regs *r)
{
	return r->sp;
}

/* The first argument register (a jmp_buf for longjmp). */
static inline uint64_t ct_regs_arg0(const ct_regs *r)
{
	return r->regs[0];
}

static inline long ct_regs_retval(const ct_regs *r)
{
	return (long)r->regs[0];
}

/* The caller's stack pointer seen from a function's first instruction: sp, nothing pushed. */
static inline uint64_t ct_regs_entry_cfa(const ct_regs *r)
{
	return r->sp;
}

/*
 * The return address at a function's first instruction (or in a leaf that
 * keeps it in place): 1 with it in *ret, it is in a register (x30); 0 when
 * the architecture keeps it on the stack at sp.
 */
static inline int ct_regs_ret_reg(const ct_regs *r, uint64_t *ret)
{
	*ret = r->regs[30];
	return 1;
}

/* The thread pointer (tpidr_el0), as __builtin_thread_pointer gives it in the thread. */
static inline int ct_thread_pointer(pid_t tid, const ct_regs *r, uint64_t *tp)
{
	struct iovec iov = { tp, sizeof(*tp) };
	(void)r;
	return ptrace(PTRACE_GETREGSET, tid, NT_ARM_TLS, &iov) == 0 ? 0 : -1;
}

/*
 * Stopped in a system call? On aarch64 the kernel has, by the time a tracer
 * sees a thread interrupted in one, put its pc back on the svc (the call is
 * made again when it goes on) and forgotten the call: the instruction at the
 * pc says it.
 */
static inline int ct_regs_in_syscall(const ct_regs *r, uint32_t insn_at_pc)
{
	(void)r;
	return insn_at_pc == CT_A64_SVC0;
}

/*
 * glibc's pointer guard on aarch64 is not in the thread's TLS: ld.so keeps
 * it (__pointer_chk_guard), taken from the second 8 bytes of the 16 random
 * ones the kernel gives every process (auxv AT_RANDOM), which nothing writes
 * later. The tracer finds them through /proc/PID/auxv.
 */
#define CT_ARCH_GUARD_FROM_AUXV 1
static inline uint64_t ct_regs_guard_addr(const ct_regs *r, uint64_t at_random)
{
	(void)r;
	return at_random + 8;
}

/* The stack pointer a glibc jmp_buf restores: word 13, xor the guard, no rotation. */
#define CT_ARCH_JMPBUF_SP_OFF (13 * 8)
static inline uint64_t ct_arch_demangle(uint64_t v, uint64_t guard)
{
	return v ^ guard;
}

/* The breakpoint's bytes. */
static inline void ct_arch_break_bytes(uint8_t out[CT_ARCH_BREAK_SIZE])
{
	ct_a64_put(out, CT_ARCH_BREAK_WORD);
}

/* A breakpoint of any debugger: brk with any immediate. */
static inline int ct_arch_is_break(const uint8_t *code)
{
	return (ct_a64_word(code) & 0xffe0001fu) == CT_ARCH_BREAK_WORD;
}

/* "svc #0; brk #0": a system call of ours, then a stop. */
static inline void ct_arch_syscall_stub(uint8_t out[CT_ARCH_STUB_LEN])
{
	ct_a64_put(out, CT_A64_SVC0);
	ct_a64_put(out + 4, CT_ARCH_BREAK_WORD);
}

/*
 * Registers for system call nr with up to six arguments, to start at pc.
 * Nothing says "not in a system call" as x86-64's orig_rax does: a thread
 * interrupted in one has had it forgotten already (see ct_regs_in_syscall).
 * BTYPE is cleared: the stub may be written over BTI-guarded code.
 */
static inline void ct_regs_syscall(ct_regs *r, uint64_t pc, long nr, const long *a, int n)
{
	r->regs[8] = (uint64_t)nr;
	for (int i = 0; i < n && i < 6; i++)
		r->regs[i] = (uint64_t)a[i];
	r->pc = pc;
	r->pstate &= ~CT_A64_PSTATE_BTYPE;
}

/*
 * Registers for a call of fn with up to eight arguments that returns to ret
 * (x30), on the stack below the thread's, 16-byte aligned. Returns where
 * ret must be written on the stack: 0, nowhere (x86-64's call has it there).
 */
static inline uint64_t ct_regs_call(ct_regs *r, uint64_t fn, uint64_t ret, const uint64_t *a, int n)
{
	for (int i = 0; i < n && i < 8; i++)
		r->regs[i] = a[i];
	r->sp = (r->sp - 256) & ~(uint64_t)15;
	r->regs[30] = ret;
	r->pc = fn;
	r->pstate &= ~CT_A64_PSTATE_BTYPE;
	return 0;
}

/*
 * The vector registers and their control (a call of ours uses them, and the
 * thread may have been stopped with live values in them): NT_PRFPREG always,
 * and the whole SVE state when the thread has one (setting NT_PRFPREG alone
 * would clear the Z registers' upper parts).
 */
#define CT_ARCH_SVE_MAX 16384
struct ct_fpstate {
	struct user_fpsimd_struct fpsimd;
	size_t sve_len; /* 0: no SVE state kept */
	uint8_t sve[CT_ARCH_SVE_MAX] __attribute__((aligned(16)));
};

#define CT_A64_SVE_PT_REGS_SVE 1u /* user_sve_header.flags: the registers are SVE's */

static inline void ct_fpstate_get_sve(pid_t tid, struct ct_fpstate *f)
{
	struct {
		uint32_t size, max_size;
		uint16_t vl, max_vl, flags, reserved;
	} h;
	struct iovec iov = { &h, sizeof(h) };
	f->sve_len = 0;
	if (ptrace(PTRACE_GETREGSET, tid, NT_ARM_SVE, &iov) < 0 ||
	    !(h.flags & CT_A64_SVE_PT_REGS_SVE) || h.size > sizeof(f->sve) || h.size < sizeof(h))
		return;
	iov = (struct iovec){ f->sve, h.size };
	if (ptrace(PTRACE_GETREGSET, tid, NT_ARM_SVE, &iov) == 0)
		f->sve_len = iov.iov_len;
}

static inline int ct_fpstate_get(pid_t tid, struct ct_fpstate *f)
{
	struct iovec iov = { &f->fpsimd, sizeof(f->fpsimd) };
	if (ptrace(PTRACE_GETREGSET, tid, NT_PRFPREG, &iov) < 0)
		return -1;
	ct_fpstate_get_sve(tid, f);
	return 0;
}

static inline int ct_fpstate_set(pid_t tid, struct ct_fpstate *f)
{
	struct iovec iov = { &f->fpsimd, sizeof(f->fpsimd) };
	int r = ptrace(PTRACE_SETREGSET, tid, NT_PRFPREG, &iov) == 0 ? 0 : -1;
	if (f->sve_len) {
		iov = (struct iovec){ f->sve, f->sve_len };
		if (ptrace(PTRACE_SETREGSET, tid, NT_ARM_SVE, &iov) < 0)
			r = -1;
	}
	return r;
}

/*
 * The instruction under a breakpoint, out of line (relocate.c, as dynamic
 * patching moves a function's first one), with one case of its own: a
 * breakpoint at a return address may cover "blr xN" (a call right after a
 * call), which must not run where it is copied, or its callee would return
 * into the copy (and an unwinder would find no frame there). It becomes
 * "mov x16, xN; ldr x30, =next; br x16": the callee returns where it would
 * have, and "br x16" is a branch a "bti c" accepts. x16 is free at every
 * place the tracer puts a breakpoint (a function's entry, a return address:
 * a call may clobber it). The other calls through a register (blraa ...)
 * are stepped over in place.
 */
static inline int ct_arch_pt_build_ool(const uint8_t *code, size_t avail, uintptr_t orig,
				       uintptr_t at, uint8_t *out, uint8_t *insn_len)
{
	if (avail < 4)
		return 0;
	uint32_t w = ct_a64_word(code);
	int link = (w & 0xfe000000u) == 0xd6000000u && ((w >> 21) & 0xf) == 1;
	if (!link)
		return ct_arch_build_ool(code, avail, orig, at, out, insn_len);
	if ((w & 0xfffffc1fu) != 0xd63f0000u || (at & 7))
		return 0;
	uint32_t rn = (w >> 5) & 31;
	uint64_t next = orig + 4;
	ct_a64_put(out, 0xaa0003f0u | rn << 16);	 /* mov x16, xN */
	ct_a64_put(out + 4, 0x58000000u | 3u << 5 | 30); /* ldr x30, .+12 */
	ct_a64_put(out + 8, 0xd61f0200u);		 /* br x16 */
	ct_a64_put(out + 12, CT_A64_NOP);
	memcpy(out + 16, &next, 8);
	*insn_len = 4;
	return 24;
}

/*
 * For attach's leaving (src/ptrace/attach_rt.c): is a thread stopped in a
 * thunk into the runtime ("ldr x16, .+8; br x16; .quad target", patch.h),
 * between a trampoline's "bl" and the entry stub? It is stepped on until it
 * is not. before: the CT_TRAMP_PEEK_BEFORE bytes before the pc (NULL if
 * unreadable), at: the CT_THUNK_LEN bytes from it.
 */
#define CT_TRAMP_PEEK_BEFORE 4
static inline int ct_arch_tramp_unsettled(const uint8_t *before, const uint8_t *at, uint64_t rt_lo,
					  uint64_t rt_hi)
{
	uint64_t target;
	if (ct_a64_word(at) == 0x58000050u && ct_a64_word(at + 4) == 0xd61f0200u)
		memcpy(&target, at + 8, 8); /* at the ldr */
	else if (before && ct_a64_word(before) == 0x58000050u && ct_a64_word(at) == 0xd61f0200u)
		memcpy(&target, at + 4, 8); /* at the br */
	else
		return 0;
	return target >= rt_lo && target < rt_hi;
}

#endif
