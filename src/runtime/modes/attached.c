/* SPDX-License-Identifier: MIT */
/*
 * calltrace attach, inside the process: the tracer (src/ptrace/attach_rt.c)
 * makes a stopped thread dlopen us as libcalltrace-attach.so (a link to
 * libcalltrace.so: the name tells our constructors to start nothing) and
 * call calltrace_attach_start with what record would have put in the
 * environment. We then patch the selected functions as the patch method
 * does, and point the GOT slots through which modules reach the functions
 * we stand in front of (the unwinder's entries, longjmp, dlopen, dlclose)
 * at our wrappers: loaded late and locally, nothing is interposed.
 *
 * Every byte we change is logged first, so that calltrace_attach_stop can
 * put it back. We are never unloaded: a return address we replaced may
 * still be on a stack, and our return trampoline must be there for it.
 * After a stop the hooks are inert, and a later attach starts us again.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../runtime.h"
#include "../hotpath/hotpath.h"
#include "../methods/methods.h"
#include "../process/process.h"
#include "modes.h"
#include "../hotpath/shadow.h"
#include "../methods/elfmap.h"
#include "../methods/imports.h"
#include "../methods/patching.h"
#include "../process/handoff.h"
#include "../../arch/relocate.h"
#include "../../common/attach_abi.h"

#define CT_UNDO_MAX    CT_MOVED_MAX

/* One change to undo: the bytes that were at addr. */
struct ct_undo {
	uintptr_t addr;
	uint8_t len;
	uint8_t prot; /* CT_UNDO_* */
	uint8_t old[CT_UNDO_MAX];
};
enum { CT_UNDO_CODE, CT_UNDO_RELRO, CT_UNDO_DATA };

static struct ct_undo *ct_undo;
static size_t ct_nundo, ct_capundo;
static struct ct_pool_ctl ct_inert_ctl; /* what ct_ctl points to once the pool is gone */

/*
 * Memory of ours the stopped runtime no longer uses: trampoline areas, the
 * zeroed stand-in for the pool (calltrace_attach_stop). A thread may still
 * be inside for a moment after the detach, so it goes at a later attach,
 * once it has been retired long enough.
 */
struct ct_region {
	void *addr;
	size_t len;
};
#define CT_MAX_REGIONS	1024
#define CT_STRAGGLER_NS 300000000ull /* 3 x the longest wait for a chunk (thread.c) */
static struct ct_region ct_in_use[CT_MAX_REGIONS], ct_retired[CT_MAX_REGIONS];
static unsigned ct_nin_use, ct_nretired;
static uint64_t ct_retired_since;

void ct_attach_note_area(void *addr, size_t len)
{
	if (ct_attached && ct_nin_use < CT_MAX_REGIONS)
		ct_in_use[ct_nin_use++] = (struct ct_region){ addr, len };
}

static void ct_drop_retired(void)
{
	if (!ct_nretired || ct_clock_slow() - ct_retired_since <= CT_STRAGGLER_NS)
		return;
	for (unsigned i = 0; i < ct_nretired; i++)
		munmap(ct_retired[i].addr, ct_retired[i].len);
	ct_nretired = 0;
}

static void ct_retire(void *addr, size_t len)
{
	if (ct_nretired < CT_MAX_REGIONS) /* else it stays mapped, unused */
		ct_retired[ct_nretired++] = (struct ct_region){ addr, len };
	ct_retired_since = ct_clock_slow();
}

void ct_undo_save(uintptr_t addr, size_t len, int data)
{
	if (!ct_attached || len > CT_UNDO_MAX)
		return;
	if (ct_nundo == ct_capundo) {
		size_t cap = ct_capundo ? 2 * ct_capundo : 1024;
		struct ct_undo *u = realloc(ct_undo, cap * sizeof(*u));
		if (!u)
			return;
		ct_undo = u;
		ct_capundo = cap;
	}
	struct ct_undo *u = &ct_undo[ct_nundo++];
	u->addr = addr;
	u->len = (uint8_t)len;
	u->prot = data ? (uint8_t)data : CT_UNDO_CODE;
	memcpy(u->old, (const void *)addr, len);
}

