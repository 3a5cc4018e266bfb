// CT-EXIT: 255
// CT-OPTIMISED-AWAY: yes
// CT-UNWOUND: clang
// Sample from the tracef documentation, verbatim below this header: an int
// thrown from c() four frames deep, caught in a(); exit status 255. With
// clang the frames the exception leaves run no exit hook: they show as
// unwound; with gcc they may show as returning or as unwound. The tree is
// the same.
// Counts come from sample_throw.truth.
int c(int i){ if(i==0) throw 0xff; return c(--i);} void b(){c(3);} int a(){ try{b();} catch(int& e){return e;} return 0;} int main(){return a();}
