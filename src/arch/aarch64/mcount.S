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

#include "regsave.h"


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
	str	x9, [sp, #672]
	ARGS
	bl	ct_mcount_enter_fast
	cbnz	x0, 1f
	RESTORE_GENERAL
	ldr	x9, [sp, #672]
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
	ldr	x9, [sp, #672]
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
