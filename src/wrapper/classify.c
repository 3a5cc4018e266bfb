// SPDX-License-Identifier: MIT
/*
 * What does this compiler command do? Flags are added only when it compiles
 * C or C++: a link of objects, a preprocessor run (autoconf's $CPP is
 * `$CC -E`) or a query that CMake and configure parse (--version, -v,
 * -dumpmachine, -print-*) must stay exactly what the plain compiler does.
 */
#include <string.h>

#include "wrapper.h"

enum input { IN_LINK, IN_C, IN_CXX, IN_ASM };

struct scan {
	const char *lang; /* the -x language in force, NULL: by file name */
	bool c_or_s, preprocess, query;
	int n_src, n_asm;
	struct cmdline *cl;
};

static enum input by_language(const char *lang)
{
	if (has_prefix(lang, "c++") || has_prefix(lang, "objective-c++"))
		return IN_CXX;
	if (has_prefix(lang, "assembler"))
		return IN_ASM;
	return IN_C;
}

/* gcc's own table of suffixes; anything else goes to the linker. */
static enum input by_suffix(const char *file)
{
	static const char *const c[] = { "c", "i", "h", "m", "mi", NULL };
	static const char *const cxx[] = { "cc",  "cp",	 "cxx", "cpp", "CPP", "c++",  "C",
					   "ii",  "hh",	 "H",	"hp",  "hxx", "hpp",  "HPP",
					   "h++", "tcc", "mm",	"M",   "mii", "cppm", NULL };
	static const char *const as[] = { "s", "S", "sx", NULL };
	const char *dot = strrchr(file, '.');

	if (!dot || strchr(dot, '/'))
		return IN_LINK;
	for (int i = 0; c[i]; i++)
		if (!strcmp(dot + 1, c[i]))
			return IN_C;
	for (int i = 0; cxx[i]; i++)
		if (!strcmp(dot + 1, cxx[i]))
			return IN_CXX;
	for (int i = 0; as[i]; i++)
		if (!strcmp(dot + 1, as[i]))
			return IN_ASM;
	return IN_LINK;
}

static void input(struct scan *s, const char *file)
{
	enum input in;

	if (s->lang && strcmp(s->lang, "none"))
		in = by_language(s->lang);
	else
		in = strcmp(file, "-") ? by_suffix(file) : IN_LINK;
	if (in == IN_LINK)
		return;
	s->n_src++;
	if (in == IN_ASM)
		s->n_asm++;
	if (in == IN_CXX)
		s->cl->cxx_input = true;
}

/* Options whose value is the next argument (gcc's and clang's). */
static bool takes_value(const char *a)
{
	static const char *const opts[] = {
		"-o",
		"-x",
		"-I",
		"-D",
		"-U",
		"-L",
		"-l",
		"-u",
		"-T",
		"-e",
		"-B",
		"-z",
		"-include",
		"-imacros",
		"-isystem",
		"-idirafter",
		"-iprefix",
		"-iwithprefix",
		"-iwithprefixbefore",
		"-isysroot",
		"-iquote",
		"-imultilib",
		"-iframework",
		"-include-pch",
		"-ivfsoverlay",
		"-MF",
		"-MT",
		"-MQ",
		"-MJ",
		"-Xlinker",
		"-Xassembler",
		"-Xpreprocessor",
		"-Xclang",
		"-Xanalyzer",
		"-mllvm",
		"-aux-info",
		"--param",
		"-target",
		"-arch",
		"-dumpbase",
		"-dumpbase-ext",
		"-dumpdir",
		"-wrapper",
		"--sysroot",
		"-resource-dir",
		"-working-directory",
		"-gcc-toolchain",
		NULL,
	};

	for (int i = 0; opts[i]; i++)
		if (!strcmp(a, opts[i]))
			return true;
	return false;
}

/* Options that change which system include directories the compiler uses. */
static bool include_option(const char *a)
{
	return has_prefix(a, "--sysroot") || has_prefix(a, "-isysroot") || !strcmp(a, "-m32") ||
	       !strcmp(a, "-m64") || !strcmp(a, "-mx32") || has_prefix(a, "-nostdinc") ||
	       has_prefix(a, "-stdlib=") || has_prefix(a, "--target") || !strcmp(a, "-target") ||
	       has_prefix(a, "--gcc-toolchain") || !strcmp(a, "-gcc-toolchain") ||
	       has_prefix(a, "-B");
}

