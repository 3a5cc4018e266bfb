/* SPDX-License-Identifier: MIT */
/* C++ names: __cxa_demangle, and the short form trees and reports show. */
#include <stdlib.h>

#include "symbols.h"
#include "../common/names.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *ct_demangle(const char *name)
{
	if (name[0] != '_' || name[1] != 'Z')
		return NULL;
	int status = 0;
	char *d = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(d);
		return NULL;
	}
	return d;
}

char *ct_short_name(const char *d)
{
	size_t start, end;
	ct_short_name_span(d, &start, &end);
	char *out = ct_strndup(d + start, end - start);
	ct_drop_abi_tags(out);
	return out;
}
