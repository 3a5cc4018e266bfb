/* CT-EXIT: 55
 * CT-OPTIMISED-AWAY: yes
 * Sample from the tracef documentation, verbatim below this header:
 * recursion; main returns sum(10) = 55, so the exit status is 55.
 * Counts come from sample_sum.truth.
 */
#include <stdio.h>
int sum(int n){return n==0?0:n+sum(n-1);} int main(){int s=sum(10); printf("sum(10) = %d\n",s); return s;}
