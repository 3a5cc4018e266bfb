/* SPDX-License-Identifier: MIT */
/*
 * calltrace.h: drive calltrace from inside a program.
 *
 *     #include <calltrace.h>
 *     cc prog.c $(pkg-config --cflags --libs calltrace)
 *
 * Every function here is a cheap no-op when the program runs without
 * calltrace: pkg-config links the tiny libcalltrace-api.so, whose functions
 * do nothing; under `calltrace record` (or linked with -lcalltrace, the
 * standalone runtime) calltrace's runtime answers them instead. So the calls
 * can stay in production builds.
 *
 * All of them are async-signal-safe except calltrace_mark(), which formats
 * with vsnprintf(). None of them takes a lock or allocates memory.
 */
#ifndef CALLTRACE_H
#define CALLTRACE_H

#ifdef __cplusplus
extern "C" {
#endif

#define CALLTRACE_API_VERSION 1
#define CALLTRACE_API __attribute__((visibility("default")))

/* Keep one function out of the trace (its callees are still traced), whatever the method. */
#if defined(__has_attribute)
#if __has_attribute(patchable_function_entry)
#define CALLTRACE_NO_TRACE __attribute__((no_instrument_function, patchable_function_entry(0, 0)))
#endif
#endif
#ifndef CALLTRACE_NO_TRACE
#define CALLTRACE_NO_TRACE __attribute__((no_instrument_function))
#endif

/* 1 when calls of this process are being recorded, else 0. */
CALLTRACE_API int calltrace_active(void);

/*
 * Turn tracing on or off for the calling thread. Calls made while it is off
 * are not recorded; calls still open when it comes back on are shown as
 * entered where tracing resumed. Tracing starts on in every thread.
 */
CALLTRACE_API void calltrace_enable(void);
CALLTRACE_API void calltrace_disable(void);

/*
 * The same for the whole process: a thread records when both the process
 * and the thread have tracing on. `calltrace record --disabled` starts the
 * program with process-wide tracing off, for it to call
 * calltrace_enable_all() where the interesting part begins.
 */
CALLTRACE_API void calltrace_enable_all(void);
CALLTRACE_API void calltrace_disable_all(void);

/*
 * A user event, printf-style, at this point of the calling thread's tree:
 * replay shows it as `// text`, exports as an instant event. At most 200
 * bytes of text are kept.
 */
CALLTRACE_API void calltrace_mark(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The calling thread's traced calls, innermost first: buf[0] is the entry
 * address of the function that called calltrace_backtrace(), buf[1] its
 * caller's, and so on. Returns how many were stored (at most max; 0 without
 * calltrace). Read from calltrace's shadow stack, without unwinding: usable
 * in a signal handler, where the handler's own traced calls come first, then
 * those the signal interrupted. Only traced functions appear.
 */
CALLTRACE_API int calltrace_backtrace(void **buf, int max);

/*
 * Flight recorder (`calltrace record --ring`): write every thread's newest
 * events now, as `calltrace snapshot PID` does. Returns 0 if a snapshot was
 * asked for, -1 when the process is not recorded in ring mode.
 */
CALLTRACE_API int calltrace_snapshot(void);

#ifdef __cplusplus
}
#endif

#endif
