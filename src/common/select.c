/* SPDX-License-Identifier: MIT */
/*
 * What dynamic patching takes: the method record --method chose
 * (CALLTRACE_METHOD), and the -P patterns (CALLTRACE_PATTERNS, one per line).
 *
 *   parse_*          functions of the program matching the glob
 *   libfoo.so:*      functions of a library (its file name, with or without
 *                    the version after ".so")
 *   !pattern         not these
 *   malloc@*         library calls (record --libcalls takes them all):
 *   *@libz.so*       function glob @ library glob, the library's file name
 *
 * Without a pattern for the program, all its functions are taken, and so
 * are those of its own shared libraries (ct_select_own_library: not from
 * the system's library directories), which a program pattern covers too. Names
 * match as in every other filter: the symbol, or the short demangled name,
 * or any "::" suffix of it. Patching runs once per module, never on a call,
 * so it may use libc freely (the demangler allocates).
 */
#include <dlfcn.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "select.h"

#define CT_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define CT_MAX_PATTERNS 128

struct ct_pattern {
	const char *module; /* NULL: the program */
	const char *func;
	const char *lib; /* a library call pattern: func@lib */
	int exclude;
};

static struct ct_pattern ct_patterns[CT_MAX_PATTERNS];
static size_t ct_npatterns;
static char ct_pattern_text[8192];
static int ct_parsed, ct_method, ct_program_patterns;
static int ct_libcalls, ct_libcall_patterns, ct_libcall_any;

typedef char *(*ct_demangle_fn)(const char *, char *, size_t *, int *);

/* Modules whose functions the runtime itself, or the unwinder, relies on. */
static const char *const ct_never_libs[] = { "ld-linux*", "libc.so*",	   "libcalltrace*",
					     "libZydis*", "libZycore*",	   "libgcc_s*",
					     "libdl.so*", "libpthread.so*" };

/* Start-up code, and the cold halves of functions (jumped to, never called). */
static const char *const ct_never_funcs[] = {
	"_start",		 "_init",		  "_fini",
	"__libc_csu_init",	 "__libc_csu_fini",	  "deregister_tm_clones",
	"register_tm_clones",	 "__do_global_dtors_aux", "frame_dummy",
	"_dl_relocate_static_pie", "__stack_chk_fail_local",
	"call_weak_fn",		 "init_have_lse_atomics", /* aarch64's crt1.o, libgcc */
};
static const char *const ct_never_globs[] = { "__x86.get_pc_thunk.*", "*.cold", "*.cold.*" };

/*
 * Library functions that return twice, never return the usual way, switch
 * stacks or unwind them: a return address of ours in their caller's frame
 * would be read, copied or jumped over. The unwinder's and longjmp's are
 * followed by the runtime's wrappers instead (__cxa_begin_catch's cuts the
 * frames below the catching one: its own call among them; dlopen's searches
 * its caller's RUNPATH, found from its return address).
 */
/* clang-format off */
static const char *const ct_never_libcalls[] = {
	"setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", "savectx", "vfork",
	"clone", "clone3", "getcontext", "setcontext", "swapcontext", "makecontext",
	"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk",
	"__cxa_throw", "__cxa_rethrow", "__cxa_begin_catch", "_Unwind_Resume",
	"_Unwind_RaiseException", "_Unwind_Resume_or_Rethrow", "_Unwind_ForcedUnwind",
	"__libc_start_main", "__tls_get_addr", "__cxa_finalize", "__gmon_start__",
	"__cyg_profile_func_enter", "__cyg_profile_func_exit", "__fentry__", "mcount", "_mcount",
	"dlopen", "dlmopen",
};
/* clang-format on */

static int ct_never(const char *raw)
{
	for (size_t i = 0; i < CT_ARRAY_LEN(ct_never_funcs); i++)
		if (!strcmp(ct_never_funcs[i], raw))
			return 1;
	for (size_t i = 0; strchr(raw, '.') && i < CT_ARRAY_LEN(ct_never_globs); i++)
		if (!fnmatch(ct_never_globs[i], raw, 0))
			return 1;
	/* libgcc's outlined atomics (aarch64's -moutline-atomics), linked into each program */
	return !strncmp(raw, "__aarch64_", 10);
}

