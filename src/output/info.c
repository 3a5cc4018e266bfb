/* SPDX-License-Identifier: MIT */
/* calltrace info: what a trace holds, without decoding its events. */
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "output.h"
#include "../analysis/protomap.h"

/* What calls captured (record -a, -A, -R, --srcline). */
static void ct_info_captures(FILE *out, const struct ct_trace *t)
{
	const char *captures = ct_trace_meta(t, "captures"), *why = ct_args_unavailable(t);
	if (!captures)
		return;
	if (strstr(captures, "args")) {
		struct ct_protomap *m = ct_protomap_open(t);
		fprintf(out, "arguments:  ");
		if (why)
			fprintf(out, "not available with %s (its hooks cannot see them): build "
				     "with -pg -mfentry, -fpatchable-function-entry=5, or plainly "
				     "to have it patched\n", why);
		else
			fprintf(out, "captured for %zu functions (prototypes from DWARF, specs "
				     "and the C library's)\n", ct_protomap_count(m));
		ct_protomap_free(m);
	}
	if (strstr(captures, "callsites"))
		fprintf(out, "call sites: kept for every call (replay --srcline)\n");
}

/*
 * Libraries the patched program used that were left as they are (the
 * system's), with the -P pattern that would take each: "path\tcount" lines.
 */
static void ct_info_unpatched(FILE *out, const struct ct_trace *t)
{
	const char *list = ct_trace_meta(t, "unpatched_modules");
	for (const char *line = list; line && *line;) {
		const char *tab = strchr(line, '\t'), *nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line);
		if (tab && tab < nl) {
			const char *base = line;
			for (const char *c = line; c < tab; c++)
				if (*c == '/')
					base = c + 1;
			const char *so = strstr(base, ".so");
			int stem = (int)((so && so < tab ? so : tab) - base);
			char n[32];
			ct_fmt_count(n, sizeof(n), strtoull(tab + 1, NULL, 10));
			fprintf(out, "unpatched:  %.*s (%s functions): -P '%.*s*:*' would trace it\n",
				(int)(tab - base), base, n, stem, base);
		}
		line = *nl ? nl + 1 : nl;
	}
}

/*
 * "patch plans: 3 modules from the cache, 1 planned and cached": where the
 * patch method's plans came from (a module counted once per process that
 * patched it); "planned, not cached" without a cache (--no-cache).
 */
static void ct_info_plans(FILE *out, const struct ct_trace *t)
{
	const char *what[][2] = { { "plans_cached", "from the cache" },
				  { "plans_saved", "planned and cached" },
				  { "plans_unsaved", "planned, not cached" } };
	const char *sep = "patch plans: ";
	for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		const char *v = ct_trace_meta(t, what[i][0]);
		uint64_t n = v ? strtoull(v, NULL, 10) : 0;
		char num[32];
		if (!n)
			continue;
		ct_fmt_count(num, sizeof(num), n);
		fprintf(out, "%s%s module%s %s", sep, num, n == 1 ? "" : "s", what[i][1]);
		sep = ", ";
	}
	if (*sep == ',')
		fputc('\n', out);
}

static uint64_t ct_meta_count(const struct ct_trace *t, const char *key)
{
	const char *v = ct_trace_meta(t, key);
	return v ? strtoull(v, NULL, 10) : 0;
}

/*
 * The ptrace method's breakpoints: "breakpoints: 212 set, each with an
 * out-of-line copy", or how many had none and how often a thread was stepped
 * over one in place (the breakpoint lifted: other threads may pass unseen).
 */
static void ct_info_breakpoints(FILE *out, const struct ct_trace *t)
{
	uint64_t set = ct_meta_count(t, "breakpoints");
	uint64_t in_place = ct_meta_count(t, "breakpoints_in_place");
	uint64_t stepped = ct_meta_count(t, "breakpoints_stepped");
	char a[32], b[32], c[32];
	if (!ct_trace_meta(t, "breakpoints"))
		return;
	ct_fmt_count(a, sizeof(a), set);
	ct_fmt_count(b, sizeof(b), in_place);
	ct_fmt_count(c, sizeof(c), stepped);
	if (!in_place && !stepped)
		fprintf(out, "breakpoints: %s set, each with an out-of-line copy\n", a);
	else
		fprintf(out, "breakpoints: %s set, %s without an out-of-line copy: stepped over in "
			     "place %s time%s\n", a, b, c, stepped == 1 ? "" : "s");
}

