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

/*
 * Length of a demangled signature without the clone notes the demangler
 * appends, each " [clone .constprop.0]": they name a copy the compiler made of
 * the function, not another function.
 */
static size_t ct_strip_clone_notes(const char *d, size_t len)
{
	while (len && d[len - 1] == ']') {
		size_t open = len - 1;
		while (open && d[open] != '[')
			open--;
		if (open < 1 || d[open - 1] != ' ' || strncmp(d + open, "[clone .", 8))
			break;
		len = open - 1;
	}
	return len;
}

/* The length of a clone suffix's part at s (".isra", ".cold", ".0" after a word ...), or 0. */
static size_t ct_clone_part(const char *s, int first)
{
	static const char *const words[] = { "constprop", "isra",	"part", "cold",
					     "lto_priv",  "localalias", "llvm", "specialized" };
	if (s[0] != '.')
		return 0;
	if (!first && isdigit((unsigned char)s[1])) {
		size_t n = 1;
		while (isdigit((unsigned char)s[n]))
			n++;
		return n;
	}
	for (size_t i = 0; i < CT_NAMES_LEN(words); i++) {
		size_t n = strlen(words[i]);
		if (!strncmp(s + 1, words[i], n) && (s[1 + n] == '.' || !s[1 + n]))
			return 1 + n;
	}
	return 0;
}

size_t ct_clone_base_len(const char *sym)
{
	for (const char *dot = strchr(sym + (sym[0] != 0), '.'); dot; dot = strchr(dot + 1, '.')) {
		const char *p = dot;
		size_t n;
		for (int first = 1; (n = ct_clone_part(p, first)); first = 0)
			p += n;
		if (!*p && p != dot)
			return (size_t)(dot - sym);
	}
	return strlen(sym);
}

void ct_short_name_span(const char *d, size_t *start, size_t *end)
{
	size_t whole = ct_strip_clone_notes(d, strlen(d));
	size_t len = ct_strip_qualifiers(d, whole);
	*end = ct_params_start(d, len);
	if (*end == len) { /* not a function signature: keep it whole */
		*start = 0;
		*end = whole;
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
