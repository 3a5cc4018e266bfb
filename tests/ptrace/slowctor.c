/* A library whose constructor takes a while (see locker.c). */
__attribute__((constructor)) static void slow(void) { volatile long x = 0; for (long i = 0; i < 100000000; i++) x += i; }
