// CT-EXIT: 65
// CT-OPTIMISED-AWAY: yes
// Sample from the tracef documentation, verbatim below this header: static
// initialisation (foo, bar::bar, the static members of strSum_), a
// constructor function (baz); foo, bar::bar and baz run before main,
// bar::~bar after it. main returns 'C'+'+'+'+'+'0'+'x' = 321, exit status 65.
// Counts come from before_main2.truth (the sample does not count itself).
#include <cstdio>
#include <cstddef>
int foo() { return 1; }
int g = foo();
struct bar { bar() {} ~bar() throw() {} } g2;
__attribute__((constructor)) void baz() {}
template<const char* S, std::size_t L, std::size_t N = 0> struct strSum_ { static const unsigned long value; };
template<const char* S, std::size_t L, std::size_t N> const unsigned long strSum_<S, L, N>::value = S[N] + strSum_<S, L, N + 1>::value;
template<const char* S, std::size_t L> struct strSum_<S, L, L> { static const unsigned long value = 0; };
template<typename T, std::size_t L> char (&lengthof_helper_(T(&)[L]))[L];
#define LENGTHOF(array) sizeof(lengthof_helper_(array))
extern const char s[] = "C++0x";
int main() { return (int) strSum_<s, LENGTHOF(s) - 1>::value; }