static void ct_info_time(FILE *out, const struct ct_trace *t)
{
	char when[64] = "?", dur[32] = "?";
	time_t secs = (time_t)(t->clock_first.realtime_ns / 1000000000u);
	struct tm tm;

	if (t->nclocks && localtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm);
	if (t->nclocks >= 2)
		ct_fmt_duration(dur, sizeof(dur),
				(double)(t->clock_last.monotonic_ns - t->clock_first.monotonic_ns));
	fprintf(out, "recorded:   %s, for %s\n", when,
		t->nclocks >= 2 ? dur + strspn(dur, " ") : "?");
}

static void ct_info_args(FILE *out, const struct ct_process_info *p)
{
	char line[CT_CMDLINE_SHOWN + 64];
	ct_cmdline_text(p->args, p->rec.args_len, line, sizeof(line));
	fputs(line, out);
}

/* Is this image one that recorded no call (META quiet_instances, "1,5,7")? */
static int ct_info_quiet(const char *quiet, uint32_t instance)
{
	for (const char *q = quiet; q && *q; q += strcspn(q, ","), q += *q == ',')
		if (strtoul(q, NULL, 10) == instance)
			return 1;
	return 0;
}

int ct_instance_quiet(const struct ct_trace *t, uint32_t instance)
{
	return ct_info_quiet(ct_trace_meta(t, "quiet_instances"), instance);
}

/*
 * "processes:  652 (3 traced, 649 ran no traced code)": the processes that
 * only ran untraced code (a shell, the compilers make runs) are counted, not
 * listed; so are the images of a traced process that recorded no call.
 */
static void ct_info_processes(FILE *out, const struct ct_trace *t)
{
	char n[32], traced[32], quiet_n[32];
	const char *total = ct_trace_meta(t, "processes");
	const char *ntraced = ct_trace_meta(t, "processes_traced");
	const char *quiet = ct_trace_meta(t, "quiet_instances");
	if (total && ntraced) {
		uint64_t all = strtoull(total, NULL, 10), tr = strtoull(ntraced, NULL, 10);
		ct_fmt_count(n, sizeof(n), all);
		ct_fmt_count(traced, sizeof(traced), tr);
		ct_fmt_count(quiet_n, sizeof(quiet_n), all > tr ? all - tr : 0);
		fprintf(out, "processes:  %s (%s traced, %s ran no traced code", n, traced, quiet_n);
		const char *unnamed = ct_trace_meta(t, "processes_unnamed");
		if (unnamed) { /* more started at once than the recorder's pass could read */
			char u[32];
			ct_fmt_count(u, sizeof(u), strtoull(unnamed, NULL, 10));
			fprintf(out, "; %s images started too fast to be identified by pid", u);
		}
		fputs(")\n", out);
	} else {
		fprintf(out, "processes:  %zu\n", t->nprocs);
	}
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct ct_process_info *p = &t->procs[i];
		if (ct_info_quiet(quiet, p->rec.instance))
			continue;
		fprintf(out, "  pid %-7d %u thread%s  ", p->rec.pid, p->nthreads,
			p->nthreads == 1 ? " " : "s");
		ct_info_args(out, p);
		char origin[128];
		ct_process_origin(t, p, origin, sizeof(origin));
		if (origin[0])
			fprintf(out, "  (%s)", origin);
		fputc('\n', out);
	}
	for (size_t i = 0; i < t->nuntraced; i++) {
		char line[4400];
		ct_untraced_line(&t->untraced[i], line, sizeof(line));
		fprintf(out, "untraced:   %s\n", line);
	}
	size_t shown = 0;
	for (size_t i = 0; i < t->nthreads; i++)
		shown += !ct_info_quiet(quiet, t->threads[i].instance);
	fprintf(out, "threads:    %zu\n", shown);
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct ct_thread_info *th = &t->threads[i];
		if (ct_info_quiet(quiet, th->instance))
			continue;
		ct_fmt_count(n, sizeof(n), th->nrecords);
		const char *name = ct_trace_thread_name(t, th);
		fprintf(out, "  tid %-7d pid %-7d %s records", th->tid, th->pid, n);
		if (name)
			fprintf(out, ", \"%s\"", name);
		if (th->snapshot)
			fprintf(out, " in snapshot %u", th->snapshot);
		if (th->lost) {
			ct_fmt_count(n, sizeof(n), th->lost);
			fprintf(out, ", %s lost", n);
		}
		fprintf(out, "%s\n", th->flags & CT_EVENTS_SALVAGED ? " (some salvaged)" : "");
	}
}

