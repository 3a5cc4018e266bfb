/* SPDX-License-Identifier: MIT */
/*
 * tests/options: a program to attach to. It writes its pid to the file named
 * by argv[1] and waits (calling nothing traced) until the entries of
 * work_mid and work_leaf change, that is until an attach has patched them;
 * then it calls work_mid 100 times (each calls work_leaf twice) and other 100
 * times, forks a child that calls work_mid once, waits for it, writes its
 * truth ($CT_TRUTH, truth.h; the child's in $CT_TRUTH.child) and exits 0.
 * It gives up (exit 3) after 50 s without a patch. Built plain, -O0.
 */
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>

#define FUNCS(X) X(work_leaf, "work_leaf") X(work_mid, "work_mid") X(other, "other")
#include "../programs/truth.h"

static volatile long sink;

NOINL long work_leaf(long x)
{
	HIT(work_leaf);
	return x + 1;
}

NOINL long work_mid(long x)
{
	HIT(work_mid);
	return work_leaf(x) + work_leaf(x + 1);
}

NOINL long other(long x)
{
	HIT(other);
	return 2 * x;
}

int main(int argc, char **argv)
{
	unsigned char mid0[8], leaf0[8];
	memcpy(mid0, (const void *)(uintptr_t)work_mid, 8);
	memcpy(leaf0, (const void *)(uintptr_t)work_leaf, 8);
	FILE *f = argc > 1 ? fopen(argv[1], "w") : NULL;
	if (!f)
		return 2;
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	struct timespec ts = {0, 10 * 1000 * 1000};
	int waited = 0;
	while (!memcmp(mid0, (const void *)(uintptr_t)work_mid, 8) ||
	       !memcmp(leaf0, (const void *)(uintptr_t)work_leaf, 8)) {
		if (++waited > 5000)
			return 3;
		nanosleep(&ts, NULL);
	}
	nanosleep(&ts, NULL); /* every entry the attach patches, not only these two */
	for (long i = 0; i < 100; i++)
		sink += work_mid(i) + other(i);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		static char path[4096];
		snprintf(path, sizeof path, "%s.child", getenv("CT_TRUTH") ? getenv("CT_TRUTH") : "");
		setenv("CT_TRUTH", path, 1);
		memset(ct_counts, 0, sizeof ct_counts);
		sink += work_mid(1);
		exit(0);
	}
	int st = 0;
	return pid > 0 && waitpid(pid, &st, 0) == pid && st == 0 ? 0 : 1;
}
