/* SPDX-License-Identifier: MIT */
/*
 * The API of include/calltrace.h, as the runtime answers it (without
 * calltrace, libcalltrace-api.so's stubs answer), and the gate that turns
 * tracing off and on.
 *
 * Off, a thread's hooks keep its shadow stack and write nothing. The first
 * event left out writes a pause mark; the first event let through again
 * writes a resume record first: the innermost call the reader saw that is
 * still open, and the calls entered meanwhile that are still open, so the
 * reader's tree goes on exactly where the program is.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>


#include "../runtime.h"
#include "../hotpath/hotpath.h"
#include "../hotpath/shadow.h"
#include "../../../include/calltrace.h"

CT_HIDDEN int ct_paused_all;

/* At most this many calls entered while tracing was off are told. */
#define CT_RESUME_MAX 128

static void ct_resume(struct ct_thread *t, uintptr_t sp)
{
	struct {
		struct ct_ext_resume r;
		struct ct_ext_frame f[CT_RESUME_MAX];
	} rec;
	const struct ct_shadow_frame *s = t->shadow;
	uint32_t from = t->resume_from, to = ct_shadow_kept(t);

	memset(&rec.r, 0, sizeof(rec.r));
	rec.r.sp = ct_ev_sp_units(sp);
	if (s && from && from <= to) {
		rec.r.keep.fn = s[from - 1].fn;
		rec.r.keep.sp = ct_ev_sp_units(s[from - 1].sp);
	}
	if (to > from + CT_RESUME_MAX)
		to = from + CT_RESUME_MAX;
	for (uint32_t i = from; s && i < to; i++) {
		rec.f[rec.r.nframes].fn = s[i].fn;
		rec.f[rec.r.nframes++].sp = ct_ev_sp_units(s[i].sp);
	}
	ct_emit_ext(CT_EXT_RESUME, &rec,
		    (uint32_t)(sizeof(rec.r) + rec.r.nframes * sizeof(rec.f[0])), 1);
}

/* The hooks' slow side of the gate: tracing is off somewhere, or just came back. */
int ct_gate_open(struct ct_thread *t)
{
	uintptr_t sp = CT_ARCH_CALLER_SP();
	if ((t->gate & CT_GATE_OFF) || __atomic_load_n(&ct_paused_all, __ATOMIC_RELAXED)) {
		if (!(t->gate & CT_GATE_PAUSED)) {
			t->gate |= CT_GATE_PAUSED;
			t->resume_from = t->sdepth;
			if (t->thread_seq) /* a thread that has written nothing yet has no tree to cut */
				ct_mark_always(CT_EXT_PAUSE, sp);
		}
		return 0;
	}
	if (t->gate & CT_GATE_PAUSED) {
		t->gate &= (uint8_t)~CT_GATE_PAUSED;
		ct_resume(t, sp);
	}
	return 1;
}

CT_EXPORT int calltrace_active(void)
{
	return ct_init_outside() == 0 && atomic_load(&ct_ctl->state) == CT_POOL_RECORDING;
}

CT_EXPORT void calltrace_enable(void)
{
	ct_self.gate &= (uint8_t)~CT_GATE_OFF;
}

CT_EXPORT void calltrace_disable(void)
{
	ct_self.gate |= CT_GATE_OFF;
}

CT_EXPORT void calltrace_enable_all(void)
{
	__atomic_store_n(&ct_paused_all, 0, __ATOMIC_RELAXED);
}

CT_EXPORT void calltrace_disable_all(void)
{
	__atomic_store_n(&ct_paused_all, 1, __ATOMIC_RELAXED);
}

CT_EXPORT void calltrace_mark(const char *fmt, ...)
{
	struct {
		uint64_t sp;
		char text[208];
	} rec;
	struct ct_thread *t = &ct_self;

	rec.sp = ct_ev_sp_units(CT_ARCH_CALLER_SP());
	if (!fmt || ct_init_outside() != 0 || ct_gated(t))
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(rec.text, sizeof(rec.text), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = strnlen(rec.text, sizeof(rec.text) - 1) + 1;
	ct_emit_ext(CT_EXT_USER_MARK, &rec, (uint32_t)(sizeof(rec.sp) + len), 0);
}

CT_EXPORT int calltrace_snapshot(void)
{
	if (ct_init_outside() != 0 || !(ct_ctl->flags & CT_POOL_RING))
		return -1;
	ct_pool_request_snapshot(ct_ctl);
	return 0;
}
