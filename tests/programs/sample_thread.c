/* CT-THREADS: 2
 * Sample from the tracef documentation: one thread, created with
 * pthread_create, prints pthread_self.
 * Counts come from sample_thread.truth.
 */
#include <pthread.h>
#include <stdio.h>
void *thread_func(void *arg) { (void)arg; printf("thread %lu\n", (unsigned long)pthread_self()); return NULL; }
int main() { pthread_t t; pthread_create(&t, NULL, thread_func, NULL); pthread_join(t, NULL); return 0; }
