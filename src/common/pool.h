/* SPDX-License-Identifier: MIT */
/*
 * The shared-memory pool between the recorder and the traced processes.
 *
 * Layout of the memfd: one control area (struct ct_pool_ctl, then an array of
 * chunk descriptors), page aligned, followed by nchunks chunks of chunk_size
 * bytes each. The recorder creates and initialises it; every traced process
 * maps it (it survives fork and is reopened after exec).
 *
 * A chunk belongs to exactly one party at a time:
 *   FREE  -> on the free stack, owned by nobody, all zero
 *   OWNED -> taken by a thread, which appends records to it
 *   FULL  -> published by its thread (release store), waiting for the recorder
 * The recorder encodes FULL chunks, zeroes them and pushes them back on the
 * free stack. It salvages OWNED chunks whose thread is gone by reading records
 * up to the first incomplete one.
 *
 * The free stack is a Treiber stack whose head carries a 32-bit tag against
 * ABA; every operation on it is a single CAS, so threads never take a lock.
 *
 * The memfd is made at its cap (--buffer-size) but its pages exist only once
 * touched: the recorder puts a first share of the chunks on the free stack and
 * adds more only when threads lack chunks while it has nothing to collect
 * (threads hold them all). When every chunk is out and threads still wait, it
 * declares the pool starved: waiting threads drop their events, counted as in
 * lossy mode, instead of waiting for ever.
 */
#ifndef CT_COMMON_POOL_H
#define CT_COMMON_POOL_H

#include <stdint.h>
#include <stdatomic.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CT_POOL_MAGIC	UINT64_C(0x4c4f4f5054435443) /* "CTCTPOOL" */
#define CT_POOL_VERSION 7

#define CT_CHUNK_FREE  0u
#define CT_CHUNK_OWNED 1u
#define CT_CHUNK_FULL  2u
#define CT_CHUNK_RECYCLING 3u /* flight recorder: its thread is zeroing it for reuse */

/* chunk flags */
#define CT_CHUNK_LAST 1u /* the thread published this chunk as it ended */

/* pool flags */
#define CT_POOL_LOSSY 1u /* drop events instead of waiting for a free chunk */
#define CT_POOL_RING  2u /* flight recorder: each thread keeps its newest ring_chunks chunks */
#define CT_POOL_STANDALONE 4u /* the runtime started the recorder: processes count themselves */

/* ct_pool_ctl.methods */
#define CT_METHOD_FINSTRUMENT 1u /* __cyg_profile_func_enter/exit */
#define CT_METHOD_FENTRY      2u /* __fentry__ and the return trampoline */
#define CT_METHOD_PATCHABLE   4u /* patchable entries we made call __fentry__ */
#define CT_METHOD_MCOUNT      8u /* -pg without -mfentry: mcount */
#define CT_METHOD_PATCH	      16u /* functions we patched in memory */
#define CT_METHOD_PTRACE      32u /* breakpoints set by the tracer (record --method=ptrace) */

/* Why a function was left unpatched (ct_pool_ctl.skips). */
enum ct_skip_reason {
	CT_SKIP_NONE,
	CT_SKIP_NOT_NOPS,      /* a patchable entry that is not the expected nops */
	CT_SKIP_TOO_SHORT,     /* fewer than 5 bytes of instructions */
	CT_SKIP_UNDECODABLE,   /* bytes the decoder does not know */
	CT_SKIP_BRANCH_IN,     /* a branch lands in the bytes the patch would move */
	CT_SKIP_INDIRECT_JUMP, /* a jump table whose targets we cannot see */
	CT_SKIP_INSTRUCTION,   /* an instruction that cannot move (loop, jrcxz, an indirect call) */
	CT_SKIP_OUT_OF_REACH,  /* no trampoline memory within 2 GB */
	CT_SKIP_NO_SIZE,       /* the symbol gives no size */
	CT_SKIP_UNWRITABLE,    /* the code could not be made writable */
	CT_SKIP_N
};

/*
 * Names of the functions left unpatched: "reason name\n" lines, in the control
 * area; and "= count path\n" for each library a patched program loaded but
 * that was left unpatched (a system library: -P 'lib:*' takes it), in the
 * last CT_UNPATCHED_TEXT bytes (counted apart), which names never fill.
 */
#define CT_SKIP_TEXT (64u << 10)
#define CT_UNPATCHED_TEXT (8u << 10)
#define CT_UNPATCHED_CODE '='