/* The bytes back, newest change first; pages get back the protection they had. */
static void ct_undo_all(void)
{
	long page = sysconf(_SC_PAGESIZE);
	for (size_t i = ct_nundo; i-- > 0;) {
		struct ct_undo *u = &ct_undo[i];
		uintptr_t lo = u->addr & ~(uintptr_t)(page - 1);
		size_t len = ((u->addr + u->len + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1)) - lo;
		int back = u->prot == CT_UNDO_CODE ? PROT_READ | PROT_EXEC : PROT_READ;
		if (u->prot != CT_UNDO_DATA &&
		    mprotect((void *)lo, len, back | PROT_WRITE) < 0)
			continue;
		memcpy((void *)u->addr, u->old, u->len);
		if (u->prot != CT_UNDO_DATA)
			mprotect((void *)lo, len, back);
		if (u->prot == CT_UNDO_CODE)
			__builtin___clear_cache((char *)u->addr, (char *)u->addr + u->len);
	}
	ct_nundo = 0;
}

/* ---- GOT slots: the functions the preloaded runtime would interpose -------------------- */

static const char *const ct_wrapped[] = {
	"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", "__cxa_begin_catch", "__cxa_throw",
	"__cxa_rethrow", "_Unwind_RaiseException", "_Unwind_Resume_or_Rethrow",
	"_Unwind_ForcedUnwind", "dlopen", "dlclose",
};

/*
 * Our wrappers' addresses are looked up before the modules are walked: the
 * walk (dl_iterate_phdr) holds the loader's write lock, and dlsym takes its
 * load lock, which a thread in dlopen holds while it waits for the write
 * lock: the other order would deadlock with it.
 */
struct ct_redirect {
	uintptr_t self_base;
	void *ours[CT_ARRAY_LEN(ct_wrapped)];
};

static void *ct_wrapper_of(const struct ct_redirect *r, const char *name)
{
	for (size_t i = 0; i < CT_ARRAY_LEN(ct_wrapped); i++)
		if (!strcmp(name, ct_wrapped[i]))
			return r->ours[i];
	return NULL;
}

/* Is addr in the module's PT_GNU_RELRO (read-only once relocated)? */
static int ct_in_relro(const struct dl_phdr_info *info, uintptr_t addr)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_GNU_RELRO && addr >= lo && addr < lo + ph->p_memsz)
			return 1;
	}
	return 0;
}

static void ct_write_slot(const struct dl_phdr_info *info, uintptr_t slot, uintptr_t value)
{
	long page = sysconf(_SC_PAGESIZE);
	int relro = ct_in_relro(info, slot);
	uintptr_t lo = slot & ~(uintptr_t)(page - 1);
	if (relro && mprotect((void *)lo, (size_t)page, PROT_READ | PROT_WRITE) < 0)
		return;
	ct_undo_save(slot, sizeof(value), relro ? CT_UNDO_RELRO : CT_UNDO_DATA);
	memcpy((void *)slot, &value, sizeof(value));
	if (relro)
		mprotect((void *)lo, (size_t)page, PROT_READ);
}

static int ct_redirect_module(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	const struct ct_redirect *r = data;
	int program = !info->dlpi_name || !*info->dlpi_name;
	const char *path = program ? ct_self_exe() : info->dlpi_name;
	struct ct_elf_map m;
	struct ct_imports im = { 0 };

	if (info->dlpi_addr == r->self_base || (!program && !strncmp(path, "linux-vdso", 10)) ||
	    ct_elf_map(path, &m) < 0)
		return 0;
	ct_imports_read(&m, info->dlpi_addr, &im);
	for (size_t i = 0; i < im.n; i++) {
		void *ours = ct_wrapper_of(r, im.v[i].name);
		if (ours)
			ct_write_slot(info, im.v[i].slot, (uintptr_t)ours);
	}
	free(im.v);
	ct_elf_unmap(&m);
	return 0;
}

