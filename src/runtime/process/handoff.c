/* SPDX-License-Identifier: MIT */
/*
 * What an exec hands on, and what the new image takes back.
 *
 * The pool travels as an open descriptor, not only as a path. The runtime
 * keeps the descriptor it mapped the pool through (close-on-exec, moved out
 * of the low numbers a program counts on), and an exec wrapper lets it
 * through the exec and names it in CALLTRACE_POOL_FD. A process that changed
 * to another user, or that a seccomp filter keeps from opening files, can no
 * longer open /proc/<recorder>/fd/N, but the descriptor still writes. The new
 * image believes it only once it is our pool: a sealed memfd named
 * calltrace-pool, with the magic, the version, a geometry that adds up to its
 * size and the recorder the path names (the recorder treats the pool as
 * untrusted anyway).
 *
 * The variables an exec wrapper adds to an environment the program chose
 * (LD_PRELOAD for the loader, CALLTRACE_POOL, CALLTRACE_POOL_FD,
 * CALLTRACE_FROM...) are listed in CALLTRACE_ADDED; the new image's first
 * constructor keeps their values for the runtime and takes them out of
 * environ, so the program finds the environment it passed: a program that
 * clears its environment and execs finds it empty. An LD_PRELOAD the program
 * passed keeps its value (ours was put in front of it).
 *
 * Before the image goes, the wrapper looks at what it execs: an image the
 * runtime cannot join (statically linked, setuid or setgid, another
 * architecture, no pool to hand on) is announced with an exec-note record,
 * so the recorder can name it if it never shows up.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "../runtime.h"
#include "handoff.h"

#ifndef F_GET_SEALS
#define F_GET_SEALS   1034
#define F_SEAL_SEAL   0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW   0x0004
#endif

extern char **environ;

static int ct_pool_fd = -1; /* the pool, close-on-exec; -1 if we hold none */
static dev_t ct_pool_dev;
static ino_t ct_pool_ino;

/* Variables an exec wrapper added, as they were: the runtime reads these, the program not. */
#define CT_TAKEN_MAX 8
static char ct_taken[CT_TAKEN_MAX][4096];
static int ct_ntaken;

/* Our runtime's path as LD_PRELOAD names it ("" if we were not preloaded). */
static char ct_runtime_path[PATH_MAX];

/* ---- the environment ------------------------------------------------------ */

static void ct_find_runtime_path(void);

static const char *ct_entry_value(const char *entry, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(entry, name, n) && entry[n] == '=' ? entry + n + 1 : NULL;
}

/* A variable an exec wrapper added and the constructor took out of environ. */
const char *ct_taken_env(const char *name)
{
	for (int i = 0; i < ct_ntaken; i++) {
		const char *v = ct_entry_value(ct_taken[i], name);
		if (v)
			return v;
	}
	return NULL;
}

static void ct_take(const char *name)
{
	const char *v = getenv(name);
	if (!v || ct_ntaken == CT_TAKEN_MAX || strlen(name) + strlen(v) + 2 > sizeof(ct_taken[0]))
		return;
	char *e = ct_taken[ct_ntaken++];
	size_t n = strlen(name);
	memcpy(e, name, n);
	e[n] = '=';
	memcpy(e + n + 1, v, strlen(v) + 1);
}

/* "LD_PRELOAD+": ours was put in front of the program's own; it gets its own back. */
static void ct_give_back_preload(void)
{
	const char *v = getenv("LD_PRELOAD");
	const char *rest = v ? strpbrk(v, ": ") : NULL;
	if (!rest)
		return;
	char *copy = strdup(rest + 1);
	if (copy) {
		setenv("LD_PRELOAD", copy, 1);
		free(copy);
	}
}

/*
 * CALLTRACE_ADDED=NAME,NAME...: what the exec wrapper that made us added.
 * Their values are kept for the runtime, and environ is left as the program
 * passed it. Runs once, from our first constructor or our first look at the
 * environment, whichever comes first.
 */
