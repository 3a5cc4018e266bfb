/* SPDX-License-Identifier: MIT */
/*
 * The srcline test driver. Reads what a test program printed (its modules,
 * the return addresses of its marked calls), makes a trace of it in memory
 * (process image 1; image 2 the same with a module unloaded, which caches
 * call lines by module), and prints what the symbols give:
 *
 *   def NAME LINE      each function symbol of the modules: ct_symbols_defline
 *   call SITE LINE     each return address: ct_symbols_callline
 *   bench NS           with -b N: the cost of a cached call line, N lookups
 *
 * LINE is "?" when unknown. Lines starting "error" are disagreements between
 * the ct_symbols_ answers, the ELF-level ones and the cache; exit status 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "src/common/event.h"
#include "src/format/reader.h"
#include "src/symbols/symbols.h"

#define MAXMODS 8
#define MAXRETS 64
#define TEXTLEN 4096

struct ret {
	char site[64];
	uint64_t addr;
};

static struct ct_module_info mods[MAXMODS * 2];
static size_t nmods; /* of image 1; image 2's follow */
static struct ret rets[MAXRETS];
static size_t nrets;
static int errors;

static void error(const char *what, const char *a, const char *b)
{
	printf("error %s: %s / %s\n", what, a, b);
	errors++;
}

static void read_output(FILE *in)
{
	char line[TEXTLEN], path[TEXTLEN];
	unsigned long long bias, lo, hi;
	while (fgets(line, sizeof(line), in)) {
		struct ret *r = &rets[nrets];
		if (nmods < MAXMODS &&
		    sscanf(line, "module %4095s %llx %llx %llx", path, &bias, &lo, &hi) == 4) {
			struct ct_module_info *m = &mods[nmods++];
			m->rec = (struct ct_module_rec){
				.instance = 1, .base = bias, .lo = lo, .hi = hi
			};
			m->path = ct_strdup(path);
		} else if (nrets < MAXRETS && sscanf(line, "ret %63s %llx", r->site,
						     (unsigned long long *)&r->addr) == 2) {
			nrets++;
		}
	}
}

/* Image 2: image 1's modules, and one more unloaded at clock 5. */
static void second_image(struct ct_trace *t, struct ct_unload_rec *u)
{
	for (size_t i = 0; i < nmods; i++) {
		mods[nmods + i] = mods[i];
		mods[nmods + i].rec.instance = 2;
	}
	struct ct_module_info *gone = &mods[2 * nmods];
	*gone = mods[0];
	gone->rec =
		(struct ct_module_rec){ .instance = 2, .base = 0x1000, .lo = 0x1000, .hi = 0x2000 };
	*u = (struct ct_unload_rec){
		.instance = 2, .clock = 5, .base = 0x1000, .lo = 0x1000, .hi = 0x2000
	};
	t->mods = mods;
	t->nmods = 2 * nmods + 1;
	t->unloads = u;
	t->nunloads = 1;
}

static const char *text_or_unknown(int ok, const char *text)
{
	return ok ? text : "?";
}

/* Every function symbol of module m: its definition line, the same each time asked. */
static void print_deflines(struct ct_symbols *s, const struct ct_module_info *m,
			   const struct ct_elf_funcs *f)
{
	char a[TEXTLEN], b[TEXTLEN], c[TEXTLEN];
	for (size_t i = 0; i < f->n; i++) {
		if (strchr(f->syms[i].name, '@'))
			continue; /* an import: a GOT slot, not code */
		uint32_t id = ct_symbols_lookup(s, 1, m->rec.base + f->syms[i].value, 0);
		int ok = ct_symbols_defline(s, id, a, sizeof(a));
		int again = ct_symbols_defline(s, id, b, sizeof(b));
		int elf = ct_dwarf_defline(m->path, f->syms[i].value, c, sizeof(c));
		const char *name = ct_symbols_func(s, id)->name;
		if (ok != again || ok != elf || (ok && (strcmp(a, b) || strcmp(a, c))))
			error(name, text_or_unknown(ok, a), text_or_unknown(elf, c));
		printf("def %s %s\n", name, text_or_unknown(ok, a));
	}
}

static const struct ct_module_info *module_of(uint64_t addr)
{
	for (size_t i = 0; i < nmods; i++)
		if (addr >= mods[i].rec.lo && addr < mods[i].rec.hi)
			return &mods[i];
	return NULL;
}

