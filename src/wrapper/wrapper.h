/* SPDX-License-Identifier: MIT */
/*
 * calltrace-cc / calltrace-c++: run the real compiler with the flags that
 * make a build traceable by calltrace. One program; the name it is run by
 * (ending in "++" or not) picks the C or C++ compiler.
 */
#ifndef CT_WRAPPER_H
#define CT_WRAPPER_H

#include <stdbool.h>
#include <stddef.h>

/* A growable, NULL-terminated vector of strings, ready for execv(). */
struct strv {
	char **v;
	size_t n, cap;
};

enum ct_method { CT_FINSTRUMENT, CT_FENTRY, CT_PATCHABLE };

enum cc_family { CC_OTHER, CC_GCC, CC_CLANG };

/* What a command line does, which decides what is added to it. */
enum cmd_kind {
	CMD_PASS,	  /* queries, preprocessing, nothing to compile: untouched */
	CMD_LINK,	  /* objects and libraries only: untouched */
	CMD_COMPILE,	  /* -c or -S */
	CMD_COMPILE_LINK, /* sources compiled and linked in one step */
};

/* The wrapper's own options, taken out of the command line. */
struct wopts {
	enum ct_method method;
	struct strv excludes; /* --exclude-path and CALLTRACE_EXCLUDE_PATH */
	bool verbose;
	bool cxx;	     /* run as calltrace-c++ */
	struct strv cc_args; /* the compiler's arguments, without ours */
};

/* What classify() learnt from the compiler's arguments. */
struct cmdline {
	enum cmd_kind kind;
	bool has_g;	    /* the user chose a debug level (-g, -g0, -ggdb3, ...) */
	bool cxx_input;	    /* some input is C++ */
	int pic;	    /* last -f[no-]pic/pie option: 1, 0, or -1 for none */
	bool omit_fp;	    /* -fomit-frame-pointer given */
	bool separate_cpp;  /* -save-temps, -no-integrated-cpp, -traditional-cpp */
	struct strv pflags; /* options that change the system include directories */
};

/* What the compiler says about itself (probe.c), cached (cache.c). */
struct probe {
	enum cc_family family;
	bool pic;	      /* position-independent code by default */
	struct strv includes; /* the "#include <...>" search list */
};

/* "calltrace-cc" or "calltrace-c++", for messages. */
extern const char *ct_prog;

/* strv.c */
void *xmalloc(size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void strv_push(struct strv *sv, const char *s);
void strv_append(struct strv *sv, const struct strv *more);
bool strv_has(const struct strv *sv, const char *s);
void strv_print(const struct strv *sv, const char *prefix);
bool has_prefix(const char *s, const char *prefix);
char *read_text(const char *path);

/* options.c */
void parse_options(int argc, char **argv, struct wopts *o);

/* rspfile.c */
bool read_rspfile(const char *path, struct strv *out);

/* classify.c */
void classify(const struct strv *args, struct cmdline *cl);

/* compiler.c */
const char *compiler_name(bool cxx);
char *find_program(const char *name, int *err, bool *masked);
bool is_self(const char *path);

/* probe.c */
bool probe_run(const char *path, const char *argv0, bool cxx, const struct strv *pflags,
	       struct probe *p);

/* cache.c */
void probe_cached(const char *path, const char *argv0, bool cxx, const struct strv *pflags,
		  bool verbose, struct probe *p);

/* flags.c */
void add_flags(struct strv *out, const struct wopts *o, const struct cmdline *cl, const char *path,
	       const char *argv0);

#endif
