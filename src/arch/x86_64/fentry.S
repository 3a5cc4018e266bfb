/* SPDX-License-Identifier: MIT */
/*
 * x86-64 entry and return stubs for code built with -pg -mfentry: gcc and
 * clang call __fentry__ as the first instruction of every function (after
 * endbr64), before the prologue, so every argument register is live;
 * functions we patched (patchable entries, dynamic patching) come through
 * the same kind of stub. It keeps every call-clobbered register (the vector
 * ones saved only when the C side needs more than its common case) and hands
 * the C side the address of the function's return address, the call site and
 * the saved registers (its arguments, for record -a).
 *
 * The C side replaces that return address with ct_return_trampoline, which
 * runs when the function returns: it saves the same registers, asks the C
 * side for the real return address and returns there. A function patched
 * dynamically has its own trampoline (relocate.h), which puts the address
 * of its landing there itself by calling the function's body, and the
 * landing comes to ct_patch_return: both returns are then predicted.
 */
	.text

/*
 * Every register a call may clobber: the traced function's caller may know
 * (gcc's -fipa-ra) which ones the function leaves alone and keep values in
 * them across the call, so the stubs, which run C, keep them all: rax (the
 * vector count of a variadic call), the argument registers, r10 (the static
 * chain), r11 and xmm0-15. The common case runs fasthook.c, built with
 * -mgeneral-regs-only: it can clobber the general registers alone, so those
 * are saved first and the vector ones only when it asks for the rest of the
 * C side (fentry.c, which may run libc). The save area is CT_FRAME bytes at
 * rsp, the word at 72 left for fasthook.c to hand an event to
 * ct_hook_finish. Called with rbp the stub's frame and rsp 16-byte aligned.
 */
	.set	CT_FRAME, 336
	.set	CT_SPARE, 72	/* CT_HOOK_SPARE_REG (fasthook.c), in bytes */

	.macro SAVE_GENERAL
	movq	%rax, 0(%rsp)
	movq	%rcx, 8(%rsp)
	movq	%rdx, 16(%rsp)
	movq	%rsi, 24(%rsp)
	movq	%rdi, 32(%rsp)
	movq	%r8, 40(%rsp)
	movq	%r9, 48(%rsp)
	movq	%r10, 56(%rsp)
	movq	%r11, 64(%rsp)
	.endm

	.macro RESTORE_GENERAL
	movq	64(%rsp), %r11
	movq	56(%rsp), %r10
	movq	48(%rsp), %r9
	movq	40(%rsp), %r8
	movq	32(%rsp), %rdi
	movq	24(%rsp), %rsi
	movq	16(%rsp), %rdx
	movq	8(%rsp), %rcx
	movq	0(%rsp), %rax
	.endm

	.macro SAVE_VECTOR
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

	.macro RESTORE_VECTOR
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
	.endm

	/* where the function's return address is, into reg */
	.macro SLOT_TO reg, after_prologue
	.if \after_prologue
	movq	0(%rbp), \reg	/* the function's frame pointer (-pg keeps one) */
	addq	$8, \reg	/* its return address is next to where that points */
	.else
	leaq	16(%rbp), \reg
	.endif
	.endm

	/*
	 * An entry stub: [rsp] = the call site, [rsp+8] = the function's return
	 * address (after_prologue: the function has pushed its frame pointer,
	 * and its return address is next to where that points). The stack is
	 * 16-byte aligned here in code that keeps the ABI, but not in all code:
	 * align it ourselves. fast (fasthook.c) answers 0: done; 1: nothing
	 * done, call handler (fentry.c); 2 or 3: ct_hook_finish the event.
	 * by_call: the caller, a trampoline (relocate.h), puts its landing in
	 * the slot by a call when told so by ZF set (the fast path and the
	 * events to finish), and goes straight on when ZF is clear (the handler
	 * did everything, or under attach, where the slot gets the return
	 * trampoline: fast's answer has CT_HOOK_BY_SLOT, 4, or'ed in). Flags are
	 * free at a function's entry.
	 */
	.macro ENTRY_STUB name, fast, handler, after_prologue=0, by_call=0
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
	subq	$CT_FRAME, %rsp
	SAVE_GENERAL
	SLOT_TO	%rdi, \after_prologue
	movq	8(%rbp), %rsi	/* the call site */
	movq	%rsp, %rdx	/* the registers saved */
	call	\fast
	testq	%rax, %rax	/* 0: ZF set */
	jnz	1f
	RESTORE_GENERAL
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_remember_state
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_restore_state
1:
	.if \by_call
	cmpq	$4, %rax	/* done, the slot hijacked (CT_HOOK_BY_SLOT) */
	jne	5f
	RESTORE_GENERAL
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_remember_state
	.cfi_def_cfa %rsp, 8
	testq	%rsp, %rsp	/* never 0: ZF clear */
	ret
	.cfi_restore_state
