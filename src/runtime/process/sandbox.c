/* SPDX-License-Identifier: MIT */
/*
 * A program that takes our shared memory away keeps running.
 *
 * Sandboxing code unmaps or write-protects the shared mappings it does not
 * know, or maps something of its own over them. The hooks write into the
 * pool without checking anything (the hot path has no room for a check),
 * so a hook after that would fault. munmap, mprotect, mmap and mremap are
 * wrapped instead: a call that touches the pool first stops tracing in this
 * process and says so in the trace (an untraced record, the thread's chunk
 * published), then puts private zeroed memory where the pool was, so that
 * a hook still under way in another thread writes there, nowhere shared.
 * Then the program's call is made:
 *
 * - with one thread (the usual case at a sandbox's set-up), as asked: the
 *   mapping goes, or turns read-only, as it would have;
 * - with several, munmap and mprotect leave the stand-in alone (the threads
 *   may still write into the chunk they hold) and apply to the rest of the
 *   range: the shared mapping is gone either way, which is what such a step
 *   is for; mmap and mremap over it are done as asked, once each thread's
 *   writer state has been cleared.
 *
 * These calls are never on the hot path: a wrapped call costs a load and a
 * compare until it touches the pool.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../runtime.h"
#include "../hotpath/hotpath.h"
#include "process.h"
#include "../args/args.h"
#include "handoff.h"

typedef int (*ct_munmap_fn)(void *, size_t);
typedef int (*ct_mprotect_fn)(void *, size_t, int);
typedef void *(*ct_mmap_fn)(void *, size_t, int, int, int, off_t);
typedef void *(*ct_mremap_fn)(void *, size_t, size_t, int, ...);

static int ct_real_munmap(void *addr, size_t len)
{
	static ct_munmap_fn real;
	if (!real)
		real = (ct_munmap_fn)ct_next_symbol("munmap");
	return real ? real(addr, len) : (int)syscall(SYS_munmap, addr, len);
}

static int ct_real_mprotect(void *addr, size_t len, int prot)
{
	static ct_mprotect_fn real;
	if (!real)
		real = (ct_mprotect_fn)ct_next_symbol("mprotect");
	return real ? real(addr, len, prot) : (int)syscall(SYS_mprotect, addr, len, prot);
}

/* Does [addr, addr + len) touch the pool's mapping? Only while we trace. */
static int ct_touches_pool(const void *addr, size_t len)
{
	if (atomic_load_explicit(&ct_state, memory_order_acquire) != CT_RT_READY)
		return 0;
	uintptr_t a = (uintptr_t)addr, lo = (uintptr_t)ct_ctl, hi = lo + ct_geo.size;
	return ct_ctl && len && a < hi && a + len > lo && a + len > a;
}

/* How many threads the process has (/proc/self/stat's num_threads); 0 if it cannot be told. */
static int ct_thread_count(void)
{
	return (int)ct_self_stat_field(20);
}

/*
 * Tracing stops here: said in this thread's stream (the record, then the
 * chunk published), the runtime off, and private zeroed memory where the
 * pool was.
 */
static void ct_stop_tracing(uint32_t reason)
{
	struct ct_exec_note_buf note;
	memset(&note, 0, sizeof(note));
	note.h.reason = reason;
	ssize_t n = readlink("/proc/self/exe", note.path, sizeof(note.path) - 1);
	note.path[n > 0 ? n : 0] = 0;
	ct_before_image_change(CT_EXT_UNTRACED, &note,
			       (uint32_t)(sizeof(note.h) + strlen(note.path) + 1));
	atomic_store(&ct_state, CT_RT_OFF);
	struct ct_pool_ctl *stand_in = ct_ctl;
	if (mmap(stand_in, ct_geo.size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)
		atomic_store(&stand_in->state, CT_POOL_DETACHED);
}

/*
 * Before mmap or mremap replaces the pool with the program's own memory:
 * every thread we know lets go of its chunk, and a hook under way has a
 * moment to finish.
 */
static void ct_threads_let_go(void)
{
	ct_forget_chunks_of_all_threads();
	struct timespec ts = { 0, 2 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}

/* The pool's range and the parts of [a, a + len) on either side of it. */
struct ct_split {
	uintptr_t lo, hi;
};

static struct ct_split ct_pool_range(void)
{
	uintptr_t lo = (uintptr_t)ct_ctl;
	return (struct ct_split){ lo, lo + ct_geo.size };
}

CT_EXPORT int munmap(void *addr, size_t len)
{
	if (!ct_touches_pool(addr, len))
		return ct_real_munmap(addr, len);
	struct ct_split pool = ct_pool_range();
	int one = ct_thread_count() == 1;
	ct_stop_tracing(CT_UNTRACED_UNMAPPED);
	if (one)
		return ct_real_munmap(addr, len);
	uintptr_t a = (uintptr_t)addr, b = a + len;
	int r = 0;
	if (a < pool.lo)
		r |= ct_real_munmap(addr, pool.lo - a);
	if (b > pool.hi)
		r |= ct_real_munmap((void *)pool.hi, b - pool.hi);
	return r ? -1 : 0;
}

CT_EXPORT int mprotect(void *addr, size_t len, int prot)
{
	if ((prot & PROT_WRITE) || !ct_touches_pool(addr, len))
		return ct_real_mprotect(addr, len, prot);
	struct ct_split pool = ct_pool_range();
	int one = ct_thread_count() == 1;
	ct_stop_tracing(CT_UNTRACED_PROTECTED);
	if (one)
		return ct_real_mprotect(addr, len, prot);
	uintptr_t a = (uintptr_t)addr, b = a + len;
	int r = 0;
	if (a < pool.lo)
		r |= ct_real_mprotect(addr, pool.lo - a, prot);
	if (b > pool.hi)
		r |= ct_real_mprotect((void *)pool.hi, b - pool.hi, prot);
	return r ? -1 : 0;
}

CT_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static ct_mmap_fn real;
	if (!real)
		real = (ct_mmap_fn)ct_next_symbol("mmap");
	if ((flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) == MAP_FIXED &&
	    ct_touches_pool(addr, len)) {
		int one = ct_thread_count() == 1;
		ct_stop_tracing(CT_UNTRACED_REMAPPED);
		if (!one)
			ct_threads_let_go();
	}
	if (!real)
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	return real(addr, len, prot, flags, fd, off);
}

CT_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

CT_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	static ct_mremap_fn real;
	va_list ap;
	va_start(ap, flags);
	void *new_addr = (flags & MREMAP_FIXED) ? va_arg(ap, void *) : NULL;
	va_end(ap);
	if (!real)
		real = (ct_mremap_fn)ct_next_symbol("mremap");
	if (ct_touches_pool(old, old_len) ||
	    ((flags & MREMAP_FIXED) && ct_touches_pool(new_addr, new_len))) {
		int one = ct_thread_count() == 1;
		ct_stop_tracing(CT_UNTRACED_REMAPPED);
		if (!one)
			ct_threads_let_go();
	}
	if (!real)
		return (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
	return real(old, old_len, new_len, flags, new_addr);
}
