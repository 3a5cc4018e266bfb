/* SPDX-License-Identifier: MIT */
/*
 * The calltrace.data file, as specified in docs/FORMAT.md.
 *
 * A 32-byte file header, then blocks, appended and never rewritten. Each block
 * is a 16-byte header (magic, type, flags, payload length, CRC-32C of header
 * and payload) and its payload. A reader stops at the first block that does
 * not fit in the file: that is where a killed recorder stopped writing.
 */
#ifndef CT_FORMAT_H
#define CT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define CT_FILE_MAGIC	"CALLTRCE"
#define CT_FILE_VERSION 8
#define CT_BLOCK_MAGIC	0x4b425443u /* "CTBK" */

struct ct_file_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	uint64_t flags;
	uint64_t reserved;
};

struct ct_block_header {
	uint32_t magic;
	uint16_t type;
	uint16_t flags;
	uint32_t length; /* payload bytes, as stored */
	uint32_t crc;	 /* CRC-32C of the first 12 header bytes, then the payload */
};

enum ct_block_type {
	CT_BLOCK_META = 1,    /* key \0 value \0 ... */
	CT_BLOCK_CLOCK = 2,   /* struct ct_clock_sample */
	CT_BLOCK_PROCESS = 3, /* struct ct_process_rec, exe \0, args (NUL-separated) */
	CT_BLOCK_MODULE = 4,  /* struct ct_module_rec, path \0 */
	CT_BLOCK_EVENTS = 5,  /* struct ct_events_hdr, then the encoded body */
	CT_BLOCK_SYMTAB = 6,  /* zstd: struct ct_symtab_hdr, path, then symbols */
	CT_BLOCK_END = 7,     /* struct ct_end_rec */
	CT_BLOCK_CRASH = 8,   /* struct ct_crash_rec: a thread died of a signal */
	CT_BLOCK_THREAD = 9,  /* struct ct_thread_rec: a thread's name */
	CT_BLOCK_UNLOAD = 10, /* struct ct_unload_rec: a module unmapped by dlclose */
	CT_BLOCK_PROTOS = 11, /* zstd: u32 instance, then a CT_EXT_PROTOS payload */
	CT_BLOCK_UNTRACED = 12, /* struct ct_untraced_rec, path \0: a process ran untraced */
	CT_BLOCK_KERNEL = 13,	/* struct ct_kernel_hdr, then records (record --kernel) */
	CT_BLOCK_KARGS = 14,	/* struct ct_karg_rec + data, ...: what system calls pointed to */
};

/* block flags */
#define CT_BLOCK_ZSTD 1u /* payload = u32 raw length + one zstd frame */

struct ct_clock_sample {
	uint64_t clock;	       /* the trace clock: TSC, or CLOCK_MONOTONIC ns */
	uint64_t monotonic_ns; /* CLOCK_MONOTONIC read right after */
	uint64_t realtime_ns;  /* CLOCK_REALTIME read right after */
};

struct ct_process_rec {
	uint32_t instance; /* one per process image: a fork or an exec makes a new one */
	uint32_t parent_instance;
	int32_t pid;
	int32_t ppid;
	uint64_t realtime_ns;
	uint32_t exe_len;
	uint32_t args_len;
	int32_t parent_tid;	/* forked: the thread that called fork */
	uint32_t exec_instance; /* exec'd: the image that called exec */
	uint64_t fork_clock;	/* forked: the trace clock just before the fork */
	uint32_t flags;		/* CT_PROC_* (common/event.h) */
	uint32_t reserved;
};

struct ct_thread_rec {
	uint32_t instance;
	int32_t tid;
	uint64_t clock;
	char name[24]; /* NUL-terminated */
};

struct ct_unload_rec {
	uint32_t instance;
	uint32_t reserved;
	uint64_t clock;
	uint64_t base, lo, hi;
};

struct ct_module_rec {
	uint32_t instance;
	uint8_t build_id_len;
	uint8_t reserved[3];
	uint64_t base; /* load bias */
	uint64_t lo, hi;
	uint8_t build_id[32];
	/* path, NUL-terminated */
};

