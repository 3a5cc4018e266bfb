// Throws and longjmps through traced frames while calltrace attaches and detaches;
// checks its own results ("bad=0") and exits 1 if any was wrong. SIGUSR1 ends it early.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <setjmp.h>
#include <signal.h>
#include <stdexcept>
#include <thread>
static jmp_buf jb;
static volatile sig_atomic_t quit;
static void on_usr1(int) { quit = 1; }
__attribute__((noinline)) int leaf(int i) { if (i % 7 == 0) throw std::runtime_error("seven"); return i; }
__attribute__((noinline)) int middle(int i) { return leaf(i) + 1; }
__attribute__((noinline)) void jumper(int i) { if (i % 5 == 0) longjmp(jb, 1); }
__attribute__((noinline)) int outer(int i) {
	try { return middle(i); } catch (const std::exception &) { return -1; }
}
int main(int argc, char **argv) {
	int ms = argc > 1 ? atoi(argv[1]) : 3000; long bad = 0, rounds = 0;
	auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
	signal(SIGUSR1, on_usr1);
	while (std::chrono::steady_clock::now() < end && !quit) {
		for (int i = 1; i < 1000; i++) {
			int r = outer(i);
			bad += r != (i % 7 == 0 ? -1 : i + 1);
			volatile int landed = 0;
			if (setjmp(jb) == 0) jumper(i); else landed = 1;
			bad += landed != (i % 5 == 0);
		}
		rounds++;
	}
	printf("bad=%ld rounds=%ld\n", bad, rounds);
	return bad != 0;
}