static void ct_redirect_imports(void)
{
	Dl_info info;
	struct ct_redirect r = { 0 };
	if (!dladdr((void *)ct_redirect_imports, &info) || !info.dli_fname)
		return;
	/* our handle (dlsym on it finds our wrappers, not the real ones); the count it
	 * takes is kept: we are never unloaded */
	void *self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (!self)
		return;
	r.self_base = (uintptr_t)info.dli_fbase;
	for (size_t i = 0; i < CT_ARRAY_LEN(ct_wrapped); i++)
		r.ours[i] = dlsym(self, ct_wrapped[i]);
	dl_iterate_phdr(ct_redirect_module, &r);
}

/* ---- start and stop ------------------------------------------------------------------------ */

void ct_return_trampoline(void) CT_HIDDEN;

/*
 * The return addresses we replaced go back on the thread's stack, newest
 * frame first (an older frame at the same slot is gone, or is the caller
 * of a tail call, whose address is the real one): a C++ exception thrown
 * after the detach must find real ones.
 *
 * A thread stopped in our slow path (a system call in libc, which the
 * tracer does not take for our code) is in a hook: a return hook may have
 * popped one frame of a tail call and be about to pop the next, an entry
 * hook has opened a frame whose slot a trampoline's call is about to make
 * a landing. Its frames stay, so that those returns find their real
 * addresses; the next attach empties the stack (ct_reset_if_pending).
 */
static void ct_unhook_thread(struct ct_thread *t)
{
	struct ct_shadow_frame *s = t->shadow;
	for (uint32_t i = ct_shadow_kept(t); s && i-- > 0;) {
		uintptr_t *slot = (uintptr_t *)s[i].sp;
		/* ours: the trampoline, or a landing of dynamic patching's (shadow.h) */
		if (s[i].ret && !ct_is_return_landing(s[i].ret) && ct_is_return_landing(*slot))
			*slot = s[i].ret;
	}
	if (t->in_slowpath)
		t->reset_pending = 1;
	else
		t->sdepth = 0;
	t->unhooked = 0;
}

/* A stack a stop left for a hook that was under way: that hook is over now. */
static void ct_reset_if_pending(struct ct_thread *t)
{
	if (t->reset_pending && !t->in_slowpath) {
		t->sdepth = 0;
		t->reset_pending = 0;
	}
}

/*
 * Start tracing with conf ("NAME=VALUE" strings, each NUL-terminated, an
 * empty one last): the number of functions patched, or -errno.
 */
CT_EXPORT long calltrace_attach_start(const char *conf, long len)
{
	if (atomic_load(&ct_state) == CT_RT_READY)
		return -EBUSY;
	if (ct_attach_settings(conf, len) < 0)
		return -EINVAL;
	ct_drop_retired();
	if (atomic_load(&ct_state) == CT_RT_OFF) /* attached before: start afresh */
		ct_init_again();
	ct_resolve_interposed();
	if (ct_init_outside() < 0)
		return -EIO;
	ct_patch_modules(1);
	ct_redirect_imports();
	return (long)atomic_load(&ct_ctl->patched);
}

/* Did we patch the function at fn (at its first byte, or past an endbr64)? */
static int ct_patched_function(uintptr_t fn)
{
	for (size_t i = 0; i < ct_nundo; i++)
		if (ct_undo[i].prot == CT_UNDO_CODE && ct_undo[i].addr - fn <= 4)
			return 1;
	return 0;
}

