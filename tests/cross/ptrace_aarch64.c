/*
 * The aarch64 ptrace tracer's own parts (src/arch/aarch64/ptrace_arch.h), run
 * under qemu-user, which has no ptrace: a signal handler's ucontext stands in
 * for the tracee's registers (what PTRACE_GETREGSET and SETREGSET move), and
 * the handler does with them what src/ptrace/ does at a stop:
 *
 *  - a system call of ours (inject.c): the registers set by ct_regs_syscall
 *    to run the stub "svc #0; brk #0", the stop on its brk, the result in x0,
 *    the registers put back; getpid, then mmap with six arguments;
 *  - a call of ours (inject.c): ct_regs_call with eight arguments, returning
 *    to the stub's brk by x30, on a 16-byte aligned stack below the thread's;
 *  - breakpoints (space.c, stops.c): brk over the first instruction of
 *    functions (pc-relative ones among them, paciasp, bti c, a b, a tail
 *    call), run out of line from ct_arch_pt_build_ool's copy; the return
 *    address taken from x30 at the entry, a breakpoint there, each return
 *    matched to its call by the slot (sp below the caller's, CT_ARCH_SLOT_
 *    BELOW_CFA) as ct_on_return does; a return breakpoint on "blr" (the call
 *    right after a call), whose callee must see the right return address;
 *  - the pointer guard (auxv AT_RANDOM + 8, read by ct_pt_auxv from /proc)
 *    and a real setjmp's stack pointer demangled from jmp_buf word 13;
 *  - a thread interrupted in a blocking system call has its pc back on the
 *    svc (what ct_regs_in_syscall looks for);
 *  - the constants: brk's encoding, any brk taken for another debugger's,
 *    the pc left on the brk by its trap, the thunk ct_arch_tramp_unsettled
 *    recognises.
 *
 * Prints "ok cross/ptrace/NAME" or "FAIL cross/ptrace/NAME: why" per check
 * (tests/cross/ptrace.sh counts them).
 */
#include <elf.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "arch/ptrace_arch.h"
#include "ptrace/tracer.h"

static int failed;

