// SPDX-License-Identifier: MIT
/*
 * The perf events of record --kernel: on every CPU, raw_syscalls:sys_enter
 * (which also asks for context-switch records) and sys_exit writing to one
 * ring buffer. They are opened on the recorder itself, disabled, inherited and
 * enabled on exec: the program the recorder forks and execs next, and every
 * thread and child it makes, are followed by the kernel without our help;
 * the recorder never execs, so its own events stay off.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kernel_int.h"
#include "../common/pool.h"
#include "../util/util.h"

static int ct_perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * Our next exec (tids NULL): on ourselves, disabled, enabled by the exec.
 * attach: on the threads running, enabled at once.
 */
static void ct_attr(struct perf_event_attr *a, int id, int monotonic, int attach)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = (uint64_t)id;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
	a->disabled = 1;
	a->inherit = 1;
	a->enable_on_exec = 1;
	a->sample_id_all = 1;
	a->wakeup_watermark = 1u << 30; /* we poll: no wake-ups */
	a->watermark = 1;
	if (monotonic) {
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
	}
	if (attach)
		a->disabled = a->enable_on_exec = 0;
}

/* Why perf_event_open refused, in words a user can act on. */
void ct_kperf_why(char *why, size_t whylen, int err)
{
	if (err == EACCES || err == EPERM) {
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
		int level = 2;
		if (f) {
			if (fscanf(f, "%d", &level) != 1)
				level = 2;
			fclose(f);
		}
		snprintf(why, whylen,
			 "--kernel needs root, CAP_PERFMON or kernel.perf_event_paranoid <= 1 "
			 "(it is %d)",
			 level);
	} else {
		snprintf(why, whylen, "--kernel: perf_event_open: %s", strerror(err));
	}
}

static int ct_map_ring(struct ct_kcpu *c, char *why, size_t whylen)
{
	long page = sysconf(_SC_PAGESIZE);
	for (size_t pages = CT_KRING_PAGES; pages >= 8; pages /= 2) {
		size_t len = (pages + 1) * (size_t)page;
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, c->enter_fd, 0);
		if (m != MAP_FAILED) {
			c->base = m;
			c->len = len;
			c->page = m;
			c->data = (uint8_t *)m + page;
			c->mask = pages * (size_t)page - 1;
			return 0;
		}
	}
	snprintf(why, whylen, "--kernel: cannot map a ring buffer: %s", strerror(errno));
	return -1;
}

/* A thread's sys_enter (with the context switches) and sys_exit on cpu: fds[0], fds[1]. */
/*
 * A thread's sys_enter (with the context switches), sys_exit and sched_switch
 * (if the kernel has it) on cpu: fds[0..2].
 */
static int ct_open_pair(struct ct_kernel *k, pid_t pid, int cpu, int fds[3])
{
	struct perf_event_attr a;
	int mono = k->clock != CT_CLOCK_TSC || k->fit;
	ct_attr(&a, k->enter_id, mono, k->tids != NULL);
	a.context_switch = 1;
	fds[0] = ct_perf_open(&a, pid, cpu);
	if (fds[0] < 0)
		return -errno;
	ct_attr(&a, k->exit_id, mono, k->tids != NULL);
	fds[1] = ct_perf_open(&a, pid, cpu);
	if (fds[1] < 0)
		return -errno;
	if (k->switch_id < 0)
		return 0;
	ct_attr(&a, k->switch_id, mono, k->tids != NULL);
	fds[2] = ct_perf_open(&a, pid, cpu);
	if (fds[2] < 0 && (errno == EACCES || errno == EPERM)) {
		/* sched_switch's fields need more than the system calls' (CAP_PERFMON) */
		k->switch_id = -1;
		return 0;
	}
	return fds[2] < 0 ? -errno : 0;
}

static int ct_share_ring(int fd, int ring_fd, char *why, size_t whylen)
{
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd) == 0)
		return 0;
	int err = errno;
	snprintf(why, whylen, "--kernel: cannot share a ring buffer: %s", strerror(err));
	return -err;
}