/* -g options that modify debug info without choosing whether there is any. */
static bool g_modifier(const char *a)
{
	static const char *const mods[] = {
		"-gz",
		"-gsplit-dwarf",
		"-gno-",
		"-gcolumn-info",
		"-gstrict-dwarf",
		"-gpubnames",
		"-ggnu-pubnames",
		"-grecord-gcc-switches",
		"-gdescribe-dies",
		"-ginline-points",
		"-gstatement-frontiers",
		"-gvariable-location-views",
		"-gas-loc",
		"-ginternal-reset-location-views",
		"-gembed-source",
		"-gdwarf32",
		"-gdwarf64",
		NULL,
	};

	for (int i = 0; mods[i]; i++)
		if (has_prefix(a, mods[i]))
			return true;
	return false;
}

static bool is_query(const char *a)
{
	return !strcmp(a, "--version") || !strcmp(a, "-v") || !strcmp(a, "-dumpversion") ||
	       !strcmp(a, "-dumpfullversion") || !strcmp(a, "-dumpmachine") ||
	       !strcmp(a, "-dumpspecs") || has_prefix(a, "-print-") || has_prefix(a, "--print-") ||
	       !strcmp(a, "--target-help");
}

static int pic_option(const char *a)
{
	if (!strcmp(a, "-fpic") || !strcmp(a, "-fPIC") || !strcmp(a, "-fpie") ||
	    !strcmp(a, "-fPIE"))
		return 1;
	if (!strcmp(a, "-fno-pic") || !strcmp(a, "-fno-PIC") || !strcmp(a, "-fno-pie") ||
	    !strcmp(a, "-fno-PIE"))
		return 0;
	return -1;
}

static void option(struct scan *s, const char *a)
{
	struct cmdline *cl = s->cl;

	if (!strcmp(a, "-c") || !strcmp(a, "-S"))
		s->c_or_s = true;
	else if (!strcmp(a, "-E") || !strcmp(a, "-M") || !strcmp(a, "-MM"))
		s->preprocess = true;
	else if (is_query(a))
		s->query = true;
	else if (has_prefix(a, "-x"))
		s->lang = a + 2;
	else if (has_prefix(a, "-g") && !g_modifier(a))
		cl->has_g = true;
	else if (pic_option(a) >= 0)
		cl->pic = pic_option(a);
	else if (!strcmp(a, "-fomit-frame-pointer"))
		cl->omit_fp = true;
	else if (!strcmp(a, "-fno-omit-frame-pointer"))
		cl->omit_fp = false;
	else if (has_prefix(a, "-save-temps") || !strcmp(a, "-no-integrated-cpp") ||
		 !strcmp(a, "-traditional-cpp"))
		cl->separate_cpp = true;
	if (include_option(a))
		strv_push(&cl->pflags, a);
}

static void scan_args(struct scan *s, char **v, size_t n, int depth)
{
	for (size_t i = 0; i < n; i++) {
		const char *a = v[i];
		struct strv more = { 0 };

		if (a[0] == '@' && a[1] && depth < 8 && read_rspfile(a + 1, &more)) {
			scan_args(s, more.v, more.n, depth + 1);
		} else if (a[0] != '-' || !strcmp(a, "-")) {
			input(s, a);
		} else if (takes_value(a) && i + 1 < n) {
			if (!strcmp(a, "-x"))
				s->lang = v[i + 1];
			if (include_option(a)) {
				strv_push(&s->cl->pflags, a);
				strv_push(&s->cl->pflags, v[i + 1]);
			}
			i++;
		} else {
			option(s, a);
		}
	}
}

void classify(const struct strv *args, struct cmdline *cl)
{
	struct scan s = { .cl = cl };

	memset(cl, 0, sizeof(*cl));
	cl->pic = -1;
	scan_args(&s, args->v, args->n, 0);
	if (s.query || s.preprocess)
		cl->kind = CMD_PASS;
	else if (s.n_src == 0)
		cl->kind = s.c_or_s ? CMD_PASS : CMD_LINK;
	else if (s.n_src == s.n_asm)
		cl->kind = CMD_PASS; /* assembler only: clang warns of unused flags */
	else
		cl->kind = s.c_or_s ? CMD_COMPILE : CMD_COMPILE_LINK;
}
