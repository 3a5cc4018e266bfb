/* SPDX-License-Identifier: MIT */
/*
 * Function names as users write them, shared by the tool and the runtime
 * (which matches -P patterns against them): the short form of a demangled
 * C++ signature, and the glob rule every pattern follows.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <string.h>

#include "names.h"

#define CT_NAMES_LEN(a) (sizeof(a) / sizeof((a)[0]))

static int ct_ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && !memcmp(s + len - n, suffix, n);
}

/* Length of the name with trailing qualifiers (" const", " &" ...) removed. */
static size_t ct_strip_qualifiers(const char *s, size_t len)
{
	static const char *const quals[] = { " const", " volatile", " &&",
					     " &",     " noexcept", " transaction_safe" };
	for (int again = 1; again;) {
		again = 0;
		for (size_t i = 0; i < CT_NAMES_LEN(quals); i++) {
			if (ct_ends_with(s, len, quals[i])) {
				len -= strlen(quals[i]);
				again = 1;
			}
		}
	}
	return len;
}

/* Where the parameter list of a signature ending at len starts, or len if it has none. */
static size_t ct_params_start(const char *s, size_t len)
{
	if (!len || s[len - 1] != ')')
		return len;
	int depth = 0;
	for (size_t i = len; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return i;
	}
	return len;
}

static int ct_is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Skip "operator" and the operator after it; returns the new position. */
static size_t ct_skip_operator(const char *s, size_t i, size_t end)
{
	static const char *const ops[] = {
		"->*", "<<=", ">>=", "<=>", "()", "[]", "->", "<<", ">>", "<=",
		">=",  "==",  "!=",  "&&",  "||", "++", "--", "+=", "-=", "*=",
		"/=",  "%=",  "&=",  "|=",  "^=", "<",	">",  "+",  "-",  "*",
		"/",   "%",   "^",   "&",   "|",  "~",	"!",  "=",  ",",  "\"\"",
	};
	size_t j = i + 8;

	if (j < end && s[j] == ' ')
		return end; /* operator new, operator delete[], a conversion: operator int* */
	for (size_t k = 0; k < CT_NAMES_LEN(ops); k++) {
		size_t n = strlen(ops[k]);
		if (j + n <= end && !strncmp(s + j, ops[k], n)) {
			j += n;
			break;
		}
	}
	if (j + 1 < end && s[j] == ' ' && s[j + 1] == '<')
		j++; /* "operator< <int>": the demangler's space before template arguments */
	return j;
}

/* Start of the qualified name: after the return type of a template function. */
static size_t ct_name_start(const char *s, size_t end)
{
	size_t start = 0;
	int depth = 0;
	for (size_t i = 0; i < end;) {
		if (!strncmp(s + i, "operator", 8) && (i == 0 || !ct_is_ident(s[i - 1])) &&
		    !ct_is_ident(s[i + 8])) {
			i = ct_skip_operator(s, i, end);
			continue;
		}
		char c = s[i];
		if (c == '<' || c == '(' || c == '[' || c == '{')
			depth++;
		else if (c == '>' || c == ')' || c == ']' || c == '}')
			depth--;
		else if (c == ' ' && depth == 0)
			start = i + 1;
		i++;
	}
	return start;
}

void ct_short_name_span(const char *d, size_t *start, size_t *end)
{
	size_t len = ct_strip_qualifiers(d, strlen(d));
	*end = ct_params_start(d, len);
	if (*end == len) { /* not a function signature: keep it whole */
		*start = 0;
		*end = strlen(d);
		return;
	}
	*start = ct_name_start(d, *end);
}

void ct_drop_abi_tags(char *s)
{
	char *tag;
	while ((tag = strstr(s, "[abi:"))) {
		char *close = strchr(tag, ']');
		if (!close)
			break;
		memmove(tag, close + 1, strlen(close + 1) + 1);
	}
}

int ct_glob_name(const char *pat, const char *name)
{
	if (!fnmatch(pat, name, 0))
		return 1;
	/* a library call, "printf@libc.so.6": "printf" names it too */
	const char *at = strchr(pat, '@') ? NULL : strrchr(name, '@');
	if (at && (size_t)(at - name) < 512) {
		char bare[512];
		memcpy(bare, name, (size_t)(at - name));
		bare[at - name] = 0;
		return ct_glob_name(pat, bare);
	}
	for (const char *p = strstr(name, "::"); p; p = strstr(p + 2, "::"))
		if (!fnmatch(pat, p + 2, 0))
			return 1;
	return 0;
}
