// SPDX-License-Identifier: MIT
/*
 * Small helpers: memory that cannot fail quietly, string vectors, and the
 * shell-quoted command line --calltrace-verbose prints. The wrapper ends in
 * execv() after a few milliseconds, so nothing here is ever freed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper.h"

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p) {
		fprintf(stderr, "%s: out of memory\n", ct_prog);
		exit(127);
	}
	return p;
}

char *xstrdup(const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(xmalloc(len), s, len);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = xmalloc(len + 1);
	va_start(ap, fmt);
	vsnprintf(s, len + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* Stores the pointer, not a copy: arguments and built strings live until exec. */
void strv_push(struct strv *sv, const char *s)
{
	if (sv->n + 2 > sv->cap) {
		char **v;

		sv->cap = sv->cap ? sv->cap * 2 : 16;
		v = xmalloc(sv->cap * sizeof(*v));
		if (sv->n)
			memcpy(v, sv->v, sv->n * sizeof(*v));
		free(sv->v);
		sv->v = v;
	}
	sv->v[sv->n++] = (char *)s;
	sv->v[sv->n] = NULL;
}

void strv_append(struct strv *sv, const struct strv *more)
{
	for (size_t i = 0; i < more->n; i++)
		strv_push(sv, more->v[i]);
}

bool strv_has(const struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* A whole text file, NUL-terminated; NULL if it cannot be read. */
char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t len = 0, cap = 4096, got;
	char *buf;

	if (!f)
		return NULL;
	buf = xmalloc(cap);
	while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += got;
		if (len + 1 == cap) {
			char *bigger = xmalloc(cap * 2);

			memcpy(bigger, buf, len);
			free(buf);
			buf = bigger;
			cap *= 2;
		}
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* Quoted only when the shell would need it, so the line can be pasted back. */
static void print_quoted(const char *s, FILE *f)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_@%+=:,./-") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

void strv_print(const struct strv *sv, const char *prefix)
{
	fputs(prefix, stderr);
	for (size_t i = 0; i < sv->n; i++) {
		if (i)
			fputc(' ', stderr);
		print_quoted(sv->v[i], stderr);
	}
	fputc('\n', stderr);
}
