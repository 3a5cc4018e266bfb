/* record -a across fork: the child runs its parent's patched code, whose
 * prototypes were told once, in the parent's image. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) int work(int n, const char *who) { return n * 2 + (who[0] == 'c'); }
int main(void)
{
	pid_t p = fork();
	if (p == 0)
		return work(20, "child") == 41 ? 0 : 1;
	int st;
	waitpid(p, &st, 0);
	return work(10, "parent") == 20 && st == 0 ? 0 : 1;
}
