/* SPDX-License-Identifier: MIT */
/*
 * Capturing what a call is given and what it returns (record -a): the enter
 * (exit) event and a CT_EXT_ARGS (CT_EXT_RETVAL) record after it, in ONE
 * reservation, so nothing a signal handler writes can come between them.
 * Only functions with a capture come here; the others keep the plain path.
 *
 * Strings are read without ever faulting the program: directly where memory
 * is known to stay readable (the loaded modules' segments, the brk heap, the
 * main thread's stack above us), else with process_vm_readv on ourselves, a
 * system call that fails on a bad pointer instead of faulting. A record's
 * writes go in the
 * order ext header, payload, event: a hook a signal handler jumps out of
 * leaves either nothing readers take for an event, or an extended record
 * whose stack tag matches no event before it (readers drop it).
 */
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../runtime.h"
#include "../hotpath/hotpath.h"
#include "args.h"

extern void *__libc_stack_end;

/* Where SAVE_CALL_CLOBBERED (fentry.S) keeps each register, in words. */
#if defined(__aarch64__) /* src/arch/aarch64/entry.S */
#define CT_INT_ARGS 8
static const uint8_t ct_int_arg_slot[CT_INT_ARGS] = { 0, 1, 2, 3, 4, 5, 6, 7 }; /* x0-x7 */
#define CT_SLOT_RAX  0 /* x0 */
#define CT_SLOT_RDX  1 /* x1 */
#define CT_SLOT_XMM0 20 /* v n at 20 + 2n, its high half at 21 + 2n */
/*
 * The entry stubs hand over the word after the slot, which on x86-64 is the
 * first stack argument; aarch64's slot is 16 bytes, just below the sp the
 * caller had at the call, where the stack arguments start.
 */
#define CT_STACK_ARGS_SKIP 1
#else
#define CT_INT_ARGS 6
/* rdi rsi rdx rcx r8 r9 */
static const uint8_t ct_int_arg_slot[CT_INT_ARGS] = { 4, 3, 2, 1, 5, 6 };
#define CT_SLOT_RAX  0
#define CT_SLOT_RDX  2
#define CT_SLOT_XMM0 10 /* xmm n at 10 + 2n */
#define CT_STACK_ARGS_SKIP 0
#endif

#define CT_STR_TOTAL 2048 /* string bytes one call keeps at most */
#define CT_REC_WORDS (4 + 2 + 8 + 16 + CT_CAPTURE_MAX_STACK + 8 + CT_STR_TOTAL / 8 + 8)

/*
 * Memory that stays readable while its module is loaded: the PT_LOAD
 * segments of every module, sorted, in two tables. The patching code
 * rebuilds the one not in use (ct_capture_note_modules) and flips; readers
 * check the generation around their lookup, like a seqlock.
 */
#define CT_MAX_RANGES 512
struct ct_range {
	uintptr_t lo, hi;
};
static struct ct_range ct_ranges[2][CT_MAX_RANGES];
static uint32_t ct_nranges[2];
static uint32_t ct_ranges_gen; /* table (gen >> 1) & 1 is current */
static uintptr_t ct_heap_lo;

static int ct_note_range(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	uint32_t t = *(uint32_t *)data;
	for (int i = 0; i < info->dlpi_phnum && ct_nranges[t] < CT_MAX_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R))
			continue;
		struct ct_range r = { info->dlpi_addr + ph->p_vaddr,
				      info->dlpi_addr + ph->p_vaddr + ph->p_memsz };
		uint32_t at = ct_nranges[t]++;
		while (at && ct_ranges[t][at - 1].lo > r.lo) { /* insertion: a few dozen */
			ct_ranges[t][at] = ct_ranges[t][at - 1];
			at--;
		}
		ct_ranges[t][at] = r;
	}
	return 0;
}

