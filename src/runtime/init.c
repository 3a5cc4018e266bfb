/* SPDX-License-Identifier: MIT */
/*
 * Starting the runtime: find the recorder's pool, map it, say who we are.
 *
 * Initialisation is lazy: the first hook of any thread runs it, so functions
 * called by other libraries' constructors, before ours, are traced too. It
 * runs once per process image (again in a child after fork, through the
 * atfork handler, and after exec as the library is preloaded again).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"
#include "hotpath/hotpath.h"
#include "methods/methods.h"
#include "process/process.h"
#include "modes/modes.h"
#include "process/handoff.h"

CT_HIDDEN struct ct_pool_ctl *ct_ctl;
CT_HIDDEN struct ct_pool_geo ct_geo;
CT_HIDDEN int ct_clock_tsc;
CT_HIDDEN _Atomic int ct_state;
CT_HIDDEN uint32_t ct_instance;
CT_HIDDEN pthread_key_t ct_key;

static uint32_t ct_parent_instance;
static _Atomic int ct_announced;
/* where this image came from: fork (parent thread, clock) or exec (instance) */
static int32_t ct_fork_tid, ct_parent_tid;
static uint64_t ct_fork_clock, ct_parent_fork_clock;
static uint32_t ct_exec_instance, ct_proc_flags;
static int ct_no_follow;

/* Room for one record each; used with signals blocked, by one thread at a time. */
static uint64_t ct_process_buf[CT_EXT_MAX_WORDS];

uint64_t ct_clock_slow(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void ct_key_destructor(void *unused)
{
	(void)unused;
	ct_thread_end(&ct_self);
}

/*
 * The process whose start was counted in the pool (ct_note_in, a fork): a
 * fork or vfork child finds its parent's pid here, and its next image counts
 * it (CALLTRACE_FROM says whether the image that exec'd it had been counted).
 */
static pid_t ct_counted_pid;

int ct_process_counted(void)
{
	return ct_counted_pid && ct_counted_pid == getpid();
}

/* Just before a fork: the forking thread and the time, for the child to tell. */
static void ct_atfork_prepare(void)
{
	ct_fork_tid = ct_self.tid ? ct_self.tid : (int32_t)syscall(SYS_gettid);
	ct_fork_clock = ct_clock();
}

static void ct_atfork_child(void)
{
	if (atomic_load(&ct_state) != CT_RT_READY)
		return; /* attach stopped: the pool is gone */
	/* The parent still owns our chunks; the child starts afresh, as a new process. */
	ct_thread_leave_pool(&ct_self);
	ct_self.tid = ct_self.pid = 0;
	ct_standalone_after_fork();
	if (ct_no_follow) { /* --no-follow: only the program calltrace started */
		atomic_store(&ct_state, CT_RT_OFF);
		return;
	}
	atomic_fetch_add(&ct_ctl->started_processes, 1);
	ct_counted_pid = getpid();
	ct_parent_instance = ct_instance;
	ct_parent_tid = ct_fork_tid;
	ct_parent_fork_clock = ct_fork_clock;
	ct_exec_instance = 0;
	ct_proc_flags = CT_PROC_FORKED;
	ct_instance = atomic_fetch_add(&ct_ctl->next_instance, 1) + 1;
	atomic_store(&ct_announced, 0);
	ct_modules_forget();
}

/*
 * The pool is named but this process may not open it (another user now, a
 * seccomp filter): it runs untraced, and says so, once.
 */
static void ct_say_no_pool(const char *path, int err)
{
	char line[512];
	if (err != EACCES && err != EPERM)
		return; /* a recording that is over (ENOENT) is no news */
	int n = snprintf(line, sizeof(line),
			 "calltrace: process %d cannot open the recording's shared memory (%s: "
			 "%s); it runs untraced\n",
			 (int)getpid(), path, strerror(err));
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	if (n > 0 && write(2, line, (size_t)n) < 0)
		return;
}

/* The pool's descriptor: the one an exec handed on, ours, or the path opened. */
static int ct_pool_descriptor(void)
{
	int fd = ct_pool_fd_held();
	if (fd < 0)
		fd = ct_pool_fd_inherited();
	if (fd >= 0)
		return fd;
	const char *path = ct_getenv("CALLTRACE_POOL");
	if ((!path || !*path) && ct_standalone_wanted())
		path = ct_standalone_start();
	if (!path || !*path)
		return -1;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		ct_say_no_pool(path, errno);
	return fd;
}

static int ct_open_pool(void)
{
	int fd = ct_pool_descriptor();
	if (fd < 0)
		return -1;

	struct ct_pool_ctl hdr;
	struct stat st;
	void *map = MAP_FAILED;
	if (pread(fd, &hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr) && fstat(fd, &st) == 0 &&
	    S_ISREG(st.st_mode) && ct_pool_geometry_ok(&hdr, (uint64_t)st.st_size))
		map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		if (fd != ct_pool_fd_held())
			close(fd);
		return -1;
	}
	ct_pool_fd_keep(fd); /* an exec hands it on */
	/* from here on the program may write the control area: keep our own copy */
	ct_geo = ct_pool_geo_of(&hdr);
	ct_geo.size = (uint64_t)st.st_size;
	ct_ctl = map;
	return 0;
}

