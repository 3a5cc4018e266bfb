/* SPDX-License-Identifier: MIT */
/*
 * The raw event the runtime writes into shared memory: two 64-bit words.
 *
 *   word0 = clock << 16 | sp[4..19]          clock: low 48 bits of the TSC
 *   word1 = kind << 62 | sp[20..34] << 47 | address (47 bits)
 *
 * "sp" is the caller's stack pointer at the moment it called the hook (the
 * canonical frame address of the hook), 16-byte aligned by the ABI, so its low
 * four bits carry nothing. 31 bits of it (a 32 GiB window) are enough to
 * compare two frames of one thread's stack, which is all the reader needs to
 * notice frames abandoned by longjmp or by an exception that ran no exit hook.
 *
 * A record is valid only if word0 != 0 and kind != 0: chunks are zeroed before
 * reuse, so a reader salvaging the chunk of a killed thread stops at the first
 * record that was never completed.
 *
 * kind CT_EV_EXT introduces an extended record: word1 carries its type and
 * payload length in words; the payload follows. The runtime writes the payload
 * first and the two header words last, so a torn extended record also reads
 * as the end of the chunk.
 */
#ifndef CT_COMMON_EVENT_H
#define CT_COMMON_EVENT_H

#include <stdint.h>

#define CT_EV_ENTER 1u
#define CT_EV_EXIT  2u
#define CT_EV_EXT   3u

#define CT_EV_ADDR_BITS	 47
#define CT_EV_ADDR_MASK	 ((UINT64_C(1) << CT_EV_ADDR_BITS) - 1)
#define CT_EV_CLOCK_BITS 48
#define CT_EV_CLOCK_MASK ((UINT64_C(1) << CT_EV_CLOCK_BITS) - 1)
#define CT_EV_SP_BITS	 31
#define CT_EV_SP_MASK	 ((UINT64_C(1) << CT_EV_SP_BITS) - 1)

/* Extended record types (word1 bits 0..15), payload length in words at 16..31. */
enum ct_ext_type {
	CT_EXT_PROCESS = 1,    /* struct ct_ext_process + exe path + NUL + argv (NUL-separated) */
	CT_EXT_MODULE = 2,     /* struct ct_ext_module + path */
	CT_EXT_LOST = 3,       /* u64 number of events dropped just before this point */
	CT_EXT_THREAD_END = 4, /* the thread ran its last destructor */
	/*
	 * Marks: extended records with no payload whose stack pointer is packed
	 * like a call's. The frames below that stack pointer were abandoned.
	 */
	CT_EXT_JUMP = 5,  /* longjmp to a frame at sp (0: target unknown) */
	CT_EXT_CATCH = 6, /* a catch handler began in the frame at sp */
	CT_EXT_THROW = 7, /* an exception was thrown (or rethrown) from the frame at sp */
	/*
	 * The unwinder is about to run a landing pad (cleanup or catch) in the
	 * frame whose CFA and function start the payload gives (two u64).
	 */
	CT_EXT_LANDING = 8,
	CT_EXT_CRASH = 9, /* struct ct_ext_crash: the thread dies of a signal */
	CT_EXT_EXEC = 10,	 /* about to exec: path \0, then argv (NUL-separated) */
	CT_EXT_EXEC_FAILED = 11, /* the exec just announced failed: u64 errno */
	CT_EXT_THREAD_NAME = 12, /* struct ct_ext_thread_name: a thread was (re)named */
	/*
	 * A signal handler begins (a mark: the stack pointer of its frame, the
	 * signal number in the argument bits) and ends (a mark at the same sp).
	 */
	CT_EXT_SIGNAL = 13,
	CT_EXT_SIGNAL_END = 14,
	CT_EXT_FORK = 15,   /* struct ct_ext_fork: this thread made a process */
	CT_EXT_UNLOAD = 16, /* struct ct_ext_unload: dlclose unmapped a module */
	/* A mark: tracing went off for this thread (calltrace_disable*). */
	CT_EXT_PAUSE = 17,
	/*
	 * Tracing is back on for this thread: struct ct_ext_resume, then the
	 * calls entered while it was off and still open, outermost first.
	 */
	CT_EXT_RESUME = 18,
	CT_EXT_USER_MARK = 19, /* calltrace_mark(): u64 sp (16-byte units), then text, NUL */
	/*
	 * What a call was given and what it returned (record -a, --srcline):
	 * written in the same reservation as the call's enter (exit) event,
	 * right after it. Payload: see struct ct_captured (proto.h, captured.c).
	 */
	CT_EXT_ARGS = 20,
	CT_EXT_RETVAL = 21,
	/*
	 * Prototypes of functions whose arguments are captured: entries of
	 * u64 runtime address, u16 text length, the text (proto.h), padded
	 * to 8 bytes; as many as fit.
	 */
	CT_EXT_PROTOS = 22,
	/*
	 * Before an exec record: the new image will not be able to join the
	 * recording (struct ct_ext_exec_note, then the resolved path, NUL).
	 * Read by the recorder, not kept in the stream.
	 */
	CT_EXT_EXEC_NOTE = 23,
	/* Tracing stops in this process (struct ct_ext_exec_note: why, then the exe, NUL). */
	CT_EXT_UNTRACED = 24,
	/*
	 * attach: the calls under way in this thread when calltrace attached, as
	 * the tracer unwound them (u64 n, then n struct ct_ext_frame, outermost
	 * first); the window's calls nest in them. First in the thread's stream.
	 */
	CT_EXT_ATTACHED = 25,
};