5:	andq	$3, %rax
	.endif
	SAVE_VECTOR
	cmpq	$1, %rax
	jne	2f
	SLOT_TO	%rdi, \after_prologue
	movq	8(%rbp), %rsi
	movq	%rsp, %rdx
	call	\handler
	.if \by_call
	RESTORE_VECTOR
	RESTORE_GENERAL
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_remember_state
	.cfi_def_cfa %rsp, 8
	testq	%rsp, %rsp	/* never 0: ZF clear */
	ret
	.cfi_restore_state
	.else
	jmp	3f
	.endif
2:	movq	%rax, %rdi	/* what is left to do */
	SLOT_TO	%rsi, \after_prologue
	movq	CT_SPARE(%rsp), %rdx	/* the event's word */
	call	ct_hook_finish
3:	RESTORE_VECTOR
	RESTORE_GENERAL
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	.if \by_call
	cmpl	$0, ct_attached(%rip)	/* ZF set but under attach */
	.endif
	ret
	.cfi_endproc
	.size	\name, .-\name
	.endm

	/* -mfentry: the call site is 5 bytes into the function (or 9, 6, 10) */
	ENTRY_STUB __fentry__, ct_fentry_enter_fast, ct_fentry_enter

	/* a function we patched: the call site is in its trampoline (relocate.h) */
	ENTRY_STUB ct_patch_entry, ct_patch_enter_fast, ct_patch_enter
	.hidden	ct_patch_entry

	/* a function patched dynamically: its trampoline hijacks the slot by a call */
	ENTRY_STUB ct_patch_call_entry, ct_patch_call_enter_fast, ct_patch_enter, 0, 1
	.hidden	ct_patch_call_entry

	/*
	 * Code built with -pg alone calls mcount after its prologue (push %rbp;
	 * mov %rsp, %rbp: -pg keeps the frame pointer), so the function's return
	 * address is at 8(its %rbp) and the call site is inside the function.
	 */
	ENTRY_STUB mcount, ct_mcount_enter_fast, ct_mcount_enter, 1

	/*
	 * Leave the return trampoline for the address in the slot at rsp, as
	 * ret would but without popping the return stack buffer: the traced
	 * function's own ret already took the entry of its call (and
	 * mispredicted, going here), so a ret here would take its caller's
	 * entry and leave the returns after it predicted one frame off (lua:
	 * 38 ns per patched call with ret, 29 with this jump). The slot is
	 * below rsp when read, in the red zone, which signal frames (and our
	 * ptrace calls) leave alone.
	 */
	.macro JUMP_TO_SLOT
	addq	$8, %rsp
	jmp	*-8(%rsp)
	.endm

	.globl	ct_return_trampoline
	.hidden	ct_return_trampoline
	.type	ct_return_trampoline, @function
	.p2align 4
