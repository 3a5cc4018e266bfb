/* SPDX-License-Identifier: MIT */
/*
 * The save area the aarch64 stubs share (entry.S, mcount.S): what a call may
 * clobber, at sp, as the C side's regs[] reads it:
 *	0	x0-x8 (arguments x0-x7, results x0-x1)
 *	72	a spare word (CT_HOOK_SPARE_REG, fasthook.c)
 *	80	x10-x18 (x9 is the stub's own: each keeps it its way)
 *	160	q0-q31 (regs[20 + 2n] is vn's low half), only when fasthook.c hands
 *		over to fentry.c
 */
#ifndef CT_ARCH_AARCH64_REGSAVE_H
#define CT_ARCH_AARCH64_REGSAVE_H

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

#endif
