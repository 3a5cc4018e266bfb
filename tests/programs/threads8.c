/* Eight threads: see threads.c.
 *
 * CT-THREADS: 9
 */
#define NTHREADS 8
#define ITERS 10000
#include "threads.c"