void ct_env_take_back(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	char added[512];
	const char *list = getenv("CALLTRACE_ADDED");
	if (!list || ct_attach_loaded() || strlen(list) >= sizeof(added))
		return;
	snprintf(added, sizeof(added), "%s", list);
	unsetenv("CALLTRACE_ADDED");
	for (char *save = NULL, *name = strtok_r(added, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		size_t n = strlen(name);
		int prefix = n && name[n - 1] == '+';
		if (prefix)
			name[n - 1] = 0;
		if (strcmp(name, "LD_PRELOAD") && strncmp(name, "CALLTRACE_", 10))
			continue; /* only ours */
		ct_take(name);
		if (prefix)
			ct_give_back_preload();
		else
			unsetenv(name);
	}
}

__attribute__((constructor(101))) static void ct_env_at_start(void)
{
	ct_env_take_back();
	ct_find_runtime_path();
}

/* Is path, as LD_PRELOAD names it, among the elements of value? */
static int ct_preload_has(const char *value, const char *path)
{
	size_t n = strlen(path);
	for (const char *p = value; *p;) {
		size_t k = strcspn(p, ": ");
		if (k == n && !strncmp(p, path, n))
			return 1;
		p += k;
		p += *p != 0;
	}
	return 0;
}

/* Our path in LD_PRELOAD at start, if we were preloaded (not linked with -lcalltrace). */
static void ct_find_runtime_path(void)
{
	Dl_info info;
	const char *preload = ct_taken_env("LD_PRELOAD");
	if (!preload)
		preload = getenv("LD_PRELOAD");
	if (preload && dladdr((void *)ct_find_runtime_path, &info) && info.dli_fname &&
	    ct_preload_has(preload, info.dli_fname))
		snprintf(ct_runtime_path, sizeof(ct_runtime_path), "%s", info.dli_fname);
}

/* Will an exec'd image get us through LD_PRELOAD? */
int ct_runtime_preloaded(void)
{
	return ct_runtime_path[0] != 0;
}

/* ---- the pool's descriptor ------------------------------------------------ */

/* The lowest number at or above which our descriptor is kept: out of a program's way. */
static int ct_high_fd_base(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < 128)
		return 3;
	rlim_t top = rl.rlim_cur > 1024 ? 1024 : rl.rlim_cur;
	return (int)(top - 32);
}

/* Is our descriptor still the pool? The program may have closed it, or reused its number. */
static int ct_pool_fd_valid(void)
{
	struct stat st;
	return ct_pool_fd >= 0 && fstat(ct_pool_fd, &st) == 0 && st.st_dev == ct_pool_dev &&
	       st.st_ino == ct_pool_ino;
}

/* Our descriptor for the pool, if we still hold it; else -1. */
int ct_pool_fd_held(void)
{
	return ct_pool_fd_valid() ? ct_pool_fd : -1;
}

/* Keep fd (the pool) as ours: close-on-exec, at a high number. */
void ct_pool_fd_keep(int fd)
{
	struct stat st;
	if (fd < 0 || fd == ct_pool_fd_held() || fstat(fd, &st) < 0)
		return;
	int high = fd;
	if (fd < ct_high_fd_base()) {
		high = fcntl(fd, F_DUPFD_CLOEXEC, ct_high_fd_base());
		if (high < 0)
			high = fd;
		else
			close(fd);
	}
	fcntl(high, F_SETFD, FD_CLOEXEC);
	if (ct_pool_fd_valid())
		close(ct_pool_fd);
	ct_pool_fd = high;
	ct_pool_dev = st.st_dev;
	ct_pool_ino = st.st_ino;
}

/*
 * calltrace attach's detach: the recording is over, and the descriptor would
 * keep its pool alive in the process, and be taken for the next attach's.
 */
void ct_pool_fd_drop(void)
{
	if (ct_pool_fd_valid())
		close(ct_pool_fd);
	ct_pool_fd = -1;
}

/*
 * The recorder's pid in CALLTRACE_POOL (/proc/PID/fd/N); 0 if it names none.
 */
static int ct_pool_path_recorder(const char *path)
{
	int pid = 0, fd = 0;
	if (!path || sscanf(path, "/proc/%d/fd/%d", &pid, &fd) != 2)
		return 0;
	return pid;
}

/*
 * CALLTRACE_POOL_FD=N, handed on by the image that exec'd us: N if it is the
 * pool CALLTRACE_POOL names, else -1 (a descriptor that is not ours is left
 * alone: the program may own that number).
 */
