/* SPDX-License-Identifier: MIT */
/*
 * aarch64 entry and return stubs (the counterpart of x86_64/fentry.S).
 *
 * A patchable entry we patched (patch.h) and a dynamically patched
 * function's trampoline (relocate.h) both arrive here by
 *
 *	mov	x9, x30		x9: the function's return address
 *	bl	thunk		x30: where the function goes on (the call site)
 *
 * with sp the function's own at entry, every argument register live. The
 * return address goes into a 16-byte slot just below that sp, whose address
 * the C side gets (as x86-64's gets the address of the pushed return
 * address): it may replace it with ct_return_trampoline, and we return to
 * the call site with x30 loaded from the slot. When the function returns to
 * the trampoline, sp is the same again, so the slot is found at the same
 * address: the shadow stack's key and the records' stack pointer.
 *
 * Every register a call may clobber is kept (a caller built with -fipa-ra
 * may rely on the function leaving some alone): x0-x18 (x9 excepted: the
 * patch took it), and q0-q31 only when fasthook.c, built general-registers
 * only, hands over to fentry.c. The save area, CT_FRAME bytes at sp:
 *	0	x0-x8 (the C side's regs[0..8]: arguments x0-x7, results x0-x1)
 *	72	a spare word (CT_HOOK_SPARE_REG, fasthook.c)
 *	80	x10-x18
 *	160	q0-q31 (regs[20 + 2n] is vn's low half)
 * We leave by "ret x16", never "br": a br to the middle of a function
 * would fault on BTI-guarded pages, and the ret goes where the bl that
 * brought us here said, so it is the predicted one.
 */
	.text

	.set	CT_FRAME, 672
	.set	CT_SPARE, 72

#include "regsave.h"


	/*
	 * An entry stub. fast (fasthook.c) answers 0: done; 1: nothing done,
	 * call handler (fentry.c); 2 or 3: ct_hook_finish the event. The slot
	 * is at x29 + 16, the call site at x29 + 24.
	 */
	.macro ENTRY_STUB name, fast, handler
	.globl	\name
	.type	\name, %function
	.p2align 4
\name:
	.cfi_startproc
	stp	x9, x30, [sp, #-16]!	/* the slot, then where to go on */
	.cfi_def_cfa_offset 16
	.cfi_offset x30, -8
	stp	x29, x30, [sp, #-16]!	/* a frame record, for backtraces */
	.cfi_def_cfa_offset 32
	.cfi_offset x29, -32
	mov	x29, sp
	.cfi_def_cfa_register x29
	sub	sp, sp, #CT_FRAME
	SAVE_GENERAL
	add	x0, x29, #16
	ldr	x1, [x29, #24]
	mov	x2, sp
	bl	\fast
	cbnz	x0, 1f
	RESTORE_GENERAL
	b	4f
1:	SAVE_VECTOR
	cmp	x0, #1
	b.ne	2f
	add	x0, x29, #16
	ldr	x1, [x29, #24]
	mov	x2, sp
	bl	\handler
	b	3f
2:	add	x1, x29, #16		/* x0: what is left to do */
	ldr	x2, [sp, #CT_SPARE]	/* the event's word */
	bl	ct_hook_finish
3:	RESTORE_VECTOR
	RESTORE_GENERAL
4:	mov	sp, x29
	ldp	x29, x30, [sp], #16
	ldp	x30, x16, [sp], #16	/* the return address (or the trampoline); the call site */
	ret	x16
	.cfi_endproc
	.size	\name, .-\name
	.endm

	/* a patchable entry (patch.c): the call site is 8 bytes into the function (12 after bti c) */
	ENTRY_STUB __fentry__, ct_fentry_enter_fast, ct_fentry_enter

	/* a function we patched: the call site is in its trampoline (relocate.h) */
	ENTRY_STUB ct_patch_entry, ct_patch_enter_fast, ct_patch_enter
	.hidden	ct_patch_entry

	.globl	ct_return_trampoline
	.hidden	ct_return_trampoline
	.type	ct_return_trampoline, %function
	.p2align 4
ct_return_trampoline:
	.cfi_startproc
	/* the traced function just returned here: sp is its entry sp again;
	 * x0-x7 and q0-q7 hold what it returns (x8 too, for a large struct) */
	sub	sp, sp, #16		/* the slot: the real address goes there */
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	sub	sp, sp, #CT_FRAME
	SAVE_GENERAL
	add	x0, x29, #16		/* the slot */
	mov	x1, sp			/* the registers saved */
	bl	ct_fentry_exit_fast	/* x0: as the entry stubs', x1: the real address */
	cbnz	x0, 1f
	str	x1, [x29, #16]
	RESTORE_GENERAL
	b	5f
1:	SAVE_VECTOR
	cmp	x0, #1
	b.ne	2f
4:	add	x0, x29, #16
	mov	x1, sp
	bl	ct_fentry_exit		/* the real return address */
	str	x0, [x29, #16]
	b	3f
2:	str	x1, [x29, #16]
	add	x1, x29, #16		/* x0: what is left to do */
	ldr	x2, [sp, #CT_SPARE]
	bl	ct_hook_finish
	adr	x0, ct_return_trampoline
	ldr	x1, [x29, #16]
	cmp	x0, x1			/* a tail call's frame: its caller's is left */
	b.eq	4b
3:	RESTORE_VECTOR
	RESTORE_GENERAL
5:	mov	sp, x29
	ldp	x29, x30, [sp], #16
	ldr	x16, [sp], #16
	mov	x30, x16
	ret
	.cfi_endproc
	.size	ct_return_trampoline, .-ct_return_trampoline

	.section .note.GNU-stack, "", %progbits
