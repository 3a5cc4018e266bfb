/* SPDX-License-Identifier: MIT */
/*
 * The recorder's encoder alone, on a fixed pool of chunks: the calls and
 * returns of a recorded trace packed back into chunks as the runtime writes
 * them (two words per record), then encoded into EVENTS blocks by 1, 2 ...
 * threads (src/record/workers.c: with 1 this one, with N > 1 N workers, as
 * record --jobs N does), variants interleaved round by round. Nothing else runs, so it needs no spare core to
 * tell how encoding scales: on a machine with C free cores, W <= C workers
 * should do W times the work per second of one.
 *
 *   encode_bench -i TRACE [-c CHUNKS] [-r ROUNDS] [-j 1,2] [-l LEVEL] [-g GROUP] [-v LEVEL]
 *
 * -g: consecutive chunks of a thread encoded into one block, as the
 * collector groups them (64, the default, at most; 1: a block a chunk).
 * -v LEVEL: the vector registers the recorder's loop may use, 0 none (as on
 * aarch64 today), 1 SSE2 (as on an x86-64 without AVX2), 2 AVX2, 3 AVX-512
 * (the default: the widest the machine has).
 *
 * Per variant, medians over the rounds: events per second (wall), CPU
 * nanoseconds per event (all threads), bytes per event of the blocks. The
 * digest of the blocks tells whether a change to the encoder kept its output.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../src/format/reader.h"
#include "../src/record/record.h"
#include "../src/util/time_ns.h"

#define CHUNK_RECORDS 4096 /* 64 KiB chunks, the default */

struct chunk {
	struct ct_desc_view d;
	uint64_t w[2 * CHUNK_RECORDS];
	uint32_t n; /* records */
};

static struct chunk *chunks;
static uint32_t nchunks, max_chunks = 2000, group = CT_JOB_MORE + 1;
static uint64_t nevents;

/* A thread's calls and returns, packed as the runtime packs them. */
static void load_thread(struct ct_trace *t, const struct ct_thread_info *th)
{
	struct ct_stream s;
	struct ct_event ev;
	struct chunk *c = NULL;
	uint64_t seq = 0;

	ct_stream_open(&s, t, th);
	while (nchunks < max_chunks && ct_stream_next(&s, &ev) > 0) {
		if (ev.kind != CT_EV_ENTER && ev.kind != CT_EV_EXIT)
			continue;
		if (!c || c->n == CHUNK_RECORDS) {
			if (c && ++nchunks == max_chunks)
				break;
			c = &chunks[nchunks];
			memset(c, 0, sizeof(*c));
			c->d = (struct ct_desc_view){ .idx = nchunks,
						      .instance = th->instance,
						      .pid = th->pid,
						      .tid = th->tid,
						      .thread_seq = seq++,
						      .base_clock = ev.clock };
		}
		uint64_t sp = ev.sp << 4;
		c->w[2 * c->n] = ct_ev_word0(ev.clock & CT_EV_CLOCK_MASK, sp);
		c->w[2 * c->n + 1] = ct_ev_word1(ev.kind, ev.addr, sp);
		c->n++;
		nevents++;
	}
	if (c && c->n && nchunks < max_chunks && c == &chunks[nchunks])
		nchunks++;
	ct_decoder_free(&s.dec);
	ct_buf_free(&s.payload);
}

struct result {
	double wall, cpu;
	uint64_t bytes, raw, funcs, table; /* table: the function tables' bytes */
	uint64_t blocks;
	uint32_t digest; /* CRC32C of the blocks in order: an encoder change that keeps the format keeps it */
};

static void add_block(struct result *r, const struct ct_chunk_job *j)
{
	r->blocks += j->hdr.nrecords != 0;
	r->bytes += j->out.len;
	r->digest = ct_crc32c(r->digest, j->out.data, j->out.len);
	r->raw += j->hdr.raw_len;
	r->funcs += j->hdr.nfuncs;
	r->table += j->hdr.codec & CT_CODEC_COMPACT ? j->hdr.funcs_len : j->hdr.nfuncs * 8;
}

/* jobs threads encode: with 1, this one, as the collector does; else jobs workers */
static struct result run(uint32_t jobs, int level)
{
	struct ct_workers w;
	struct result r = { 0 };

