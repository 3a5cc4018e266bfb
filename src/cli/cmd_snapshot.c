/* SPDX-License-Identifier: MIT */
/*
 * calltrace snapshot PID: ask the recorder of a flight-recorder recording to
 * write every thread's ring now. It finds the recorder's pool through the
 * program's environment and bumps the request counter there: no signal is
 * sent to the program, whatever it does with SIGUSR2.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "../common/pool.h"
#include "../util/util.h"

static const char ct_snapshot_help[] =
	"usage: calltrace snapshot PID\n\n"
	"Write a snapshot of a flight recorder: every thread of the program PID, recorded\n"
	"with 'calltrace record --ring SIZE', has its newest events written to the trace\n"
	"now (sending SIGUSR2 to the program does the same, unless the program handles\n"
	"SIGUSR2 itself). Replay shows each snapshot's threads under its number.\n";

/* CALLTRACE_POOL from the program's environment. */
static char *ct_pool_path_of(pid_t pid)
{
	char path[64], buf[1 << 16];
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	for (char *v = buf; v < buf + n; v += strlen(v) + 1)
		if (!strncmp(v, "CALLTRACE_POOL=", 15))
			return ct_strdup(v + 15);
	return NULL;
}

/*
 * Open the pool a process names, only if it is one. The name comes from the
 * program's environment, which the program chose: it must be what a recorder
 * gives (/proc/RPID/fd/N, which the kernel lets us open only if we may read
 * RPID as a debugger would, so we open nothing with more rights than ours),
 * and what is there must be a regular file, sealed against shrinking (no
 * SIGBUS under our mapping), with the magic, the version and a geometry that
 * adds up to its size. Returns the fd and the header, or -1 with why.
 */
static const char ct_recorder_gone[] = "its recorder is gone";

static int ct_open_pool(const char *path, struct ct_pool_ctl *hdr, const char **why)
{
	int rpid, n, len = -1;
	if (sscanf(path, "/proc/%d/fd/%d%n", &rpid, &n, &len) != 2 || len < 0 ||
	    (size_t)len != strlen(path) || rpid <= 0 || n < 0) {
		*why = "not a recorder's pool";
		return -1;
	}
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		*why = errno == ENOENT ? ct_recorder_gone : strerror(errno);
		return -1;
	}
	struct stat st;
	*why = "not a calltrace pool";
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < sizeof(*hdr) ||
	    !(fcntl(fd, F_GET_SEALS) & F_SEAL_SHRINK) ||
	    pread(fd, hdr, sizeof(*hdr), 0) != (ssize_t)sizeof(*hdr) ||
	    !ct_pool_geometry_ok(hdr, (uint64_t)st.st_size)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int ct_request_snapshot(pid_t pid)
{
	if (kill(pid, 0) < 0 && errno == ESRCH) {
		ct_error("snapshot: no process %d", (int)pid);
		return CT_EXIT_USAGE;
	}
	char *pool = ct_pool_path_of(pid);
	if (!pool) {
		ct_error("snapshot: process %d is not traced by calltrace (or may not be read)",
			 (int)pid);
		return CT_EXIT_USAGE;
	}
	struct ct_pool_ctl hdr;
	const char *why;
	int fd = ct_open_pool(pool, &hdr, &why);
	if (fd < 0) {
		ct_error("snapshot: the pool process %d names (CALLTRACE_POOL): %s", (int)pid, why);
		free(pool);
		return why == ct_recorder_gone ? 1 : CT_EXIT_USAGE;
	}
	free(pool);
	/* only the control area; what we go by is the header we checked */
	struct ct_pool_ctl *ctl =
		mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (ctl == MAP_FAILED) {
		ct_error("snapshot: cannot map the pool of process %d: %s", (int)pid,
			 strerror(errno));
		return 1;
	}
	int ring = hdr.flags & CT_POOL_RING;
	if (ring)
		ct_pool_request_snapshot(ctl);
	munmap(ctl, sizeof(*ctl));
	if (!ring) {
		ct_error("snapshot: process %d is recorded in full, not as a flight recorder "
			 "(record --ring SIZE)",
			 (int)pid);
		return CT_EXIT_USAGE;
	}
	return 0;
}

int ct_cmd_snapshot(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	int c;

	while ((c = ct_getopt("snapshot", argc, argv, "h", longopts)) != -1) {
		if (c == 'h') {
			fputs(ct_snapshot_help, stdout);
			return 0;
		}
		return CT_EXIT_USAGE;
	}
	char *end;
	long pid = optind + 1 == argc ? strtol(argv[optind], &end, 10) : 0;
	if (optind + 1 != argc || *end || pid <= 0) {
		ct_error("snapshot: give one process id (usage: calltrace snapshot PID)");
		return CT_EXIT_USAGE;
	}
	return ct_request_snapshot((pid_t)pid);
}