/* events flags */
#define CT_EVENTS_SALVAGED 1u /* read from the chunk of a thread that was gone */
#define CT_EVENTS_LAST	   2u /* the thread's last chunk */
#define CT_EVENTS_SNAPSHOT 4u /* flight recorder: read from a thread's ring */
#define CT_EVENTS_LIVE	   8u /* live: read from a chunk its thread was still filling */

struct ct_events_hdr {
	uint32_t instance;
	int32_t pid;
	int32_t tid;
	uint32_t flags;
	uint64_t thread_seq;
	uint64_t first_clock;
	uint64_t last_clock;
	uint32_t nrecords; /* calls, returns and in-stream extended records */
	uint32_t nfuncs;
	uint32_t codec;	  /* CT_CODEC_* */
	uint32_t raw_len; /* body bytes before compression */
	uint32_t col_len[4];
	uint64_t lost;	   /* events the thread dropped (lossy mode) within this block */
	uint32_t snapshot; /* flight-recorder mode: which snapshot (0: the final one) */
	uint32_t funcs_len; /* CT_CODEC_COMPACT: bytes of the function table (else 0) */
};

/*
 * ct_events_hdr.codec: 0 raw varint columns, 1 the same in one zstd frame
 * (format 3 and before); CT_CODEC_PLANES: fixed-width byte planes (format 4);
 * with CT_CODEC_COMPACT (format 5, always with PLANES): a delta-coded function
 * table, one-byte clock deltas, and returns that match the block's open call
 * named by one bit instead of a code and a stack delta.
 */
#define CT_CODEC_ZSTD	 1u
#define CT_CODEC_PLANES	 2u
#define CT_CODEC_COMPACT 4u
#define CT_CODEC_HUFF	 8u /* format 6: the clock plane Huffman-coded, after the body */
#define CT_CODEC_AGAIN	 16u /* format 7: a call made again at its depth is a bit too */
#define CT_CODEC_SPLIT	 32u /* format 8: the Huffman-coded clock plane split on its modes */

/* Blocks of fewer records keep their clock plane raw (format 6). */
#define CT_HUFF_MIN_RECORDS 256

/* body columns, after the table of nfuncs u64 addresses */
enum { CT_COL_CLOCK, CT_COL_CODE, CT_COL_SP, CT_COL_EXT };

/* A record's code in CT_COL_CODE: func index << 2 | op, or ext type << 2 | 2 */
#define CT_CODE_ENTER 0u
#define CT_CODE_EXIT  1u
#define CT_CODE_EXT   2u

struct ct_crash_rec {
	uint32_t instance;
	int32_t signo;
	int32_t code;
	int32_t pid;
	int32_t tid;
	uint32_t reserved;
	uint64_t clock;
	uint64_t addr; /* the faulting address */
	uint64_t pc;
	uint64_t sp;
};

/*
 * A process of the traced tree that ran untraced (its image could not join:
 * instance is the image that exec'd it), or one that stopped being traced
 * (instance is that image). reason: enum ct_untraced_reason (common/event.h).
 */
struct ct_untraced_rec {
	uint32_t instance;
	int32_t pid;
	uint64_t clock;
	uint32_t reason;
	int32_t err; /* an errno, for CT_UNTRACED_NO_POOL */
	/* the executable's path, NUL-terminated */
};

struct ct_symtab_hdr {
	uint32_t nsyms;
	uint32_t path_len;
	uint8_t build_id_len;
	uint8_t reserved[7];
	uint8_t build_id[32];
	/* path \0, then nsyms × { u64 value, u64 size, name \0 }, sorted by value */
};