/* ct_pool_ctl.attach_flags */
#define CT_ATTACH_TRACING 1u /* the tracer is attached, tracing has begun */
#define CT_ATTACH_ENDED	  2u /* the process ended while attached: attach_status holds how */
#define CT_ATTACH_CPU	  4u /* attach_cpu_ns is known */
#define CT_ATTACH_BREAKPOINTS 8u /* traced through breakpoints, not the runtime */
#define CT_ATTACH_DETACHED 16u /* we left it running */

/* Process images noted as they start (ct_pool_ctl.started), a power of two. */
#define CT_STARTED_RING 1024u

/* pool states */
#define CT_POOL_RECORDING 0u
#define CT_POOL_DETACHED  1u /* the recorder is gone or gave up: stop tracing */

/* clocks */
#define CT_CLOCK_TSC	   1u
#define CT_CLOCK_MONOTONIC 2u

struct ct_chunk_desc {
	_Atomic uint32_t state;
	_Atomic uint32_t next; /* free-stack link: index + 1, 0 ends the stack */
	uint32_t instance;
	int32_t pid;
	int32_t tid;
	uint32_t flags;
	uint64_t thread_seq; /* 0, 1, 2 ... for the chunks of one thread */
	uint64_t base_clock; /* full clock when the chunk was taken */
	uint32_t used;	     /* bytes written, set before publishing */
	uint32_t reserved;
};

/*
 * Lossy mode: a thread that drops events counts them here, in shared memory,
 * so the count survives the thread (SIGKILL, a crash). The recorder writes
 * what the thread did not get to tell in its stream.
 */
struct ct_lost_slot {
	_Atomic int32_t tid; /* 0: free */
	int32_t pid;
	uint32_t instance;
	uint32_t reserved;
	_Atomic uint64_t dropped; /* events dropped, all told */
	_Atomic uint64_t told;	  /* of which said by a lost record in the thread's stream */
};

#define CT_LOST_SLOTS 4096

/*
 * ct_pool_ctl.recorder_sleeping. Dozing, the recorder is woken by the
 * CT_WAKE_BATCH-th chunk published (or ct_pool_ctl.wake_batch-th), not by each (a wake costs the thread a
 * system call and the recorder a context switch, some 5 % of both on a
 * program that fills a chunk every 60 us), or by a thread that lacks a chunk;
 * at the latest its wait times out. It dozes only with chunks to spare.
 */
#define CT_RECORDER_AWAKE  0u
#define CT_RECORDER_ASLEEP 1u
#define CT_RECORDER_DOZING 2u
#define CT_WAKE_BATCH	   8u

struct ct_pool_ctl {
	uint64_t magic;
	uint32_t version;
	uint32_t ctl_size; /* bytes before the first chunk, page aligned */
	uint32_t chunk_size;
	uint32_t nchunks;
	uint32_t flags;
	uint32_t clock;
	int32_t recorder_pid;
	_Atomic uint32_t state;

	_Atomic uint64_t free_head; /* tag << 32 | (index + 1) */
	_Atomic int32_t free_count; /* chunks on the free stack, about */
	_Atomic uint32_t next_instance;

	/* the recorder sleeps on wake_seq when it has nothing to do (CT_RECORDER_*) */
	_Atomic uint32_t recorder_sleeping;
	_Atomic uint32_t wake_seq;
	_Atomic uint32_t full_pending; /* chunks published since it last looked, about */

	/* threads that found no free chunk sleep on free_seq */
	_Atomic uint32_t free_waiters;
	_Atomic uint32_t free_seq;

	_Atomic uint64_t wait_count;  /* times a thread waited for a chunk */

