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
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"

CT_HIDDEN struct ct_pool_ctl *ct_ctl;
CT_HIDDEN int ct_clock_tsc;
CT_HIDDEN _Atomic int ct_state;
CT_HIDDEN uint32_t ct_instance;
CT_HIDDEN pthread_key_t ct_key;

static uint32_t ct_parent_instance;
static _Atomic int ct_announced;
static _Atomic int ct_scanning;
static unsigned long long ct_seen_adds;

/* Room for one record each; used with signals blocked, by one thread at a time. */
static uint64_t ct_process_buf[CT_EXT_MAX_WORDS];
static uint64_t ct_module_buf[CT_EXT_MAX_WORDS];

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

static void ct_atfork_child(void)
{
	ct_thread_reset_after_fork(&ct_self);
	ct_parent_instance = ct_instance;
	ct_instance = atomic_fetch_add(&ct_ctl->next_instance, 1) + 1;
	atomic_store(&ct_announced, 0);
	ct_seen_adds = 0;
}

static int ct_open_pool(void)
{
	const char *path = getenv("CALLTRACE_POOL");
	if (!path || !*path)
		return -1;
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;

	struct ct_pool_ctl hdr;
	void *map = MAP_FAILED;
	if (pread(fd, &hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr) && hdr.magic == CT_POOL_MAGIC &&
	    hdr.version == CT_POOL_VERSION)
		map = mmap(NULL, ct_pool_size(&hdr), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	ct_ctl = map;
	return 0;
}

int ct_init(void)
{
	int expected = CT_RT_NEW;

	if (atomic_compare_exchange_strong(&ct_state, &expected, CT_RT_STARTING)) {
		int ok = ct_open_pool() == 0;
		if (ok) {
			ct_clock_tsc = ct_ctl->clock == CT_CLOCK_TSC;
			ct_instance = atomic_fetch_add(&ct_ctl->next_instance, 1) + 1;
			ok = pthread_key_create(&ct_key, ct_key_destructor) == 0 &&
			     pthread_atfork(NULL, NULL, ct_atfork_child) == 0;
			if (ok)
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
	clock_gettime(CLOCK_REALTIME, &now);
	p->realtime_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;

	ssize_t n = readlink("/proc/self/exe", text, room / 2);
	if (n < 0)
		n = 0;
	text[n] = 0;
	p->exe_len = (uint32_t)n + 1;
	p->args_len = ct_read_file("/proc/self/cmdline", text + p->exe_len, room - p->exe_len);
	ct_write_ext(t, CT_EXT_PROCESS, p, (uint32_t)sizeof(*p) + p->exe_len + p->args_len, 1);
	ct_check_modules(t, 1);
	return 1;
}

static int ct_count_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(unsigned long long *)data = info->dlpi_adds;
	return 1;
}

int ct_needs_describing(void)
{
	unsigned long long adds = 0;
	if (!atomic_load(&ct_announced))
		return 1;
	dl_iterate_phdr(ct_count_cb, &adds);
	return adds != ct_seen_adds;
}

struct ct_scan {
	struct ct_thread *t;
	int emit;
	unsigned long long adds;
};

static void ct_module_build_id(struct dl_phdr_info *info, struct ct_ext_module *m)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *note = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = note + ph->p_memsz;
		while (note + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const void *)note;
			const char *name = note + sizeof(*nh);
			const char *desc = name + ((nh->n_namesz + 3) & ~3u);
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && nh->n_descsz <= sizeof(m->build_id)) {
				memcpy(m->build_id, desc, nh->n_descsz);
				m->build_id_len = (uint8_t)nh->n_descsz;
				return;
			}
			note = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
}

static int ct_module_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct ct_scan *scan = data;
	(void)size;

	scan->adds = info->dlpi_adds;
	if (!scan->emit)
		return 1;
	if (!strncmp(info->dlpi_name, "linux-vdso", 10) ||
	    !strncmp(info->dlpi_name, "linux-gate", 10))
		return 0;

	struct ct_ext_module *m = (void *)ct_module_buf;
	char *path = (char *)(m + 1);
	uint32_t room = sizeof(ct_module_buf) - sizeof(*m) - 1;

	memset(m, 0, sizeof(*m));
	m->base = info->dlpi_addr;
	m->lo = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;
		if (lo < m->lo)
			m->lo = lo;
		if (lo + ph->p_memsz > m->hi)
			m->hi = lo + ph->p_memsz;
	}
	if (m->lo == UINT64_MAX)
		return 0;
	ct_module_build_id(info, m);

	size_t n;
	if (info->dlpi_name[0]) {
		n = strnlen(info->dlpi_name, room);
		memcpy(path, info->dlpi_name, n);
	} else {
		ssize_t r = readlink("/proc/self/exe", path, room);
		n = r < 0 ? 0 : (size_t)r;
	}
	path[n] = 0;
	m->path_len = (uint32_t)n + 1;
	ct_write_ext(scan->t, CT_EXT_MODULE, m, (uint32_t)sizeof(*m) + m->path_len, 1);
	return 0;
}

/* Describe the loaded modules again if the loader added any since last time. */
int ct_check_modules(struct ct_thread *t, int force)
{
	if (atomic_exchange(&ct_scanning, 1))
		return 0;

	struct ct_scan scan = { .t = t, .emit = 0 };
	dl_iterate_phdr(ct_module_cb, &scan);
	if (force || scan.adds != ct_seen_adds) {
		ct_seen_adds = scan.adds;
		scan.emit = 1;
		dl_iterate_phdr(ct_module_cb, &scan);
	}
	atomic_store(&ct_scanning, 0);
	return scan.emit;
}

/*
 * At exit: name the libraries loaded since the last chunk was taken, and tell
 * how many events this thread dropped since its last record.
 */
__attribute__((destructor)) static void ct_fini(void)
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
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
}
