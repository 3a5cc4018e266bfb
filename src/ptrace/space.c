/* SPDX-License-Identifier: MIT */
/*
 * An address space as the tracer sees it: its memory (through /proc/PID/mem,
 * which writes read-only code the way a debugger does), the breakpoints we
 * set in it, and the scratch memory we mapped in it for out-of-line copies.
 * Threads share one; a forked child gets a copy (its memory is a copy too);
 * a vfork child shares its parent's until it execs.
 */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tracer.h"
#include "../arch/relocate.h"
#include "../arch/ptrace_arch.h"

#define CT_SCRATCH_SIZE (256u << 10)

static int ct_open_mem(pid_t pid)
{
	return ct_pt_proc_open(pid, "mem", O_RDWR);
}

struct ct_pt_space *ct_pt_space_new(pid_t pid)
{
	struct ct_pt_space *s = ct_calloc(1, sizeof(*s));
	s->refs = 1;
	s->pid = pid;
	s->memfd = ct_open_mem(pid);
	ct_map_init(&s->bp_at, 1024);
	ct_map_init(&s->armed, 16);
	return s;
}

struct ct_pt_space *ct_pt_space_copy(const struct ct_pt_space *o, pid_t pid)
{
	struct ct_pt_space *s = ct_pt_space_new(pid);
	s->bps = ct_malloc(ct_max(o->capbps, 1) * sizeof(*s->bps));
	if (o->nbps) /* a space without breakpoints has no array: memcpy must not see NULL */
		memcpy(s->bps, o->bps, o->nbps * sizeof(*s->bps));
	s->nbps = o->nbps;
	s->capbps = ct_max(o->capbps, 1);
	ct_map_copy(&s->bp_at, &o->bp_at);
	s->scratch = ct_malloc(ct_max(o->nscratch, 1) * sizeof(*s->scratch));
	if (o->nscratch)
		memcpy(s->scratch, o->scratch, o->nscratch * sizeof(*s->scratch));
	s->nscratch = o->nscratch;
	ct_map_copy(&s->armed, &o->armed);
	s->stub = o->stub;
	return s;
}

void ct_pt_space_put(struct ct_pt_space *s)
{
	if (!s || --s->refs > 0)
		return;
	if (s->memfd >= 0)
		close(s->memfd);
	ct_map_free(&s->bp_at);
	ct_map_free(&s->armed);
	free(s->bps);
	free(s->scratch);
	free(s);
}

int ct_pt_read(struct ct_pt_space *s, uint64_t addr, void *buf, size_t len)
{
	return pread(s->memfd, buf, len, (off_t)addr) == (ssize_t)len ? 0 : -1;
}

int ct_pt_write(struct ct_pt_space *s, uint64_t addr, const void *buf, size_t len)
{
	return pwrite(s->memfd, buf, len, (off_t)addr) == (ssize_t)len ? 0 : -1;
}

int ct_pt_return_address(struct ct_pt_space *s, const void *regs, uint64_t *ret)
{
	if (ct_regs_ret_reg(regs, ret))
		return 0;
	return ct_pt_read(s, ct_regs_sp(regs), ret, sizeof(*ret));
}

struct ct_pt_bp *ct_pt_bp_find(struct ct_pt_space *s, uint64_t addr)
{
	uint64_t *v = ct_map_find(&s->bp_at, addr);
	return v && *v ? &s->bps[*v - 1] : NULL;
}

/* The free gap nearest to addr that holds len bytes, from /proc/PID/maps; 0 if none. */
static uint64_t ct_nearest_gap(pid_t pid, uint64_t addr, uint64_t len)
{
	char line[512];
	int fd = ct_pt_proc_open(pid, "maps", O_RDONLY);
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	uint64_t prev_end = 1u << 20, best = 0, best_dist = UINT64_MAX;
	for (;;) {
		unsigned long lo, hi;
		int more = fgets(line, sizeof(line), f) != NULL;
		if (!more)
			lo = hi = CT_ARCH_USER_TOP;
		else if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		if (lo > prev_end && lo - prev_end >= len + 2 * 4096) {
			/* keep a page free on either side: stacks and heaps grow */
			uint64_t at = addr < prev_end ? prev_end + 4096 : lo - 4096 - len;
			uint64_t dist = at > addr ? at - addr : addr - at;
			if (addr >= prev_end && addr < lo)
				at = (addr & ~(uint64_t)4095) + 4096, dist = 0;
			if (dist < best_dist)
				best = at, best_dist = dist;
		}
		if (!more)
			break;
		if (hi > prev_end)
			prev_end = hi;
	}
	fclose(f);
	return best_dist < (UINT64_C(1) << 31) - 2 * len ? best : 0;
}

static int ct_reaches(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a;
	return d < (UINT64_C(1) << 31) - (1u << 20);
}