	uint32_t ring_chunks;		     /* flight recorder: chunks each thread keeps */
	uint32_t lost_slots_offset;	     /* from the start of the pool; CT_LOST_SLOTS of them */
	_Atomic uint32_t snapshot_requests; /* flight recorder: bumped to ask for a snapshot */
	_Atomic int32_t live_procs;	     /* standalone: traced processes not yet ended */
	_Atomic uint32_t finished;	     /* standalone: the trace is written (futex) */
	_Atomic uint32_t methods;	     /* CT_METHOD_*: the hooks threads were traced by */
	_Atomic uint32_t patched;	     /* patchable entries turned into calls */
	_Atomic uint32_t patch_skipped;	     /* entries left alone, all reasons */
	_Atomic uint32_t skips[CT_SKIP_N];   /* ... by reason */
	uint32_t skip_text_offset;	     /* from the start of the pool; CT_SKIP_TEXT bytes */
	_Atomic uint32_t skip_text_used;
	_Atomic uint32_t libcalls;	/* imported functions whose calls are traced */
	_Atomic uint32_t libcall_sites; /* PLT entries and call sites redirected to them */
	_Atomic uint32_t starved;	/* every chunk is held: waiting threads drop (recorder sets) */
	_Atomic uint32_t short_count;	/* lossy: times a thread found no free chunk */
	_Atomic uint32_t patched_modules; /* modules where some function was patched */

	/* attach: what the tracer saw of the process, for the recorder (taken from the pad) */
	_Atomic uint32_t attach_flags; /* CT_ATTACH_* */
	int32_t attach_status;	       /* its wait status, if it ended (CT_ATTACH_ENDED) */
	uint32_t attach_functions;     /* functions traced: patched, or given a breakpoint */
	uint32_t attach_modules;       /* ... in this many modules */
	uint64_t attach_cpu_ns;	       /* CPU time its threads used while we were attached */

	_Atomic uint32_t unpatched_text_used; /* bytes of the unpatched libraries' lines */
	/*
	 * Every process image the runtime is loaded into notes itself here as it
	 * starts, traced or not (the recorder drains it), so that the processes
	 * that ran no traced code are counted (their pids: started_processes
	 * counts them too).
	 */
	_Atomic uint32_t started_count;
	struct {
		_Atomic int32_t pid, ppid;
	} started[CT_STARTED_RING];

	/* the patch plan cache (plancache.c): modules whose plan came from it, ... */
	_Atomic uint32_t plans_cached;
	_Atomic uint32_t plans_made;  /* ... that were planned on the spot, ... */
	_Atomic uint32_t plans_saved; /* ... of which written to it */
	/*
	 * Processes counted as they start, each once: by its first image that
	 * notes its start, or at a fork of a traced image. Exact where the
	 * ring, drained once a recorder pass, loses pids to a burst of starts.
	 */
	_Atomic uint32_t started_processes;

	/*
	 * The ptrace method's breakpoints (set by the tracer, told in META and by
	 * info): set, of which without an out-of-line copy of the instruction
	 * they cover, and the stops where a thread was stepped over one in place
	 * (the breakpoint lifted meanwhile: another thread may run through it
	 * unseen).
	 */
	_Atomic uint32_t pt_breakpoints;
	_Atomic uint32_t pt_in_place;
	_Atomic uint32_t pt_stepped;

	/*
	 * Dozing, the chunks published that wake the recorder (0: CT_WAKE_BATCH):
	 * the recorder asks for the rest of a block it gathers, not for a look at
	 * every eighth chunk it would leave where it is. Taken from the padding
	 * before the descriptors, which older runtimes leave zero.
	 */
	_Atomic uint32_t wake_batch;
	uint8_t pad[12];
	struct ct_chunk_desc desc[];
};

/*
 * The pool's geometry, fixed by the recorder when it makes the pool. The
 * program can write the control area, so whoever reads the pool keeps its
 * own copy (taken once, checked by ct_pool_geometry_ok where the pool is not
 * its own) and takes every address in the pool from it, never from the
 * control area again.
 */
struct ct_pool_geo {
	uint64_t size;
	uint32_t ctl_size, chunk_size, nchunks, ring_chunks;
	uint32_t lost_slots_offset, skip_text_offset;
};

static inline struct ct_pool_geo ct_pool_geo_of(const struct ct_pool_ctl *hdr)
{
	return (struct ct_pool_geo){
		.size = hdr->ctl_size + (uint64_t)hdr->nchunks * hdr->chunk_size,
		.ctl_size = hdr->ctl_size,
		.chunk_size = hdr->chunk_size,
		.nchunks = hdr->nchunks,
		.ring_chunks = hdr->ring_chunks,
		.lost_slots_offset = hdr->lost_slots_offset,
		.skip_text_offset = hdr->skip_text_offset,
	};
}

static inline uint64_t *ct_geo_chunk(const void *pool, const struct ct_pool_geo *g, uint32_t idx)
{
	return (uint64_t *)((char *)pool + g->ctl_size + (uint64_t)idx * g->chunk_size);
}

