/* -A / -R on a binary without DWARF (built without -g, stripped of nothing
 * else): the specs say what the arguments are. */
volatile long sink;
__attribute__((noinline)) long mix(int a, const char *s, double d)
{
	return a + s[0] + (long)d;
}
int main(void)
{
	sink = mix(-3, "xyz", 2.5);
	return 0;
}