static void ct_info_modules(FILE *out, const struct ct_trace *t)
{
	uint64_t cached = ct_meta_count(t, "symtabs_cached");
	fprintf(out, "modules:    %zu with symbols", t->nsymtabs);
	if (cached) /* record's symbol table cache (src/record/symcache.c) */
		fprintf(out, " (%llu from the cache)", (unsigned long long)cached);
	fputc('\n', out);
	for (size_t i = 0; i < t->nsymtabs; i++) {
		const struct ct_buf *b = &t->symtabs[i];
		struct ct_symtab_hdr h;
		if (b->len < sizeof(h))
			continue;
		memcpy(&h, b->data, sizeof(h));
		fprintf(out, "  %s  ", (const char *)b->data + sizeof(h));
		for (int k = 0; k < h.build_id_len && k < 32; k++)
			fprintf(out, "%02x", h.build_id[k]);
		fprintf(out, "%s  %u functions\n", h.build_id_len ? "" : "(no build-id)", h.nsyms);
	}
}

static void ct_info_crashes(FILE *out, const struct ct_trace *t, struct ct_symbols *sym)
{
	for (size_t i = 0; i < t->ncrashes; i++) {
		const struct ct_crash_rec *c = &t->crashes[i];
		char where[512];
		ct_symbols_describe(sym, c->instance, c->pc, c->clock, where, sizeof(where));
		char line[256];
		fprintf(out, "crashed:    thread %d (pid %d) of %s at %s", c->tid, c->pid,
			ct_signal_name(c->signo), where);
		if (ct_symbols_srcline(sym, c->instance, c->pc, c->clock, line, sizeof(line)))
			fprintf(out, " (%s)", line);
		if (c->signo == SIGSEGV || c->signo == SIGBUS)
			fprintf(out, ", address 0x%llx", (unsigned long long)c->addr);
		fputc('\n', out);
	}
}

/* Lost events, and why: every chunk held (past the cap), or --lossy; then the buffer's use. */
static void ct_info_lost(FILE *out, const struct ct_trace *t)
{
	const char *mode = ct_trace_meta(t, "mode");
	char n[32], cap[32], used[32];

	ct_fmt_count(n, sizeof(n), t->end.lost);
	ct_fmt_size(cap, sizeof(cap), t->end.pool_cap);
	fprintf(out, "lost:       %s events", n);
	if (t->nuntraced)
		fprintf(out, "%s (incomplete: %zu process%s ran untraced or stopped being traced)",
			t->end.lost ? ";" : "", t->nuntraced, t->nuntraced == 1 ? "" : "es");
	if (!t->end.lost && !t->nuntraced)
		fprintf(out, " (complete)");
	else if (t->end.starved)
		fprintf(out, " (buffer full: threads held all of its %s while others waited; "
			     "raise --buffer-size)", cap);
	else if (mode && !strcmp(mode, "lossy"))
		fprintf(out, " (--lossy: dropped while the buffer was full)");
	fputc('\n', out);
	if (t->end.pool_cap) {
		ct_fmt_size(used, sizeof(used), t->end.pool_used);
		fprintf(out, "buffer:     %s of shared memory used; chunks up to %s (--buffer-size)\n",
			used, cap);
	}
}