/* Field n (1-based, as proc(5) numbers them) of /proc/self/stat; 0 if it cannot be read. */
uint64_t ct_self_stat_field(int n)
{
	char buf[1024];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (len <= 0)
		return 0;
	buf[len] = 0;
	const char *p = strrchr(buf, ')'); /* the name (field 2) may hold anything */
	for (int field = 2; p && field < n; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* Where the brk heap starts (start_brk): it runs from there to sbrk(0). */
static uintptr_t ct_start_brk(void)
{
	return (uintptr_t)ct_self_stat_field(47);
}

void ct_capture_note_modules(void)
{
	uint32_t g = __atomic_load_n(&ct_ranges_gen, __ATOMIC_RELAXED);
	uint32_t next = ((g >> 1) + 1) & 1;
	if (!ct_heap_lo)
		ct_heap_lo = ct_start_brk();
	ct_nranges[next] = 0;
	dl_iterate_phdr(ct_note_range, &next);
	__atomic_store_n(&ct_ranges_gen, g + 2, __ATOMIC_RELEASE);
}

/*
 * How many bytes from ptr on (up to want) are known to stay readable; 0 if
 * none. The main thread's stack counts when we run on it: within the default
 * stack limit of its top (an alternate signal stack or a coroutine's is
 * mapped elsewhere, with unmapped memory between).
 */
static uintptr_t ct_known_readable(uintptr_t ptr, uintptr_t want)
{
	struct ct_thread *t = &ct_self;
	uintptr_t here = (uintptr_t)__builtin_frame_address(0), hi = 0;
	uintptr_t top = (uintptr_t)__libc_stack_end;
	if (t->tid == t->pid && here < top && top - here <= (8u << 20) && ptr >= here && ptr < top)
		hi = top; /* the main thread's stack, above us */
	else if (ct_heap_lo && ptr >= ct_heap_lo && ptr < (uintptr_t)sbrk(0))
		hi = (uintptr_t)sbrk(0);
	if (!hi) {
		uint32_t g = __atomic_load_n(&ct_ranges_gen, __ATOMIC_ACQUIRE);
		const struct ct_range *r = ct_ranges[(g >> 1) & 1];
		uint32_t lo = 0, n = ct_nranges[(g >> 1) & 1];
		while (lo < n) { /* the last range starting at or below ptr */
			uint32_t mid = (lo + n) / 2;
			if (r[mid].lo <= ptr)
				lo = mid + 1;
			else
				n = mid;
		}
		if (lo && ptr < r[lo - 1].hi)
			hi = r[lo - 1].hi;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&ct_ranges_gen, __ATOMIC_RELAXED) != g)
			hi = 0;
	}
	return hi ? (hi - ptr < want ? hi - ptr : want) : 0;
}

/* Bytes at ptr, through the kernel: -1 if none is readable. */
static ssize_t ct_read_checked(uintptr_t ptr, char *out, uintptr_t want)
{
	uintptr_t page = 4096, first = page - (ptr & (page - 1));
	struct iovec local = { out, want };
	struct iovec remote[2] = { { (void *)ptr, first < want ? first : want },
				   { (void *)(ptr + first), first < want ? want - first : 0 } };
	pid_t pid = ct_self.pid ? ct_self.pid : getpid();
	return process_vm_readv(pid, &local, 1, remote, first < want ? 2 : 1, 0);
}

/*
 * Up to max bytes of the string at ptr into out (room for max + 1), without
 * faulting on a bad pointer: the bytes kept, flags CT_STR_*.
 */
static uint32_t ct_read_string(uintptr_t ptr, char *out, uint32_t max, uint8_t *flags)
{
	uintptr_t want = (uintptr_t)max + 1, known;
	ssize_t n;

	*flags = 0;
	if (!ptr) {
		*flags = CT_STR_NULL;
		return 0;
	}
	if ((known = ct_known_readable(ptr, want))) {
		const char *s = (const char *)ptr;
		for (n = 0; n < (ssize_t)known && (out[n] = s[n]); n++)
			;
		if (n < (ssize_t)known)
			n++; /* the NUL too: the string ended */
	} else {
		n = ct_read_checked(ptr, out, want);
	}
	if (n <= 0) {
		*flags = CT_STR_UNREADABLE;
		return 0;
	}
	size_t len = strnlen(out, (size_t)n);
	if (len == (size_t)n) { /* no end seen: cut at max, or where memory ends */
		*flags = CT_STR_CUT;
		len = len > max ? max : len;
	}
	return (uint32_t)len;
}

/* A string into the record at w: its head word and bytes; the words used. */
static uint32_t ct_put_string(uint64_t *w, uintptr_t ptr, uint32_t max)
{
	uint8_t flags;
	uint32_t len = ct_read_string(ptr, (char *)(w + 1), max, &flags);
	uint32_t words = (len + 7) / 8;
	memset((char *)(w + 1) + len, 0, words * 8 - len);
	w[0] = len | (uint64_t)flags << 32;
	return 1 + words;
}

/* Write rec (the event, then the extended record) into the thread's chunk. */
static void ct_emit_words(uint64_t *rec, uint32_t nwords, uintptr_t sp)
{
	struct ct_thread *t = &ct_self;
	ct_arch_inc(&t->nest);
	uint64_t clock = ct_clock();
	rec[0] = ct_ev_word0(clock, sp);
	rec[2] = ct_ev_word0(clock, 0);
	uint64_t *p = ct_arch_reserve(&t->pos, nwords * 8);
	if (ct_likely((uintptr_t)(p + nwords) <= (uintptr_t)t->end)) {
		p[2] = rec[2];
		p[3] = rec[3];
		for (uint32_t i = 4; i < nwords; i++) /* a few words: no call to memcpy */
			p[i] = rec[i];
		__asm__ volatile("" ::: "memory");
		p[1] = rec[1];
		p[0] = rec[0];
	} else {
		ct_slow_record_words(t, rec, nwords);
	}
	if (ct_unlikely(ct_arch_dec(&t->nest)))
		ct_after_nested(t);
}

