/* SPDX-License-Identifier: MIT */
/* A function with line information but no subprogram DIE: its line is the line table's. */
	.text
	.globl	asm_func
	.type	asm_func, @function
asm_func:
	movl	$1, %eax	/* DEF:asm_func */
	ret
	.size	asm_func, .-asm_func
	.section .note.GNU-stack,"",@progbits