/* A call under way in t at the attach: its return address goes through our trampoline. */
static int ct_adopt_frame(struct ct_thread *t, const uint64_t *f)
{
	uintptr_t fn = f[0], *slot = (uintptr_t *)f[1], ret = f[2];
	if (!ct_patched_function(fn) || *slot != ret)
		return 0;
	if (!t->shadow) {
		void *m = mmap(NULL, CT_SHADOW_CAP * sizeof(struct ct_shadow_frame),
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return 0;
		t->shadow = m;
		t->scap = CT_SHADOW_CAP;
		t->sdepth = 0;
	}
	if (t->sdepth >= t->scap)
		return 0;
	t->shadow[t->sdepth++] = (struct ct_shadow_frame){ .fn = fn, .sp = (uintptr_t)slot,
							   .ret = ret };
	*slot = (uintptr_t)ct_return_trampoline;
	return 1;
}

#define CT_ATTACHED_MAX 512 /* calls under way told per thread, outermost first */

/*
 * The calls of t adopted, told first in its stream (CT_EXT_ATTACHED): the
 * readers open them at the attach, and the window's calls nest in them.
 */
static void ct_tell_open_calls(struct ct_thread *t, int32_t tid)
{
	static struct { /* every other thread is stopped: ours alone */
		uint64_t n;
		struct ct_ext_frame f[CT_ATTACHED_MAX];
	} rec;
	rec.n = 0;
	for (uint32_t i = 0; t->shadow && i < t->sdepth && rec.n < CT_ATTACHED_MAX; i++) {
		rec.f[rec.n].fn = t->shadow[i].fn;
		rec.f[rec.n++].sp = ct_ev_sp_units(t->shadow[i].sp);
	}
	if (rec.n)
		ct_attach_write_for(t, tid, CT_EXT_ATTACHED, &rec,
				    (uint32_t)(sizeof(rec.n) + rec.n * sizeof(rec.f[0])));
}

CT_EXPORT long calltrace_attach_open_calls(const uint64_t *threads, long nthreads)
{
	if (atomic_load(&ct_state) != CT_RT_READY)
		return -EINVAL;
	ptrdiff_t off = (char *)&ct_self - (char *)__builtin_thread_pointer();
	long hooked = 0;
	ct_attach_describe(); /* the process and its modules, before records that name them */
	for (long i = 0; i < nthreads; i++) {
		struct ct_thread *t = (struct ct_thread *)(uintptr_t)(threads[0] + off);
		int32_t tid = (int32_t)threads[1];
		uint64_t n = threads[2];
		ct_reset_if_pending(t);
		/* an exception on its way (the unwinder has the real addresses): leave them */
		for (uint64_t k = 0; k < n && !t->shadow_gone && !t->unhooked; k++)
			hooked += ct_adopt_frame(t, threads + 3 + 3 * k);
		ct_tell_open_calls(t, tid);
		threads += 3 + 3 * n;
	}
	return hooked;
}

/*
 * Stop: every change undone, the hooks inert, the pool unmapped. The
 * tracer has every thread stopped outside our code and gives their thread
 * pointers, so that their writer state is reset here: none may touch the
 * pool again, and a later attach starts them on fresh chunks.
 */
CT_EXPORT long calltrace_attach_stop(const uint64_t *thread_pointers, long n)
{
	if (!ct_attached)
		return -EINVAL;
	atomic_store(&ct_state, CT_RT_OFF); /* (it is already in a --no-follow child) */
	ct_undo_all();
	ptrdiff_t off = (char *)&ct_self - (char *)__builtin_thread_pointer();
	for (long i = 0; i < n; i++) {
		struct ct_thread *t = (struct ct_thread *)(uintptr_t)(thread_pointers[i] + off);
		ct_attach_publish(t); /* it goes on running: its records are whole, not salvaged */
		ct_thread_leave_pool(t); /* a later attach starts it on fresh chunks */
		ct_unhook_thread(t);
	}
	/*
	 * A thread the tracer stopped in a system call of our slow path (waiting
	 * for a free chunk, say) still holds the pool's address: it gets zeroed
	 * memory there, which it finds no chunk in, instead of a fault; that and
	 * our trampolines go at a later attach.
	 */
	struct ct_pool_ctl *ctl = ct_ctl;
	ct_ctl = &ct_inert_ctl;
	ct_drop_retired();
	for (unsigned i = 0; i < ct_nin_use; i++)
		ct_retire(ct_in_use[i].addr, ct_in_use[i].len);
	ct_nin_use = 0;
	if (ctl != &ct_inert_ctl) {
		size_t len = ct_geo.size;
		if (mmap(ctl, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) != MAP_FAILED)
			ct_retire(ctl, len);
	}
	ct_pool_fd_drop(); /* else the pool outlives the recording, and a later attach writes to it */
	return 0;
}
