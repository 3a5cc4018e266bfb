/* SPDX-License-Identifier: MIT */
/*
 * record -A / -R: argument and return value specs for functions without
 * DWARF (stripped programs, library functions), turned into prototype text
 * (src/common/proto.h) here, so a mistake is one clear line before the
 * program starts. They reach the runtime in CALLTRACE_ARGSPEC, one per line:
 * "A<TAB>glob<TAB>params" or "R<TAB>glob<TAB>return value".
 *
 *   -A 'GLOB@ARG,...'    ARG:  argN[/FMT]    the Nth integer-class argument
 *                              fpargN[/FMT]  the Nth floating-point argument
 *   -R 'GLOB@retval[/FMT]'
 *
 *   FMT: d|i[8|16|32|64] signed (default d64), u[...] unsigned, x[...] hex,
 *        s string, c char, b bool, p pointer, f[32|64|80] floating point
 *        (f80: long double, which on aarch64 is IEEE binary128)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/*
 * The registers of this machine's calling convention (the traced program
 * runs here): integer arguments before the stack, and where long double is.
 */
#if defined(__aarch64__)
#define CT_SPEC_INT_REGS 8 /* x0-x7 */
#define CT_SPEC_QUAD	 1 /* long double: IEEE binary128 in a v register, returned in v0 */
#else
#define CT_SPEC_INT_REGS 6 /* rdi rsi rdx rcx r8 r9 */
#define CT_SPEC_QUAD	 0 /* long double: x87's, on the stack, returned in st0 */
#endif

/* "TYPE" of a format; NULL if it is not one. */
static const char *ct_fmt_type(const char *fmt, int fp, char *buf, size_t len)
{
	int bits = 0;
	char kind = fmt[0] ? fmt[0] : (fp ? 'f' : 'd');
	if (fmt[0] && fmt[1] && sscanf(fmt + 1, "%d", &bits) != 1)
		return NULL;
	if (fmt[0] && fmt[1]) {
		char tail[16];
		snprintf(tail, sizeof(tail), "%d", bits);
		if (strcmp(fmt + 1, tail))
			return NULL;
	}
	switch (kind) {
	case 'd':
	case 'i':
	case 'u':
		if (bits && bits != 8 && bits != 16 && bits != 32 && bits != 64)
			return NULL;
		snprintf(buf, len, "%c%d", kind == 'u' ? 'u' : 'i', bits ? bits / 8 : 8);
		return buf;
	case 'x':
	case 'p':
		return bits && bits != 8 && bits != 16 && bits != 32 && bits != 64 ? NULL : "p";
	case 's':
	case 'c':
	case 'b':
		return bits ? NULL : kind == 's' ? "s" : kind == 'c' ? "c" : "b";
	case 'f':
		if (bits && bits != 32 && bits != 64 && bits != 80)
			return NULL;
		snprintf(buf, len, "f%d", bits == 32 ? 4 : bits == 80 ? 16 : 8);
		return buf;
	}
	return NULL;
}

/* One "argN/FMT" as "argN:TYPE@LOC" appended to out; -1 if it is not one. */
static int ct_spec_arg(const char *item, char *out, size_t len)
{
	char name[32], type[16];
	int fp = !strncmp(item, "fparg", 5), n = 0, used = 0;
	const char *num = item + (fp ? 5 : 3);
	if (!fp && strncmp(item, "arg", 3))
		return -1;
	if (sscanf(num, "%d%n", &n, &used) != 1 || n < 1 || n > 32 ||
	    (num[used] && num[used] != '/'))
		return -1;
	const char *t = ct_fmt_type(num[used] == '/' ? num + used + 1 : "", fp, type, sizeof(type));
	if (!t || (fp && t[0] != 'f') || (!fp && t[0] == 'f' && t[1] != '1'))
		return -1;
	snprintf(name, sizeof(name), "%.*s", (int)(num + used - item), item);
	size_t at = strlen(out);
	if (fp && CT_SPEC_QUAD && t[1] == '1')
		snprintf(out + at, len - at, "%s%s:F16@q%d", at ? "," : "", name, n - 1);
	else if (fp)
		snprintf(out + at, len - at, "%s%s:%s@%s%d", at ? "," : "", name, t,
			 t[1] == '1' ? "s" : "x", n - 1); /* long double: the stack */
	else
		snprintf(out + at, len - at, "%s%s:%s@%s%d", at ? "," : "", name, t,
			 n <= CT_SPEC_INT_REGS ? "r" : "s",
			 n <= CT_SPEC_INT_REGS ? n - 1 : n - 1 - CT_SPEC_INT_REGS);
	return 0;
}

/* retval/FMT as "TYPE@LOC"; -1 if it is not one. */
static int ct_spec_ret(const char *item, char *out, size_t len)
{
	char type[16];
	if (strncmp(item, "retval", 6) || (item[6] && item[6] != '/'))
		return -1;
	const char *t = ct_fmt_type(item[6] ? item + 7 : "", 0, type, sizeof(type));
	if (t && CT_SPEC_QUAD && !strcmp(t, "f16")) {
		snprintf(out, len, "F16@q0");
		return 0;
	}
	if (!t || !strcmp(t, "f16"))
		return -1;
	snprintf(out, len, "%s@%s", t, t[0] == 'f' ? "x0" : "r0");
	return 0;
}

static void ct_spec_env(char kind, const char *glob, size_t glen, const char *text)
{
	const char *old = getenv("CALLTRACE_ARGSPEC");
	char *all = ct_malloc((old ? strlen(old) : 0) + glen + strlen(text) + 8);
	sprintf(all, "%s%s%c\t%.*s\t%s", old ? old : "", old && *old ? "\n" : "", kind, (int)glen,
		glob, text);
	setenv("CALLTRACE_ARGSPEC", all, 1);
	free(all);
}

int ct_argspec_add(const char *cmd, char kind, const char *spec)
{
	const char *at = strrchr(spec, '@');
	char text[1024] = "", item[64];

	if (!at || at == spec || !at[1] || strpbrk(spec, "\t\n"))
		goto bad;
	for (const char *p = at + 1; *p;) {
		size_t n = strcspn(p, ",");
		if (n >= sizeof(item))
			goto bad;
		memcpy(item, p, n);
		item[n] = 0;
		if (kind == 'A' ? ct_spec_arg(item, text, sizeof(text)) : ct_spec_ret(item, text, sizeof(text)))
			goto bad;
		p += n + (p[n] == ',');
		if (kind == 'R' && *p)
			goto bad;
	}
	ct_spec_env(kind, spec, (size_t)(at - spec), text);
	return 0;
bad:
	if (kind == 'A')
		ct_error("%s: -A takes 'GLOB@argN[/FMT],fpargN[/FMT],...' (FMT: d i u x s c b p f, "
			 "with a size in bits: d32), not '%s'", cmd, spec);
	else
		ct_error("%s: -R takes 'GLOB@retval[/FMT]' (FMT: d i u x s c b p f, with a size in "
			 "bits: u16), not '%s'", cmd, spec);
	return -1;
}
