/*
 * -pg on aarch64: functions that call _mcount after prologues of each shape
 * the runtime reads to find their entry sp (src/arch/aarch64/prologue.c),
 * written out as gcc and clang write them, one that signs its return
 * address (paciasp: the trampoline put in its frame record must be signed
 * alike, or its autiasp fails), and one it must leave alone: a prologue with
 * a stack probe's loop. Built with -pg; prints each result.
 * tests/cross/check.sh compares them with the untraced run's and counts the
 * calls in the trace: 3 of each traced function, 21 of p_inner (called by
 * all seven, p_tail by a tail call), none of p_probe.
 */
#include <stdio.h>

long p_inner(long x);
long p_gcc(long), p_clang(long), p_big(long), p_subs(long), p_tail(long);
long p_probe(long), p_pac(long);

__attribute__((noinline)) long p_inner(long x)
{
	__asm__ volatile("");
	return x + 10;
}

__asm__(".text\n"
	/* gcc: the frame record at the bottom of the frame, by a pre-indexed stp */
	".p2align 4\n.globl p_gcc\n.type p_gcc, %function\n"
	"p_gcc:	stp x29, x30, [sp, #-48]!\n	mov x29, sp\n	str x19, [sp, #16]\n"
	"	mov x19, x0\n	mov x0, x30\n	bl _mcount\n	mov x0, x19\n	bl p_inner\n"
	"	add x0, x0, #1\n	ldr x19, [sp, #16]\n	ldp x29, x30, [sp], #48\n	ret\n"
	".size p_gcc, .-p_gcc\n"
	/* clang: sub sp, the frame record at the top, add x29 */
	".p2align 4\n.globl p_clang\n.type p_clang, %function\n"
	"p_clang:	sub sp, sp, #64\n	stp x29, x30, [sp, #48]\n	add x29, sp, #48\n"
	"	str x19, [sp, #32]\n	mov x19, x0\n	bl _mcount\n	mov x0, x19\n	bl p_inner\n"
	"	add x0, x0, #2\n	ldr x19, [sp, #32]\n	ldp x29, x30, [sp, #48]\n	add sp, sp, #64\n"
	"	ret\n"
	".size p_clang, .-p_clang\n"
	/* gcc's large frame: the size in a register (movz, movk), sub sp, sp, x12 */
	".p2align 4\n.globl p_big\n.type p_big, %function\n"
	"p_big:	mov x12, #0x10\n	movk x12, #0x1, lsl #16\n	sub sp, sp, x12\n"
	"	stp x29, x30, [sp]\n	mov x29, sp\n	str x19, [sp, #16]\n	mov x19, x0\n"
	"	mov x0, x30\n	bl _mcount\n	mov x0, x19\n	bl p_inner\n	add x0, x0, #3\n"
	"	ldr x19, [sp, #16]\n	ldp x29, x30, [sp]\n	mov x12, #0x10\n"
	"	movk x12, #0x1, lsl #16\n	add sp, sp, x12\n	ret\n"
	".size p_big, .-p_big\n"
	/* clang's large frame: two subs (lsl #12 and the rest) */
	".p2align 4\n.globl p_subs\n.type p_subs, %function\n"
	"p_subs:	sub sp, sp, #1, lsl #12\n	sub sp, sp, #32\n	stp x29, x30, [sp, #16]\n"
	"	add x29, sp, #16\n	str x19, [sp]\n	mov x19, x0\n	bl _mcount\n	mov x0, x19\n"
	"	bl p_inner\n	add x0, x0, #4\n	ldr x19, [sp]\n	ldp x29, x30, [sp, #16]\n"
	"	add sp, sp, #32\n	add sp, sp, #1, lsl #12\n	ret\n"
	".size p_subs, .-p_subs\n"
	/* a tail call: the frame given back, then b (the callee returns for both) */
	".p2align 4\n.globl p_tail\n.type p_tail, %function\n"
	"p_tail:	stp x29, x30, [sp, #-32]!\n	mov x29, sp\n	str x19, [sp, #16]\n"
	"	mov x19, x0\n	bl _mcount\n	add x0, x19, #5\n	ldr x19, [sp, #16]\n"
	"	ldp x29, x30, [sp], #32\n	b p_inner\n"
	".size p_tail, .-p_tail\n"
	/* a stack probe's loop before the frame record: not read, not traced */
	".p2align 4\n.globl p_probe\n.type p_probe, %function\n"
	"p_probe:	mov x9, #2\n1:	sub sp, sp, #16\n	sub x9, x9, #1\n	cbnz x9, 1b\n"
	"	stp x29, x30, [sp, #-16]!\n	mov x29, sp\n	str x19, [sp, #16]\n	mov x19, x0\n"
	"	bl _mcount\n	mov x0, x19\n	bl p_inner\n	add x0, x0, #6\n	ldr x19, [sp, #16]\n"
	"	ldp x29, x30, [sp], #16\n	add sp, sp, #32\n	ret\n"
	".size p_probe, .-p_probe\n"
	/* pac-ret: the saved x30 is signed with the entry sp */
	".p2align 4\n.globl p_pac\n.type p_pac, %function\n"
	"p_pac:	paciasp\n	stp x29, x30, [sp, #-32]!\n	mov x29, sp\n	str x19, [sp, #16]\n"
	"	mov x19, x0\n	bl _mcount\n	mov x0, x19\n	bl p_inner\n	add x0, x0, #7\n"
	"	ldr x19, [sp, #16]\n	ldp x29, x30, [sp], #32\n	autiasp\n	ret\n"
	".size p_pac, .-p_pac\n");

int main(void)
{
	for (long i = 0; i < 3; i++)
		printf("%ld %ld %ld %ld %ld %ld %ld\n", p_gcc(i), p_clang(i), p_big(i), p_subs(i),
		       p_tail(i), p_probe(i), p_pac(i));
	return 0;
}
