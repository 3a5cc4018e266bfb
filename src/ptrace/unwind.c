/* SPDX-License-Identifier: MIT */
/*
 * The calls under way in a process calltrace attaches to: each stopped
 * thread's stack unwound by libdwfl (CFI, so code without frame pointers
 * too), as {function, return-address slot, return address} outermost first.
 * Their returns are then seen, and shown as "entered before attach".
 */
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>

#include "tracer.h"
#include "../arch/ptrace_arch.h"

#define CT_MAX_UNWOUND 256

struct ct_unwound {
	Dwfl *dwfl;
	uint64_t pc[CT_MAX_UNWOUND], sp[CT_MAX_UNWOUND];
	int n;
};

static int ct_frame(Dwfl_Frame *f, void *arg)
{
	struct ct_unwound *u = arg;
	Dwarf_Addr pc;
	Dwarf_Word sp = 0;
	bool activation;
	if (!dwfl_frame_pc(f, &pc, &activation) || u->n == CT_MAX_UNWOUND)
		return DWARF_CB_ABORT;
	if (dwfl_frame_reg(f, CT_ARCH_DWARF_SP, &sp) < 0)
		sp = 0;
	u->pc[u->n] = pc;
	u->sp[u->n++] = sp;
	return DWARF_CB_OK;
}

/* The function pc is in (its name in *name); 0 if unknown. */
static uint64_t ct_function_at(Dwfl *dwfl, uint64_t pc, const char **name)
{
	Dwfl_Module *m = dwfl_addrmodule(dwfl, pc);
	GElf_Off off;
	GElf_Sym sym;
	*name = m ? dwfl_module_addrinfo(m, pc, &off, &sym, NULL, NULL, NULL) : NULL;
	return *name ? pc - off : 0;
}

/*
 * An exception on its way: the unwinder reads the return addresses on the
 * stack (it may have read some), so none of this thread's may change now.
 */
static int ct_unwinding(const char *name)
{
	static const char *const unwinder[] = { "_Unwind_", "uw_", "__cxa_throw",
						"__cxa_rethrow", "__gxx_personality", "__gcc_personality" };
	for (size_t i = 0; name && i < sizeof(unwinder) / sizeof(unwinder[0]); i++)
		if (!strncmp(name, unwinder[i], strlen(unwinder[i])))
			return 1;
	return 0;
}

/*
 * Frame k's caller (k + 1) holds its return address, just below the stack
 * pointer the caller had (its key there: CT_ARCH_SLOT_BELOW_CFA); the innermost frame's pc is exact, the others'
 * are return addresses (the call is just before). A thread stopped at a
 * function's first byte has not begun that call: its entry, patched or
 * with a breakpoint, tells it when the thread goes on, and an adopted
 * frame too would make the call two frames (taken for a tail call).
 */
static size_t ct_thread_calls(struct ct_unwound *u, pid_t tid, struct ct_pt_frame *out)
{
	size_t n = 0;
	u->n = 0;
	dwfl_getthread_frames(u->dwfl, tid, ct_frame, u);
	for (int k = u->n - 1; k >= 1; k--) {
		const char *name;
		uint64_t fn = ct_function_at(u->dwfl, k == 1 ? u->pc[0] : u->pc[k - 1] - 1, &name);
		if (ct_unwinding(name))
			return 0;
		if (k == 1 && fn == u->pc[0])
			continue;
		if (fn && u->sp[k])
			out[n++] = (struct ct_pt_frame){ fn, u->sp[k] - CT_ARCH_SLOT_BELOW_CFA,
							 u->pc[k] };
	}
	return n;
}

/* A session on pid's modules as its maps name them (NULL if they cannot be read). */
static Dwfl *ct_proc_dwfl(pid_t pid)
{
	static const Dwfl_Callbacks cb = { .find_elf = dwfl_linux_proc_find_elf,
					   .find_debuginfo = dwfl_standard_find_debuginfo };
	Dwfl *dwfl = dwfl_begin(&cb);
	if (dwfl &&
	    (dwfl_linux_proc_report(dwfl, pid) != 0 || dwfl_report_end(dwfl, NULL, NULL) != 0)) {
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

int ct_pt_function_offsets(struct ct_pt_proc *p, const uint64_t *pc, size_t n, uint64_t *off)
{
	Dwfl *dwfl = ct_proc_dwfl(p->pid);
	if (!dwfl)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *name;
		uint64_t fn = ct_function_at(dwfl, pc[i], &name);
		off[i] = fn ? pc[i] - fn : UINT64_MAX;
	}
	dwfl_end(dwfl);
	return 0;
}

int ct_pt_open_calls(struct ct_tracer *tr, struct ct_pt_proc *p, ct_open_calls_fn fn, void *arg)
{
	struct ct_unwound u = { .dwfl = ct_proc_dwfl(p->pid) };
	struct ct_pt_frame *frames = ct_malloc(CT_MAX_UNWOUND * sizeof(*frames));
	int r = -1;
	if (u.dwfl && dwfl_linux_proc_attach(u.dwfl, p->pid, true) == 0) {
		for (size_t i = 0; i < tr->threads.cap; i++) {
			struct ct_pt_thread *t = (void *)(uintptr_t)tr->threads.vals[i];
			if (tr->threads.keys[i] && t && t->proc == p)
				fn(tr, t, frames, ct_thread_calls(&u, t->tid, frames), arg);
		}
		r = 0;
	}
	if (u.dwfl)
		dwfl_end(u.dwfl);
	free(frames);
	return r;
}
