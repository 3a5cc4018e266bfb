// SPDX-License-Identifier: MIT
/*
 * System calls as readers show them: the name, the first arguments of the
 * common ones (the numbers the tracepoint gives: a path or a timespec is in
 * the program's memory, not in the trace), the return value or error. The
 * numbers are the recording machine's (META arch), never the reader's: the
 * arguments are chosen by name, the same on every architecture.
 */
#include <stdio.h>
#include <string.h>

#include "syscall_names.h"
#include "syscalls.h"
#include "text.h"
#include "../format/reader.h"

#define CT_KPATH_SHOWN 1100 /* a path of 256 bytes, each escaped at worst as \xNN, quoted */

enum ct_sys_abi ct_sys_abi_of(const char *arch)
{
	return arch && (!strcmp(arch, "aarch64") || !strcmp(arch, "riscv64")) ? CT_ABI_GENERIC
									      : CT_ABI_X86_64;
}

enum ct_sys_abi ct_trace_sys_abi(const struct ct_trace *t)
{
	return ct_sys_abi_of(ct_trace_arch(t));
}

const char *ct_syscall_name(enum ct_sys_abi abi, uint32_t nr)
{
	const char *const *names = ct_syscall_names_x86_64;
	size_t n = CT_ARRAY_SIZE(ct_syscall_names_x86_64);
	if (abi == CT_ABI_GENERIC) {
		names = ct_syscall_names_generic;
		n = CT_ARRAY_SIZE(ct_syscall_names_generic);
	}
	return nr < n ? names[nr] : NULL;
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

/* How the arguments of a call worth them are shown. */
enum ct_args_kind {
	CT_ARGS_FD_COUNT, /* read, write, pread64, pwrite64 */
	CT_ARGS_FD_IOVCNT,
	CT_ARGS_FD,
	CT_ARGS_LSEEK,
	CT_ARGS_OPEN,
	CT_ARGS_OPENAT,
	CT_ARGS_FUTEX,
	CT_ARGS_POLL,
	CT_ARGS_PPOLL,
	CT_ARGS_EPOLL,
	CT_ARGS_CLOCK_NANOSLEEP,
	CT_ARGS_NANOSLEEP,
	CT_ARGS_FD_LEN,
	CT_ARGS_IOCTL,
	CT_ARGS_MMAP,
	CT_ARGS_MUNMAP,
	CT_ARGS_PID,
	CT_ARGS_KILL,
	CT_ARGS_TGKILL,
	CT_ARGS_STATUS,
};

static const struct {
	const char *name;
	enum ct_args_kind kind;
} ct_args_of[] = {
	{ "read", CT_ARGS_FD_COUNT },
	{ "write", CT_ARGS_FD_COUNT },
	{ "pread64", CT_ARGS_FD_COUNT },
	{ "pwrite64", CT_ARGS_FD_COUNT },
	{ "readv", CT_ARGS_FD_IOVCNT },
	{ "writev", CT_ARGS_FD_IOVCNT },
	{ "preadv", CT_ARGS_FD_IOVCNT },
	{ "pwritev", CT_ARGS_FD_IOVCNT },
	{ "close", CT_ARGS_FD },
	{ "fsync", CT_ARGS_FD },
	{ "fdatasync", CT_ARGS_FD },
	{ "fstat", CT_ARGS_FD },
	{ "accept", CT_ARGS_FD },
	{ "accept4", CT_ARGS_FD },
	{ "connect", CT_ARGS_FD },
	{ "dup", CT_ARGS_FD },
	{ "sendmsg", CT_ARGS_FD },
	{ "recvmsg", CT_ARGS_FD },
	{ "lseek", CT_ARGS_LSEEK },
	{ "open", CT_ARGS_OPEN },
	{ "openat", CT_ARGS_OPENAT },
	{ "futex", CT_ARGS_FUTEX },
	{ "poll", CT_ARGS_POLL },
	{ "ppoll", CT_ARGS_PPOLL },
	{ "epoll_wait", CT_ARGS_EPOLL },
	{ "epoll_pwait", CT_ARGS_EPOLL },
	{ "clock_nanosleep", CT_ARGS_CLOCK_NANOSLEEP },
	{ "nanosleep", CT_ARGS_NANOSLEEP },
	{ "sendto", CT_ARGS_FD_LEN },
	{ "recvfrom", CT_ARGS_FD_LEN },
	{ "ioctl", CT_ARGS_IOCTL },
	{ "mmap", CT_ARGS_MMAP },
	{ "munmap", CT_ARGS_MUNMAP },
	{ "wait4", CT_ARGS_PID },
	{ "kill", CT_ARGS_KILL },
	{ "tgkill", CT_ARGS_TGKILL },
	{ "exit", CT_ARGS_STATUS },
	{ "exit_group", CT_ARGS_STATUS },
};

/*
 * A path read from the program: "...", control bytes, quotes and invalid
 * UTF-8 escaped, "..."... if longer than what was kept.
 */
static void ct_format_path(char *out, size_t len, const uint8_t *p, size_t n, int truncated)
{
	size_t o = 0;
#define CT_PUT(...)                                                                                \
	do {                                                                                       \
		int w_ = snprintf(out + o, len > o ? len - o : 0, __VA_ARGS__);                    \
		o += w_ > 0 ? (size_t)w_ : 0;                                                      \
	} while (0)
	CT_PUT("\"");
	for (size_t i = 0; i < n && o < len;) {
		size_t u = p[i] >= 0x80 ? ct_utf8_len(p + i, n - i) : 0;
		if (u) {
			CT_PUT("%.*s", (int)u, (const char *)p + i);
			i += u;
		} else if (p[i] == '"' || p[i] == '\\') {
			CT_PUT("\\%c", p[i++]);
		} else if (p[i] < 0x20 || p[i] >= 0x7f) {
			CT_PUT("\\x%02x", p[i++]);
		} else {
			CT_PUT("%c", p[i++]);
		}
	}
	CT_PUT(truncated ? "\"..." : "\"");
#undef CT_PUT
}

/* A pointer argument: what it pointed to if read in time, else the pointer itself. */
static void ct_format_pointed(char *out, size_t len, uint64_t ptr, const struct ct_syscall_read *rd,
			      unsigned what, int absolute)
{
	const struct ct_karg_rec *k = rd ? rd->rec : NULL;
	if (!k || k->what != what || (what == CT_KARG_TIMESPEC && k->len != 16)) {
		snprintf(out, len, "%#llx", (unsigned long long)ptr);
	} else if (what == CT_KARG_PATH) {
		ct_format_path(out, len, rd->data, k->len, k->flags & CT_KARG_TRUNCATED);
	} else {
		int64_t ts[2];
		memcpy(ts, rd->data, sizeof(ts));
		snprintf(out, len, "%s%lld.%09lld s", absolute ? "at " : "", (long long)ts[0],
			 (long long)ts[1]);
	}
}

/* The arguments worth showing of the common calls; 0 for the others. */
static int ct_format_args(char *out, size_t len, const char *name, const uint64_t *a,
			  const struct ct_syscall_read *rd)
{
	char ptr[CT_KPATH_SHOWN];
	int fd = (int)a[0];
	size_t i = 0;
	while (name && i < CT_ARRAY_SIZE(ct_args_of) && strcmp(ct_args_of[i].name, name))
		i++;
	if (!name || i == CT_ARRAY_SIZE(ct_args_of)) {
		if (len)
			*out = 0;
		return 0;
	}
	switch (ct_args_of[i].kind) {
	case CT_ARGS_FD_COUNT:
		return snprintf(out, len, "fd=%d, count=%llu", fd, (unsigned long long)a[2]);
	case CT_ARGS_FD_IOVCNT:
		return snprintf(out, len, "fd=%d, iovcnt=%d", fd, (int)a[2]);
	case CT_ARGS_FD:
		return snprintf(out, len, "fd=%d", fd);
	case CT_ARGS_LSEEK:
		return snprintf(out, len, "fd=%d, offset=%lld, whence=%d", fd, (long long)a[1],
				(int)a[2]);
	case CT_ARGS_OPEN:
		ct_format_pointed(ptr, sizeof(ptr), a[0], rd, CT_KARG_PATH, 0);
		return snprintf(out, len, "path=%s, flags=%#llx", ptr, (unsigned long long)a[1]);
	case CT_ARGS_OPENAT:
		ct_format_pointed(ptr, sizeof(ptr), a[1], rd, CT_KARG_PATH, 0);
		if ((int)a[0] == -100)
			return snprintf(out, len, "dfd=AT_FDCWD, path=%s, flags=%#llx", ptr,
					(unsigned long long)a[2]);
		return snprintf(out, len, "dfd=%d, path=%s, flags=%#llx", (int)a[0], ptr,
				(unsigned long long)a[2]);
	case CT_ARGS_FUTEX:
		return snprintf(out, len, "uaddr=%#llx, op=%s, val=%d", (unsigned long long)a[0],
				ct_futex_op(a[1]), (int)a[2]);
	case CT_ARGS_POLL:
		return snprintf(out, len, "nfds=%llu, timeout=%d", (unsigned long long)a[1],
				(int)a[2]);
	case CT_ARGS_PPOLL:
		return snprintf(out, len, "nfds=%llu", (unsigned long long)a[1]);
	case CT_ARGS_EPOLL:
		return snprintf(out, len, "epfd=%d, maxevents=%d, timeout=%d", fd, (int)a[2],
				(int)a[3]);
	case CT_ARGS_CLOCK_NANOSLEEP: /* flags 1: TIMER_ABSTIME, req is a time of the clock */
		ct_format_pointed(ptr, sizeof(ptr), a[2], rd, CT_KARG_TIMESPEC, a[1] & 1);
		return snprintf(out, len, "clock=%s, flags=%d, req=%s", ct_clock_id(a[0]),
				(int)a[1], ptr);
	case CT_ARGS_NANOSLEEP:
		ct_format_pointed(ptr, sizeof(ptr), a[0], rd, CT_KARG_TIMESPEC, 0);
		return snprintf(out, len, "req=%s", ptr);
	case CT_ARGS_FD_LEN:
		return snprintf(out, len, "fd=%d, len=%llu", fd, (unsigned long long)a[2]);
	case CT_ARGS_IOCTL:
		return snprintf(out, len, "fd=%d, cmd=%#llx", fd, (unsigned long long)a[1]);
	case CT_ARGS_MMAP:
		return snprintf(out, len, "len=%llu, prot=%d", (unsigned long long)a[1], (int)a[2]);
	case CT_ARGS_MUNMAP:
		return snprintf(out, len, "addr=%#llx, len=%llu", (unsigned long long)a[0],
				(unsigned long long)a[1]);
	case CT_ARGS_PID:
		return snprintf(out, len, "pid=%d", (int)a[0]);
	case CT_ARGS_KILL:
		return snprintf(out, len, "pid=%d, sig=%d", (int)a[0], (int)a[1]);
	case CT_ARGS_TGKILL:
		return snprintf(out, len, "tgid=%d, tid=%d, sig=%d", (int)a[0], (int)a[1],
				(int)a[2]);
	case CT_ARGS_STATUS:
		return snprintf(out, len, "status=%d", (int)a[0]);
	}
	return 0;
}

void ct_syscall_format(char *out, size_t len, enum ct_sys_abi abi, const struct ct_kernel_rec *r,
		       const struct ct_syscall_read *rd)
{
	char args[CT_KPATH_SHOWN + 96];
	const char *name = ct_syscall_name(abi, r->nr);
	ct_format_args(args, sizeof(args), name, r->args, rd);
	if (name)
		snprintf(out, len, "%s(%s)", name, args);
	else
		snprintf(out, len, "syscall_%u(%s)", r->nr, args);
}

void ct_syscall_format_ret(char *out, size_t len, enum ct_sys_abi abi,
			   const struct ct_kernel_rec *r)
{
	const char *name = ct_syscall_name(abi, r->nr);
	int address = name && (!strcmp(name, "mmap") || !strcmp(name, "brk"));
	if (r->ret < 0 && r->ret >= -4095) {
		const char *e = strerrorname_np((int)-r->ret);
		if (e)
			snprintf(out, len, "-1 %s", e);
		else
			snprintf(out, len, "-1 errno %lld", (long long)-r->ret);
	} else if (r->ret > (int64_t)0xffffffff || address) {
		snprintf(out, len, "%#llx", (unsigned long long)r->ret);
	} else {
		snprintf(out, len, "%lld", (long long)r->ret);
	}
}

void ct_offcpu_format(char *out, size_t len, enum ct_sys_abi abi, const struct ct_kernel_rec *r)
{
	const char *name;
	switch (r->cause) {
	case CT_OFFCPU_PREEMPTED:
		snprintf(out, len, "preempted");
		break;
	case CT_OFFCPU_SYSCALL:
		name = ct_syscall_name(abi, r->nr);
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
