// SPDX-License-Identifier: MIT
/*
 * Response files (@FILE): build systems put long argument lists in them, and
 * the compiler reads them itself. We read them only to classify the command
 * (is there a -c, a source file?); the command line passed on keeps the @FILE.
 * Splitting follows gcc's rules: blanks separate, quotes group, a backslash
 * takes the next character literally.
 */
#include <ctype.h>
#include <string.h>

#include "wrapper.h"

/* One argument from *p into word (as long as the input); false at the end. */
static bool next_word(const char **p, char *word)
{
	const char *s = *p;
	char quote = 0;
	size_t n = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	for (; *s && (quote || !isspace((unsigned char)*s)); s++) {
		if (*s == '\\' && s[1])
			word[n++] = *++s;
		else if (quote && *s == quote)
			quote = 0;
		else if (!quote && (*s == '\'' || *s == '"'))
			quote = *s;
		else
			word[n++] = *s;
	}
	word[n] = '\0';
	*p = s;
	return true;
}

bool read_rspfile(const char *path, struct strv *out)
{
	char *text = read_text(path), *word;
	const char *p;

	if (!text)
		return false;
	word = xmalloc(strlen(text) + 1);
	for (p = text; next_word(&p, word);)
		strv_push(out, xstrdup(word));
	return true;
}