/* attach: the other threads' events on this CPU, into its ring; a thread gone is skipped. */
static int ct_open_more(struct ct_kernel *k, struct ct_kcpu *c, int cpu, char *why, size_t whylen)
{
	for (const int32_t *t = k->tids + 1; *t; t++) {
		int fds[3] = { -1, -1, -1 };
		int r = ct_open_pair(k, *t, cpu, fds);
		c->more = ct_realloc(c->more, (c->nmore + 3) * sizeof(*c->more));
		for (int i = 0; i < 3; i++)
			if (fds[i] >= 0)
				c->more[c->nmore++] = fds[i];
		if (r == -ESRCH)
			continue;
		if (r < 0) {
			ct_kperf_why(why, whylen, -r);
			return r;
		}
		for (int i = 0; i < 3; i++)
			if (fds[i] >= 0 &&
			    (r = ct_share_ring(fds[i], c->enter_fd, why, whylen)) < 0)
				return r;
	}
	return 0;
}

/* 0, or -errno with why said */
static int ct_open_cpu(struct ct_kernel *k, struct ct_kcpu *c, int cpu, char *why, size_t whylen)
{
	int fds[3] = { -1, -1, -1 };
	int r = ct_open_pair(k, k->tids ? k->tids[0] : 0, cpu, fds);
	c->enter_fd = fds[0];
	c->exit_fd = fds[1];
	c->switch_fd = fds[2];
	if (r < 0) {
		ct_kperf_why(why, whylen, -r);
		return r;
	}
	if (ct_map_ring(c, why, whylen) < 0)
		return -ENOMEM;
	if ((r = ct_share_ring(c->exit_fd, c->enter_fd, why, whylen)) < 0 ||
	    (c->switch_fd >= 0 && (r = ct_share_ring(c->switch_fd, c->enter_fd, why, whylen)) < 0))
		return r;
	return k->tids ? ct_open_more(k, c, cpu, why, whylen) : 0;
}

int ct_kperf_open(struct ct_kernel *k, char *why, size_t whylen)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	if (n < 1)
		n = 1;
	k->cpus = ct_calloc((size_t)n, sizeof(*k->cpus));
	for (long cpu = 0; cpu < n; cpu++) {
		struct ct_kcpu *c = &k->cpus[k->ncpus];
		c->enter_fd = c->exit_fd = c->switch_fd = -1;
		int r = ct_open_cpu(k, c, (int)cpu, why, whylen);
		if (r == 0) {
			k->ncpus++;
			continue;
		}
		ct_kcpu_close(c);
		if (r != -ENODEV) /* an offline CPU is skipped */
			return -1;
	}
	if (!k->ncpus)
		snprintf(why, whylen, "--kernel: no CPU to record on");
	return k->ncpus ? 0 : -1;
}

void ct_kperf_close(struct ct_kernel *k)
{
	for (int i = 0; i < k->ncpus; i++)
		ct_kcpu_close(&k->cpus[i]);
	free(k->cpus);
	k->cpus = NULL;
	k->ncpus = 0;
}

void ct_kcpu_close(struct ct_kcpu *c)
{
	for (size_t i = 0; i < c->nmore; i++)
		close(c->more[i]);
	free(c->more);
	if (c->base)
		munmap(c->base, c->len);
	if (c->switch_fd >= 0)
		close(c->switch_fd);
	if (c->exit_fd >= 0)
		close(c->exit_fd);
	if (c->enter_fd >= 0)
		close(c->enter_fd);
	memset(c, 0, sizeof(*c));
	c->enter_fd = c->exit_fd = c->switch_fd = -1;
}

/*
 * The TSC -> perf time conversion the kernel publishes (the sample times are
 * perf_clock(), which on x86 counts from the TSC): time = time_zero +
 * tsc * mult >> shift. Read under the page's sequence lock.
 */
int ct_kperf_tsc_params(struct ct_kernel *k)
{
	struct perf_event_mmap_page *pg = k->cpus[0].page;
	for (int tries = 0; tries < 1000; tries++) {
		uint32_t seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);
		int cap = pg->cap_user_time_zero;
		uint64_t zero = pg->time_zero;
		uint32_t mult = pg->time_mult;
		uint16_t shift = pg->time_shift;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&pg->lock, __ATOMIC_RELAXED) != seq)
			continue;
		if (!cap || !mult)
			return -1;
		k->time_zero = zero;
		k->time_mult = mult;
		k->time_shift = shift;
		return 0;
	}
	return -1;
}
