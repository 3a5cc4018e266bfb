// SPDX-License-Identifier: MIT
/*
 * The wrapper's own options. Each has an environment variable as well, because
 * `CC=calltrace-cc make`, CMake and configure users cannot easily change the
 * command lines their build system writes. Options win over the environment;
 * exclude paths add up. Our options are removed wherever they appear so the
 * compiler never sees them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wrapper.h"

static void usage(void)
{
	printf("Usage: %s [WRAPPER-OPTIONS] COMPILER-ARGS...\n"
	       "\n"
	       "Runs the real compiler with COMPILER-ARGS and the flags that make the code\n"
	       "traceable by `calltrace record`. Use it as the compiler of any build:\n"
	       "  make CC=calltrace-cc CXX=calltrace-c++\n"
	       "  cmake -DCMAKE_C_COMPILER=calltrace-cc -DCMAKE_CXX_COMPILER=calltrace-c++ ..\n"
	       "  ./configure CC=calltrace-cc CXX=calltrace-c++\n"
	       "\n"
	       "Wrapper options (never passed to the compiler):\n"
	       "  --method=METHOD      patchable (default), fentry or finstrument\n"
	       "  --exclude-path=DIR   do not instrument functions defined in files whose path\n"
	       "                       contains DIR (repeatable; finstrument with gcc only)\n"
	       "  --calltrace-verbose  print the compiler's command line on stderr\n"
	       "  --help               this text\n"
	       "\n"
	       "Environment:\n"
	       "  CALLTRACE_CC          the C compiler (default gcc)\n"
	       "  CALLTRACE_CXX         the C++ compiler (default: g++ or clang++ matching\n"
	       "                        CALLTRACE_CC, e.g. clang-14 -> clang++-14; else g++)\n"
	       "  CALLTRACE_METHOD      as --method\n"
	       "  CALLTRACE_EXCLUDE_PATH  colon-separated directories, as --exclude-path\n"
	       "  CALLTRACE_CC_VERBOSE  1: as --calltrace-verbose\n"
	       "  XDG_CACHE_HOME        the compiler's include directories are cached in\n"
	       "                        ${XDG_CACHE_HOME:-$HOME/.cache}/calltrace/\n"
	       "\n"
	       "Added when compiling (-c, -S, or compile and link in one step): -g unless a\n"
	       "-g option is given (-g0 is respected), and per method:\n"
	       "  patchable    -fpatchable-function-entry=5,0 (5 bytes of nops at entry):\n"
	       "               only real functions' entries, inlined code untouched; free\n"
	       "               when not traced (the nops), patched by `calltrace record`;\n"
	       "               the C++ standard library's functions are left unpatched\n"
	       "  finstrument  -finstrument-functions: inlined functions are traced too\n"
	       "               (slower untraced, many more events); with gcc also\n"
	       "               -finstrument-functions-exclude-file-list= with the compiler's\n"
	       "               system include directories and the --exclude-path ones, so\n"
	       "               the C++ standard library is not traced. clang has no such\n"
	       "               option: with clang, functions defined in headers (std::...)\n"
	       "               are traced too and --exclude-path is ignored; hide them when\n"
	       "               reading with `calltrace report --no-std`.\n"
	       "  fentry       -pg -mfentry; with gcc, for code that is not position-\n"
	       "               independent, also -mrecord-mcount -mnop-mcount (nops listed in\n"
	       "               __mcount_loc; gcc refuses them with -fPIC/-fPIE, where the\n"
	       "               code calls __fentry__). When compiling and linking in one\n"
	       "               step the compiler proper gets -p instead of -pg (gcc: -Wp,-p;\n"
	       "               clang: -Xclang -pg), so gprof's gcrt1.o is not linked and no\n"
	       "               gmon.out is written. On aarch64 (no -mfentry there): -pg\n"
	       "               alone, the runtime's _mcount runs after each prologue.\n"
	       "Nothing is added to links, preprocessing (-E, -M, -MM) or queries (--version,\n"
	       "-v, -dumpversion, -dumpmachine, -print-*), nor to assembler-only commands.\n",
	       ct_prog);
}

static void bad_method(const char *value, const char *from)
{
	fprintf(stderr, "%s: unknown %s '%s' (use patchable, fentry or finstrument)\n", ct_prog,
		from, value);
	exit(2);
}

static enum ct_method method_of(const char *value, const char *from)
{
	if (!strcmp(value, "finstrument"))
		return CT_FINSTRUMENT;
	if (!strcmp(value, "fentry"))
		return CT_FENTRY;
	if (!strcmp(value, "patchable"))
		return CT_PATCHABLE;
	bad_method(value, from);
	return CT_PATCHABLE;
}

static void split_path_list(const char *list, struct strv *out)
{
	char *copy = xstrdup(list), *save = NULL;

	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
		strv_push(out, dir);
}

static void from_env(struct wopts *o)
{
	const char *s;

	s = getenv("CALLTRACE_EXCLUDE_PATH");
	if (s && *s)
		split_path_list(s, &o->excludes);
	s = getenv("CALLTRACE_CC_VERBOSE");
	o->verbose = s && *s && strcmp(s, "0");
}

/* "--name=VALUE" or "--name VALUE": the value, moving *i past it; NULL if not ours. */
static const char *option_value(char **argv, int argc, int *i, const char *name)
{
	size_t len = strlen(name);
	const char *a = argv[*i];

	if (strncmp(a, name, len))
		return NULL;
	if (a[len] == '=')
		return a + len + 1;
	if (a[len])
		return NULL;
	if (*i + 1 >= argc) {
		fprintf(stderr, "%s: %s needs a value\n", ct_prog, name);
		exit(2);
	}
	return argv[++*i];
}

