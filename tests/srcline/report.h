/* SPDX-License-Identifier: MIT */
/*
 * What the srcline test programs print for srcline_check: their modules
 * ("module PATH BIAS LO HI": the program and the libraries beside it) and,
 * from inside each callee, the return address of its call ("ret SITE ADDR").
 * The callees are never inlined, so that address is in the caller.
 */
#ifndef SL_REPORT_H
#define SL_REPORT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr */
#endif
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__clang__)
#define NOINL __attribute__((noinline))
#else
#define NOINL __attribute__((noinline, noclone))
#endif

#define SL_RET(site) printf("ret %s %p\n", (site), __builtin_return_address(0))

static char sl_exe[PATH_MAX];

static size_t sl_dirlen(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? (size_t)(slash - path) : 0;
}

__attribute__((unused)) static int sl_module(struct dl_phdr_info *info, size_t size, void *ctx)
{
	const char *path = info->dlpi_name[0] ? info->dlpi_name : sl_exe;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	(void)size;
	(void)ctx;
	/* only what the test built: the program and the libraries beside it */
	if (sl_dirlen(path) != sl_dirlen(sl_exe) || strncmp(path, sl_exe, sl_dirlen(sl_exe)))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	printf("module %s %#lx %#lx %#lx\n", path, (unsigned long)info->dlpi_addr,
	       (unsigned long)lo, (unsigned long)hi);
	return 0;
}

__attribute__((unused)) static void sl_modules(void)
{
	ssize_t n = readlink("/proc/self/exe", sl_exe, sizeof(sl_exe) - 1);
	sl_exe[n > 0 ? n : 0] = 0;
	dl_iterate_phdr(sl_module, NULL);
}

#endif
