/* SPDX-License-Identifier: MIT */
/*
 * _mcount for code built with -pg on aarch64 (gcc has no -mfentry there).
 * gcc and clang call it after the traced function's prologue: x29 is that
 * function's frame record, which holds its return address at x29 + 8, and
 * x30 is an address inside it (after the bl). gcc passes the return address
 * in x0 as well; clang does not, so the frame record is what we read.
 *
 * The C side records the entry and puts the return trampoline (entry.S) in
 * the frame record: the function's epilogue loads it into x30 and returns
 * there. As the other stubs (entry.S), the common case runs fasthook.c,
 * built general-registers only, and the vector registers are saved only
 * when it hands over to fentry.c (ct_mcount_enter). Every register a call
 * may clobber is kept: the compilers' call here is an ordinary call (they
 * keep their arguments elsewhere around it), but a hook that changes no
 * register cannot go wrong for code that expects less of it. Its own frame
 * record lets backtraces and unwinders through.
 *
 * The save area, CT_FRAME bytes at sp (the C side's regs[]):
 *	0	x0-x8
 *	72	a spare word (CT_HOOK_SPARE_REG, fasthook.c)
 *	80	x10-x18
 *	152	the frame's key, from the fast path (CT_HOOK_KEY_REG)
 *	160	q0-q31
 *	672	x9
 */
#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT
#define CT_BTI_C bti c
#else
#define CT_BTI_C
#endif

	.text

	.set	CT_FRAME, 688
	.set	CT_SPARE, 72
	.set	CT_KEY, 152

	.macro SAVE_GENERAL
	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	str	x8, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	str	x18, [sp, #144]
	str	x9, [sp, #672]
	.endm

	.macro RESTORE_GENERAL
	ldp	x0, x1, [sp, #0]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldr	x8, [sp, #64]
	ldp	x10, x11, [sp, #80]
	ldp	x12, x13, [sp, #96]
	ldp	x14, x15, [sp, #112]
	ldp	x16, x17, [sp, #128]
	ldr	x18, [sp, #144]
	ldr	x9, [sp, #672]
	.endm

	.macro SAVE_VECTOR
	stp	q0, q1, [sp, #160]
	stp	q2, q3, [sp, #192]
	stp	q4, q5, [sp, #224]
	stp	q6, q7, [sp, #256]
	stp	q8, q9, [sp, #288]
	stp	q10, q11, [sp, #320]
	stp	q12, q13, [sp, #352]
	stp	q14, q15, [sp, #384]
	stp	q16, q17, [sp, #416]
	stp	q18, q19, [sp, #448]
	stp	q20, q21, [sp, #480]
	stp	q22, q23, [sp, #512]
	stp	q24, q25, [sp, #544]
	stp	q26, q27, [sp, #576]
	stp	q28, q29, [sp, #608]
	stp	q30, q31, [sp, #640]
	.endm

	.macro RESTORE_VECTOR
	ldp	q0, q1, [sp, #160]
	ldp	q2, q3, [sp, #192]
	ldp	q4, q5, [sp, #224]
	ldp	q6, q7, [sp, #256]
	ldp	q8, q9, [sp, #288]
	ldp	q10, q11, [sp, #320]
	ldp	q12, q13, [sp, #352]
	ldp	q14, q15, [sp, #384]
	ldp	q16, q17, [sp, #416]
	ldp	q18, q19, [sp, #448]
	ldp	q20, q21, [sp, #480]
	ldp	q22, q23, [sp, #512]
	ldp	q24, q25, [sp, #544]
	ldp	q26, q27, [sp, #576]
	ldp	q28, q29, [sp, #608]
	ldp	q30, q31, [sp, #640]
	.endm

	/* x0: the slot (x29 + 8 of the traced function), x1: the call site, x2: the registers */
	.macro ARGS
	ldr	x0, [x29]
	add	x0, x0, #8
	ldr	x1, [x29, #8]
	mov	x2, sp
	.endm

	/*
	 * fast (fasthook.c) answers 0: done (or not traced); 1: nothing done,
	 * call ct_mcount_enter (fentry.c); 2 or 3: ct_hook_finish the event.
	 */
	.globl	_mcount
	.type	_mcount, %function
	.p2align 4
_mcount:
	.cfi_startproc
	CT_BTI_C
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	mov	x29, sp
	.cfi_def_cfa_register x29
	sub	sp, sp, #CT_FRAME
	SAVE_GENERAL
	ARGS
	bl	ct_mcount_enter_fast
	cbnz	x0, 1f
	RESTORE_GENERAL
	b	4f
1:	SAVE_VECTOR
	cmp	x0, #1
	b.ne	2f
	ARGS
	bl	ct_mcount_enter
	b	3f
2:	ldr	x1, [sp, #CT_KEY]	/* x0: what is left to do; x1: the frame's key */
	ldr	x2, [sp, #CT_SPARE]	/* the event's word */
	bl	ct_hook_finish
3:	RESTORE_VECTOR
	RESTORE_GENERAL
4:	mov	sp, x29
	ldp	x29, x30, [sp], #16
	.cfi_def_cfa sp, 0
	.cfi_restore x29
	.cfi_restore x30
	ret
	.cfi_endproc
	.size	_mcount, .-_mcount

	/*
	 * uint64_t ct_a64_pac_sign(value, modifier, pac): value signed as a
	 * function's paciasp (pac 1) or pacibsp (2) signs x30 with its entry sp.
	 */
	.globl	ct_a64_pac_sign
	.hidden	ct_a64_pac_sign
	.type	ct_a64_pac_sign, %function
	.p2align 4
ct_a64_pac_sign:
	.cfi_startproc
	CT_BTI_C
	mov	x17, x0
	mov	x16, x1
	cmp	x2, #2
	b.eq	1f
	hint	#8			/* pacia1716 */
	mov	x0, x17
	ret
1:	hint	#10			/* pacib1716 */
	mov	x0, x17
	ret
	.cfi_endproc
	.size	ct_a64_pac_sign, .-ct_a64_pac_sign

	/* uint64_t ct_a64_pac_strip(value): the address without its signature */
	.globl	ct_a64_pac_strip
	.hidden	ct_a64_pac_strip
	.type	ct_a64_pac_strip, %function
	.p2align 4
ct_a64_pac_strip:
	.cfi_startproc
	CT_BTI_C
	mov	x16, x30
	.cfi_register x30, x16
	mov	x30, x0
	hint	#7			/* xpaclri */
	mov	x0, x30
	mov	x30, x16
	.cfi_restore x30
	ret
	.cfi_endproc
	.size	ct_a64_pac_strip, .-ct_a64_pac_strip

	.section .note.GNU-stack, "", %progbits
