/* SPDX-License-Identifier: MIT */
/*
 * Waiting for one traced thread, never for ever. A thread we wait for can
 * stop being able to report: it turned zombie (a thread group's leader that
 * exited stays one, unreportable, until every other thread has gone), or it
 * died. So waits on one thread poll, look at its state in /proc now and
 * then, and give up at a deadline, or soon after the user asked us to stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracer.h"

#define CT_CHECK_EVERY_MS 10 /* how often the thread's /proc state is read */

uint64_t ct_pt_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int ct_pt_thread_dead(pid_t tid)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	/* "tid (comm) S ...": comm may hold spaces and parentheses, the state follows the last ')' */
	const char *p = strrchr(buf, ')');
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X' || p[2] == 'x';
}

int ct_pt_stop_asked(const struct ct_tracer *tr)
{
	return tr->stop_asked && *tr->stop_asked;
}

pid_t ct_pt_wait_tid(struct ct_tracer *tr, pid_t tid, int *st, unsigned timeout_ms,
		     int (*on_wait)(struct ct_tracer *tr, pid_t tid, uint64_t waited_ms, void *arg),
		     void *arg)
{
	uint64_t start = ct_pt_now_ms(), next_check = start + CT_CHECK_EVERY_MS;
	long sleep_us = 20;

	for (;;) {
		pid_t r = waitpid(tid, st, __WALL | WNOHANG);
		if (r > 0)
			return r;
		if (r < 0 && errno != EINTR)
			return -1;
		uint64_t now = ct_pt_now_ms();
		if (now >= next_check) {
			next_check = now + CT_CHECK_EVERY_MS;
			/* a last look: it may have reported just before it died */
			if (ct_pt_thread_dead(tid) && waitpid(tid, st, __WALL | WNOHANG) <= 0) {
				errno = ESRCH;
				return -1;
			}
			if (now - start >= timeout_ms) {
				errno = ETIMEDOUT;
				return -1;
			}
			if (on_wait && on_wait(tr, tid, now - start, arg) < 0) {
				errno = EINTR;
				return -1;
			}
		}
		/* short at first (a call of ours takes microseconds), up to a millisecond */
		struct timespec ts = { 0, sleep_us * 1000 };
		nanosleep(&ts, NULL);
		sleep_us = sleep_us < 1000 ? sleep_us * 2 : 1000;
	}
}
