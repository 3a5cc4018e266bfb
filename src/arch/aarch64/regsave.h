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

	/* each general register to or from its place: pair stp or ldp, one str or ldr */
	.macro GENERAL_REGS pair, one
	\pair	x0, x1, [sp, #0]
	\pair	x2, x3, [sp, #16]
	\pair	x4, x5, [sp, #32]
	\pair	x6, x7, [sp, #48]
	\one	x8, [sp, #64]
	\pair	x10, x11, [sp, #80]
	\pair	x12, x13, [sp, #96]
	\pair	x14, x15, [sp, #112]
	\pair	x16, x17, [sp, #128]
	\one	x18, [sp, #144]
	.endm

	/* q0-q31 to or from their places, two at a time: pair stp or ldp */
	.macro VECTOR_REGS pair
	\pair	q0, q1, [sp, #160]
	\pair	q2, q3, [sp, #192]
	\pair	q4, q5, [sp, #224]
	\pair	q6, q7, [sp, #256]
	\pair	q8, q9, [sp, #288]
	\pair	q10, q11, [sp, #320]
	\pair	q12, q13, [sp, #352]
	\pair	q14, q15, [sp, #384]
	\pair	q16, q17, [sp, #416]
	\pair	q18, q19, [sp, #448]
	\pair	q20, q21, [sp, #480]
	\pair	q22, q23, [sp, #512]
	\pair	q24, q25, [sp, #544]
	\pair	q26, q27, [sp, #576]
	\pair	q28, q29, [sp, #608]
	\pair	q30, q31, [sp, #640]
	.endm

	.macro SAVE_GENERAL
	GENERAL_REGS stp, str
	.endm

	.macro RESTORE_GENERAL
	GENERAL_REGS ldp, ldr
	.endm

	.macro SAVE_VECTOR
	VECTOR_REGS stp
	.endm

	.macro RESTORE_VECTOR
	VECTOR_REGS ldp
	.endm

#endif
