/*
 * Functions whose first instruction reads the pc (adr, adrp, ldr literal of
 * each size, cbz, tbz, b): dynamic patching moves exactly that instruction
 * into the trampoline (src/arch/aarch64/relocate.c), so each must compute
 * the same there. Prints each result; tests/cross/check.sh compares them
 * with the untraced run's and looks for every call in the trace.
 */
#include <stdio.h>

long f_adr(void), f_adrp(void), f_ldr_x(void), f_ldr_w(void), f_ldr_sw(void), f_ldr_d(void);
long f_ldr_q(void), f_cbz(long), f_tbz(long), f_b(void), f_target(void);

__asm__(".text\n"
	".p2align 3\n"
	".globl f_adr\n.type f_adr, %function\n"
	"f_adr:	adr x0, 1f\n	ldr x0, [x0]\n	ret\n	.p2align 3\n1:	.quad 11\n"
	".size f_adr, .-f_adr\n"
	".globl f_adrp\n.type f_adrp, %function\n"
	"f_adrp:	adrp x0, ct_pcrel_data\n	add x0, x0, :lo12:ct_pcrel_data\n	ldr x0, [x0]\n	ret\n"
	".size f_adrp, .-f_adrp\n"
	".globl f_ldr_x\n.type f_ldr_x, %function\n"
	"f_ldr_x:	ldr x0, 1f\n	ret\n	.p2align 3\n1:	.quad 33\n"
	".size f_ldr_x, .-f_ldr_x\n"
	".globl f_ldr_w\n.type f_ldr_w, %function\n"
	"f_ldr_w:	ldr w0, 1f\n	ret\n1:	.word 44\n"
	".size f_ldr_w, .-f_ldr_w\n"
	".globl f_ldr_sw\n.type f_ldr_sw, %function\n"
	"f_ldr_sw:	ldrsw x0, 1f\n	ret\n1:	.word -45\n"
	".size f_ldr_sw, .-f_ldr_sw\n"
	".globl f_ldr_d\n.type f_ldr_d, %function\n"
	"f_ldr_d:	ldr d0, 1f\n	fcvtzs x0, d0\n	ret\n	.p2align 3\n1:	.double 55.0\n"
	".size f_ldr_d, .-f_ldr_d\n"
	".globl f_ldr_q\n.type f_ldr_q, %function\n"
	"f_ldr_q:	ldr q0, 1f\n	umov x0, v0.d[1]\n	ret\n	.p2align 4\n1:	.quad 1, 56\n"
	".size f_ldr_q, .-f_ldr_q\n"
	".globl f_cbz\n.type f_cbz, %function\n"
	"f_cbz:	cbz x0, 1f\n	mov x0, #66\n	ret\n1:	mov x0, #77\n	ret\n"
	".size f_cbz, .-f_cbz\n"
	".globl f_tbz\n.type f_tbz, %function\n"
	"f_tbz:	tbz x0, #3, 1f\n	mov x0, #88\n	ret\n1:	mov x0, #99\n	ret\n"
	".size f_tbz, .-f_tbz\n"
	".globl f_b\n.type f_b, %function\n"
	"f_b:	b f_target\n"
	".size f_b, .-f_b\n"
	".globl f_target\n.type f_target, %function\n"
	"f_target:	mov x0, #123\n	ret\n"
	".size f_target, .-f_target\n"
	".data\n.p2align 3\nct_pcrel_data:	.quad 22\n"
	".text\n");

int main(void)
{
	printf("adr %ld adrp %ld ldr_x %ld ldr_w %ld ldr_sw %ld ldr_d %ld ldr_q %ld\n", f_adr(),
	       f_adrp(), f_ldr_x(), f_ldr_w(), f_ldr_sw(), f_ldr_d(), f_ldr_q());
	printf("cbz %ld %ld tbz %ld %ld b %ld\n", f_cbz(0), f_cbz(1), f_tbz(8), f_tbz(0), f_b());
	return 0;
}