int ct_pool_fd_inherited(void)
{
	const char *v = ct_getenv("CALLTRACE_POOL_FD");
	char *end;
	long fd = v ? strtol(v, &end, 10) : -1;
	if (!v || *end || fd < 3 || fd > INT_MAX)
		return -1;

	struct stat st;
	struct ct_pool_ctl hdr;
	char link[64], proc[32];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%ld", fd);
	ssize_t n = readlink(proc, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = 0;
		if (strncmp(link, "/memfd:calltrace-pool", 21))
			return -1;
	}
	int seals = fcntl((int)fd, F_GET_SEALS);
	int want = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
	if (fstat((int)fd, &st) < 0 || !S_ISREG(st.st_mode) || seals < 0 ||
	    (seals & want) != want ||
	    pread((int)fd, &hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    !ct_pool_geometry_ok(&hdr, (uint64_t)st.st_size))
		return -1;
	int rpid = ct_pool_path_recorder(ct_getenv("CALLTRACE_POOL"));
	if (rpid && hdr.recorder_pid != rpid)
		return -1;
	fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	return (int)fd;
}

/* Images that never use the runtime (nothing to trace) must not pass the descriptor on. */
__attribute__((constructor(104))) static void ct_pool_fd_close_on_exec(void)
{
	if (ct_secure_exec())
		return;
	int fd = ct_pool_fd_inherited();
	if (fd >= 0 && ct_pool_fd < 0)
		ct_pool_fd_keep(fd);
}

/* ---- before an exec -------------------------------------------------------- */

/* A descriptor for the pool to hand on: ours, or the path opened again; -errno if none. */
static int ct_pool_fd_for_exec(void)
{
	if (ct_pool_fd_valid())
		return ct_pool_fd;
	const char *path = ct_getenv("CALLTRACE_POOL");
	if (!path || !*path)
		return -ENOENT;
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ct_pool_fd = -1; /* (the number was the program's by now) */
	ct_pool_fd_keep(fd);
	return ct_pool_fd;
}

/* Where execvp would find file: the first executable regular file on PATH. */
static int ct_resolve(const char *file, char *out, size_t len)
{
	if (strchr(file, '/')) {
		snprintf(out, len, "%s", file);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;;) {
		size_t k = strcspn(p, ":");
		struct stat st;
		snprintf(out, len, "%.*s%s%s", (int)k, p, k ? "/" : "", file);
		if (access(out, X_OK) == 0 && stat(out, &st) == 0 && S_ISREG(st.st_mode))
			return 0;
		if (!p[k])
			return -1;
		p += k + 1;
	}
}

/* Would the kernel mark the image of path secure (AT_SECURE) for this process? */
static int ct_would_be_secure(const char *path, const struct stat *st)
{
	uid_t ruid, euid, suid;
	gid_t rgid, egid, sgid;
	struct statvfs fs;
	if (getresuid(&ruid, &euid, &suid) < 0 || getresgid(&rgid, &egid, &sgid) < 0)
		return 0;
	if (statvfs(path, &fs) == 0 && (fs.f_flag & ST_NOSUID))
		return euid != ruid || egid != rgid;
	uid_t nuid = (st->st_mode & S_ISUID) ? st->st_uid : euid;
	gid_t ngid = (st->st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) ? st->st_gid : egid;
	return nuid != ruid || ngid != rgid;
}

/* What kind of ELF path is: 0 one we can join, else a CT_UNTRACED_* reason. */
static uint32_t ct_elf_reason(int fd)
{
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, 4))
		return 0; /* not ELF: the kernel says what it makes of it */
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != CT_ARCH_ELF_MACHINE)
		return CT_UNTRACED_FOREIGN;
	for (unsigned i = 0; i < eh.e_phnum && i < 256; i++) {
		Elf64_Phdr ph;
		off_t at = (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph));
		if (eh.e_phentsize != sizeof(ph) || pread(fd, &ph, sizeof(ph), at) != sizeof(ph))
			return 0;
		if (ph.p_type == PT_INTERP)
			return 0;
	}
	return CT_UNTRACED_STATIC;
}

/* "#!INTERP ...": the interpreter is what runs. */
static int ct_script_interpreter(int fd, char *out, size_t len)
{
	char line[256];
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);
	if (n < 4 || line[0] != '#' || line[1] != '!')
		return -1;
	line[n] = 0;
	char *p = line + 2 + strspn(line + 2, " \t");
	size_t k = strcspn(p, " \t\n");
	if (!k)
		return -1;
	snprintf(out, len, "%.*s", (int)k, p);
	return 0;
}

/*
 * Why the image exec'ing file would run untraced, or 0: its path (resolved,
 * through one #! line) in note->path.
 */
static uint32_t ct_predict(const char *file, struct ct_exec_note_buf *note)
{
	char path[PATH_MAX], interp[PATH_MAX];
	if (ct_resolve(file, path, sizeof(path)) < 0)
		return 0;
	for (int depth = 0; depth < 2; depth++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		struct stat st;
		if (fd < 0)
			return 0;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			return 0;
		}
		if (!realpath(path, note->path))
			snprintf(note->path, sizeof(note->path), "%s", path);
		uint32_t why =
			ct_would_be_secure(path, &st) ? CT_UNTRACED_SECURE : ct_elf_reason(fd);
		int script = why == 0 && ct_script_interpreter(fd, interp, sizeof(interp)) == 0;
		close(fd);
		if (!script)
			return why;
		snprintf(path, sizeof(path), "%s", interp);
	}
	return 0;
}

/*
 * Before an exec of file: the pool's descriptor let through the exec (its
 * number in ctx->pool_fd, "" if none), and an exec-note record if the new
 * image will not be able to join.
 */