/*
 * Options of the compiler that take the next argument as their value: that
 * argument is not one of ours even if it looks like it (-Xlinker --help).
 */
static bool takes_next(const char *a)
{
	static const char *const opts[] = {
		"-o",  "-x",  "-Xlinker", "-Xassembler", "-Xpreprocessor", "-Xclang", "-mllvm",
		"-MF", "-MT", "-MQ",	  "-include",	 "-imacros",	   NULL,
	};

	for (int i = 0; opts[i]; i++)
		if (!strcmp(a, opts[i]))
			return true;
	return false;
}

/* Our option at argv[*i] (moving *i past its value): true; else false. */
static bool wrapper_option(char **argv, int argc, int *i, struct wopts *o, const char **method)
{
	const char *v;

	if ((v = option_value(argv, argc, i, "--method"))) {
		*method = v;
	} else if ((v = option_value(argv, argc, i, "--exclude-path"))) {
		strv_push(&o->excludes, v);
	} else if (!strcmp(argv[*i], "--calltrace-verbose")) {
		o->verbose = true;
	} else if (!strcmp(argv[*i], "--help")) {
		usage();
		exit(0);
	} else {
		return false;
	}
	return true;
}

void parse_options(int argc, char **argv, struct wopts *o)
{
	const char *method = NULL, *env = getenv("CALLTRACE_METHOD");

	memset(o, 0, sizeof(*o));
	/* only real entries, nops until traced: inlined code stays as fast as without us */
	o->method = CT_PATCHABLE;
	from_env(o);
	for (int i = 1; i < argc; i++) {
		if (takes_next(argv[i]) && i + 1 < argc) {
			strv_push(&o->cc_args, argv[i]);
			strv_push(&o->cc_args, argv[++i]);
		} else if (!wrapper_option(argv, argc, &i, o, &method)) {
			strv_push(&o->cc_args, argv[i]);
		}
	}
	/* the last --method wins, and a bad CALLTRACE_METHOD matters only without one */
	if (method)
		o->method = method_of(method, "--method");
	else if (env && *env)
		o->method = method_of(env, "CALLTRACE_METHOD");
}
