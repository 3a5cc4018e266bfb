/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "text.h"

size_t ct_utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xc2 && s[0] <= 0xdf   ? 2
		     : s[0] >= 0xe0 && s[0] <= 0xef ? 3
		     : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
						    : 0;
	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* no overlong three- and four-byte forms, no surrogates, nothing past U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

static const char ct_replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

int ct_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	while (p < end) {
		size_t l = *p < 0x80 ? 1 : ct_utf8_len(p, (size_t)(end - p));
		if (!l)
			return 0;
		p += l;
	}
	return 1;
}

void ct_utf8_append(struct ct_buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	while (p < end) {
		const unsigned char *run = p; /* ASCII and well-formed sequences, copied as one */
		size_t l;
		while (p < end && (l = *p < 0x80 ? 1 : ct_utf8_len(p, (size_t)(end - p))))
			p += l;
		ct_buf_append(b, run, (size_t)(p - run));
		if (p < end) {
			ct_buf_append(b, ct_replacement, 3);
			p++;
		}
	}
}

/* Does c need a \u escape in a JSON string written with flags? */
static int ct_json_escaped(unsigned char c, unsigned flags)
{
	if (c < 0x20)
		return 1;
	return (flags & CT_JSON_SCRIPT) && (c == '<' || c == '>' || c == '&' || c == 0x7f);
}

void ct_json_quote(struct ct_buf *b, const char *s, unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);

	ct_buf_append(b, "\"", 1);
	while (p < end) {
		unsigned char c = *p;
		size_t l;
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			ct_buf_append(b, e, 2);
			p++;
		} else if (ct_json_escaped(c, flags)) {
			char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			ct_buf_append(b, e, 6);
			p++;
		} else if (c < 0x80) {
			ct_buf_append(b, p, 1);
			p++;
		} else if ((l = ct_utf8_len(p, (size_t)(end - p)))) {
			ct_buf_append(b, p, l);
			p += l;
		} else {
			ct_buf_append(b, "\\ufffd", 6);
			p++;
		}
	}
	ct_buf_append(b, "\"", 1);
}

void ct_json_fput(FILE *f, const char *s, unsigned flags)
{
	struct ct_buf b = { 0 };
	ct_json_quote(&b, s, flags);
	fwrite(b.data, 1, b.len, f);
	ct_buf_free(&b);
}
