/* SPDX-License-Identifier: MIT */
/* calltrace record: run a program with the runtime preloaded and write its trace. */
#ifndef CT_RECORD_H
#define CT_RECORD_H

#include <stdint.h>
#include <sys/types.h>

#include "../common/pool.h"
#include "../format/events.h"
#include "../format/writer.h"
#include "encode.h"
#include "workers.h"
#include "../util/util.h"

struct ct_kernel;

struct ct_record_opts {
	const char *output;
	char **argv; /* PROG ARGS..., NULL-terminated */
	uint64_t buffer_size;
	uint32_t chunk_size;
	int lossy;
	int no_follow;	    /* trace only the program started, not its children */
	size_t *crashes;    /* out (if not NULL): threads that died of a signal */
	uint64_t ring_size; /* flight recorder: bytes each thread keeps (0: stream everything) */
	/* live: called every few tens of milliseconds after fresh records are written, and once
	 * more at the end */
	void (*tick)(void *arg);
	void *tick_arg;
	int keep_quiet; /* live: no "ended; still recording" note */
	int level;	    /* zstd level of event blocks */
	uint32_t jobs;	    /* threads encoding chunks (0: ct_workers_default) */
	pid_t serve_pid;    /* standalone: the process whose runtime started us */
	int ptrace;	    /* --method=ptrace: a tracer process instead of the runtime */
	int attach_fallback; /* attach: through breakpoints if the runtime cannot be loaded */
	pid_t attach_pid;   /* attach: trace this running process instead of argv */
	uint64_t duration_ms; /* attach: stop after this long (0: at Ctrl-C or its end) */
	int quiet;	      /* attach -q: no first and last line on stderr */
	int kernel;	      /* --kernel: system calls and off-CPU intervals (src/kernel) */
	/* live --kernel: the kernel's side while it records (NULL before and after) */
	struct ct_kernel **kernel_at;
};

#define CT_DEFAULT_OUTPUT     "calltrace.data"
#define CT_DEFAULT_CHUNK      (64u << 10)

#define CT_DEFAULT_BUFFER     (256ull << 20) /* the cap: pages cost memory once touched */
#define CT_POOL_FIRST	      (32u << 20)    /* chunks released at the start, in bytes */
/*
 * zstd's first fast level: on format 4's planes it costs the recorder 5-7 %
 * less CPU than level 1 for 5-20 % more bytes (fib 0.26 -> 0.32 bytes an event,
 * yaml-cpp 0.91 -> 0.96; bench/encode_bench -l, docs/PERFORMANCE.md).
 */
#define CT_DEFAULT_ZSTD_LEVEL (-1)

/* Returns calltrace's exit status: the program's, or an error status. */
int ct_record(const struct ct_record_opts *o);
/* Standalone: record the processes of o->serve_pid's recording; fd gets the pool path. */
int ct_serve(const struct ct_record_opts *o, int fd);

/*
 * pool.c: the shared memory the runtime writes into. The traced program can
 * write all of it, so the recorder fixes the geometry when it creates the pool
 * and keeps it here, in its own memory: every address it computes in the pool
 * comes from this copy, never from the control area.
 */
struct ct_pool {
	int fd;
	struct ct_pool_ctl *ctl;
	uint64_t size;
	struct ct_pool_geo geo;
	uint32_t released; /* chunks put on the free stack so far: the scans' bound */
	char path[64]; /* what the runtime opens: /proc/<pid>/fd/<fd> */
};

static inline uint64_t *ct_rec_chunk(const struct ct_pool *p, uint32_t idx)
{
	return ct_geo_chunk(p->ctl, &p->geo, idx);
}

static inline struct ct_lost_slot *ct_rec_lost_slots(const struct ct_pool *p)
{
	return ct_geo_lost_slots(p->ctl, &p->geo);
}

static inline const char *ct_rec_skip_text(const struct ct_pool *p)
{
	return (const char *)p->ctl + p->geo.skip_text_offset;
}

int ct_pool_create(struct ct_pool *p, uint32_t chunk_size, uint32_t nchunks, uint32_t flags,
		   uint32_t clock, uint32_t ring_chunks);
