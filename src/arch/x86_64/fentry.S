/* SPDX-License-Identifier: MIT */
/*
 * x86-64 entry and return stubs for code built with -pg -mfentry: gcc and
 * clang call __fentry__ as the first instruction of every function (after
 * endbr64), before the prologue, so every argument register is live. The
 * stub saves them (and the vector argument registers: the runtime's slow
 * path calls libc, whose string functions use them), and hands the C side
 * the address of the function's return address and the call site.
 *
 * The C side replaces that return address with ct_return_trampoline, which
 * runs when the function returns: it saves the return value registers, asks
 * the C side for the real return address and jumps there.
 */
	.text

/*
 * The registers a function may have arguments in when it has not run its
 * prologue yet (or, for mcount, when its prologue left them in place): the
 * integer ones, rax (the vector count of a variadic call), r10 (the static
 * chain of nested functions), r11, and the vector ones. Called with rbp the
 * stub's frame and rsp 16-byte aligned.
 */
	.macro SAVE_ARGS
	subq	$208, %rsp
	movq	%rax, 0(%rsp)
	movq	%rdi, 8(%rsp)
	movq	%rsi, 16(%rsp)
	movq	%rdx, 24(%rsp)
	movq	%rcx, 32(%rsp)
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
	.endm

	.macro RESTORE_ARGS
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
	movq	32(%rsp), %rcx
	movq	24(%rsp), %rdx
	movq	16(%rsp), %rsi
	movq	8(%rsp), %rdi
	movq	0(%rsp), %rax
	.endm

	.globl	__fentry__
	.type	__fentry__, @function
	.p2align 4
__fentry__:
	.cfi_startproc
	/* [rsp] = the call site, [rsp+8] = the function's return address. The
	 * stack is 16-byte aligned here in code that keeps the ABI, but not in
	 * all code: align it ourselves. */
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	andq	$-16, %rsp
	SAVE_ARGS
	leaq	16(%rbp), %rdi	/* where the function's return address is */
	movq	8(%rbp), %rsi	/* the call site, 5 bytes into the function (or 9) */
	call	ct_fentry_enter
	RESTORE_ARGS
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	__fentry__, .-__fentry__

	/*
	 * Code built with -pg alone calls mcount after its prologue (push %rbp;
	 * mov %rsp, %rbp: -pg keeps the frame pointer), so the function's return
	 * address is at 8(%rbp) and the call site is inside the function.
	 */
	.globl	mcount
	.type	mcount, @function
	.p2align 4
mcount:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	leaq	8(%rbp), %r11	/* the traced function's return-address slot */
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	andq	$-16, %rsp
	SAVE_ARGS
	movq	%r11, %rdi
	movq	8(%rbp), %rsi	/* the call site, inside the function */
	call	ct_mcount_enter
	RESTORE_ARGS
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	mcount, .-mcount

	.globl	ct_return_trampoline
	.hidden	ct_return_trampoline
	.type	ct_return_trampoline, @function
	.p2align 4
ct_return_trampoline:
	.cfi_startproc
	/* the traced function just returned here: rsp is 8 past where its
	 * return address was; rax, rdx, xmm0, xmm1 hold what it returns */
	pushq	%rbp		/* into that slot: rbp now points at it */
	movq	%rsp, %rbp
	andq	$-16, %rsp
	subq	$48, %rsp
	movq	%rax, 0(%rsp)
	movq	%rdx, 8(%rsp)
	movaps	%xmm0, 16(%rsp)
	movaps	%xmm1, 32(%rsp)
	movq	%rbp, %rdi
	call	ct_fentry_exit	/* the real return address */
	movq	%rax, %r11
	movaps	32(%rsp), %xmm1
	movaps	16(%rsp), %xmm0
	movq	8(%rsp), %rdx
	movq	0(%rsp), %rax
	movq	%rbp, %rsp
	popq	%rbp
	jmp	*%r11
	.cfi_endproc
	.size	ct_return_trampoline, .-ct_return_trampoline

	.section .note.GNU-stack, "", @progbits
