/*
 * A sandbox: a seccomp filter makes opening a file read-write and memfd_create
 * fail with EPERM (what the runtime would need to open the recording's
 * shared memory by its path), then the program execs itself: 100 calls
 * before, 200 after. "closeall": it also closes every descriptor past 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) int leaf(int x)
{
	return x + 1;
}
__attribute__((noinline)) int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

static int sandbox(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_memfd_create, 5, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, O_ACCMODE),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, O_RDWR, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child")) {
		int fd = open("/dev/null", O_RDWR);
		printf("child s=%d open-rw=%s\n", work(200),
		       fd < 0 && errno == EPERM ? "EPERM" : "allowed");
		return 0;
	}
	work(100);
	if (sandbox()) {
		perror("seccomp");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "closeall"))
		syscall(SYS_close_range, 3, ~0u, 0);
	execl("/proc/self/exe", "seccomp", "child", (char *)NULL);
	perror("exec");
	return 1;
}