/* record --kernel: what the trace holds of the kernel's side, and what the kernel dropped. */
static void ct_info_kernel(FILE *out, const struct ct_trace *t)
{
	uint64_t calls = 0, offcpu = 0;
	char a[32], b[32], c[32];
	if (!ct_trace_meta(t, "kernel") && !t->nkrecs)
		return;
	for (size_t i = 0; i < t->nkrecs; i++) {
		if (t->krecs[i].kind == CT_KREC_SYSCALL)
			calls++;
		else
			offcpu++;
	}
	ct_fmt_count(a, sizeof(a), calls);
	ct_fmt_count(b, sizeof(b), offcpu);
	fprintf(out, "kernel:     %s system calls, %s off-CPU intervals (record --kernel)", a, b);
	if (t->nkargs) { /* what pointers pointed to, read while their calls were in progress */
		ct_fmt_count(c, sizeof(c), t->nkargs);
		fprintf(out, "; %s pointer arguments read", c);
	}
	if (t->klost) {
		ct_fmt_count(c, sizeof(c), t->klost);
		fprintf(out, "; %s kernel events lost (its ring buffers were full)", c);
	}
	fputc('\n', out);
}

/*
 * attach: the process did not start or (mostly) end with the recording: it
 * was left running, or it ended while attached. Older calltraces wrote the
 * tracer's status here: not the process's, so not shown.
 */
static void ct_info_attach_exit(FILE *out, const struct ct_trace *t)
{
	int st = t->end.exit_status;
	uint32_t f = t->end.flags;

	if (!(f & CT_END_ATTACHED))
		fprintf(out, "exit:       not known (an older calltrace's attach)\n");
	else if (f & CT_END_DETACHED)
		fprintf(out, "exit:       detached; still running\n");
	else if (f & CT_END_NO_STATUS)
		fprintf(out, "exit:       ended while attached; how, not known\n");
	else if ((st & 0x7f) == 0)
		fprintf(out, "exit:       exited with status %d while attached\n",
			(st >> 8) & 0xff);
	else
		fprintf(out, "exit:       killed by %s while attached\n",
			ct_signal_name(st & 0x7f));
}

