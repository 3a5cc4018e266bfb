/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the whole reader path on an arbitrary file. The input
 * is written to a memfd and opened by its /proc/self/fd path, as the
 * commands open a trace (ct_trace_open); then every renderer runs on it with
 * its output to /dev/null: replay (timestamps, --srcline, and filtered),
 * report (text, --json, --csv --per-thread, --diff against itself), info
 * (and --skipped), dump, export (perfetto, chrome, folded), flame, and the
 * crash report of record. Each walks every thread through the call-tree
 * builder. The commands' own functions are called, not the commands: they
 * exit() when a trace does not open.
 *
 * Module and symbol files named by a trace are opened for real (symbol
 * tables of a trace without an END block, DWARF for --srcline and --no-std):
 * a trace that names a FIFO must not hang the readers.
 *
 * The structure-aware mutator is in mutator.c.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../src/analysis/walk.h"
#include "../../src/output/export.h"
#include "../../src/output/flame.h"
#include "../../src/output/output.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_fd = -1;
static char fuzz_path[64];
static FILE *fuzz_null;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_fd = memfd_create("fuzz-trace", MFD_CLOEXEC);
	fuzz_null = fopen("/dev/null", "w");
	if (fuzz_fd < 0 || !fuzz_null) {
		perror("fuzz_reader: setup");
		abort();
	}
	snprintf(fuzz_path, sizeof(fuzz_path), "/proc/self/fd/%d", fuzz_fd);
	/*
	 * The tool's messages about bad traces, thousands a second, to /dev/null
	 * (FUZZ_VERBOSE=1 keeps them): the sanitizers and libFuzzer write their
	 * reports on fd 2 by themselves.
	 */
	if (!getenv("FUZZ_VERBOSE"))
		stderr = fuzz_null;
	return 0;
}

static void fuzz_replay(struct ct_trace *t, struct ct_symbols *sym)
{
	char err[512];
	struct ct_filter none = { 0 };
	const char *only[] = { "main", NULL }, *hide[] = { "*@*", NULL };
	struct ct_filter some = { .only = only, .hide = hide, .max_depth = 6, .min_ns = 1,
				  .no_std = 1, .until_ns = 1e12 };
	struct ct_replay_opts plain = { 0 }, full = { .timestamps = 1, .srcline = 1 };

	struct ct_walk *w = ct_walk_new(t, sym, &none, err, sizeof(err));
	if (w) {
		ct_replay(t, sym, w, fuzz_null, &plain);
		ct_set_colors(1);
		ct_replay(t, sym, w, fuzz_null, &full);
		ct_set_colors(0);
		ct_walk_free(w);
	}
	w = ct_walk_new(t, sym, &some, err, sizeof(err));
	if (w) {
		ct_replay(t, sym, w, fuzz_null, &plain);
		ct_walk_free(w);
	}
}

static void fuzz_report(struct ct_trace *t, struct ct_symbols *sym, struct ct_walk *w)
{
	struct ct_report_opts text = { 0 }, json = { .json = 1, .sort = CT_SORT_NAME },
			      csv = { .csv = 1, .per_thread = 1, .sort = CT_SORT_SELF };

	ct_report(t, sym, w, fuzz_null, &text);
	ct_report(t, sym, w, fuzz_null, &json);
	ct_report(t, sym, w, fuzz_null, &csv);
	ct_report_diff(t, sym, w, t, sym, w, fuzz_null, &text);
}

static void fuzz_export(struct ct_trace *t, struct ct_symbols *sym, struct ct_walk *w)
{
	static const enum ct_export_format formats[] = { CT_EXPORT_PERFETTO, CT_EXPORT_CHROME,
							  CT_EXPORT_FOLDED };
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct ct_export_opts o = { .format = formats[i], .weight = CT_FOLD_TIME };
		int werr = 0;
		ct_export(t, sym, w, fuzz_null, &o, &werr);
	}
	struct ct_export_opts calls = { .format = CT_EXPORT_FOLDED, .weight = CT_FOLD_CALLS };
	int werr = 0;
	ct_export(t, sym, w, fuzz_null, &calls, &werr);
}

static void fuzz_flame(struct ct_trace *t, struct ct_symbols *sym, struct ct_walk *w)
{
	for (int per_thread = 0; per_thread < 2; per_thread++) {
		struct ct_flame_opts o = { .per_thread = per_thread };
		int rc = 0;
		struct ct_flame *fl = ct_flame_build(t, sym, w, &o, &rc);
		if (fl) {
			ct_flame_write(fl, fuzz_null);
			ct_flame_free(fl);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024];

	if (ftruncate(fuzz_fd, 0) < 0 || pwrite(fuzz_fd, data, size, 0) != (ssize_t)size)
		abort();
	struct ct_trace *t = ct_trace_open(fuzz_path, err, sizeof(err));
	if (!t)
		return 0;

	struct ct_symbols *sym = ct_symbols_open(t, 1);
	ct_info(t, sym, fuzz_null);
	ct_info_skipped(t, fuzz_null);
	ct_dump(t, sym, fuzz_null);
	fuzz_replay(t, sym);

	struct ct_filter none = { 0 };
	struct ct_walk *w = ct_walk_new(t, sym, &none, err, sizeof(err));
	if (w) {
		fuzz_report(t, sym, w);
		fuzz_export(t, sym, w);
		fuzz_flame(t, sym, w);
		ct_walk_free(w);
	}
	ct_symbols_close(sym);
	ct_trace_close(t);

	/* what record prints when a thread died: the trace read once more, its own way */
	ct_print_crashes(fuzz_path, fuzz_null);
	return 0;
}
