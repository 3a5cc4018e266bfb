// SPDX-License-Identifier: MIT
/*
 * A tracepoint's id and field layout, read from its format file in tracefs at
 * run time: the layout is the running kernel's, not the one we were built for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "kernel.h"

/*
 * CALLTRACE_TEST_TRACEFS: tests/kernel's copy of the format files, readable by
 * an ordinary user, to reach the refusal that comes after tracefs (from
 * perf_event_paranoid) without making the real tracefs readable. Only the
 * test suite sets it; never honoured in a secure-execution (setuid, file
 * capabilities) process.
 */
static const char *ct_test_tracefs(void)
{
	const char *dir = getauxval(AT_SECURE) ? NULL : getenv("CALLTRACE_TEST_TRACEFS");
	return dir && *dir ? dir : NULL;
}

static FILE *ct_open_format(const char *system, const char *event)
{
	const char *roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[256];
	FILE *f = NULL;
	int err = ENOENT;
	const char *test = ct_test_tracefs();

	if (test)
		roots[0] = roots[1] = test;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]) && !f; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", roots[i], system, event);
		f = fopen(path, "re");
		if (!f && errno != ENOENT)
			err = errno;
	}
	if (!f)
		errno = err;
	return f;
}

/*
 * "	field:unsigned long args[6];	offset:16;	size:48;	signed:0;":
 * the declaration's last word (before any [n]) is the field's name.
 */
static void ct_parse_field(const char *line, struct ct_tp_field *fields, size_t nfields)
{
	const char *decl = strstr(line, "field:"), *semi, *off, *size;
	if (!decl || !(semi = strchr(decl, ';')) || !(off = strstr(semi, "offset:")) ||
	    !(size = strstr(semi, "size:")))
		return;
	const char *end = semi;
	const char *bracket = memchr(decl, '[', (size_t)(semi - decl));
	if (bracket)
		end = bracket;
	const char *name = end;
	while (name > decl && name[-1] != ' ' && name[-1] != ':')
		name--;
	for (size_t i = 0; i < nfields; i++)
		if (strlen(fields[i].name) == (size_t)(end - name) &&
		    !strncmp(fields[i].name, name, (size_t)(end - name))) {
			fields[i].offset = atoi(off + 7);
			fields[i].size = atoi(size + 5);
		}
}

int ct_tracepoint(const char *system, const char *event, struct ct_tp_field *fields, size_t nfields,
		  char *why, size_t whylen)
{
	FILE *f = ct_open_format(system, event);
	if (!f) {
		snprintf(why, whylen, "no tracepoint %s:%s in tracefs (%s)", system, event,
			 strerror(errno));
		return -1;
	}
	char line[512];
	int id = -1;
	for (size_t i = 0; i < nfields; i++)
		fields[i].offset = fields[i].size = -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "ID:", 3))
			id = atoi(line + 3);
		else
			ct_parse_field(line, fields, nfields);
	}
	fclose(f);
	if (id <= 0) {
		snprintf(why, whylen, "tracepoint %s:%s has no ID in its format file", system,
			 event);
		return -1;
	}
	for (size_t i = 0; i < nfields; i++)
		if (fields[i].offset < 0 || fields[i].size <= 0) {
			snprintf(why, whylen, "tracepoint %s:%s has no field %s", system, event,
				 fields[i].name);
			return -1;
		}
	return id;
}
