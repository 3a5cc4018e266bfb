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

/* A system call's name (x86_64 numbers), NULL if unknown. */
const char *ct_syscall_name(uint32_t nr);
/* A system call and the arguments worth showing: "read(fd=3, count=4096)". */
void ct_syscall_format(char *out, size_t len, const struct ct_kernel_rec *r);
/* Its return value: "4096", "-1 ENOENT", "0x7f12..." */
void ct_syscall_format_ret(char *out, size_t len, const struct ct_kernel_rec *r);
/* An off-CPU interval's cause: "preempted", "blocked in clock_nanosleep" */
void ct_offcpu_format(char *out, size_t len, const struct ct_kernel_rec *r);

#endif