/*
 * CALLTRACE_FROM=instance:pid, set by an exec wrapper: if the pid is ours,
 * that image exec'd us. (A child that inherited the variable has another pid.)
 */
static void ct_read_origin(void)
{
	const char *from = ct_getenv("CALLTRACE_FROM");
	unsigned inst;
	int pid;
	if (!from || sscanf(from, "%u:%d", &inst, &pid) != 2)
		return;
	if (pid == getpid()) {
		ct_exec_instance = inst;
		ct_proc_flags = CT_PROC_EXECED;
	}
}

/* record --disabled: the program turns tracing on itself (calltrace_enable_all). */
static void ct_start_disabled(void)
{
	const char *d = ct_getenv("CALLTRACE_DISABLED");
	if (d && *d && strcmp(d, "0"))
		__atomic_store_n(&ct_paused_all, 1, __ATOMIC_RELAXED);
}

/* --no-follow: CALLTRACE_NO_FOLLOW names the one process to trace. */
static int ct_followed(void)
{
	const char *nf = ct_getenv("CALLTRACE_NO_FOLLOW");
	ct_no_follow = nf && *nf;
	return !ct_no_follow || atoi(nf) == getpid();
}

/* The thread-end key and the fork handlers, once even if attach starts us again. */
static int ct_once_per_process(void)
{
	static int done;
	if (!done)
		done = pthread_key_create(&ct_key, ct_key_destructor) == 0 &&
		       pthread_atfork(ct_atfork_prepare, NULL, ct_atfork_child) == 0;
	return done;
}

void ct_init_again(void)
{
	ct_parent_instance = 0;
	ct_parent_tid = 0;
	ct_parent_fork_clock = 0;
	ct_exec_instance = 0;
	ct_proc_flags = 0;
	atomic_store(&ct_announced, 0);
	ct_modules_forget();
	ct_patch_forget_all();
	ct_pool_fd_drop(); /* the last attach's pool: ct_open_pool opens this one's */
	atomic_store(&ct_state, CT_RT_NEW);
}

int ct_init(void)
{
	int expected = CT_RT_NEW;

	if (atomic_compare_exchange_strong(&ct_state, &expected, CT_RT_STARTING)) {
		int ok = ct_followed() && ct_open_pool() == 0;
		if (ok) {
			ct_remember_env();
			ct_read_origin();
			ct_standalone_join(ct_proc_flags & CT_PROC_EXECED);
			ct_clock_tsc = ct_ctl->clock == CT_CLOCK_TSC;
			ct_start_disabled();
			ct_instance = atomic_fetch_add(&ct_ctl->next_instance, 1) + 1;
			ok = ct_once_per_process();
			if (ok && !ct_attached) /* attach: the process's handlers stay as they are */
				ct_install_crash_handlers();
			if (ok && (ct_ctl->flags & CT_POOL_RING))
				ct_install_snapshot_signal();
		}
		atomic_store(&ct_state, ok ? CT_RT_READY : CT_RT_OFF);
	}
	while (atomic_load(&ct_state) == CT_RT_STARTING)
		sched_yield();
	return atomic_load(&ct_state) == CT_RT_READY ? 0 : -1;
}

/* CALLTRACE_FROM=instance:pid:1: an image of this very process exec'd us, and had it counted. */
static int ct_counted_before_exec(void)
{
	const char *from = ct_getenv("CALLTRACE_FROM");
	unsigned inst;
	int pid, counted;
	return from && sscanf(from, "%u:%d:%d", &inst, &pid, &counted) == 3 && pid == getpid() &&
	       counted == 1;
}

