/* SPDX-License-Identifier: MIT */
/*
 * What dynamic patching takes: the method asked for and the -P patterns
 * (select.c). The runtime's patching and the ptrace tracer's breakpoints
 * (src/ptrace/image.c) both choose their functions with it.
 */
#ifndef CT_COMMON_SELECT_H
#define CT_COMMON_SELECT_H

#ifndef CT_HIDDEN /* in the tool too: hidden inside the runtime, where it is defined */
#define CT_HIDDEN __attribute__((visibility("hidden")))
#endif

/*
 * The settings select.c reads (CALLTRACE_METHOD, _PATTERNS, _LIBCALLS,
 * _ARGSPEC), as each side knows them: the runtime's ct_getenv
 * (src/runtime/settings.c: the environment, or what attach gave), the
 * tracer's (src/ptrace/image.c: the environment).
 */
const char *ct_getenv(const char *name) CT_HIDDEN;

/* record --method, in this order */
enum { CT_SEL_AUTO, CT_SEL_FINSTRUMENT, CT_SEL_FENTRY, CT_SEL_PATCHABLE, CT_SEL_PATCH };

int ct_select_method(void) CT_HIDDEN;
/* Before looking at modules: read the settings, find the demangler (C++ programs). */
void ct_select_prepare(void) CT_HIDDEN;
/* 1 if some -P pattern asks for functions of this shared library (and we may patch it). */
int ct_select_library(const char *path) CT_HIDDEN;
/* 1 for a library of the program's own (not from the system's library directories). */
int ct_select_own_library(const char *path) CT_HIDDEN;
/* 1 if the function of that module (program: the executable) is to be patched. */
int ct_select_function(const char *path, int program, const char *raw_name) CT_HIDDEN;

/* 1 if the glob matches the symbol raw as every -P pattern does (ct_select_prepare first). */
int ct_select_name(const char *pat, const char *raw) CT_HIDDEN;

/* 1 for the libraries never patched (the C library, the loader, ours ...). */
int ct_select_never_library(const char *path) CT_HIDDEN;
/* 1 if calls into shared libraries are traced (--libcalls, or a -P 'func@lib' pattern). */
int ct_select_libcalls(void) CT_HIDDEN;
/* 1 if calls to that imported function are; lib() gives its library's file name, if asked. */
int ct_select_libcall(const char *raw_name, const char *(*lib)(void *ctx), void *ctx) CT_HIDDEN;

#endif
