/* Execs argv[1]: a traced image replaced by one that may not be traceable. */
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) int before(void)
{
	return 1;
}
int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	before();
	execv(argv[1], argv + 1);
	perror("exec");
	return 1;
}
