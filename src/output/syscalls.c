// SPDX-License-Identifier: MIT
/*
 * System calls as readers show them: the name, the first arguments of the
 * common ones (the numbers the tracepoint gives: a path or a timespec is in
 * the program's memory, not in the trace), the return value or error.
 */
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "syscall_names.h"
#include "syscalls.h"

const char *ct_syscall_name(uint32_t nr)
{
	if (nr >= sizeof(ct_syscall_names_x86_64) / sizeof(ct_syscall_names_x86_64[0]))
		return NULL;
	return ct_syscall_names_x86_64[nr];
}

static const char *ct_futex_op(uint64_t op)
{
	static const char *const ops[] = { "WAIT",	     "WAKE",	    "FD",
					   "REQUEUE",	     "CMP_REQUEUE", "WAKE_OP",
					   "LOCK_PI",	     "UNLOCK_PI",   "TRYLOCK_PI",
					   "WAIT_BITSET",    "WAKE_BITSET", "WAIT_REQUEUE_PI",
					   "CMP_REQUEUE_PI", "LOCK_PI2" };
	static char buf[48];
	uint64_t cmd = op & 127;
	if (cmd >= sizeof(ops) / sizeof(ops[0]))
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)op);
	else
		snprintf(buf, sizeof(buf), "FUTEX_%s%s", ops[cmd], op & 128 ? "_PRIVATE" : "");
	return buf;
}

static const char *ct_clock_id(uint64_t id)
{
	static const char *const ids[] = { "CLOCK_REALTIME",	       "CLOCK_MONOTONIC",
					   "CLOCK_PROCESS_CPUTIME_ID", "CLOCK_THREAD_CPUTIME_ID",
					   "CLOCK_MONOTONIC_RAW",      "CLOCK_REALTIME_COARSE",
					   "CLOCK_MONOTONIC_COARSE",   "CLOCK_BOOTTIME" };
	static char buf[24];
	if (id < sizeof(ids) / sizeof(ids[0]))
		return ids[id];
	snprintf(buf, sizeof(buf), "%lld", (long long)id);
	return buf;
}

/* The arguments worth showing of the common calls; 0 for the others. */
static int ct_format_args(char *out, size_t len, uint32_t nr, const uint64_t *a)
{
	int fd = (int)a[0];
	switch (nr) {
	case SYS_read:
	case SYS_write:
	case SYS_pread64:
	case SYS_pwrite64:
		return snprintf(out, len, "fd=%d, count=%llu", fd, (unsigned long long)a[2]);
	case SYS_readv:
	case SYS_writev:
	case SYS_preadv:
	case SYS_pwritev:
		return snprintf(out, len, "fd=%d, iovcnt=%d", fd, (int)a[2]);
	case SYS_close:
	case SYS_fsync:
	case SYS_fdatasync:
	case SYS_fstat:
	case SYS_accept:
	case SYS_accept4:
	case SYS_connect:
	case SYS_dup:
		return snprintf(out, len, "fd=%d", fd);
	case SYS_lseek:
		return snprintf(out, len, "fd=%d, offset=%lld, whence=%d", fd, (long long)a[1],
				(int)a[2]);
	case SYS_openat:
		return snprintf(out, len, "dfd=%s, flags=%#llx",
				(int)a[0] == -100 ? "AT_FDCWD" : "n", (unsigned long long)a[2]);
	case SYS_futex:
		return snprintf(out, len, "uaddr=%#llx, op=%s, val=%d", (unsigned long long)a[0],
				ct_futex_op(a[1]), (int)a[2]);
#ifdef SYS_poll /* aarch64 has ppoll alone */
	case SYS_poll:
		return snprintf(out, len, "nfds=%llu, timeout=%d", (unsigned long long)a[1],
				(int)a[2]);
#endif
	case SYS_ppoll:
		return snprintf(out, len, "nfds=%llu", (unsigned long long)a[1]);
#ifdef SYS_epoll_wait /* aarch64 has epoll_pwait alone */
	case SYS_epoll_wait:
#endif
	case SYS_epoll_pwait:
		return snprintf(out, len, "epfd=%d, maxevents=%d, timeout=%d", fd, (int)a[2],
				(int)a[3]);
	case SYS_clock_nanosleep:
		return snprintf(out, len, "clock=%s, flags=%d", ct_clock_id(a[0]), (int)a[1]);
	case SYS_sendto:
	case SYS_recvfrom:
		return snprintf(out, len, "fd=%d, len=%llu", fd, (unsigned long long)a[2]);
	case SYS_sendmsg:
	case SYS_recvmsg:
		return snprintf(out, len, "fd=%d", fd);
	case SYS_ioctl:
		return snprintf(out, len, "fd=%d, cmd=%#llx", fd, (unsigned long long)a[1]);
	case SYS_mmap:
		return snprintf(out, len, "len=%llu, prot=%d", (unsigned long long)a[1], (int)a[2]);
	case SYS_munmap:
		return snprintf(out, len, "addr=%#llx, len=%llu", (unsigned long long)a[0],
				(unsigned long long)a[1]);
	case SYS_wait4:
		return snprintf(out, len, "pid=%d", (int)a[0]);
	case SYS_kill:
		return snprintf(out, len, "pid=%d, sig=%d", (int)a[0], (int)a[1]);
	case SYS_tgkill:
		return snprintf(out, len, "tgid=%d, tid=%d, sig=%d", (int)a[0], (int)a[1],
				(int)a[2]);
	case SYS_exit:
	case SYS_exit_group:
		return snprintf(out, len, "status=%d", (int)a[0]);
	}
	if (len)
		*out = 0;
	return 0;
}

void ct_syscall_format(char *out, size_t len, const struct ct_kernel_rec *r)
{
	char args[160];
	const char *name = ct_syscall_name(r->nr);
	ct_format_args(args, sizeof(args), r->nr, r->args);
	if (name)
		snprintf(out, len, "%s(%s)", name, args);
	else
		snprintf(out, len, "syscall_%u(%s)", r->nr, args);
}

void ct_syscall_format_ret(char *out, size_t len, const struct ct_kernel_rec *r)
{
	if (r->ret < 0 && r->ret >= -4095) {
		const char *e = strerrorname_np((int)-r->ret);
		if (e)
			snprintf(out, len, "-1 %s", e);
		else
			snprintf(out, len, "-1 errno %lld", (long long)-r->ret);
	} else if (r->ret > (int64_t)0xffffffff || r->nr == SYS_mmap || r->nr == SYS_brk) {
		snprintf(out, len, "%#llx", (unsigned long long)r->ret);
	} else {
		snprintf(out, len, "%lld", (long long)r->ret);
	}
}

void ct_offcpu_format(char *out, size_t len, const struct ct_kernel_rec *r)
{
	const char *name;
	switch (r->cause) {
	case CT_OFFCPU_PREEMPTED:
		snprintf(out, len, "preempted");
		break;
	case CT_OFFCPU_SYSCALL:
		name = ct_syscall_name(r->nr);
		if (name)
			snprintf(out, len, "blocked in %s", name);
		else
			snprintf(out, len, "blocked in syscall_%u", r->nr);
		break;
	case CT_OFFCPU_NOSYSCALL:
		snprintf(out, len, "blocked outside a syscall");
		break;
	case CT_OFFCPU_FAULT:
		snprintf(out, len, "blocked in a page fault");
		break;
	case CT_OFFCPU_STOPPED:
		snprintf(out, len, "stopped (a signal or a tracer)");
		break;
	default:
		snprintf(out, len, "cause %u", r->cause);
	}
}
