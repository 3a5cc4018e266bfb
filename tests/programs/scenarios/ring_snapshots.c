/* SPDX-License-Identifier: MIT */
/*
 * tests/faults.sh, flight recorder snapshots.
 *
 *   ring_snapshots raise   three rounds of work; before the Nth SIGUSR2 it
 *                          raises, the program calls phase_N(); then it
 *                          sleeps 0.3 s without a traced call, so the
 *                          recorder copies the rings while they end with
 *                          phase_N. Last: finish().
 *   ring_snapshots wait    work, phase_1(), its pid to $CT_PIDFILE, then it
 *                          waits (no traced call) until the file $CT_RELEASE
 *                          exists (20 s at most), then phase_2().
 */
#include <signal.h>
#include <time.h>
#define FUNCS(X) X(main, "main") X(work, "work") X(leaf, "leaf") X(phase_1, "phase_1") \
	X(phase_2, "phase_2") X(phase_3, "phase_3") X(finish, "finish")
#include "truth.h"

static volatile unsigned sink;

NOINL void leaf(int k)
{
	HIT(leaf);
	sink += (unsigned)k;
}

NOINL void work(int n)
{
	HIT(work);
	for (int i = 0; i < n; i++)
		leaf(i);
}

NOINL void phase_1(void) { HIT(phase_1); sink++; }
NOINL void phase_2(void) { HIT(phase_2); sink++; }
NOINL void phase_3(void) { HIT(phase_3); sink++; }
NOINL void finish(void) { HIT(finish); sink++; }

NOTRACE static void pause_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts))
		;
}

int main(int argc, char **argv)
{
	HIT(main);
	if (argc > 1 && !strcmp(argv[1], "wait")) {
		work(5000);
		phase_1();
		const char *pidfile = getenv("CT_PIDFILE"), *release = getenv("CT_RELEASE");
		if (!pidfile || !release)
			return 2;
		char tmp[4096];
		snprintf(tmp, sizeof tmp, "%s.tmp", pidfile);
		FILE *f = fopen(tmp, "w");
		if (!f)
			return 2;
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
		rename(tmp, pidfile);
		for (int i = 0; i < 2000 && access(release, F_OK); i++)
			pause_ms(10);
		phase_2();
		return 0;
	}
	void (*const phase[3])(void) = { phase_1, phase_2, phase_3 };
	for (int n = 0; n < 3; n++) {
		work(3000 * (n + 1));
		phase[n]();
		raise(SIGUSR2);
		pause_ms(300);
	}
	work(1000);
	finish();
	return 0;
}