static inline struct ct_lost_slot *ct_geo_lost_slots(const void *pool, const struct ct_pool_geo *g)
{
	return (struct ct_lost_slot *)((char *)pool + g->lost_slots_offset);
}

/*
 * Is hdr the control area of a pool of file_size bytes, laid out the way the
 * recorder lays it out? Whoever maps a pool someone else made checks this
 * first, in 64 bits, and then keeps its own copy of the geometry.
 */
static inline int ct_pool_geometry_ok(const struct ct_pool_ctl *hdr, uint64_t file_size)
{
	uint64_t descs = sizeof(*hdr) + (uint64_t)hdr->nchunks * sizeof(struct ct_chunk_desc);
	uint64_t slots = (uint64_t)CT_LOST_SLOTS * sizeof(struct ct_lost_slot);

	return hdr->magic == CT_POOL_MAGIC && hdr->version == CT_POOL_VERSION &&
	       hdr->nchunks && hdr->chunk_size >= 64 && hdr->chunk_size % 16 == 0 &&
	       hdr->lost_slots_offset % 8 == 0 && hdr->lost_slots_offset >= descs &&
	       (uint64_t)hdr->lost_slots_offset + slots <= hdr->skip_text_offset &&
	       (uint64_t)hdr->skip_text_offset + CT_SKIP_TEXT <= hdr->ctl_size &&
	       hdr->ctl_size % 4096 == 0 &&
	       file_size == hdr->ctl_size + (uint64_t)hdr->nchunks * hdr->chunk_size;
}

/*
 * Pop a free chunk: its index, -1 when the stack is empty, -2 when a link
 * leads out of the pool's nchunks (the program can write the stack: whoever
 * pops checks against its own copy of the geometry, and stops using a pool
 * whose stack is damaged).
 */
static inline int64_t ct_pool_pop_free(struct ct_pool_ctl *ctl, uint32_t nchunks)
{
	uint64_t head = atomic_load_explicit(&ctl->free_head, memory_order_acquire);
	for (;;) {
		uint32_t top = (uint32_t)head;
		if (!top)
			return -1;
		if (top > nchunks)
			return -2;
		uint32_t next =
			atomic_load_explicit(&ctl->desc[top - 1].next, memory_order_relaxed);
		if (next > nchunks || next == top)
			return -2;
		uint64_t tagged = ((head >> 32) + 1) << 32 | next;
		if (atomic_compare_exchange_weak_explicit(&ctl->free_head, &head, tagged,
							  memory_order_acq_rel,
							  memory_order_acquire)) {
			atomic_fetch_sub_explicit(&ctl->free_count, 1, memory_order_relaxed);
			return top - 1;
		}
	}
}

/* Wake the recorder (a plain futex wake: async-signal-safe). */
static inline void ct_pool_wake_recorder(struct ct_pool_ctl *ctl)
{
	atomic_fetch_add(&ctl->wake_seq, 1);
	syscall(SYS_futex, &ctl->wake_seq, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* Flight recorder: ask for a snapshot (SIGUSR2, calltrace snapshot, calltrace_snapshot()). */
static inline void ct_pool_request_snapshot(struct ct_pool_ctl *ctl)
{
	atomic_fetch_add(&ctl->snapshot_requests, 1);
	ct_pool_wake_recorder(ctl);
}

/*
 * Push a chunk back on the free stack. The head is in shared memory: a
 * program that keeps changing it could make the CAS fail for ever, so the
 * tries are counted; a chunk that could not go back is the program's loss.
 */
static inline void ct_pool_push_free(struct ct_pool_ctl *ctl, uint32_t idx)
{
	uint64_t head = atomic_load_explicit(&ctl->free_head, memory_order_acquire);
	atomic_store_explicit(&ctl->desc[idx].state, CT_CHUNK_FREE, memory_order_relaxed);
	for (int tries = 0; tries < 1000; tries++) {
		atomic_store_explicit(&ctl->desc[idx].next, (uint32_t)head, memory_order_relaxed);
		uint64_t tagged = ((head >> 32) + 1) << 32 | (idx + 1);
		if (atomic_compare_exchange_weak_explicit(&ctl->free_head, &head, tagged,
							  memory_order_acq_rel,
							  memory_order_acquire)) {
			atomic_fetch_add_explicit(&ctl->free_count, 1, memory_order_relaxed);
			return;
		}
	}
}

#endif