void ct_pool_destroy(struct ct_pool *p);
void ct_pool_give_back(struct ct_pool *p, uint32_t idx);
uint32_t ct_pool_release_more(struct ct_pool *p);
#define CT_ZERO_ALL UINT64_MAX /* ct_pool_zero: how much was written is not known */
void ct_pool_zero(struct ct_pool *p, uint32_t idx, uint64_t bytes);
uint64_t ct_pool_resident(const struct ct_pool *p);
uint32_t ct_pick_clock(void);

/* launch.c */
pid_t ct_launch(char **argv, const char *runtime, const char *pool_path, int no_follow,
		int *status);
char *ct_find_runtime(void);

/* collect.c: chunks -> blocks */
struct ct_rec_module {
	uint32_t instance;
	uint64_t base, lo, hi;
	uint8_t build_id[32];
	uint8_t build_id_len;
	uint8_t hit;	  /* some event address falls in it */
	uint8_t unloaded; /* dlclose unmapped it */
	char *path;
};

struct ct_rec_instance {
	uint32_t instance;
	int32_t pid;
};

struct ct_collector {
	struct ct_pool *pool;
	struct ct_writer *w;
	/*
	 * live, snapshots and lost-event blocks: here, made when first needed
	 * (ct_collector_encoder): 140 KiB a plain recording does not touch
	 */
	struct ct_encoder *enc;
	int level;
	struct ct_chunk_job job; /* ... and their chunk */
	struct ct_chunk_job *group; /* a slot gathering a thread's chunks, not handed out yet */
	struct ct_workers workers; /* chunks taken from threads (record --jobs) */
	uint64_t events, lost, salvaged, abandoned, blocks, crashes;
	uint32_t symtabs_cached; /* symbol tables copied from the cache (symcache.c) */
	uint64_t refused;	/* chunks whose descriptor the program damaged: not read */
	struct ct_map seen; /* instance << 47 | address of every function seen */
	uint64_t *seen_recent; /* a direct-mapped cache of the keys last put in seen */
	struct ct_rec_module *mods;
	size_t nmods;
	struct ct_rec_instance *insts;
	size_t ninsts;
	struct ct_map called; /* instances that recorded a call or return (ran traced code) */
	struct ct_map next_seq;	  /* per thread (instance << 32 | tid): its next chunk */
	struct ct_map last_clock; /* per thread: the clock of its last record written */
	int ring;		/* flight recorder */
	uint32_t generation;	/* flight recorder: the snapshot blocks belong to */
	struct ct_desc_view *views; /* scratch: the descriptors of the chunks to take */
	uint32_t *read_off;	/* live: bytes of each chunk already encoded */
	uint64_t *early;	/* per chunk: when it came early (ct_take_in_order) */
	uint64_t *seen_ns;	/* per chunk: when a pass first found it published (0: not yet) */
	int gather;		/* published chunks may wait for more of their thread's (ct_hold) */
	uint32_t block_chunks;	/* chunks a block gathers at most (ct_block_chunks) */
	uint32_t full_left;	/* published chunks the last pass left for later */
	struct ct_buf side_copy; /* scratch: an extended record's payload, out of shared memory */
};

#define CT_SEEN_RECENT 4096 /* slots of ct_collector.seen_recent */

enum ct_take {
	CT_TAKE_FULL, /* chunks their threads published */
	CT_TAKE_DEAD, /* and chunks of threads that are gone */
	CT_TAKE_ALL,  /* and every chunk still owned: nobody writes any more */
};

void ct_collector_init(struct ct_collector *c, struct ct_pool *pool, struct ct_writer *w,
		       int level, uint32_t jobs);
void ct_collector_free(struct ct_collector *c);
/* Encode chunks into blocks, each thread's in its order; returns how many. */
size_t ct_collect(struct ct_collector *c, enum ct_take take);
/* Live: encode what threads wrote so far into the chunks they are filling. */
size_t ct_collect_partial(struct ct_collector *c);
/* Flight recorder: write every thread's ring as it is now. */
size_t ct_snapshot(struct ct_collector *c);
/*
 * A plain recording (not live, a flight recorder or lossy) with chunks to
 * spare and no thread waiting for one: published chunks may wait a little,
 * for more of their thread's to share a block, and to wake the recorder in
 * a batch (its dozing, record.c).
 */
int ct_collector_unhurried(const struct ct_collector *c);

/* symtabs.c: symbol tables of the modules that have events */
void ct_write_symtabs(struct ct_collector *c);

#endif