ct_return_trampoline:
	.cfi_startproc
	/* the traced function just returned here: rsp is 8 past where its
	 * return address was; rax, rdx, xmm0, xmm1 (and st0) hold what it
	 * returns, and its caller may rely on more (see SAVE_GENERAL) */
	subq	$8, %rsp	/* back to that slot: the real address goes there */
	pushq	%rbp
	movq	%rsp, %rbp
	andq	$-16, %rsp
	subq	$CT_FRAME, %rsp
	SAVE_GENERAL
	leaq	8(%rbp), %rdi	/* the slot */
	movq	%rsp, %rsi	/* the registers saved: what the function returns */
	call	ct_fentry_exit_fast	/* rax: as the entry stubs', rdx: the real address
					 * (the trampoline: frames left for fentry.c) */
	testq	%rax, %rax
	jnz	1f
	movq	%rdx, 8(%rbp)
	RESTORE_GENERAL
	movq	%rbp, %rsp
	popq	%rbp
	JUMP_TO_SLOT
1:	SAVE_VECTOR
	cmpq	$1, %rax
	jne	2f
4:	leaq	8(%rbp), %rdi
	movq	%rsp, %rsi
	call	ct_fentry_exit	/* the real return address */
	movq	%rax, 8(%rbp)
	jmp	3f
2:	movq	%rdx, 8(%rbp)
	movq	%rax, %rdi	/* what is left to do */
	leaq	8(%rbp), %rsi
	movq	CT_SPARE(%rsp), %rdx	/* the event's word */
	call	ct_hook_finish
	leaq	ct_return_trampoline(%rip), %rax
	cmpq	%rax, 8(%rbp)	/* a tail call's frame: its caller's is left */
	je	4b
3:	RESTORE_VECTOR
	RESTORE_GENERAL
	movq	%rbp, %rsp
	popq	%rbp
	JUMP_TO_SLOT
	.cfi_endproc
	.size	ct_return_trampoline, .-ct_return_trampoline

	/*
	 * Where a trampoline's landing (relocate.h) jumps when the function
	 * returns: as ct_return_trampoline, but for one frame, and by a ret
	 * that the return stack predicts (the function's own ret took the
	 * landing's entry, pushed by the trampoline's call; this one takes its
	 * caller's). The slot, below rsp on the way in, is in the red zone.
	 */
	.globl	ct_patch_return
	.hidden	ct_patch_return
	.type	ct_patch_return, @function
	.p2align 4
ct_patch_return:
	.cfi_startproc
	subq	$8, %rsp	/* back to the slot: the real address goes there */
	pushq	%rbp
	movq	%rsp, %rbp
	andq	$-16, %rsp
	subq	$CT_FRAME, %rsp
	SAVE_GENERAL
	leaq	8(%rbp), %rdi	/* the slot */
	movq	%rsp, %rsi	/* the registers saved: what the function returns */
	call	ct_patch_exit_fast	/* rax: as the entry stubs', rdx: the real address */
	testq	%rax, %rax
	jnz	1f
	movq	%rdx, 8(%rbp)
	RESTORE_GENERAL
	movq	%rbp, %rsp
	popq	%rbp
	ret
1:	SAVE_VECTOR
	cmpq	$1, %rax
	jne	2f
	leaq	8(%rbp), %rdi
	movq	%rsp, %rsi
	call	ct_fentry_exit	/* the real return address */
	movq	%rax, 8(%rbp)
	jmp	3f
2:	movq	%rdx, 8(%rbp)
	movq	%rax, %rdi	/* what is left to do */
	leaq	8(%rbp), %rsi
	movq	CT_SPARE(%rsp), %rdx	/* the event's word */
	call	ct_hook_finish
3:	RESTORE_VECTOR
	RESTORE_GENERAL
	movq	%rbp, %rsp
	popq	%rbp
	ret	/* a tail call's caller's landing, or the return trampoline, may be next */
	.cfi_endproc
	.size	ct_patch_return, .-ct_patch_return

	.section .note.GNU-stack, "", @progbits