static void check(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void check(int ok, const char *name, const char *fmt, ...)
{
	if (ok) {
		printf("ok cross/ptrace/%s\n", name);
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	printf("FAIL cross/ptrace/%s: ", name);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	failed++;
}

/* proc.c's ct_pt_auxv is linked in; its other functions need this of wait.c */
int ct_pt_thread_dead(pid_t tid)
{
	(void)tid;
	return 0;
}

/* ---- the functions breakpoints go on ----------------------------------------------------- */

long t_adrp(void), t_ldr(void), t_cbz(long), t_b(void), t_target(void), t_leaf(long);
long t_pac(void), t_bti(void), t_ret_lr(long), t_callboth(long, long (*)(long)), t_sp(void);
extern char t_blr_site[];

__asm__(".text\n"
	".p2align 4\n"
	".globl t_adrp\n.type t_adrp, %function\n"
	"t_adrp:	adrp x0, t_data\n	add x0, x0, :lo12:t_data\n	ldr x0, [x0]\n	"
	"ret\n"
	".globl t_ldr\n.type t_ldr, %function\n"
	"t_ldr:	ldr x0, 1f\n	ret\n	.p2align 3\n1:	.quad 33\n"
	".globl t_cbz\n.type t_cbz, %function\n"
	"t_cbz:	cbz x0, 1f\n	mov x0, #66\n	ret\n1:	mov x0, #77\n	ret\n"
	".globl t_b\n.type t_b, %function\n"
	"t_b:	b t_target\n"
	".globl t_target\n.type t_target, %function\n"
	"t_target:	mov x0, #123\n	ret\n"
	".globl t_leaf\n.type t_leaf, %function\n"
	"t_leaf:	add x0, x0, #1\n	ret\n"
	".globl t_pac\n.type t_pac, %function\n"
	"t_pac:	paciasp\n	mov x0, #9\n	autiasp\n	ret\n"
	".globl t_bti\n.type t_bti, %function\n"
	"t_bti:	bti c\n	mov x0, #10\n	ret\n"
	/* returns the address it was called to return to */
	".globl t_ret_lr\n.type t_ret_lr, %function\n"
	"t_ret_lr:	mov x0, x30\n	ret\n"
	/* t_leaf(a), then fn(...) by a blr right at t_leaf's return address */
	".globl t_callboth\n.type t_callboth, %function\n"
	"t_callboth:	stp x29, x30, [sp, #-32]!\n	mov x29, sp\n	str x19, [sp, #16]\n"
	"	mov x19, x1\n	bl t_leaf\n"
	".globl t_blr_site\n"
	"t_blr_site:	blr x19\n	ldr x19, [sp, #16]\n	ldp x29, x30, [sp], #32\n	"
	"ret\n"
	".globl t_sp\n.type t_sp, %function\n"
	"t_sp:	mov x0, sp\n	ret\n"
	".data\n.p2align 3\nt_data:	.quad 22\n"
	".text\n");

/* ---- registers: the ucontext as the tracee's ------------------------------------------------ */

static void from_uc(ct_regs *r, const ucontext_t *uc)
{
	memcpy(r->regs, uc->uc_mcontext.regs, sizeof(r->regs));
	r->sp = uc->uc_mcontext.sp;
	r->pc = uc->uc_mcontext.pc;
	r->pstate = uc->uc_mcontext.pstate;
}

static void to_uc(ucontext_t *uc, const ct_regs *r)
{
	memcpy(uc->uc_mcontext.regs, r->regs, sizeof(r->regs));
	uc->uc_mcontext.sp = r->sp;
	uc->uc_mcontext.pc = r->pc;
	uc->uc_mcontext.pstate = r->pstate;
}

static void sync_code(void *p, size_t n)
{
	__builtin___clear_cache((char *)p, (char *)p + n);
}

/* ---- a system call or call of ours, as inject.c makes one --------------------------------- */

static uint8_t *stub; /* "svc #0; brk #0", in memory of ours */

static struct {
	int active; /* SIGUSR1 starts it, the stub's brk ends it */
	int call;   /* a call (else a system call) */
	long nr;    /* the system call */
	long args[8];
	int nargs;
	uint64_t fn;	  /* the function called */
	ct_regs saved;	  /* the thread's own, put back */
	uint64_t slot;	  /* what ct_regs_call said of the stack */
	uint64_t trap_pc; /* where the brk stopped it */
	long ret;
} inj;

static void on_usr1(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	ct_regs r;
	(void)sig;
	(void)si;
	from_uc(&inj.saved, uc);
	r = inj.saved;
	if (inj.call)
		inj.slot = ct_regs_call(&r, inj.fn, (uint64_t)stub + CT_ARCH_STUB_BREAK,
					(const uint64_t *)inj.args, inj.nargs);
	else
		ct_regs_syscall(&r, (uint64_t)stub, inj.nr, inj.args, inj.nargs);
	inj.active = 1;
	to_uc(uc, &r);
}

/* The stop at the stub's brk: the result, the registers back. */
static int inject_trap(ucontext_t *uc)
{
	ct_regs r;
	if (!inj.active)
		return 0;
	from_uc(&r, uc);
	inj.trap_pc = ct_regs_pc(&r);
	inj.ret = ct_regs_retval(&r);
	inj.active = 0;
	to_uc(uc, &inj.saved);
	return 1;
}

static long inject_syscall(long nr, const long *args, int n)
{
	memset(&inj, 0, sizeof(inj));
	inj.nr = nr;
	inj.nargs = n;
	memcpy(inj.args, args, n * sizeof(long));
	raise(SIGUSR1);
	return inj.ret;
}

static long inject_call(uint64_t fn, const long *args, int n)
{
	memset(&inj, 0, sizeof(inj));
	inj.call = 1;
	inj.fn = fn;
	inj.nargs = n;
	memcpy(inj.args, args, n * sizeof(long));
	raise(SIGUSR1);
	return inj.ret;
}

static uint64_t sum8_ret; /* where sum8 was called to return to */

__attribute__((noinline)) static long sum8(long a, long b, long c, long d, long e, long f, long g,
					   long h)
{
	sum8_ret = (uint64_t)__builtin_extract_return_addr(__builtin_return_address(0));
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}

static void test_inject(void)
{
	uint64_t brk_at = (uint64_t)stub + CT_ARCH_STUB_BREAK;
	long none[1] = { 0 };
	long pid = inject_syscall(SYS_getpid, none, 0);
	check(pid == getpid() && inj.trap_pc == brk_at + CT_ARCH_BREAK_PC, "syscall-getpid",
	      "x0 %ld (pid %d), stopped at %#lx (brk at %#lx)", pid, (int)getpid(),
	      (unsigned long)inj.trap_pc, (unsigned long)brk_at);

	void *probe = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(probe, 8192);
	long margs[6] = { (long)probe,
			  8192,
			  PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			  -1,
			  0 };
	long m = inject_syscall(SYS_mmap, margs, 6);
	int usable = m == (long)probe && (((volatile char *)m)[100] = 7) == 7;
	check(usable, "syscall-mmap-6-args", "mmap(%p, ...) gave %#lx", probe, (unsigned long)m);
	long uargs[2] = { m, 8192 };
	long u = usable ? inject_syscall(SYS_munmap, uargs, 2) : -1;
	check(u == 0, "syscall-munmap", "munmap gave %ld", u);

	long args[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	long s = inject_call((uint64_t)sum8, args, 8);
	check(s == 204 && inj.slot == 0 && sum8_ret == brk_at &&
		      inj.trap_pc == brk_at + CT_ARCH_BREAK_PC,
	      "call-8-args",
	      "sum8 gave %ld (204), slot %#lx (0), returned to %#lx, stopped at %#lx", s,
	      (unsigned long)inj.slot, (unsigned long)sum8_ret, (unsigned long)inj.trap_pc);

	long sp = inject_call((uint64_t)t_sp, none, 0);
	check(sp && !(sp & 15) && (uint64_t)sp <= ct_regs_sp(&inj.saved) - 256, "call-stack",
	      "the callee's sp %#lx, the thread's %#lx", (unsigned long)sp,
	      (unsigned long)ct_regs_sp(&inj.saved));
}

/* ---- breakpoints, as space.c sets them and stops.c takes them ---------------------------- */

struct bp {
	uint64_t addr, ool;
	uint8_t orig[CT_ARCH_BREAK_SIZE];
	int flags;
};
static struct bp bps[64];
static int nbps, bad_bp;
static uint8_t *scratch;
static size_t scratch_used;

static struct ct_pt_frame frames[64];
static int nframes, unmatched;

struct ev {
	char kind; /* 'e'nter, 'r'eturn */
	uint64_t fn, slot, ret;
};
static struct ev evs[256];
static int nevs;

static struct bp *bp_find(uint64_t addr)
{
	for (int i = 0; i < nbps; i++)
		if (bps[i].addr == addr)
			return &bps[i];
	return NULL;
}

static void bp_set(uint64_t addr, int flags)
{
	struct bp *b = bp_find(addr);
	uint8_t ool[CT_OOL_MAX], len = 0, brk[CT_ARCH_BREAK_SIZE];
	if (b) {
		b->flags |= flags;
		return;
	}
	if (nbps == 64 || scratch_used + CT_OOL_MAX > 65536 || ct_arch_is_break((uint8_t *)addr)) {
		bad_bp++;
		return;
	}
	b = &bps[nbps++];
	b->addr = addr;
	b->flags = flags;
	memcpy(b->orig, (void *)addr, CT_ARCH_BREAK_SIZE);
	uint64_t at = (uint64_t)scratch + scratch_used;
	int n = ct_arch_pt_build_ool((const uint8_t *)addr, 16, addr, at, ool, &len);
	if (n <= 0 || len != 4) {
		printf("    no out-of-line copy of %#x at %#lx\n", *(uint32_t *)addr,
		       (unsigned long)addr);
		bad_bp++;
		return;
	}
	memcpy((void *)at, ool, (size_t)n);
	sync_code((void *)at, (size_t)n);
	scratch_used += CT_OOL_MAX;
	b->ool = at;
	mprotect((void *)(addr & ~(uint64_t)4095), 4096, PROT_READ | PROT_WRITE | PROT_EXEC);
	ct_arch_break_bytes(brk);
	memcpy((void *)addr, brk, sizeof(brk));
	sync_code((void *)addr, sizeof(brk));
}

static void log_ev(char kind, uint64_t fn, uint64_t slot, uint64_t ret)
{
	if (nevs < 256)
		evs[nevs++] = (struct ev){ kind, fn, slot, ret };
}

/* stops.c's ct_on_return: the innermost calls at this slot, returning here */
static int on_return(uint64_t pc, uint64_t sp)
{
	uint64_t slot = sp - CT_ARCH_SLOT_BELOW_CFA;
	if (!nframes || frames[nframes - 1].slot != slot || frames[nframes - 1].ret != pc)
		return 0;
	while (nframes && frames[nframes - 1].slot == slot) {
		nframes--;
		log_ev('r', frames[nframes].fn, slot, pc);
	}
	return 1;
}

/* stops.c's ct_on_entry */
static void on_entry(uint64_t fn, const ct_regs *r)
{
	uint64_t ret, slot = ct_regs_entry_cfa(r) - CT_ARCH_SLOT_BELOW_CFA;
	if (!ct_regs_ret_reg(r, &ret)) {
		bad_bp++;
		return;
	}
	if (nframes && frames[nframes - 1].slot == slot && frames[nframes - 1].ret != ret)
		nframes--;
	bp_set(ret, CT_BP_RETURN);
	if (nframes < 64)
		frames[nframes++] = (struct ct_pt_frame){ fn, slot, ret };
	log_ev('e', fn, slot, ret);
}

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	ct_regs r;
	(void)sig;
	(void)si;
	if (inject_trap(uc))
		return;
	from_uc(&r, uc);
	struct bp *b = bp_find(ct_regs_pc(&r) - CT_ARCH_BREAK_PC);
	if (!b) {
		printf("FAIL cross/ptrace/breakpoints: a trap at %#lx, no breakpoint of ours "
		       "there\n",
		       (unsigned long)ct_regs_pc(&r));
		fflush(stdout);
		_exit(1);
	}
	size_t at = (size_t)(b - bps); /* bp_set may add some */
	int returned = (b->flags & CT_BP_RETURN) && on_return(b->addr, ct_regs_sp(&r));
	if ((bps[at].flags & CT_BP_RETURN) && !returned && !(bps[at].flags & CT_BP_ENTRY))
		unmatched++;
	if (!returned && (bps[at].flags & CT_BP_ENTRY))
		on_entry(bps[at].addr, &r);
	ct_regs_set_pc(&r, bps[at].ool);
	to_uc(uc, &r);
}

struct tcase {
	const char *name;
	long (*fn)(long, long);
	long a0, a1;
};

#define FN(f) ((long (*)(long, long))(void (*)(void))(f))
static const struct tcase cases[] = {
	{ "adrp", FN(t_adrp), 0, 0 },
	{ "ldr-literal", FN(t_ldr), 0, 0 },
	{ "cbz-taken", FN(t_cbz), 0, 0 },
	{ "cbz-not-taken", FN(t_cbz), 1, 0 },
	{ "b-tail-jump", FN(t_b), 0, 0 },
	{ "paciasp", FN(t_pac), 0, 0 },
	{ "bti-c", FN(t_bti), 0, 0 },
	{ "add", FN(t_leaf), 41, 0 },
	{ "blr-at-return-address", FN(t_callboth), 5, (long)t_ret_lr },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* One call site for every case: its return address gets one breakpoint. */
__attribute__((noinline)) static void run_cases(long *out)
{
	for (size_t i = 0; i < NCASES; i++) {
		long (*volatile fn)(long, long) = cases[i].fn;
		out[i] = fn(cases[i].a0, cases[i].a1);
	}
}

static int count(char kind, uint64_t fn)
{
	int n = 0;
	for (int i = 0; i < nevs; i++)
		n += evs[i].kind == kind && evs[i].fn == fn;
	return n;
}

static void test_breakpoints(void)
{
	long alone[NCASES], traced[NCASES];
	run_cases(alone);
	check(alone[NCASES - 1] == (long)t_blr_site + 4, "blr-returns-alone",
	      "t_ret_lr was to return to %#lx, not %#lx", (unsigned long)alone[NCASES - 1],
	      (unsigned long)t_blr_site + 4);
	uint64_t fns[] = { (uint64_t)t_adrp,	(uint64_t)t_ldr,    (uint64_t)t_cbz,
			   (uint64_t)t_b,	(uint64_t)t_target, (uint64_t)t_pac,
			   (uint64_t)t_bti,	(uint64_t)t_leaf,   (uint64_t)t_ret_lr,
			   (uint64_t)t_callboth };
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		bp_set(fns[i], CT_BP_ENTRY);
	check(!bad_bp, "breakpoints-set", "%d could not be set", bad_bp);
	run_cases(traced);
	for (size_t i = 0; i < NCASES; i++) {
		char name[64];
		snprintf(name, sizeof(name), "out-of-line/%s", cases[i].name);
		check(alone[i] == traced[i], name, "%ld alone, %ld with breakpoints", alone[i],
		      traced[i]);
	}
	int calls_ok = 1;
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		int want = fns[i] == (uint64_t)t_cbz ? 2 : fns[i] == (uint64_t)t_leaf ? 2 : 1;
		if (count('e', fns[i]) != want || count('r', fns[i]) != want) {
			printf("    function %zu: %d entries, %d returns (%d each expected)\n", i,
			       count('e', fns[i]), count('r', fns[i]), want);
			calls_ok = 0;
		}
	}
	check(calls_ok && !unmatched && !nframes && !bad_bp, "calls-and-returns",
	      "%d returns matched no call, %d calls left open, %d breakpoints failed", unmatched,
	      nframes, bad_bp);
	/* a tail call (b): the same slot and return address as the caller, one return ends both */
	int tail = -1;
	for (int i = 0; i + 3 < nevs; i++)
		if (evs[i].kind == 'e' && evs[i].fn == (uint64_t)t_b)
			tail = i;
	check(tail >= 0 && evs[tail + 1].fn == (uint64_t)t_target &&
		      evs[tail + 1].slot == evs[tail].slot && evs[tail + 1].ret == evs[tail].ret &&
		      evs[tail + 2].kind == 'r' && evs[tail + 3].kind == 'r',
	      "tail-call", "t_b's and t_target's entries and returns are not one frame's");
	/* the call through blr at t_leaf's return address: its callee returns after the blr */
	uint64_t leaf_ret = 0, lr_ret = 0, lr_slot = 0, both_slot = 0;
	for (int i = 0; i < nevs; i++) {
		if (evs[i].kind != 'e')
			continue;
		if (evs[i].fn == (uint64_t)t_leaf && evs[i].ret == (uint64_t)t_blr_site)
			leaf_ret = evs[i].ret;
		if (evs[i].fn == (uint64_t)t_ret_lr)
			lr_ret = evs[i].ret, lr_slot = evs[i].slot;
		if (evs[i].fn == (uint64_t)t_callboth)
			both_slot = evs[i].slot;
	}
	check(leaf_ret && lr_ret == (uint64_t)t_blr_site + 4 && lr_slot == both_slot - 32,
	      "blr-relocated",
	      "t_ret_lr entered to return to %#lx (want %#lx), slot %#lx (want %#lx)",
	      (unsigned long)lr_ret, (unsigned long)t_blr_site + 4, (unsigned long)lr_slot,
	      (unsigned long)both_slot - 32);
}

/* ---- longjmp: the stack pointer a jmp_buf restores ---------------------------------------- */

static jmp_buf env;

__attribute__((noinline)) static uint64_t take_setjmp(void)
{
	uint64_t sp;
	__asm__ volatile("mov %0, sp" : "=r"(sp));
	if (setjmp(env))
		return 0;
	return sp;
}

static void test_jmpbuf(void)
{
	uint64_t at_random = 0, word, guard;
	int got = ct_pt_auxv(getpid(), AT_RANDOM, &at_random);
	check(got == 0 && at_random == getauxval(AT_RANDOM), "auxv-at-random",
	      "ct_pt_auxv gave %d, %#lx; getauxval %#lx", got, (unsigned long)at_random,
	      getauxval(AT_RANDOM));
	uint64_t sp = take_setjmp();
	ct_regs r = { .regs = { (uint64_t)env } }; /* stopped at longjmp(env, ...) */
	memcpy(&word, (const char *)ct_regs_arg0(&r) + CT_ARCH_JMPBUF_SP_OFF, 8);
	memcpy(&guard, (const void *)ct_regs_guard_addr(&r, at_random), 8);
	check(ct_arch_demangle(word, guard) == sp, "jmpbuf-sp",
	      "word 13 %#lx xor the guard %#lx is %#lx, setjmp's sp %#lx", (unsigned long)word,
	      (unsigned long)guard, (unsigned long)ct_arch_demangle(word, guard),
	      (unsigned long)sp);
}

/* ---- a thread interrupted in a system call ---------------------------------------------- */

static int pipe_fd[2];
static uint32_t insn_at_pc;
static ct_regs interrupted;

static void on_alarm(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	(void)si;
	from_uc(&interrupted, ucv);
	memcpy(&insn_at_pc, (const void *)ct_regs_pc(&interrupted), 4);
	ssize_t w = write(pipe_fd[1], "x", 1);
	(void)w;
}

/*
 * read() blocks until a signal's handler (SA_RESTART) writes: the kernel put
 * the pc back on the svc before the handler ran, as before a tracer's stop.
 */
static void test_interrupted_syscall(void)
{
	char c = 0;
	struct sigaction sa = { .sa_flags = SA_SIGINFO | SA_RESTART, .sa_sigaction = on_alarm };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	if (pipe(pipe_fd) < 0)
		return;
	alarm(1);
	ssize_t n = read(pipe_fd[0], &c, 1);
	check(n == 1 && c == 'x' && ct_regs_in_syscall(&interrupted, insn_at_pc),
	      "in-syscall-interrupted",
	      "read gave %zd; at the signal, the pc %#lx held %#x, not svc #0", n,
	      (unsigned long)ct_regs_pc(&interrupted), insn_at_pc);
}

/* ---- constants ------------------------------------------------------------------------------ */

static void test_constants(void)
{
	uint8_t b[CT_ARCH_BREAK_SIZE], s[CT_ARCH_STUB_LEN], code[4];
	static const uint8_t brk0[4] = { 0x00, 0x00, 0x20, 0xd4 };
	static const uint8_t stub_bytes[8] = { 0x01, 0x00, 0x00, 0xd4, 0x00, 0x00, 0x20, 0xd4 };
	ct_arch_break_bytes(b);
	ct_arch_syscall_stub(s);
	check(CT_ARCH_BREAK_SIZE == 4 && !memcmp(b, brk0, 4) && ct_arch_is_break(b), "brk-bytes",
	      "brk #0 is not 00 00 20 d4");
	check(!memcmp(s, stub_bytes, 8) && CT_ARCH_STUB_BREAK == 4, "stub-bytes",
	      "the stub is not svc #0; brk #0");
	uint32_t other_brk = 0xd4207d00u /* brk #0x3e8 */, hlt = 0xd4400000u, svc = 0xd4000001u;
	memcpy(code, &other_brk, 4);
	int any = ct_arch_is_break(code);
	memcpy(code, &hlt, 4);
	any = any && !ct_arch_is_break(code);
	memcpy(code, &svc, 4);
	any = any && !ct_arch_is_break(code);
	check(any, "brk-of-another-debugger", "brk #0x3e8 is a breakpoint, hlt and svc are not");
	ct_regs r = { .pc = 0x1000, .sp = 0x7000, .regs = { [0] = 42, [30] = 0x4444 } };
	uint64_t ret = 0;
	check(ct_regs_pc(&r) == 0x1000 && ct_regs_sp(&r) == 0x7000 && ct_regs_arg0(&r) == 42 &&
		      ct_regs_retval(&r) == 42 && ct_regs_entry_cfa(&r) == 0x7000 &&
		      ct_regs_ret_reg(&r, &ret) == 1 && ret == 0x4444 &&
		      ct_regs_entry_cfa(&r) - CT_ARCH_SLOT_BELOW_CFA == 0x7000 - 16 /* entry.S's */,
	      "register-accessors", "pc, sp, x0 or x30 read wrong");
	check(ct_regs_in_syscall(&r, svc) && !ct_regs_in_syscall(&r, hlt), "in-syscall",
	      "svc #0 at the pc is not taken for a thread in a system call");
	r.pstate = 0x60000c00; /* BTYPE set, as at a function reached by blr */
	long a[1] = { 0 };
	ct_regs_syscall(&r, 0x2000, 172, a, 1);
	check(r.regs[8] == 172 && r.pc == 0x2000 && !(r.pstate & CT_A64_PSTATE_BTYPE) &&
		      r.pstate == 0x60000000,
	      "syscall-registers", "x8 %llu pc %#llx pstate %#llx", r.regs[8], r.pc, r.pstate);
	uint8_t thunk[CT_THUNK_LEN + 4];
	ct_arch_encode_thunk(thunk + 4, 0x5000);
	ct_a64_put(thunk, CT_A64_NOP);
	check(ct_arch_tramp_unsettled(NULL, thunk + 4, 0x4000, 0x6000) &&
		      ct_arch_tramp_unsettled(thunk + 4, thunk + 8, 0x4000, 0x6000) &&
		      !ct_arch_tramp_unsettled(NULL, thunk + 4, 0x6000, 0x7000) &&
		      !ct_arch_tramp_unsettled(thunk, thunk + 8, 0x4000, 0x6000),
	      "thunk-unsettled", "a thread in a thunk into the runtime is not seen there");
}

int main(void)
{
	struct sigaction sa = { .sa_flags = SA_SIGINFO };
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_sigaction = on_trap;
	sigaction(SIGTRAP, &sa, NULL);
	stub = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	scratch = mmap(NULL, 65536, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (stub == MAP_FAILED || scratch == MAP_FAILED) {
		printf("FAIL cross/ptrace/setup: no executable memory\n");
		return 1;
	}
	ct_arch_syscall_stub(stub);
	sync_code(stub, CT_ARCH_STUB_LEN);
	test_constants();
	test_inject();
	test_jmpbuf();
	test_interrupted_syscall();
	test_breakpoints();
	return failed ? 1 : 0;
}
