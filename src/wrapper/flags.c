// SPDX-License-Identifier: MIT
/*
 * The flags added to a compile, per method and compiler. They go before the
 * user's own arguments so that a later -fno-instrument-functions or
 * -fpatchable-function-entry=... of the user's still wins.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper.h"

/* A directory and, if it differs, its real path: gcc compares file names as
 * it spelled them, and a symlinked include directory can be spelled either way. */
static void add_spellings(struct strv *dirs, const char *dir)
{
	char real[PATH_MAX];

	if (!*dir || dir[strlen(dir) - 1] == '\\')
		return; /* a final backslash would escape the next comma */
	if (!strv_has(dirs, dir))
		strv_push(dirs, dir);
	if (realpath(dir, real) && !strv_has(dirs, real))
		strv_push(dirs, xstrdup(real));
}

/* gcc splits the list at commas; a comma in a name is written "\,". */
static char *join_escaped(const struct strv *dirs)
{
	size_t len = 1;
	char *list, *w;

	for (size_t i = 0; i < dirs->n; i++)
		len += 2 * strlen(dirs->v[i]) + 1;
	w = list = xmalloc(len);
	for (size_t i = 0; i < dirs->n; i++) {
		if (i)
			*w++ = ',';
		for (const char *s = dirs->v[i]; *s; s++) {
			if (*s == ',')
				*w++ = '\\';
			*w++ = *s;
		}
	}
	*w = '\0';
	return list;
}

static void add_finstrument(struct strv *out, const struct wopts *o, const struct probe *p)
{
	struct strv dirs = { 0 };

	strv_push(out, "-finstrument-functions");
	if (p->family != CC_GCC) {
		/* clang has no -finstrument-functions-exclude-file-list */
		if (o->verbose && o->excludes.n)
			fprintf(stderr, "%s: not gcc: --exclude-path is ignored\n", ct_prog);
		return;
	}
	for (size_t i = 0; i < p->includes.n; i++)
		add_spellings(&dirs, p->includes.v[i]);
	for (size_t i = 0; i < o->excludes.n; i++)
		add_spellings(&dirs, o->excludes.v[i]);
	if (dirs.n)
		strv_push(out, xasprintf("-finstrument-functions-exclude-file-list=%s",
					 join_escaped(&dirs)));
}

/*
 * -pg at link time makes the driver link gprof's gcrt1.o, which writes
 * gmon.out at exit. In a one-step compile and link the compiler proper gets
 * -p directly instead, where the driver does not see it. gcc's driver also
 * refuses -pg with -fomit-frame-pointer, which -mfentry does not need. -Wp,
 * reaches the compiler proper only when it preprocesses too (not with
 * -save-temps): then plain -pg it is.
 */
static void add_profiling(struct strv *out, const struct cmdline *cl, enum cc_family family)
{
	bool one_step = cl->kind == CMD_COMPILE_LINK;

	if (family == CC_GCC && (one_step || cl->omit_fp) && !cl->separate_cpp) {
		strv_push(out, "-Wp,-p");
	} else if (family == CC_CLANG && one_step) {
		strv_push(out, "-Xclang");
		strv_push(out, "-pg");
	} else {
		strv_push(out, "-pg");
	}
}

/*
 * gcc's -mrecord-mcount lists the call sites by absolute address in a
 * read-only section: position-independent code would need text relocations
 * for it (ld: "creating DT_TEXTREL in a PIE"), and gcc refuses -mnop-mcount
 * there anyway. So PIC code keeps plain calls to __fentry__ (through the GOT,
 * for a preloaded runtime to interpose); other code gets recorded nops.
 * aarch64 has no -mfentry: there -pg alone, whose _mcount call after the
 * prologue the runtime serves (src/arch/aarch64/mcount.S).
 */
static void add_fentry(struct strv *out, const struct cmdline *cl, const struct probe *p)
{
	bool pic = cl->pic >= 0 ? cl->pic : p->pic;

	add_profiling(out, cl, p->family);
#if defined(__aarch64__)
	(void)pic;
#else
	strv_push(out, "-mfentry");
	/* clang 14 takes -mrecord-mcount and -mnop-mcount on SystemZ only */
	if (p->family == CC_GCC && !pic) {
		strv_push(out, "-mrecord-mcount");
		strv_push(out, "-mnop-mcount");
	}
#endif
}

/*
 * Nops at each entry for the call the runtime writes (src/arch/<arch>/patch.h):
 * 5 bytes on x86-64 (call rel32), two instructions on aarch64 ("mov x9, x30;
 * bl", as the Linux kernel's ftrace). The wrapper serves the compilers of the
 * machine it is built for.
 */
#if defined(__aarch64__)
#define CT_PATCHABLE_FLAG "-fpatchable-function-entry=2,0"
#else
#define CT_PATCHABLE_FLAG "-fpatchable-function-entry=5,0"
#endif

void add_flags(struct strv *out, const struct wopts *o, const struct cmdline *cl, const char *path,
	       const char *argv0)
{
	struct probe p = { .pic = true };

	if (o->method != CT_PATCHABLE)
		probe_cached(path, argv0, o->cxx || cl->cxx_input, &cl->pflags, o->verbose, &p);
	if (!cl->has_g)
		strv_push(out, "-g");
	switch (o->method) {
	case CT_FINSTRUMENT:
		add_finstrument(out, o, &p);
		break;
	case CT_FENTRY:
		add_fentry(out, cl, &p);
		break;
	case CT_PATCHABLE:
		/* room for the runtime's call at the entry, none before it */
		strv_push(out, CT_PATCHABLE_FLAG);
		break;
	}
}