static void ct_parse(void)
{
	static const char *const methods[] = { "auto", "finstrument", "fentry", "patchable",
					       "patch" };
	const char *m = ct_getenv("CALLTRACE_METHOD");
	for (size_t i = 0; m && i < CT_ARRAY_LEN(methods); i++)
		if (!strcmp(m, methods[i]))
			ct_method = (int)i;
	const char *lc = ct_getenv("CALLTRACE_LIBCALLS");
	ct_libcalls = lc && *lc == '1';
	const char *env = ct_getenv("CALLTRACE_PATTERNS");
	if (env)
		strncpy(ct_pattern_text, env, sizeof(ct_pattern_text) - 1);
	for (char *line = ct_pattern_text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (!*line || ct_npatterns == CT_MAX_PATTERNS)
			continue;
		struct ct_pattern *p = &ct_patterns[ct_npatterns++];
		p->exclude = *line == '!';
		line += p->exclude;
		char *at = strrchr(line, '@');
		if (at) {
			*at = 0;
			p->func = *line ? line : "*";
			p->lib = at[1] ? at + 1 : "*";
			ct_libcall_patterns += !p->exclude;
			ct_libcall_any++;
			continue;
		}
		char *colon = strchr(line, ':');
		/* "ns::f" is a C++ name, not a module */
		if (colon && colon[1] != ':' && (colon == line || colon[-1] != ':')) {
			*colon = 0;
			p->module = line;
			p->func = colon + 1;
		} else {
			p->func = line;
			ct_program_patterns += !p->exclude;
		}
	}
	ct_parsed = 1;
}

int ct_select_method(void)
{
	if (!ct_parsed)
		ct_parse();
	return ct_method;
}

/* libfoo.so.1.2 matches "libfoo.so" as well as "libfoo.so.1.2". */
static int ct_module_matches(const char *pat, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!fnmatch(pat, base, 0))
		return 1;
	const char *so = strstr(base, ".so.");
	char unversioned[256];
	if (!so || (size_t)(so - base) + 3 >= sizeof(unversioned))
		return 0;
	memcpy(unversioned, base, (size_t)(so - base) + 3);
	unversioned[so - base + 3] = 0;
	return !fnmatch(pat, unversioned, 0);
}

int ct_select_never_library(const char *path)
{
	for (size_t i = 0; i < CT_ARRAY_LEN(ct_never_libs); i++)
		if (ct_module_matches(ct_never_libs[i], path))
			return 1;
	return 0;
}

/*
 * The system's library directories: /lib, /usr/lib, /lib64, /usr/lib32 ...
 * and everything under them (multiarch, plugins). What the loader finds
 * elsewhere (a build tree, /usr/local, $HOME, an LD_LIBRARY_PATH) is the
 * program's own.
 */
static int ct_system_library(const char *path)
{
	static const char *const dirs[] = { "/lib", "/usr/lib", "/lib64", "/usr/lib64",
					    "/lib32", "/usr/lib32", "/libx32", "/usr/libx32" };
	for (size_t i = 0; i < CT_ARRAY_LEN(dirs); i++) {
		size_t n = strlen(dirs[i]);
		if (!strncmp(path, dirs[i], n) && path[n] == '/')
			return 1;
	}
	return 0;
}

int ct_select_own_library(const char *path)
{
	return strchr(path, '/') && !ct_system_library(path) && !ct_select_never_library(path);
}

/* Some -P 'lib:func' pattern takes functions of this module. */
static int ct_module_named(const char *path)
{
	for (size_t i = 0; i < ct_npatterns; i++)
		if (ct_patterns[i].module && !ct_patterns[i].exclude &&
		    ct_module_matches(ct_patterns[i].module, path))
			return 1;
	return 0;
}

int ct_select_library(const char *path)
{
	if (!ct_parsed)
		ct_parse();
	if (ct_select_never_library(path))
		return 0;
	for (size_t i = 0; i < ct_npatterns; i++)
		if (ct_patterns[i].module && !ct_patterns[i].exclude &&
		    ct_module_matches(ct_patterns[i].module, path))
			return 1;
	return 0;
}

/* The name as users write it: raw, or the demangled short name. */
static int ct_name_matches(const char *pat, const char *raw, const char *shortname)
{
	return !fnmatch(pat, raw, 0) || (shortname && ct_glob_name(pat, shortname));
}

