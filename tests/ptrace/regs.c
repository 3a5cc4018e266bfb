/* A program whose main thread keeps values in all sixteen vector registers and
 * in errno while calltrace attaches and detaches: a call calltrace makes the
 * thread run (dlopen, the runtime's start and stop) must leave them as they
 * were. The values sit in the registers across a loop of a million steps, then
 * are compared. Prints "bad=N rounds=M"; exits 1 if any was changed. SIGUSR1
 * ends it early.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint8_t pattern[16][16] __attribute__((aligned(16)));
static volatile sig_atomic_t quit;

static void on_usr1(int sig)
{
	(void)sig;
	quit = 1;
}

/* 1 if a vector register lost its value during the loop */
static int registers_changed(void)
{
	unsigned int same = 0xffff;
#define LOAD(n) "movdqa " #n "*16(%[p]), %%xmm" #n "\n\t"
#define CHECK(n)                                  \
	"pcmpeqb " #n "*16(%[p]), %%xmm" #n "\n\t" \
	"pmovmskb %%xmm" #n ", %%edx\n\t"          \
	"and %%edx, %[same]\n\t"
	__asm__ volatile(LOAD(0) LOAD(1) LOAD(2) LOAD(3) LOAD(4) LOAD(5) LOAD(6) LOAD(7)
			 LOAD(8) LOAD(9) LOAD(10) LOAD(11) LOAD(12) LOAD(13) LOAD(14) LOAD(15)
			 "mov $1000000, %%ecx\n"
			 "1:\tdec %%ecx\n\t"
			 "jnz 1b\n\t"
			 CHECK(0) CHECK(1) CHECK(2) CHECK(3) CHECK(4) CHECK(5) CHECK(6) CHECK(7)
			 CHECK(8) CHECK(9) CHECK(10) CHECK(11) CHECK(12) CHECK(13) CHECK(14) CHECK(15)
			 : [same] "+r"(same)
			 : [p] "r"(pattern)
			 : "rcx", "rdx", "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",
			   "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
			   "xmm13", "xmm14", "xmm15");
	return same != 0xffff;
}

int main(int argc, char **argv)
{
	int ms = argc > 1 ? atoi(argv[1]) : 3000;
	for (int r = 0; r < 16; r++)
		for (int b = 0; b < 16; b++)
			pattern[r][b] = (uint8_t)(r * 16 + b + 1);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long long end = now.tv_sec * 1000000000LL + now.tv_nsec + ms * 1000000LL;
	long bad_regs = 0, bad_errno = 0, rounds = 0;
	volatile int *err = &errno;
	signal(SIGUSR1, on_usr1);
	do {
		*err = 4242;
		bad_regs += registers_changed();
		bad_errno += *err != 4242;
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &now); /* vDSO: no system call, errno untouched */
	} while (!quit && now.tv_sec * 1000000000LL + now.tv_nsec < end);
	printf("bad=%ld registers=%ld errno=%ld rounds=%ld\n", bad_regs + bad_errno, bad_regs,
	       bad_errno, rounds);
	return bad_regs + bad_errno != 0;
}
