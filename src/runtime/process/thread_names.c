/* SPDX-License-Identifier: MIT */
/*
 * Thread names: pthread_setname_np and prctl(PR_SET_NAME) are told as they
 * happen, with the tid of the thread named. A thread can name another, by
 * its pthread_t: every thread that has written events is in a table from
 * pthread_t to tid; one that has not yet is found by the name just given
 * to it, in /proc/self/task.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../runtime.h"
#include "process.h"

#define CT_MAX_THREADS 4096
#define CT_PR_SET_NAME 15

struct ct_thread_slot {
	_Atomic(uintptr_t) self; /* pthread_t, 0: free */
	_Atomic int32_t tid;
};

static struct ct_thread_slot ct_threads[CT_MAX_THREADS];

void ct_register_thread(int32_t tid)
{
	uintptr_t me = (uintptr_t)pthread_self();
	for (size_t i = 0; i < CT_MAX_THREADS; i++) {
		uintptr_t cur = atomic_load(&ct_threads[i].self);
		if (cur == me || (!cur && atomic_compare_exchange_strong(&ct_threads[i].self, &cur,
									  me))) {
			atomic_store(&ct_threads[i].tid, tid);
			return;
		}
	}
}

void ct_unregister_thread(void)
{
	uintptr_t me = (uintptr_t)pthread_self();
	for (size_t i = 0; i < CT_MAX_THREADS; i++)
		if (atomic_load(&ct_threads[i].self) == me) {
			atomic_store(&ct_threads[i].tid, 0);
			atomic_store(&ct_threads[i].self, 0);
			return;
		}
}

/*
 * Tracing stopped and the pool is about to be replaced: no thread we know
 * writes into the chunk it holds again (its ct_self is at the same offset
 * from its thread pointer, which is its pthread_t).
 */
void ct_forget_chunks_of_all_threads(void)
{
	ptrdiff_t off = (char *)&ct_self - (char *)__builtin_thread_pointer();
	for (size_t i = 0; i < CT_MAX_THREADS; i++) {
		uintptr_t self = atomic_load(&ct_threads[i].self);
		if (!self)
			continue;
		struct ct_thread *t = (struct ct_thread *)(self + (uintptr_t)off);
		__atomic_store_n(&t->end, NULL, __ATOMIC_RELAXED);
		__atomic_store_n(&t->pos, NULL, __ATOMIC_RELAXED);
		t->chunk = 0;
	}
}

/* A thread of this process whose name is name, or 0. */
static int32_t ct_tid_by_name(const char *name)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int32_t found = 0;

	while (d && !found && (e = readdir(d))) {
		char path[300], comm[32];
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (n <= 0)
			continue;
		comm[n] = 0;
		comm[strcspn(comm, "\n")] = 0;
		if (!strncmp(comm, name, 15) && strlen(comm) == strnlen(name, 15))
			found = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

static int32_t ct_tid_of(pthread_t th, const char *name)
{
	if (pthread_equal(th, pthread_self()))
		return (int32_t)syscall(SYS_gettid);
	for (size_t i = 0; i < CT_MAX_THREADS; i++)
		if (atomic_load(&ct_threads[i].self) == (uintptr_t)th)
			return atomic_load(&ct_threads[i].tid);
	return ct_tid_by_name(name);
}

static void ct_tell_name(int32_t tid, const char *name)
{
	struct ct_ext_thread_name n = { .tid = tid };
	if (!tid || atomic_load(&ct_state) != CT_RT_READY)
		return;
	strncpy(n.name, name, sizeof(n.name) - 1);
	ct_emit_ext(CT_EXT_THREAD_NAME, &n, sizeof(n), 1);
}

typedef int (*ct_setname_fn)(pthread_t, const char *);

CT_EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
	ct_setname_fn real = (ct_setname_fn)ct_next_symbol("pthread_setname_np");
	int r = real(th, name);
	if (r == 0)
		ct_tell_name(ct_tid_of(th, name), name);
	return r;
}

int prctl(int option, ...); /* as <sys/prctl.h> has it */

typedef int (*ct_prctl_fn)(int, unsigned long, unsigned long, unsigned long, unsigned long);

/* prctl's five arguments, whatever the option: what the C library passes on too */
CT_EXPORT int prctl(int option, ...)
{
	ct_prctl_fn real = (ct_prctl_fn)ct_next_symbol("prctl");
	unsigned long a[4];
	va_list ap;

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	int r = real(option, a[0], a[1], a[2], a[3]);
	if (r == 0 && option == CT_PR_SET_NAME && a[0]) {
		char name[16];
		strncpy(name, (const char *)a[0], sizeof(name) - 1);
		name[15] = 0;
		ct_tell_name((int32_t)syscall(SYS_gettid), name);
	}
	return r;
}