/*
 * Frames that are not functions have addresses past any code address: a
 * signal handler's frame is CT_PSEUDO_SIGNAL + the signal's number.
 */
#define CT_PSEUDO_BASE	 (UINT64_C(1) << 48)
#define CT_PSEUDO_SIGNAL (CT_PSEUDO_BASE + 0x100)

static inline int ct_is_signal_frame(uint64_t addr)
{
	return addr >= CT_PSEUDO_SIGNAL && addr < CT_PSEUDO_SIGNAL + 0x100;
}

/* Marks may carry a small argument (a signal number) in word1 bits 32..46. */
#define CT_EV_MARK_ARG_SHIFT 32

/* Extended types written as marks: no payload, a stack pointer, maybe an argument. */
static inline int ct_ext_is_mark(uint32_t type)
{
	return (type >= CT_EXT_JUMP && type <= CT_EXT_THROW) || type == CT_EXT_SIGNAL ||
	       type == CT_EXT_SIGNAL_END || type == CT_EXT_PAUSE;
}

#define CT_EXT_MAX_WORDS 2048 /* 16 KiB of payload at most */

/* A stack pointer as records carry it: 16-byte units, 31 bits. */
static inline uint64_t ct_ev_sp_units(uint64_t cfa)
{
	return (cfa >> 4) & CT_EV_SP_MASK;
}

static inline uint64_t ct_ev_word0(uint64_t clock, uint64_t cfa)
{
	return clock << 16 | ((cfa >> 4) & 0xffff);
}

static inline uint64_t ct_ev_word1(uint64_t kind, uint64_t addr, uint64_t cfa)
{
	return kind << 62 | ((cfa >> 20) & 0x7fff) << CT_EV_ADDR_BITS | (addr & CT_EV_ADDR_MASK);
}

/* A mark is an extended record of no payload, type in the address bits. */
static inline uint64_t ct_ev_mark_word1(uint32_t type, uint64_t cfa)
{
	return ct_ev_word1(CT_EV_EXT, type, cfa);
}

static inline uint32_t ct_ev_mark_arg(uint64_t w1)
{
	return (uint32_t)((w1 & CT_EV_ADDR_MASK) >> CT_EV_MARK_ARG_SHIFT);
}

static inline uint64_t ct_ev_ext_word1(uint32_t type, uint32_t nwords)
{
	return (uint64_t)CT_EV_EXT << 62 | (uint64_t)nwords << 16 | type;
}

static inline unsigned ct_ev_kind(uint64_t w1)
{
	return (unsigned)(w1 >> 62);
}

static inline uint64_t ct_ev_addr(uint64_t w1)
{
	return w1 & CT_EV_ADDR_MASK;
}

static inline uint64_t ct_ev_clock48(uint64_t w0)
{
	return w0 >> 16;
}

