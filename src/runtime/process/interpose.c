/* SPDX-License-Identifier: MIT */
/*
 * Telling the reader where control jumped. -finstrument-functions runs no
 * exit hook for the frames a longjmp abandons, nor (in clang builds) for those
 * an exception unwinds, so the runtime stands in front of longjmp and of
 * __cxa_begin_catch and leaves a mark with the stack pointer of the frame
 * that carries on. The call-tree builder closes every frame below it. A mark
 * at __cxa_throw lets it tell, in gcc builds where exit hooks do run during
 * unwinding, the frames an exception left from those that returned.
 *
 * These wrappers resolve the real functions with dlsym at start (never in a
 * signal handler: siglongjmp out of a handler is common) and forward to them.
 */
#include <dlfcn.h>
#include <setjmp.h>

#include "../runtime.h"
#include "../hotpath/hotpath.h"
#include "../methods/methods.h"
#include "process.h"
#include "../hotpath/shadow.h"

typedef void (*ct_jump_fn)(struct __jmp_buf_tag *env, int val) __attribute__((noreturn));
typedef void *(*ct_catch_fn)(void *exc);
typedef void (*ct_throw_fn)(void *exc, void *type, void (*dtor)(void *)) __attribute__((noreturn));
typedef void (*ct_rethrow_fn)(void) __attribute__((noreturn));

static ct_jump_fn ct_real_longjmp, ct_real__longjmp, ct_real_siglongjmp, ct_real_longjmp_chk;
static ct_catch_fn ct_real_begin_catch;
static ct_throw_fn ct_real_throw;
static ct_rethrow_fn ct_real_rethrow;

/* The personality routines the unwinder calls for every frame with EH data. */
typedef int (*ct_personality_fn)(int version, int actions, uint64_t exc_class, void *exc,
				 void *context);
typedef uintptr_t (*ct_ctx_fn)(void *context);
static ct_personality_fn ct_real_gxx_personality, ct_real_gcc_personality;
static ct_ctx_fn ct_get_cfa, ct_get_region_start;

typedef int (*ct_raise_fn)(void *exc);
typedef int (*ct_forced_fn)(void *exc, void *stop, void *arg);
static ct_raise_fn ct_real_raise, ct_real_resume_or_rethrow;
static ct_forced_fn ct_real_forced;

int _Unwind_RaiseException(void *exc);
int _Unwind_Resume_or_Rethrow(void *exc);
int _Unwind_ForcedUnwind(void *exc, void *stop, void *arg);

#define CT_UA_CLEANUP_PHASE    2
#define CT_URC_INSTALL_CONTEXT 7

/* not in any header we include */
void __longjmp_chk(jmp_buf env, int val) __attribute__((noreturn));
void *__cxa_begin_catch(void *exc);
void __cxa_throw(void *exc, void *type, void (*dtor)(void *)) __attribute__((noreturn));
void __cxa_rethrow(void) __attribute__((noreturn));
int __gxx_personality_v0(int version, int actions, uint64_t exc_class, void *exc, void *context);
int __gcc_personality_v0(int version, int actions, uint64_t exc_class, void *exc, void *context);

void ct_resolve_interposed(void)
{
	ct_real_longjmp = (ct_jump_fn)ct_next_symbol("longjmp");
	ct_real__longjmp = (ct_jump_fn)ct_next_symbol("_longjmp");
	ct_real_siglongjmp = (ct_jump_fn)ct_next_symbol("siglongjmp");
	ct_real_longjmp_chk = (ct_jump_fn)ct_next_symbol("__longjmp_chk");
	ct_real_begin_catch = (ct_catch_fn)ct_next_symbol("__cxa_begin_catch");
	ct_real_throw = (ct_throw_fn)ct_next_symbol("__cxa_throw");
	ct_real_rethrow = (ct_rethrow_fn)ct_next_symbol("__cxa_rethrow");
	ct_real_gxx_personality = (ct_personality_fn)ct_next_symbol("__gxx_personality_v0");
	ct_real_gcc_personality = (ct_personality_fn)ct_next_symbol("__gcc_personality_v0");
	ct_get_cfa = (ct_ctx_fn)dlsym(RTLD_DEFAULT, "_Unwind_GetCFA");
	ct_get_region_start = (ct_ctx_fn)dlsym(RTLD_DEFAULT, "_Unwind_GetRegionStart");
	ct_real_raise = (ct_raise_fn)ct_next_symbol("_Unwind_RaiseException");
	ct_real_resume_or_rethrow = (ct_raise_fn)ct_next_symbol("_Unwind_Resume_or_Rethrow");
	ct_real_forced = (ct_forced_fn)ct_next_symbol("_Unwind_ForcedUnwind");
}

__attribute__((constructor(101))) static void ct_interpose_init(void)
{
	ct_resolve_interposed();
}

/* Mark the jump; a target that is not above us on this stack is not ours to judge. */
static void ct_mark_jump(struct __jmp_buf_tag *env)
{
	uintptr_t here = CT_ARCH_CALLER_SP();
	uintptr_t target = ct_arch_jmpbuf_sp(env);
	if (target < here || target - here > ((uintptr_t)1 << 32))
		target = 0;
	ct_abandon_hooks(&ct_self);
	ct_shadow_land(&ct_self, target);
	ct_mark(CT_EXT_JUMP, target);
}

