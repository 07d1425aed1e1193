/*
 * The floor of the arbiter's path on this machine, for bench_arbiter's numbers (`make
 * bench`): a process writes to a relay process (where the daemon sits), the relay writes
 * to A's socket, A's reader thread wakes and wakes A's waiting thread through an eventfd
 * (the run loop's wake-up) — the same hops with no work at all — next to the plain
 * ping-pong of bench_arbiter, in the same run.
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
static int aSock, efd;
static void *reader(void *x){(void)x; char b; for(;;){ if(read(aSock,&b,1)!=1) return NULL; uint64_t one=1; write(efd,&one,8);} }
int main(void){
  int bd[2], da[2]; socketpair(AF_UNIX,SOCK_STREAM,0,bd); socketpair(AF_UNIX,SOCK_STREAM,0,da);
  if(fork()==0){ /* relay */ char b; while(read(bd[1],&b,1)==1) write(da[0],&b,1); _exit(0);}
  int pp[2]; socketpair(AF_UNIX,SOCK_STREAM,0,pp);
  if(fork()==0){ char b; while(read(pp[1],&b,1)==1) write(pp[1],&b,1); _exit(0);}
  aSock=da[1]; efd=eventfd(0,0); pthread_t t; pthread_create(&t,NULL,reader,NULL);
  double chain[300], ping[300];
  for(int r=0;r<300;r++){
    usleep(2000);
    char c='x'; double s=now(); write(pp[0],&c,1); read(pp[0],&c,1); ping[r]=now()-s;
    /* B (this thread stands in for B's main thread) -> relay -> A reader -> A main (this thread waits on the eventfd) */
    s=now(); write(bd[0],&c,1); uint64_t v; read(efd,&v,8); chain[r]=now()-s;
  }
  for(int i=0;i<300;i++)for(int j=i+1;j<300;j++){ if(chain[j]<chain[i]){double x=chain[i];chain[i]=chain[j];chain[j]=x;} if(ping[j]<ping[i]){double x=ping[i];ping[i]=ping[j];ping[j]=x;} }
  printf("arbiter floor: the same hops with no work (process -> relay -> thread -> eventfd): p50 %.1f us, p99 %.1f us;"
         " ping-pong p50 %.1f us, p99 %.1f us; floor/ping-pong p50 %.2f, p99 %.2f\n",
         chain[150], chain[297], ping[150], ping[297], chain[150] / ping[150], chain[297] / ping[297]);
  return 0;
}