/* The stack pointer in 16-byte units, 31 bits. */
static inline uint64_t ct_ev_sp(uint64_t w0, uint64_t w1)
{
	return ((w1 >> CT_EV_ADDR_BITS) & 0x7fff) << 16 | (w0 & 0xffff);
}

static inline uint32_t ct_ev_ext_type(uint64_t w1)
{
	return (uint32_t)(w1 & 0xffff);
}

static inline uint32_t ct_ev_ext_words(uint64_t w1)
{
	return (uint32_t)((w1 >> 16) & 0xffff);
}

/* A call open when tracing resumed: its function and stack pointer (16-byte units). */
struct ct_ext_frame {
	uint64_t fn;
	uint64_t sp;
};

struct ct_ext_resume {
	struct ct_ext_frame keep; /* the innermost call the reader saw open (fn 0: none) */
	uint64_t sp;		  /* where tracing resumed (16-byte units) */
	uint64_t nframes;	  /* struct ct_ext_frame follow */
};

struct ct_ext_process {
	int32_t pid;
	int32_t ppid;
	uint32_t parent_instance; /* the instance we were forked from, or 0 */
	uint32_t exe_len;	  /* bytes of exe path, NUL included */
	uint32_t args_len;	  /* bytes of argv, NUL-separated */
	int32_t parent_tid;	  /* forked: the thread that called fork */
	uint64_t realtime_ns;	  /* CLOCK_REALTIME at start */
	uint64_t fork_clock;	  /* forked: the trace clock just before the fork */
	uint32_t exec_instance;	  /* exec'd: the image that called exec, or 0 */
	uint32_t flags;		  /* CT_PROC_* */
};

#define CT_PROC_FORKED 1u /* a copy of parent_instance, made by fork */
#define CT_PROC_EXECED 2u /* the image exec_instance became by exec */

/* Why a process of the traced tree ran untraced, or stopped being traced. */
enum ct_untraced_reason {
	CT_UNTRACED_STATIC = 1,	 /* statically linked: nothing can be preloaded */
	CT_UNTRACED_SECURE = 2,	 /* setuid or setgid: the loader ignores LD_PRELOAD */
	CT_UNTRACED_FOREIGN = 3, /* not an x86-64 executable */
	CT_UNTRACED_NO_POOL = 4, /* the pool could not be handed on (err says why) */
	CT_UNTRACED_UNMAPPED = 16,  /* the program unmapped the pool */
	CT_UNTRACED_PROTECTED = 17, /* the program took write access to the pool away */
	CT_UNTRACED_REMAPPED = 18,  /* the program mapped something else over the pool */
};

struct ct_ext_exec_note {
	uint32_t reason; /* enum ct_untraced_reason */
	int32_t err;	 /* an errno, for CT_UNTRACED_NO_POOL */
};

struct ct_ext_fork {
	int32_t child_pid;
	uint32_t how; /* CT_FORK_* */
};

/* CT_FORK_SPAWN (posix_spawn: its argv follows, NUL-separated) and CT_FORK_SYSTEM (the command follows) */
enum { CT_FORK_FORK, CT_FORK_VFORK, CT_FORK_SPAWN, CT_FORK_SYSTEM };

struct ct_ext_thread_name {
	int32_t tid; /* the thread named (not always the one naming) */
	char name[20];
};

struct ct_ext_unload {
	uint64_t base, lo, hi; /* as the module was described */
};

struct ct_ext_crash {
	int32_t signo;
	int32_t code; /* si_code: > 0 from the CPU, <= 0 sent (kill, raise, abort) */
	int32_t pid;
	int32_t tid;
	uint64_t addr; /* si_addr: the faulting address, for SIGSEGV and SIGBUS */
	uint64_t pc;   /* where the thread was */
	uint64_t sp;
};

struct ct_ext_module {
	uint64_t base;	   /* load bias: runtime address - ELF address */
	uint64_t lo, hi;   /* runtime range of its segments (code, data, GOT) */
	uint32_t path_len; /* bytes of path, NUL included */
	uint8_t build_id_len;
	uint8_t reserved[3];
	uint8_t build_id[32];
};

#endif