static __attribute__((noreturn)) void ct_jump(ct_jump_fn real, const char *name,
					      struct __jmp_buf_tag *env, int val)
{
	if (!real)
		real = (ct_jump_fn)ct_next_symbol(name);
	real(env, val);
}

CT_EXPORT void longjmp(jmp_buf env, int val)
{
	ct_mark_jump(env);
	ct_jump(ct_real_longjmp, "longjmp", env, val);
}

CT_EXPORT void _longjmp(jmp_buf env, int val)
{
	ct_mark_jump(env);
	ct_jump(ct_real__longjmp, "_longjmp", env, val);
}

CT_EXPORT void siglongjmp(sigjmp_buf env, int val)
{
	ct_mark_jump(env);
	ct_jump(ct_real_siglongjmp, "siglongjmp", env, val);
}

CT_EXPORT void __longjmp_chk(jmp_buf env, int val)
{
	ct_mark_jump(env);
	ct_jump(ct_real_longjmp_chk, "__longjmp_chk", env, val);
}

CT_EXPORT void *__cxa_begin_catch(void *exc)
{
	uintptr_t sp = CT_ARCH_CALLER_SP();
	ct_shadow_land(&ct_self, sp);
	ct_fentry_rehook(&ct_self);
	ct_mark(CT_EXT_CATCH, sp);
	if (!ct_real_begin_catch)
		ct_real_begin_catch = (ct_catch_fn)ct_next_symbol("__cxa_begin_catch");
	return ct_real_begin_catch(exc);
}

CT_EXPORT void __cxa_throw(void *exc, void *type, void (*dtor)(void *))
{
	ct_mark(CT_EXT_THROW, CT_ARCH_CALLER_SP());
	if (!ct_real_throw)
		ct_real_throw = (ct_throw_fn)ct_next_symbol("__cxa_throw");
	ct_real_throw(exc, type, dtor);
}

CT_EXPORT void __cxa_rethrow(void)
{
	ct_mark(CT_EXT_THROW, CT_ARCH_CALLER_SP());
	if (!ct_real_rethrow)
		ct_real_rethrow = (ct_rethrow_fn)ct_next_symbol("__cxa_rethrow");
	ct_real_rethrow();
}

/*
 * The unwinder reads return addresses from the stack: those fentry replaced
 * go back first (fentry.c). Every C++ throw and rethrow, and the forced
 * unwinding of pthread_exit and cancellation, go through these.
 */
CT_EXPORT int _Unwind_RaiseException(void *exc)
{
	ct_fentry_unhook(&ct_self);
	if (!ct_real_raise)
		ct_real_raise = (ct_raise_fn)ct_next_symbol("_Unwind_RaiseException");
	return ct_real_raise(exc);
}

CT_EXPORT int _Unwind_Resume_or_Rethrow(void *exc)
{
	ct_fentry_unhook(&ct_self);
	if (!ct_real_resume_or_rethrow)
		ct_real_resume_or_rethrow =
			(ct_raise_fn)ct_next_symbol("_Unwind_Resume_or_Rethrow");
	return ct_real_resume_or_rethrow(exc);
}

CT_EXPORT int _Unwind_ForcedUnwind(void *exc, void *stop, void *arg)
{
	ct_fentry_unhook(&ct_self);
	if (!ct_real_forced)
		ct_real_forced = (ct_forced_fn)ct_next_symbol("_Unwind_ForcedUnwind");
	return ct_real_forced(exc, stop, arg);
}

/*
 * When the unwinder installs a landing pad, say in which frame: the reader
 * closes every frame below it before the cleanup's calls (destructors) run.
 */
static int ct_personality(ct_personality_fn *real, const char *name, int version, int actions,
			  uint64_t exc_class, void *exc, void *context)
{
	if (!*real)
		*real = (ct_personality_fn)ct_next_symbol(name);
	int r = (*real)(version, actions, exc_class, exc, context);
	if (r == CT_URC_INSTALL_CONTEXT && (actions & CT_UA_CLEANUP_PHASE)) {
		if (!ct_get_cfa) {
			ct_get_cfa = (ct_ctx_fn)dlsym(RTLD_DEFAULT, "_Unwind_GetCFA");
			ct_get_region_start =
				(ct_ctx_fn)dlsym(RTLD_DEFAULT, "_Unwind_GetRegionStart");
		}
		uint64_t where[2] = { ct_get_cfa ? ct_get_cfa(context) : 0, /* the frame's sp */
				      ct_get_region_start ? ct_get_region_start(context) : 0 };
		if (where[0])
			ct_emit_ext(CT_EXT_LANDING, where, sizeof(where), 0);
	}
	return r;
}

CT_EXPORT int __gxx_personality_v0(int version, int actions, uint64_t exc_class, void *exc,
				   void *context)
{
	return ct_personality(&ct_real_gxx_personality, "__gxx_personality_v0", version, actions,
			      exc_class, exc, context);
}

CT_EXPORT int __gcc_personality_v0(int version, int actions, uint64_t exc_class, void *exc,
				   void *context)
{
	return ct_personality(&ct_real_gcc_personality, "__gcc_personality_v0", version, actions,
			      exc_class, exc, context);
}