int ct_info(struct ct_trace *t, struct ct_symbols *sym, FILE *out)
{
	char a[32], b[32];
	const char *v;

	ct_fmt_size(a, sizeof(a), t->size);
	fprintf(out, "trace:      %s (%s, format %u)\n", t->path, a, t->version);
	fprintf(out, "command:    %s\n", (v = ct_trace_meta(t, "command")) ? v : "?");
	fprintf(out, "arch:       %s\n", ct_trace_arch(t));
	ct_info_time(out, t);
	fprintf(out, "method:     %s", (v = ct_trace_meta(t, "method")) ? v : "?");
	if ((v = ct_trace_meta(t, "mode")) && !strcmp(v, "ring")) {
		char sz[32];
		const char *rs = ct_trace_meta(t, "ring_size");
		ct_fmt_size(sz, sizeof(sz), rs ? strtoull(rs, NULL, 10) : 0);
		fprintf(out, ", flight recorder keeping the newest %s per thread", sz);
	} else if (v) {
		fprintf(out, ", %s", v);
	}
	fputc('\n', out);
	if ((v = ct_trace_meta(t, "patched"))) {
		const char *skipped = ct_trace_meta(t, "patch_skipped");
		const char *why = ct_trace_meta(t, "patch_skip_reasons");
		const char *names = ct_trace_meta(t, "patch_skipped_functions");
		fprintf(out, "patched:    %s functions", v);
		if (skipped && strcmp(skipped, "0"))
			fprintf(out, ", %s left alone: %s%s", skipped,
				why ? why : "not the expected nops",
				names && *names ? " (info --skipped names them)" : "");
		fputc('\n', out);
	}
	ct_info_plans(out, t);
	ct_info_breakpoints(out, t);
	ct_info_unpatched(out, t);
	ct_info_captures(out, t);
	if ((v = ct_trace_meta(t, "libcalls"))) {
		const char *sites = ct_trace_meta(t, "libcall_sites");
		fprintf(out, "libcalls:   calls to %s library functions traced (%s PLT entries and call "
			     "sites)\n", v, sites ? sites : "?");
	}
	v = ct_trace_meta(t, "clock");
	fprintf(out, "clock:      %s", v ? v : "?");
	if (v && !strcmp(v, "tsc"))
		fprintf(out, " (%.3f GHz)", 1.0 / t->ns_per_tick);
	else if (v && !strcmp(v, "cntvct")) /* aarch64's counter: tens of MHz to 1 GHz */
		fprintf(out, " (%.3f MHz)", 1e3 / t->ns_per_tick);
	fputc('\n', out);
	const char *started = ct_trace_meta(t, "started");
	int attached = started && !strcmp(started, "attach");
	if (t->has_end && (t->end.flags & CT_END_STANDALONE)) {
		fprintf(out, "exit:       not known: the program wrote its own trace (standalone)\n");
	} else if (t->has_end && attached) {
		ct_info_attach_exit(out, t);
	} else if (t->has_end) {
		int st = t->end.exit_status;
		if ((st & 0x7f) == 0)
			fprintf(out, "exit:       status %d\n", (st >> 8) & 0xff);
		else
			fprintf(out, "exit:       killed by signal %d\n", st & 0x7f);
	} else {
		fprintf(out, "exit:       unknown: the recording did not finish\n");
	}
	ct_info_crashes(out, t, sym);
	ct_info_processes(out, t);

	uint64_t records = 0;
	for (size_t i = 0; i < t->nthreads; i++)
		records += t->threads[i].nrecords;
	ct_fmt_count(a, sizeof(a), records);
	fprintf(out, "records:    %s", a);
	if (t->has_end) {
		ct_fmt_count(a, sizeof(a), t->end.events);
		ct_fmt_count(b, sizeof(b), t->end.events / 2);
		fprintf(out, " (%s calls and returns, about %s calls)", a, b);
	}
	fputc('\n', out);
	ct_info_kernel(out, t);
	if (t->has_end) {
		ct_info_lost(out, t);
		if (t->end.abandoned) {
			ct_fmt_count(a, sizeof(a), t->end.abandoned);
			fprintf(out, "abandoned:  %s slots of hooks a signal handler jumped out of\n", a);
		}
		if (t->end.salvaged) {
			ct_fmt_count(a, sizeof(a), t->end.salvaged);
			fprintf(out,
				"salvaged:   %s events read back from buffers of threads that had "
				"ended\n",
				a);
		}
		if (t->end.refused) {
			ct_fmt_count(a, sizeof(a), t->end.refused);
			fprintf(out, "refused:    %s chunks refused: damaged by the program\n", a);
		}
	}
	if (t->has_end && t->end.recorder_cpu_ns && !(t->end.flags & CT_END_STANDALONE)) {
		char rss[32], prog[64];
		ct_fmt_size(rss, sizeof(rss), t->end.recorder_maxrss);
		double secs = (double)t->end.program_cpu_ns / 1e9;
		if (!attached)
			snprintf(prog, sizeof(prog), "%.3f s", secs);
		else if (!(t->end.flags & CT_END_ATTACHED))
			snprintf(prog, sizeof(prog), "not known (an older calltrace's attach)");
		else if (t->end.flags & CT_END_NO_CPU)
			snprintf(prog, sizeof(prog), "not known while attached");
		else
			snprintf(prog, sizeof(prog), "%.3f s while attached", secs);
		fprintf(out, "cpu:        program %s, recorder %.3f s (peak memory %s)\n", prog,
			(double)t->end.recorder_cpu_ns / 1e9, rss);
	}
	if (t->torn_bytes)
		fprintf(out, "truncated:  %llu bytes at the end were cut off mid-block\n",
			(unsigned long long)t->torn_bytes);
	ct_info_modules(out, t);
	return 0;
}

/* "symbol<TAB>reason" lines, the symbols demangled. */
static void ct_info_print_skipped(const char *names, FILE *out)
{
	for (const char *line = names; *line;) {
		const char *tab = strchr(line, '\t'), *nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line);
		if (tab && tab < nl) {
			char *raw = ct_strndup(line, (size_t)(tab - line));
			char *d = ct_demangle(raw);
			fprintf(out, "%s\t%.*s\n", d ? d : raw, (int)(nl - tab - 1), tab + 1);
			free(d);
			free(raw);
		}
		line = *nl ? nl + 1 : nl;
	}
}

/* info --skipped: the functions patching left alone, and why. */
int ct_info_skipped(struct ct_trace *t, FILE *out)
{
	const char *names = ct_trace_meta(t, "patch_skipped_functions");
	const char *method = ct_trace_meta(t, "method");
	if (!ct_trace_meta(t, "patched"))
		fprintf(out, "nothing was patched: the trace was recorded with %s\n",
			method ? method : "?");
	else if (!names || !*names)
		fprintf(out, "no function was left alone by name\n");
	else
		ct_info_print_skipped(names, out);
	return 0;
}
