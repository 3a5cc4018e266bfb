/* SPDX-License-Identifier: MIT */
/* The shadow stack's memory, its repairs after jumps and signals, and backtraces. */
#include <sys/mman.h>

#include "shadow.h"
#include "hotpath.h"
#include "../../../include/calltrace.h"

static __thread struct ct_shadow_frame ct_late_frames[CT_SHADOW_LATE]
	__attribute__((tls_model("initial-exec")));

/*
 * Once per thread, at its first call (the process's very first starts the
 * runtime); never for an untraced process, never again after the thread's end.
 */
struct ct_shadow_frame *ct_shadow_alloc(struct ct_thread *t, uint32_t method)
{
	/*
	 * Calls after the thread's end (a signal handler, another library's
	 * destructor): a method that replaces return addresses must keep them
	 * somewhere, so it gets a few frames in TLS, which go with the thread.
	 */
	if (t->shadow_gone && method != CT_METHOD_FINSTRUMENT && !t->in_slow) {
		t->sdepth = 0;
		t->scap = CT_SHADOW_LATE;
		return t->shadow = ct_late_frames;
	}
	if (t->shadow_gone || t->in_slow)
		return NULL;
	if (ct_init_outside() != 0) {
		t->shadow_gone = 1;
		return NULL;
	}
	void *m = mmap(NULL, CT_SHADOW_CAP * sizeof(struct ct_shadow_frame),
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		t->shadow_gone = 1;
		return NULL;
	}
	t->sdepth = 0;
	t->scap = CT_SHADOW_CAP;
	t->shadow = m;
	atomic_fetch_or(&ct_ctl->methods, method);
	ct_arm_thread_end(t); /* to unmap it */
	return m;
}

/* At the thread's end: its last destructors may still run hooks, which find none. */
void ct_shadow_free(struct ct_thread *t)
{
	struct ct_shadow_frame *s = t->shadow;
	t->shadow_gone = 1;
	t->shadow = NULL;
	__asm__ volatile("" ::: "memory");
	if (s && s != ct_late_frames)
		munmap(s, CT_SHADOW_CAP * sizeof(*s));
}

/*
 * Keep the frames outside the landing frame, from the outermost in: a frame
 * at a lower stack pointer is inside it, and so is everything after it (a
 * handler's frames on an alternate stack come after its barrier).
 */
void ct_shadow_land(struct ct_thread *t, uintptr_t sp)
{
	struct ct_shadow_frame *s = t->shadow;
	if (!s || !sp)
		return;
	uint32_t d = 0, kept = ct_shadow_kept(t);
	while (d < kept && s[d].sp >= sp)
		d++;
	if (d == kept && t->sdepth > kept)
		return; /* it lands among the frames counted, not kept: we cannot tell where */
	t->sdepth = d;
	if (d < t->resume_from)
		t->resume_from = d;
}

/*
 * ct_shadow_tail_sp when the newest frame is not the function's under its
 * caller's: frames a jump left (no wrapper saw it), or a signal handler's
 * barrier under it. The frames the hook's stack pointer is above, newest
 * first, never past a barrier.
 */
uintptr_t ct_shadow_tail_sp_below(const struct ct_thread *t, uintptr_t fn, uintptr_t sp)
{
	const struct ct_shadow_frame *s = t->shadow;
	for (uint32_t d = t->sdepth; d && s[d - 1].sp < sp && s[d - 1].fn < CT_PSEUDO_BASE; d--)
		if (s[d - 1].fn == fn &&
		    (d == 1 || s[d - 2].fn >= CT_PSEUDO_BASE || s[d - 2].sp >= sp))
			return s[d - 1].sp;
	return sp;
}

uint32_t ct_shadow_signal(struct ct_thread *t, int sig, uintptr_t sp)
{
	uint32_t d = t->sdepth;
	if (t->shadow) {
		t->sdepth = d + 1;
		__asm__ volatile("" ::: "memory");
		if (d < t->scap) {
			t->shadow[d].fn = CT_PSEUDO_SIGNAL + (uint32_t)sig;
			t->shadow[d].sp = sp;
			t->shadow[d].ret = 0;
		}
	}
	return d;
}

void ct_shadow_restore(struct ct_thread *t, uint32_t depth)
{
	if (!t->shadow)
		return;
	t->sdepth = depth;
	if (depth < t->resume_from)
		t->resume_from = depth;
}

CT_EXPORT int calltrace_backtrace(void **buf, int max)
{
	struct ct_thread *t = &ct_self;
	struct ct_shadow_frame *s = t->shadow;
	uintptr_t sp = CT_ARCH_CALLER_SP();

	if (!s || max <= 0)
		return 0;
	uint32_t d = ct_shadow_kept(t);
	/* calls below our caller ended without telling (a jump): not its callers */
	while (d == t->sdepth && d && ct_shadow_prunable(&s[d - 1], sp))
		d--;
	int n = 0;
	for (; d && n < max; d--) {
		uintptr_t fn = s[d - 1].fn;
		if (fn < CT_PSEUDO_BASE)
			buf[n++] = (void *)fn;
	}
	return n;
}
