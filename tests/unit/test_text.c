/* SPDX-License-Identifier: MIT */
/* The outputs' one UTF-8 rule and JSON escaper (src/output/text.c). */
#include <stdlib.h>

#include "unit.h"
#include "../../src/output/text.h"

static size_t len_of(const char *s)
{
	return ct_utf8_len((const unsigned char *)s, strlen(s));
}

static void test_utf8_len(void)
{
	CHECK(len_of("\xc3\xa9") == 2);		/* é */
	CHECK(len_of("\xe2\x82\xac") == 3);	/* € */
	CHECK(len_of("\xf0\x9f\x98\x80") == 4); /* U+1F600 */
	CHECK(len_of("\xf4\x8f\xbf\xbf") == 4); /* U+10FFFF, the last */
	CHECK(len_of("\xed\x9f\xbf") == 3);	/* U+D7FF, just before the surrogates */
	CHECK(len_of("\x80") == 0);		/* a stray continuation byte */
	CHECK(len_of("\xc0\xaf") == 0);		/* overlong '/' */
	CHECK(len_of("\xc1\xbf") == 0);
	CHECK(len_of("\xe0\x80\x80") == 0); /* overlong three bytes */
	CHECK(len_of("\xf0\x80\x80\x80") == 0);
	CHECK(len_of("\xed\xa0\x80") == 0);	/* a surrogate */
	CHECK(len_of("\xf4\x90\x80\x80") == 0); /* past U+10FFFF */
	CHECK(len_of("\xf5\x80\x80\x80") == 0); /* no such lead byte */
	CHECK(len_of("\xf8\x80\x80") == 0);
	CHECK(len_of("\xe2\x82") == 0); /* cut short by the NUL */
	CHECK(ct_utf8_len((const unsigned char *)"\xe2\x82\xac", 2) == 0); /* by the length */
	CHECK(len_of("\xc3(") == 0);
	CHECK(ct_utf8_valid("a\xc3\xa9z", 4) && !ct_utf8_valid("a\xff", 2));
}

static int append_is(const char *s, size_t n, const char *want)
{
	struct ct_buf b = { 0 };
	ct_utf8_append(&b, s, n);
	int ok = b.len == strlen(want) && (!b.len || !memcmp(b.data, want, b.len));
	ct_buf_free(&b);
	return ok;
}

static void test_utf8_append(void)
{
	CHECK(append_is("caf\xc3\xa9", 5, "caf\xc3\xa9"));
	CHECK(append_is("bad\xff\xfe", 5, "bad\xef\xbf\xbd\xef\xbf\xbd")); /* one U+FFFD a byte */
	CHECK(append_is("\xed\xa0\x80z", 4, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz"));
	CHECK(append_is("\xe2\x82\xac", 2, "\xef\xbf\xbd\xef\xbf\xbd")); /* cut by n */
	CHECK(append_is("", 0, ""));
}

static int quote_is(const char *s, unsigned flags, const char *want)
{
	struct ct_buf b = { 0 };
	ct_json_quote(&b, s, flags);
	int ok = b.len == strlen(want) && !memcmp(b.data, want, b.len);
	if (!ok)
		fprintf(stderr, "  %.*s, want %s\n", (int)b.len, (const char *)b.data, want);
	ct_buf_free(&b);
	return ok;
}

static void test_json_quote(void)
{
	CHECK(quote_is("main", 0, "\"main\""));
	CHECK(quote_is("a\"b\\c", 0, "\"a\\\"b\\\\c\""));
	CHECK(quote_is("l\nf\t\x01", 0, "\"l\\u000af\\u0009\\u0001\""));
	CHECK(quote_is("std::vector<int>&", 0, "\"std::vector<int>&\""));
	CHECK(quote_is("caf\xc3\xa9 \xe2\x82\xac", 0, "\"caf\xc3\xa9 \xe2\x82\xac\""));
	CHECK(quote_is("bad\xff\xed\xa0\x80", 0, "\"bad\\ufffd\\ufffd\\ufffd\\ufffd\""));
	CHECK(quote_is("x\x7f", 0, "\"x\x7f\""));
	/* inside a <script>: no '<', '>', '&' or DEL as such */
	CHECK(quote_is("</script>&\x7f", CT_JSON_SCRIPT,
		       "\"\\u003c/script\\u003e\\u0026\\u007f\""));
	CHECK(quote_is("", 0, "\"\""));
}

int main(void)
{
	int failures = 0;
	RUN(test_utf8_len);
	RUN(test_utf8_append);
	RUN(test_json_quote);
	return failures ? 1 : 0;
}