uint64_t ct_pt_scratch_alloc(struct ct_tracer *tr, struct ct_pt_thread *t, uint64_t addr, size_t n)
{
	struct ct_pt_space *s = t->proc->space;
	for (size_t i = 0; i < s->nscratch; i++) {
		struct ct_pt_scratch *r = &s->scratch[i];
		if (r->used + n <= r->size && ct_reaches(r->base + r->used, addr)) {
			uint64_t at = r->base + r->used;
			r->used += n;
			return at;
		}
	}
	uint64_t hint = s->no_inject ? 0 : ct_nearest_gap(t->proc->pid, addr, CT_SCRATCH_SIZE);
	if (!hint)
		return 0;
	uint64_t base = ct_pt_inject_mmap(tr, t, hint, CT_SCRATCH_SIZE, PROT_READ | PROT_EXEC);
	if (!base || !ct_reaches(base, addr))
		return 0;
	s->scratch = ct_realloc(s->scratch, (s->nscratch + 1) * sizeof(*s->scratch));
	struct ct_pt_scratch *r = &s->scratch[s->nscratch++];
	*r = (struct ct_pt_scratch){ .base = base, .size = CT_SCRATCH_SIZE };
	if (!s->stub) { /* the first region also keeps the syscall stub */
		uint8_t stub[CT_ARCH_STUB_LEN];
		ct_arch_syscall_stub(stub);
		if (ct_pt_write(s, base, stub, sizeof(stub)) == 0)
			s->stub = base;
		r->used = 16;
	}
	r->used += n;
	return r->base + r->used - n;
}

static struct ct_pt_bp *ct_bp_add(struct ct_pt_space *s, const struct ct_pt_bp *bp)
{
	if (s->nbps == s->capbps) {
		s->capbps = s->capbps ? 2 * s->capbps : 256;
		s->bps = ct_realloc(s->bps, s->capbps * sizeof(*s->bps));
	}
	s->bps[s->nbps++] = *bp;
	int added;
	*ct_map_put(&s->bp_at, bp->addr, &added) = s->nbps;
	return &s->bps[s->nbps - 1];
}

struct ct_pt_bp *ct_pt_bp_set(struct ct_tracer *tr, struct ct_pt_thread *t, uint64_t addr,
			      uint8_t flags)
{
	struct ct_pt_space *s = t->proc->space;
	struct ct_pt_bp *bp = ct_pt_bp_find(s, addr);
	if (bp) {
		bp->flags |= flags;
		return bp;
	}
	uint8_t code[16], ool[CT_OOL_MAX], len = 0, brk[CT_ARCH_BREAK_SIZE];
	if (ct_pt_read(s, addr, code, sizeof(code)) < 0 || ct_arch_is_break(code))
		return NULL; /* not mapped, or another debugger's breakpoint */
	struct ct_pt_bp nb = { .addr = addr, .flags = flags };
	memcpy(nb.orig, code, CT_ARCH_BREAK_SIZE);
	uint64_t at = ct_pt_scratch_alloc(tr, t, addr, CT_OOL_MAX);
	int n = at ? ct_arch_pt_build_ool(code, sizeof(code), addr, at, ool, &len) : 0;
	if (n > 0 && ct_pt_write(s, at, ool, (size_t)n) == 0)
		nb.ool = at;
	nb.len = len;
	ct_arch_break_bytes(brk);
	if (ct_pt_write(s, addr, brk, sizeof(brk)) < 0)
		return NULL;
	atomic_fetch_add(&tr->ctl->pt_breakpoints, 1);
	if (!nb.ool)
		atomic_fetch_add(&tr->ctl->pt_in_place, 1);
	return ct_bp_add(s, &nb);
}

struct ct_pt_bp *ct_pt_bp_set_bare(struct ct_pt_space *s, uint64_t addr, uint8_t flags)
{
	uint8_t code[CT_ARCH_BREAK_SIZE], brk[CT_ARCH_BREAK_SIZE];
	if (ct_pt_bp_find(s, addr) || ct_pt_read(s, addr, code, sizeof(code)) < 0 ||
	    ct_arch_is_break(code))
		return NULL;
	struct ct_pt_bp nb = { .addr = addr, .flags = flags };
	memcpy(nb.orig, code, sizeof(code));
	ct_arch_break_bytes(brk);
	if (ct_pt_write(s, addr, brk, sizeof(brk)) < 0)
		return NULL;
	return ct_bp_add(s, &nb);
}

void ct_pt_bp_remove(struct ct_pt_space *s, struct ct_pt_bp *bp)
{
	ct_pt_write(s, bp->addr, bp->orig, CT_ARCH_BREAK_SIZE);
	*ct_map_find(&s->bp_at, bp->addr) = 0;
	bp->addr = 0;
}

void ct_pt_bp_forget_unmapped(struct ct_pt_space *s)
{
	for (size_t i = 0; i < s->nbps; i++) {
		uint8_t b[CT_ARCH_BREAK_SIZE];
		struct ct_pt_bp *bp = &s->bps[i];
		if (!bp->addr ||
		    (ct_pt_read(s, bp->addr, b, sizeof(b)) == 0 && ct_arch_is_break(b)))
			continue;
		*ct_map_find(&s->bp_at, bp->addr) = 0; /* dlclose took its code away */
		bp->addr = 0;
	}
}

int ct_pt_bp_clear_all(struct ct_pt_space *s)
{
	int r = 0;
	for (size_t i = 0; i < s->nbps; i++)
		if (s->bps[i].addr &&
		    ct_pt_write(s, s->bps[i].addr, s->bps[i].orig, CT_ARCH_BREAK_SIZE) < 0)
			r = -1;
	return r;
}
