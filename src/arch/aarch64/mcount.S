/* SPDX-License-Identifier: MIT */
/*
 * _mcount for code built with -pg on aarch64 (gcc has no -mfentry there).
 * gcc and clang call it after the traced function's prologue: x29 is that
 * function's frame record, which holds its return address at x29 + 8, and
 * x30 is an address inside it (after the bl). gcc passes the return address
 * in x0 as well; clang does not, so the frame record is what we read.
 *
 * The C side (ct_mcount_enter, fentry.c) records the entry and puts the
 * return trampoline (entry.S) in the frame record: the function's epilogue
 * loads it into x30 and returns there. It keeps every register a call may
 * clobber, x0-x18 and q0-q31: the compilers' call here is an ordinary call
 * (they keep their arguments elsewhere around it), but a hook that changes
 * no register cannot go wrong for code that expects less of it. Its own
 * frame record lets backtraces and unwinders through.
 *
 * Save area, CT_FRAME bytes at sp: x0-x18 at 0, q0-q31 at 160.
 */
#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT
#define CT_BTI_C bti c
#else
#define CT_BTI_C
#endif

	.text

	.set	CT_FRAME, 672

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
	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	str	x18, [sp, #144]
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
	ldr	x0, [x29]		/* the traced function's frame record */
	add	x0, x0, #8		/* its return address is there */
	ldr	x1, [x29, #8]		/* the call site, inside the function */
	mov	x2, sp			/* the registers saved */
	bl	ct_mcount_enter
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
	ldp	x0, x1, [sp, #0]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	x8, x9, [sp, #64]
	ldp	x10, x11, [sp, #80]
	ldp	x12, x13, [sp, #96]
	ldp	x14, x15, [sp, #112]
	ldp	x16, x17, [sp, #128]
	ldr	x18, [sp, #144]
	mov	sp, x29
	ldp	x29, x30, [sp], #16
	.cfi_def_cfa sp, 0
	.cfi_restore x29
	.cfi_restore x30
	ret
	.cfi_endproc
	.size	_mcount, .-_mcount

	.section .note.GNU-stack, "", %progbits
