/* SPDX-License-Identifier: MIT */
/*
 * record --kernel's records as readers name them (syscalls.c): the readers'
 * side of the feature, apart from the recorder's (src/kernel/).
 */
#ifndef CT_OUTPUT_SYSCALLS_H
#define CT_OUTPUT_SYSCALLS_H

#include <stddef.h>
#include <stdint.h>

#include "../format/format.h"

struct ct_trace;

/* Whose numbers a trace's system calls are: the architecture it was recorded on. */
enum ct_sys_abi {
	CT_ABI_X86_64,
	CT_ABI_GENERIC, /* asm-generic/unistd.h: aarch64 (and riscv64) */
};

enum ct_sys_abi ct_sys_abi_of(const char *arch);
/* The trace's (META arch; x86_64 for traces from before it was said). */
enum ct_sys_abi ct_trace_sys_abi(const struct ct_trace *t);
/* A system call's name, NULL if unknown. */
const char *ct_syscall_name(enum ct_sys_abi abi, uint32_t nr);
/* What its pointer argument pointed to (a KARGS entry), or rec NULL: not read. */
struct ct_syscall_read {
	const struct ct_karg_rec *rec;
	const uint8_t *data;
};

/*
 * A system call and the arguments worth showing: "read(fd=3, count=4096)",
 * 'openat(dfd=AT_FDCWD, path="/etc/hosts", flags=0x80000)' (path=0x7ffd...
 * when it was not read while the call was in progress).
 */
void ct_syscall_format(char *out, size_t len, enum ct_sys_abi abi, const struct ct_kernel_rec *r,
		       const struct ct_syscall_read *rd);
/* Its return value: "4096", "-1 ENOENT", "0x7f12..." */
void ct_syscall_format_ret(char *out, size_t len, enum ct_sys_abi abi,
			   const struct ct_kernel_rec *r);
/* An off-CPU interval's cause: "preempted", "blocked in clock_nanosleep" */
void ct_offcpu_format(char *out, size_t len, enum ct_sys_abi abi, const struct ct_kernel_rec *r);

#endif
