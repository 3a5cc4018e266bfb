/* SPDX-License-Identifier: MIT */
/*
 * x86-64 entry and return stubs for code built with -pg -mfentry: gcc and
 * clang call __fentry__ as the first instruction of every function (after
 * endbr64), before the prologue, so every argument register is live;
 * functions we patched (patchable entries, dynamic patching) come through
 * the same kind of stub. It saves every call-clobbered register and hands
 * the C side the address of the function's return address, the call site and
 * the saved registers (its arguments, for record -a).
 *
 * The C side replaces that return address with ct_return_trampoline, which
 * runs when the function returns: it saves the same registers, asks the C
 * side for the real return address and returns there.
 */
	.text

/*
 * Every register a call may clobber: the traced function's caller may know
 * (gcc's -fipa-ra) which ones the function leaves alone and keep values in
 * them across the call, so the stubs, which run C, keep them all: rax (the
 * vector count of a variadic call), the argument registers, r10 (the static
 * chain), r11 and xmm0-15. Called with rbp the stub's frame and rsp 16-byte
 * aligned.
 */
	.macro SAVE_CALL_CLOBBERED
	subq	$336, %rsp
	movq	%rax, 0(%rsp)
	movq	%rcx, 8(%rsp)
	movq	%rdx, 16(%rsp)
	movq	%rsi, 24(%rsp)
	movq	%rdi, 32(%rsp)
	movq	%r8, 40(%rsp)
	movq	%r9, 48(%rsp)
	movq	%r10, 56(%rsp)
	movq	%r11, 64(%rsp)
	movaps	%xmm0, 80(%rsp)
	movaps	%xmm1, 96(%rsp)
	movaps	%xmm2, 112(%rsp)
	movaps	%xmm3, 128(%rsp)
	movaps	%xmm4, 144(%rsp)
	movaps	%xmm5, 160(%rsp)
	movaps	%xmm6, 176(%rsp)
	movaps	%xmm7, 192(%rsp)
	movaps	%xmm8, 208(%rsp)
	movaps	%xmm9, 224(%rsp)
	movaps	%xmm10, 240(%rsp)
	movaps	%xmm11, 256(%rsp)
	movaps	%xmm12, 272(%rsp)
	movaps	%xmm13, 288(%rsp)
	movaps	%xmm14, 304(%rsp)
	movaps	%xmm15, 320(%rsp)
	.endm

	.macro RESTORE_CALL_CLOBBERED
	movaps	320(%rsp), %xmm15
	movaps	304(%rsp), %xmm14
	movaps	288(%rsp), %xmm13
	movaps	272(%rsp), %xmm12
	movaps	256(%rsp), %xmm11
	movaps	240(%rsp), %xmm10
	movaps	224(%rsp), %xmm9
	movaps	208(%rsp), %xmm8
	movaps	192(%rsp), %xmm7
	movaps	176(%rsp), %xmm6
	movaps	160(%rsp), %xmm5
	movaps	144(%rsp), %xmm4
	movaps	128(%rsp), %xmm3
	movaps	112(%rsp), %xmm2
	movaps	96(%rsp), %xmm1
	movaps	80(%rsp), %xmm0
	movq	64(%rsp), %r11
	movq	56(%rsp), %r10
	movq	48(%rsp), %r9
	movq	40(%rsp), %r8
	movq	32(%rsp), %rdi
	movq	24(%rsp), %rsi
	movq	16(%rsp), %rdx
	movq	8(%rsp), %rcx
	movq	0(%rsp), %rax
	addq	$336, %rsp
	.endm

	/*
	 * An entry stub: [rsp] = the call site, [rsp+8] = the function's return
	 * address (after_prologue: the function has pushed its frame pointer,
	 * and its return address is next to where that points). The stack is
	 * 16-byte aligned here in code that keeps the ABI, but not in all code:
	 * align it ourselves.
	 */
	.macro ENTRY_STUB name, handler, after_prologue=0
	.globl	\name
	.type	\name, @function
	.p2align 4
\name:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	andq	$-16, %rsp
	SAVE_CALL_CLOBBERED
	.if \after_prologue
	movq	0(%rbp), %rdi	/* the function's frame pointer (-pg keeps one) */
	addq	$8, %rdi	/* where its return address is */
	.else
	leaq	16(%rbp), %rdi	/* where the function's return address is */
	.endif
	movq	8(%rbp), %rsi	/* the call site */
	movq	%rsp, %rdx	/* the registers saved */
	call	\handler
	RESTORE_CALL_CLOBBERED
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	\name, .-\name
	.endm

	/* -mfentry: the call site is 5 bytes into the function (or 9, 6, 10) */
	ENTRY_STUB __fentry__, ct_fentry_enter

	/* a function we patched: the call site is in its trampoline (relocate.h) */
	ENTRY_STUB ct_patch_entry, ct_patch_enter
	.hidden	ct_patch_entry

	/*
	 * Code built with -pg alone calls mcount after its prologue (push %rbp;
	 * mov %rsp, %rbp: -pg keeps the frame pointer), so the function's return
	 * address is at 8(its %rbp) and the call site is inside the function.
	 */
	ENTRY_STUB mcount, ct_mcount_enter, 1

	.globl	ct_return_trampoline
	.hidden	ct_return_trampoline
	.type	ct_return_trampoline, @function
	.p2align 4
ct_return_trampoline:
	.cfi_startproc
	/* the traced function just returned here: rsp is 8 past where its
	 * return address was; rax, rdx, xmm0, xmm1 (and st0) hold what it
	 * returns, and its caller may rely on more (see SAVE_CALL_CLOBBERED) */
	subq	$8, %rsp	/* back to that slot: the real address goes there */
	pushq	%rbp
	movq	%rsp, %rbp
	andq	$-16, %rsp
	SAVE_CALL_CLOBBERED
	leaq	8(%rbp), %rdi	/* the slot */
	movq	%rsp, %rsi	/* the registers saved: what the function returns */
	call	ct_fentry_exit	/* the real return address */
	movq	%rax, 8(%rbp)
	RESTORE_CALL_CLOBBERED
	movq	%rbp, %rsp
	popq	%rbp
	ret
	.cfi_endproc
	.size	ct_return_trampoline, .-ct_return_trampoline

	.section .note.GNU-stack, "", @progbits