	ct_workers_init(&w, jobs > 1 ? jobs : 0, CHUNK_RECORDS, level);
	uint64_t t0 = ct_time_ns(CLOCK_MONOTONIC), c0 = ct_time_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (uint32_t i = 0; i < nchunks; i++) {
		struct ct_chunk_job *j;
		while (!(j = ct_workers_slot(&w))) {
			add_block(&r, ct_workers_oldest(&w));
			ct_workers_retire(&w);
		}
		j->d = chunks[i].d;
		j->w = chunks[i].w;
		j->nwords = 2 * chunks[i].n;
		j->nmore = 0;
		/* the thread's next chunks, as the collector groups them */
		while (j->nmore + 1 < group && i + 1 < nchunks &&
		       chunks[i + 1].d.tid == chunks[i].d.tid &&
		       chunks[i + 1].d.instance == chunks[i].d.instance) {
			struct ct_chunk_more *m = &j->more[j->nmore++];
			i++;
			*m = (struct ct_chunk_more){ .d = chunks[i].d,
						     .w = chunks[i].w,
						     .nwords = 2 * chunks[i].n };
		}
		j->flags = 0;
		j->kind = CT_JOB_TAKE;
		ct_workers_submit(&w);
	}
	for (struct ct_chunk_job *j; (j = ct_workers_oldest(&w)); ct_workers_retire(&w))
		add_block(&r, j);
	r.wall = (double)(ct_time_ns(CLOCK_MONOTONIC) - t0);
	r.cpu = (double)(ct_time_ns(CLOCK_PROCESS_CPUTIME_ID) - c0);
	ct_workers_free(&w);
	return r;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	const char *input = "calltrace.data", *jobs = "1,2";
	int rounds = 7, level = CT_DEFAULT_ZSTD_LEVEL, c;
	char err[256];

	while ((c = getopt(argc, argv, "i:c:r:j:l:g:v:")) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'c':
			max_chunks = (uint32_t)atoi(optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'j':
			jobs = optarg;
			break;
		case 'l':
			level = atoi(optarg);
			break;
		case 'v':
			ct_encode_run_vectors(atoi(optarg));
			break;
		case 'g':
			group = (uint32_t)atoi(optarg);
			if (group < 1 || group > CT_JOB_MORE + 1)
				group = CT_JOB_MORE + 1;
			break;
		default:
			fprintf(stderr, "usage: encode_bench -i TRACE [-c CHUNKS] [-r ROUNDS] [-j "
					"1,2] [-l LEVEL] [-g GROUP] [-v LEVEL]\n");
			return 2;
		}
	}
	struct ct_trace *t = ct_trace_open(input, err, sizeof(err));
	if (!t) {
		fprintf(stderr, "encode_bench: %s\n", err);
		return 2;
	}
	chunks = ct_calloc(max_chunks, sizeof(*chunks));
	for (size_t i = 0; i < t->nthreads && nchunks < max_chunks; i++)
		load_thread(t, &t->threads[i]);
	ct_trace_close(t);
	if (!nchunks || rounds < 1) {
		fprintf(stderr, "encode_bench: no calls in %s\n", input);
		return 2;
	}

	uint32_t variants[16];
	int nv = 0;
	for (char *p = (char *)jobs; *p && nv < 16; p++) {
		uint32_t v = (uint32_t)strtoul(p, &p, 10);
		variants[nv++] = v ? v : 1;
		if (!*p)
			break;
	}
	double *wall = ct_calloc((size_t)nv * rounds, sizeof(double));
	double *cpu = ct_calloc((size_t)nv * rounds, sizeof(double));
	struct result last = { 0 };
	run(variants[0], level); /* warm: pages of the chunks, the allocator */
	for (int r = 0; r < rounds; r++)
		for (int v = 0; v < nv; v++) {
			struct result x = run(variants[v], level);
			wall[v * rounds + r] = x.wall;
			cpu[v * rounds + r] = x.cpu;
			last = x;
		}
	printf("%u chunks of %s in blocks of %u at most, %llu calls and returns, zstd level %d, "
	       "%d rounds (medians)\n",
	       nchunks, input, group, (unsigned long long)nevents, level, rounds);
	printf("blocks: %.1f functions each, %.2f raw bytes per event (%.2f of them addresses)\n",
	       (double)last.funcs / (double)(last.blocks ? last.blocks : 1), (double)last.raw / (double)nevents,
	       (double)last.table / (double)nevents);
	printf("digest: %08x (CRC32C of the blocks)\n", last.digest);
	uint64_t bytes = last.bytes;
	printf("%-8s %14s %12s %12s %10s\n", "jobs", "Mevents/s", "cpu ns/ev", "wall ns/ev",
	       "bytes/ev");
	double base = 0;
	for (int v = 0; v < nv; v++) {
		double wm = median(wall + v * rounds, rounds),
		       cm = median(cpu + v * rounds, rounds);
		double rate = (double)nevents / wm * 1e3;
		if (!v)
			base = rate;
		printf("%-8u %14.1f %12.2f %12.2f %10.3f   x%.2f\n", variants[v], rate,
		       cm / (double)nevents, wm / (double)nevents, (double)bytes / (double)nevents,
		       rate / base);
	}
	return 0;
}
