/* SPDX-License-Identifier: MIT */
/* The floor of the ptrace method here: a child executing int3 in a loop under
 * ptrace; mode bits add GETREGS (1), a /proc/PID/mem read (2), SETREGS (4),
 * PEEKUSER (8), a polling wait (16). gcc -O2 bench/ptrace_floor.c && ./a.out 0 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <unistd.h>
#include <fcntl.h>
#include <time.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <sys/user.h>
#include <stddef.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  int mode=atoi(argv[1]); int N=20000;
  pid_t p=fork();
  if(!p){ptrace(PTRACE_TRACEME,0,0,0);raise(SIGSTOP);for(int i=0;i<N;i++)__asm__ volatile("int3");_exit(0);}
  int st; waitpid(p,&st,0); ptrace(PTRACE_CONT,p,0,0);
  char path[64]; sprintf(path,"/proc/%d/mem",p); int fd=open(path,O_RDWR);
  double t0=now(); long n=0;
  for(;;){ if(mode&16){while(waitpid(p,&st,__WALL|WNOHANG)==0);} else waitpid(p,&st,__WALL); if(!WIFSTOPPED(st))break; n++;
    struct user_regs_struct r;
    if(mode&1) ptrace(PTRACE_GETREGS,p,0,&r);
    if(mode&2) { long v; pread(fd,&v,8,r.rsp); }
    if(mode&4) ptrace(PTRACE_SETREGS,p,0,&r);
    if(mode&8) { long v=ptrace(PTRACE_PEEKUSER,p,offsetof(struct user_regs_struct,rsp),0); (void)v;}
    ptrace(PTRACE_CONT,p,0,0);}
  double t=now()-t0; printf("mode %d: %.2f us/stop (%ld)\n",mode,t/n*1e6,n); return 0;}