/* Each call: the same from image 1 (by address), image 2 (by module) and the ELF level. */
static void print_calllines(struct ct_symbols *s, int print)
{
	char a[TEXTLEN], b[TEXTLEN], c[TEXTLEN];
	for (size_t i = 0; i < nrets; i++) {
		const struct ct_module_info *m = module_of(rets[i].addr);
		int ok = ct_symbols_callline(s, 1, rets[i].addr, 0, a, sizeof(a));
		int other = ct_symbols_callline(s, 2, rets[i].addr, 0, b, sizeof(b));
		int elf = m && ct_dwarf_callline(m->path, rets[i].addr - m->rec.base, c, sizeof(c));
		if (ok != other || ok != elf || (ok && (strcmp(a, b) || strcmp(a, c))))
			error(rets[i].site, text_or_unknown(ok, a), text_or_unknown(other, b));
		if (print)
			printf("call %s %s\n", rets[i].site, text_or_unknown(ok, a));
	}
}

/* No line for what has none, and a short buffer gets what fits. */
static void edge_cases(struct ct_symbols *s)
{
	char buf[TEXTLEN], small[4];
	uint32_t signal = ct_symbols_lookup(s, 1, CT_PSEUDO_SIGNAL + 2, 0);
	if (ct_symbols_defline(s, signal, buf, sizeof(buf)))
		error("a signal frame has a definition", buf, "");
	if (ct_symbols_defline(s, ct_symbols_count(s) + 10, buf, sizeof(buf)))
		error("a function that does not exist has a definition", buf, "");
	if (ct_symbols_callline(s, 1, 0, 0, buf, sizeof(buf)) ||
	    ct_symbols_callline(s, 1, CT_PSEUDO_SIGNAL + 2, 0, buf, sizeof(buf)) ||
	    ct_symbols_callline(s, 7, nrets ? rets[0].addr : 1, 0, buf, sizeof(buf)))
		error("a call line for no call", buf, "");
	if (nrets && ct_symbols_callline(s, 1, rets[0].addr, 0, buf, sizeof(buf)) &&
	    (!ct_symbols_callline(s, 1, rets[0].addr, 0, small, sizeof(small)) ||
	     strncmp(small, buf, 3) || small[3]))
		error("a short buffer", small, buf);
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The cost of a cache hit: n lookups over the (already cached) call sites, the best of 5 rounds. */
static void bench(struct ct_symbols *s, long n)
{
	char buf[256];
	long found = 0;
	double best = 0;
	if (!nrets || n < 5)
		return;
	for (int round = 0; round < 5; round++) {
		double t0 = now_ns();
		for (long i = 0; i < n / 5; i++)
			found += ct_symbols_callline(s, 1, rets[i % nrets].addr, 0, buf,
						     sizeof(buf));
		double ns = (now_ns() - t0) / (n / 5);
		if (!round || ns < best)
			best = ns;
	}
	printf("bench %.1f ns per lookup (best of 5 rounds of %ld; %ld found)\n", best, n / 5,
	       found);
}

int main(int argc, char **argv)
{
	long nbench = 0;
	if (argc == 4 && !strcmp(argv[2], "-b"))
		nbench = atol(argv[3]);
	FILE *in = argc >= 2 ? fopen(argv[1], "r") : NULL;
	if (!in) {
		fprintf(stderr, "usage: srcline_check PROGRAM-OUTPUT [-b N]\n");
		return 2;
	}
	read_output(in);
	fclose(in);

	struct ct_elf_funcs funcs[MAXMODS];
	char err[256];
	for (size_t i = 0; i < nmods; i++) {
		if (ct_elf_read_funcs(mods[i].path, NULL, &funcs[i], err, sizeof(err)) < 0) {
			printf("error %s\n", err);
			return 1;
		}
		/* what the recorder would have saved: the trace is of this very file */
		memcpy(mods[i].rec.build_id, funcs[i].build_id, sizeof(funcs[i].build_id));
		mods[i].rec.build_id_len = funcs[i].build_id_len;
	}
	struct ct_trace t = { 0 };
	struct ct_unload_rec unload;
	second_image(&t, &unload);
	struct ct_symbols *s = ct_symbols_open(&t, 1);
	for (size_t i = 0; i < nmods; i++)
		print_deflines(s, &mods[i], &funcs[i]);
	print_calllines(s, 1);
	print_calllines(s, 0); /* from the caches this time */
	edge_cases(s);
	bench(s, nbench);
	ct_symbols_close(s);
	for (size_t i = 0; i < nmods; i++)
		ct_elf_funcs_free(&funcs[i]);
	return errors != 0;
}