struct ct_end_rec {
	uint64_t events;     /* calls and returns written */
	uint64_t lost;	     /* dropped in lossy mode or never delivered */
	uint64_t salvaged;   /* events read from chunks of dead threads */
	uint64_t waits;	     /* times a thread waited for a free chunk */
	int32_t exit_status; /* wait status of the traced program */
	uint32_t flags;	     /* CT_END_* */
	uint64_t program_cpu_ns;  /* user + system time of the traced processes */
	uint64_t recorder_cpu_ns; /* user + system time of the recorder */
	uint64_t recorder_maxrss; /* peak resident set of the recorder, bytes */
	uint64_t abandoned;	  /* slots left empty by hooks a signal handler jumped out of */
	uint64_t refused;	  /* chunks whose descriptor the program damaged: not read */
	uint64_t starved;	  /* times every chunk was held and waiting threads dropped */
	uint64_t pool_cap;	  /* bytes of chunks the pool could hold (--buffer-size) */
	uint64_t pool_used;	  /* bytes of the pool's memory that existed at the end */
};

/* ct_end_rec.flags */
#define CT_END_STANDALONE 1u /* the program started its recorder: no exit status, no CPU time */
/*
 * calltrace attach: the exit status and the CPU time are the attached process's,
 * over the attach (read from /proc at the attach and at the detach or its end)
 */
#define CT_END_ATTACHED	  2u
#define CT_END_DETACHED	  4u /* ... which was still running when calltrace let it go */
#define CT_END_NO_STATUS  8u /* ... which ended, how not known (another tracer reaped it) */
#define CT_END_NO_CPU	  16u /* the CPU time could not be read */

/*
 * record --kernel: system calls and off-CPU intervals of the traced threads,
 * from the kernel's tracepoints, times on the trace clock. The payload may be
 * zstd-compressed; rec_size lets later versions append fields.
 */
struct ct_kernel_hdr {
	uint32_t rec_size; /* bytes per record: at least CT_KREC_MIN_SIZE */
	uint32_t count;
	uint64_t lost; /* kernel events the ring buffers dropped since the last block */
};

enum ct_kernel_kind {
	CT_KREC_SYSCALL = 1, /* nr, ret, args */
	CT_KREC_OFFCPU = 2,  /* cause; nr: the system call it blocked in */
};

enum ct_kernel_cause {
	CT_OFFCPU_PREEMPTED = 1,  /* switched out runnable */
	CT_OFFCPU_SYSCALL = 2,	  /* blocked in system call nr */
	CT_OFFCPU_NOSYSCALL = 3, /* blocked outside a system call, why not known */
	CT_OFFCPU_FAULT = 4,	  /* blocked outside a system call, uninterruptible: a page fault */
	CT_OFFCPU_STOPPED = 5,	  /* stopped: a signal (SIGSTOP) or a tracer */
};

struct ct_kernel_rec {
	uint64_t start, end; /* trace clock */
	int32_t pid, tid;
	uint16_t kind;	/* enum ct_kernel_kind */
	uint16_t cause; /* off-CPU: enum ct_kernel_cause */
	uint32_t nr;	/* system call number (META arch's table) */
	int64_t ret;	/* system call: its return value (-errno); off-CPU: the state it left
			 * the CPU in (sched_switch's prev_state), -1 if not known */
	uint64_t args[4];
	/* appended (a reader of 72-byte records reads these as 0: not known) */
	uint32_t cpu_out; /* 1 + the CPU a system call began on, or the thread left */
	uint32_t cpu_in;  /* 1 + the CPU a system call ended on, or the thread came back on */
};

#define CT_KREC_MIN_SIZE 72u /* the first records had no CPUs */

/*
 * KARGS: what a system call's pointer argument pointed to, read by the
 * recorder from the program's memory while the call was still in progress
 * (its exit came after the read): the record of (tid, start) shows it.
 */
struct ct_karg_rec {
	uint64_t start; /* the system call's, as in its KERNEL record */
	int32_t tid;
	uint8_t what;  /* enum ct_karg_what */
	uint8_t flags; /* CT_KARG_* */
	uint16_t len;  /* bytes of data after this */
};

enum ct_karg_what {
	CT_KARG_PATH = 1,     /* a path: its bytes, no NUL */
	CT_KARG_TIMESPEC = 2, /* a struct timespec: i64 seconds, i64 nanoseconds */
};

#define CT_KARG_TRUNCATED 1u /* a path longer than the bytes kept */

uint32_t ct_crc32c(uint32_t crc, const void *buf, size_t len);

#endif
