/* A library a user preloads: it does nothing. */
int ct_test_preloaded(void)
{
	return 1;
}