/* The payload's second word: the counts, and the call's stack pointer to match it by. */
static uint64_t ct_counts(uint32_t nint, uint32_t nsse, uint32_t nstack, uint32_t strs,
			  uintptr_t sp)
{
	return nint | nsse << 8 | nstack << 16 | strs << 24 | ct_ev_sp_units(sp) << 32;
}

void ct_emit_enter_args(uintptr_t fn, uintptr_t sp, uint16_t ci, const uint64_t *regs,
			const uint64_t *args, uintptr_t ret)
{
	const struct ct_capture *c = &ct_captures[ci];
	uint64_t rec[CT_REC_WORDS];
	uint32_t n = 6, budget = CT_STR_TOTAL;

	rec[1] = ct_ev_word1(CT_EV_ENTER, fn, sp);
	rec[4] = ret;
	rec[5] = ct_counts(c->nint, c->nsse | (c->wide ? CT_CAPTURE_WIDE : 0), c->nstack, c->strs,
			   sp);
	for (uint32_t i = 0; i < c->nint && i < CT_INT_ARGS; i++)
		rec[n++] = regs[ct_int_arg_slot[i]];
	for (uint32_t i = 0; i < c->nsse; i++) {
		rec[n++] = regs[CT_SLOT_XMM0 + 2 * i];
		if (c->wide)
			rec[n++] = regs[CT_SLOT_XMM0 + 2 * i + 1];
	}
	if (args)
		args += CT_STACK_ARGS_SKIP;
	for (uint32_t i = 0; i < c->nstack; i++)
		rec[n++] = args[i];
	for (uint32_t i = 0; i < CT_INT_ARGS; i++) {
		if (!(c->strs & (1u << i)))
			continue;
		uint32_t max = ct_str_max < budget ? ct_str_max : budget;
		uint32_t used = ct_put_string(rec + n, regs[ct_int_arg_slot[i]], max);
		budget -= (used - 1) * 8 < budget ? (used - 1) * 8 : budget;
		n += used;
	}
	if (n & 1)
		rec[n++] = 0; /* records are whole 16-byte slots */
	rec[3] = ct_ev_ext_word1(CT_EXT_ARGS, n - 4);
	ct_emit_words(rec, n, sp);
}

void ct_emit_exit_retval(uintptr_t fn, uintptr_t sp, uint16_t ci, const uint64_t *regs)
{
	/* by enum ct_ret_kind: CT_RET_SSE3 on are aarch64's v0-v3, whole from CT_RET_WIDE1 */
	static const uint8_t nint[] = { 0, 1, 2, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0 };
	static const uint8_t nsse[] = { 0, 0, 0, 1, 2, 2, 0, 3, 4, 1, 2, 3, 4 };
	uint32_t kind = ct_captures[ci].ret <= CT_RET_WIDE4 ? ct_captures[ci].ret : CT_RET_NONE;
	uint32_t strs = kind == CT_RET_STR, wide = kind >= CT_RET_WIDE1;
	uint64_t rec[8 + 8 + 1 + CT_STR_TOTAL / 8 + 1];
	uint32_t n = 6;

	rec[1] = ct_ev_word1(CT_EV_EXIT, fn, sp);
	rec[4] = 0;
	rec[5] = ct_counts(nint[kind], nsse[kind] | (wide ? CT_CAPTURE_WIDE : 0), 0, strs, sp);
	if (nint[kind])
		rec[n++] = regs[CT_SLOT_RAX];
	if (nint[kind] > 1)
		rec[n++] = regs[CT_SLOT_RDX];
	for (uint32_t i = 0; i < nsse[kind]; i++) {
		rec[n++] = regs[CT_SLOT_XMM0 + 2 * i];
		if (wide)
			rec[n++] = regs[CT_SLOT_XMM0 + 2 * i + 1];
	}
	if (strs)
		n += ct_put_string(rec + n, regs[CT_SLOT_RAX],
				   ct_str_max < CT_STR_TOTAL ? ct_str_max : CT_STR_TOTAL);
	if (n & 1)
		rec[n++] = 0;
	rec[3] = ct_ev_ext_word1(CT_EXT_RETVAL, n - 4);
	ct_emit_words(rec, n, sp);
}