static ct_demangle_fn demangle;

/*
 * Outside dl_iterate_phdr, which holds a lock of the loader. Patterns match
 * demangled names: a C++ program that does not link libstdc++ (it uses
 * nothing of it) gets a private copy, for its demangler only.
 */
void ct_select_prepare(void)
{
	if (!ct_parsed)
		ct_parse();
	if (demangle || (!ct_npatterns && !ct_getenv("CALLTRACE_ARGSPEC")))
		return;
	demangle = (ct_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!demangle) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		demangle = h ? (ct_demangle_fn)dlsym(h, "__cxa_demangle") : NULL;
	}
}

static char *ct_short_of(const char *raw, char *buf, size_t len)
{
	if (raw[0] != '_' || raw[1] != 'Z')
		return NULL;
	int status = -1;
	char *d = demangle ? demangle(raw, NULL, NULL, &status) : NULL;
	if (!d || status) {
		free(d);
		return NULL;
	}
	size_t start, end;
	ct_short_name_span(d, &start, &end);
	if (end - start >= len)
		end = start + len - 1;
	memcpy(buf, d + start, end - start);
	buf[end - start] = 0;
	free(d);
	ct_drop_abi_tags(buf);
	return buf;
}

int ct_select_name(const char *pat, const char *raw)
{
	char buf[1024];
	if (!fnmatch(pat, raw, 0))
		return 1;
	const char *shortname = ct_short_of(raw, buf, sizeof(buf));
	return shortname && ct_glob_name(pat, shortname);
}

int ct_select_function(const char *path, int program, const char *raw)
{
	char buf[1024];
	const char *shortname = NULL;
	int demangled = 0, positive;

	if (!ct_parsed)
		ct_parse();
	/* the program's code, in a library, unless a pattern says what to take of it */
	program = program || (ct_select_own_library(path) && !ct_module_named(path));
	positive = program && !ct_program_patterns;
	if (ct_never(raw))
		return 0;
	for (size_t i = 0; i < ct_npatterns; i++) {
		const struct ct_pattern *p = &ct_patterns[i];
		if (p->lib)
			continue;
		if (p->module ? !ct_module_matches(p->module, path) : !program && !p->exclude)
			continue;
		if (p->exclude ? 0 : positive)
			continue; /* already taken: only exclusions matter now */
		if (!demangled) {
			shortname = ct_short_of(raw, buf, sizeof(buf));
			demangled = 1;
		}
		if (!ct_name_matches(p->func, raw, shortname))
			continue;
		if (p->exclude)
			return 0;
		positive = 1;
	}
	return positive;
}

int ct_select_libcalls(void)
{
	if (!ct_parsed)
		ct_parse();
	return ct_libcalls || ct_libcall_patterns;
}

/* Does some library call pattern name a library (not just "*")? Then lib() is worth its cost. */
static int ct_libs_named(void)
{
	for (size_t i = 0; i < ct_npatterns; i++)
		if (ct_patterns[i].lib && strcmp(ct_patterns[i].lib, "*"))
			return 1;
	return 0;
}

int ct_select_libcall(const char *raw, const char *(*lib)(void *ctx), void *ctx)
{
	char buf[1024];
	const char *shortname = NULL, *file = NULL;
	int positive = ct_libcalls && !ct_libcall_patterns;

	for (size_t i = 0; i < CT_ARRAY_LEN(ct_never_libcalls); i++)
		if (!strcmp(ct_never_libcalls[i], raw))
			return 0;
	if (!ct_libcall_any)
		return positive;
	shortname = ct_short_of(raw, buf, sizeof(buf));
	if (ct_libs_named())
		file = lib(ctx);
	for (size_t i = 0; i < ct_npatterns; i++) {
		const struct ct_pattern *p = &ct_patterns[i];
		if (!p->lib || (p->exclude ? 0 : positive))
			continue;
		if (!ct_name_matches(p->func, raw, shortname))
			continue;
		if (file && !ct_module_matches(p->lib, file) && strcmp(p->lib, "*"))
			continue;
		if (p->exclude)
			return 0;
		positive = 1;
	}
	return positive;
}