void ct_handoff_before_exec(const char *file, struct ct_handoff *h)
{
	struct ct_exec_note_buf note;
	int fd = ct_pool_fd_for_exec();

	h->fd = -1;
	h->pool_fd[0] = 0;
	if (fd >= 0 && fcntl(fd, F_SETFD, 0) == 0) {
		h->fd = fd;
		snprintf(h->pool_fd, sizeof(h->pool_fd), "CALLTRACE_POOL_FD=%d", fd);
	}
	if (atomic_load(&ct_state) != CT_RT_READY)
		return;
	memset(&note, 0, sizeof(note));
	note.h.reason = ct_predict(file, &note);
	if (!note.h.reason && fd < 0 && !ct_secure_exec()) {
		note.h.reason = CT_UNTRACED_NO_POOL;
		note.h.err = -fd;
	}
	if (note.h.reason)
		ct_emit_ext(CT_EXT_EXEC_NOTE, &note,
			    (uint32_t)(sizeof(note.h) + strlen(note.path) + 1), 1);
}

/* The exec failed: the descriptor is close-on-exec again. */
void ct_handoff_exec_failed(const struct ct_handoff *h)
{
	if (h->fd >= 0)
		fcntl(h->fd, F_SETFD, FD_CLOEXEC);
}

/* ---- the environment an exec passes on ------------------------------------- */

static int ct_env_named(const char *entry, const char *name)
{
	return ct_entry_value(entry, name) != NULL;
}

static void ct_added(struct ct_handoff *h, const char *name)
{
	size_t n = strlen(h->added);
	snprintf(h->added + n, sizeof(h->added) - n, "%s%s", h->added[16] ? "," : "", name);
}

/*
 * LD_PRELOAD for the new image: the program's (if ours is in it), ours in
 * front of the program's, or ours alone.
 */
static char *ct_preload_for(const char *theirs, struct ct_handoff *h)
{
	if (!ct_runtime_path[0])
		return NULL;
	if (theirs && ct_preload_has(theirs, ct_runtime_path))
		return NULL;
	if (theirs && *theirs) {
		snprintf(h->preload, sizeof(h->preload), "LD_PRELOAD=%s:%s", ct_runtime_path,
			 theirs);
		ct_added(h, "LD_PRELOAD+");
	} else {
		snprintf(h->preload, sizeof(h->preload), "LD_PRELOAD=%s", ct_runtime_path);
		ct_added(h, "LD_PRELOAD");
	}
	return h->preload;
}

/*
 * envp with what the new image needs added, into out (room for the
 * program's entries + CT_HANDOFF_EXTRA): LD_PRELOAD, the pool (path,
 * descriptor), --no-follow, each only if envp lacks it; kept[] are the
 * other entries the caller adds ("NAME=value", "" for none), and
 * CALLTRACE_ADDED lists everything added, for the new image to take out.
 */
void ct_handoff_env(char *const envp[], char **out, struct ct_handoff *h, const char *pool,
		    const char *nofollow, char *const kept[], size_t nkept)
{
	static const char *const ours[] = { "CALLTRACE_FROM", "CALLTRACE_ITIMER_PROF",
					    "CALLTRACE_ADDED", "CALLTRACE_POOL_FD" };
	int has_pool = 0, has_nofollow = 0, preload_done = 0;
	size_t n = 0;

	snprintf(h->added, sizeof(h->added), "CALLTRACE_ADDED=");
	for (size_t i = 0; envp && envp[i]; i++) {
		int skip = 0;
		for (size_t k = 0; k < CT_ARRAY_LEN(ours) && !skip; k++)
			skip = ct_env_named(envp[i], ours[k]);
		if (skip)
			continue;
		const char *v;
		if ((v = ct_entry_value(envp[i], "LD_PRELOAD")) && !preload_done) {
			char *p = ct_preload_for(v, h);
			preload_done = 1;
			out[n++] = p ? p : envp[i];
			continue;
		}
		has_pool |= pool[0] && ct_env_named(envp[i], "CALLTRACE_POOL");
		has_nofollow |= nofollow[0] && ct_env_named(envp[i], "CALLTRACE_NO_FOLLOW");
		out[n++] = envp[i];
	}
	char *p = preload_done ? NULL : ct_preload_for(NULL, h);
	if (p)
		out[n++] = p;
	if (pool[0] && !has_pool) {
		out[n++] = (char *)pool;
		ct_added(h, "CALLTRACE_POOL");
	}
	if (nofollow[0] && !has_nofollow) {
		out[n++] = (char *)nofollow;
		ct_added(h, "CALLTRACE_NO_FOLLOW");
	}
	if (h->pool_fd[0]) {
		out[n++] = h->pool_fd;
		ct_added(h, "CALLTRACE_POOL_FD");
	}
	for (size_t k = 0; k < nkept; k++)
		if (kept[k][0]) {
			out[n++] = kept[k];
			char name[64];
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(kept[k], "="), kept[k]);
			ct_added(h, name);
		}
	if (h->added[16])
		out[n++] = h->added;
	out[n] = NULL;
}