/*
 * Put this image's pid and parent in the pool's ring of started images, and
 * count the process if no image before it in this process did.
 */
static void ct_note_in(struct ct_pool_ctl *ctl)
{
	if (!ct_counted_before_exec())
		atomic_fetch_add(&ctl->started_processes, 1);
	ct_counted_pid = getpid();
	uint32_t at = atomic_fetch_add(&ctl->started_count, 1) % CT_STARTED_RING;
	atomic_store(&ctl->started[at].ppid, (int32_t)getppid());
	atomic_store(&ctl->started[at].pid, (int32_t)getpid());
}

/*
 * Every image the runtime is loaded into says it started, traced or not, so
 * the recorder can count the processes that ran no traced code (a shell,
 * a compiler make runs). A few system calls per image: the control area is
 * mapped alone, and only for this.
 */
__attribute__((constructor(103))) static void ct_note_started(void)
{
	if (ct_attach_loaded() || !ct_followed())
		return;
	if (atomic_load(&ct_state) == CT_RT_READY) {
		ct_note_in(ct_ctl);
		return;
	}
	int fd = ct_pool_fd_inherited(), opened = 0;
	const char *path = ct_getenv("CALLTRACE_POOL");
	if (fd < 0 && path && *path) {
		fd = open(path, O_RDWR | O_CLOEXEC);
		opened = fd >= 0;
	}
	struct ct_pool_ctl hdr;
	struct stat st;
	if (fd < 0)
		return;
	if (pread(fd, &hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr) && fstat(fd, &st) == 0 &&
	    S_ISREG(st.st_mode) && ct_pool_geometry_ok(&hdr, (uint64_t)st.st_size)) {
		size_t len = (sizeof(hdr) + 4095) & ~(size_t)4095;
		void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (map != MAP_FAILED) {
			ct_note_in(map);
			munmap(map, len);
		}
	}
	if (opened)
		close(fd);
}

static uint32_t ct_read_file(const char *path, char *buf, uint32_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	uint32_t n = 0;
	while (n < size) {
		ssize_t r = read(fd, buf + n, size - n);
		if (r <= 0)
			break;
		n += (uint32_t)r;
	}
	close(fd);
	return n;
}

int ct_announce_process(struct ct_thread *t)
{
	if (atomic_exchange(&ct_announced, 1))
		return 0;

	struct ct_ext_process *p = (void *)ct_process_buf;
	char *text = (char *)(p + 1);
	uint32_t room = sizeof(ct_process_buf) - sizeof(*p) - 1;
	struct timespec now;

	memset(p, 0, sizeof(*p));
	p->pid = (int32_t)getpid();
	p->ppid = (int32_t)getppid();
	p->parent_instance = ct_parent_instance;
	p->parent_tid = ct_parent_tid;
	p->fork_clock = ct_parent_fork_clock;
	p->exec_instance = ct_exec_instance;
	p->flags = ct_proc_flags;
	clock_gettime(CLOCK_REALTIME, &now);
	p->realtime_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;

	ssize_t n = readlink(ct_self_exe(), text, room / 2);
	if (n < 0)
		n = 0;
	text[n] = 0;
	p->exe_len = (uint32_t)n + 1;
	p->args_len = ct_read_file("/proc/self/cmdline", text + p->exe_len, room - p->exe_len);
	ct_write_ext(t, CT_EXT_PROCESS, p, (uint32_t)sizeof(*p) + p->exe_len + p->args_len, 1);
	ct_check_modules(t, 1);
	return 1;
}

int ct_needs_describing(void)
{
	return !atomic_load(&ct_announced) || ct_modules_changed();
}

/*
 * At exit: name the libraries loaded since the last chunk was taken, and tell
 * how many events this thread dropped since its last record.
 */
void ct_before_exit(void)
{
	if (atomic_load(&ct_state) != CT_RT_READY || ct_self.in_slow)
		return;

	int err = errno;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ct_self.in_slow = 1;
	ct_flush_lost(&ct_self);
	if (ct_self.chunk > 0)
		ct_check_modules(&ct_self, 0);
	ct_self.in_slow = 0;
	ct_standalone_leave(); /* the last process waits for its trace */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
}

__attribute__((destructor)) static void ct_fini(void)
{
	ct_before_exit();
}
