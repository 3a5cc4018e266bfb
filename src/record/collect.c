/* SPDX-License-Identifier: MIT */
/*
 * Turning chunks into blocks. A published chunk is read up to its length; the
 * chunk of a thread that is gone is salvaged up to its first incomplete record.
 * Either way its calls and returns become one EVENTS block, its process and
 * module records become PROCESS and MODULE blocks, and it goes back, zeroed,
 * to the free stack.
 */
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record.h"
#include "untraced.h"
#include "../util/time_ns.h"

void ct_collector_init(struct ct_collector *c, struct ct_pool *pool, struct ct_writer *w, int level,
		       uint32_t jobs)
{
	memset(c, 0, sizeof(*c));
	c->pool = pool;
	c->w = w;
	c->level = level;
	/* --jobs N: N workers encode (1: this thread, as chunks come, with no hand-off) */
	ct_workers_init(&c->workers, jobs > 1 ? jobs : 0, pool->geo.chunk_size / 16, level);
	ct_map_init(&c->seen, 1024);
	c->seen_recent = ct_calloc(CT_SEEN_RECENT, sizeof(uint64_t));
	ct_map_init(&c->called, 64);
	ct_map_init(&c->next_seq, 64);
	ct_map_init(&c->last_clock, 64);
	c->views = ct_calloc(pool->geo.nchunks, sizeof(*c->views));
	c->read_off = ct_calloc(pool->geo.nchunks, sizeof(uint32_t));
	c->early = ct_calloc(pool->geo.nchunks, sizeof(uint64_t));
	c->seen_ns = ct_calloc(pool->geo.nchunks, sizeof(uint64_t));
	c->block_chunks = ct_block_chunks(pool->geo.chunk_size);
}

/* The collector's own encoder, for blocks it encodes itself (live, snapshots, lost events). */
static struct ct_encoder *ct_collector_encoder(struct ct_collector *c)
{
	if (!c->enc) {
		c->enc = ct_malloc(sizeof(*c->enc));
		ct_encoder_init(c->enc, c->pool->geo.chunk_size / 16, c->level);
	}
	return c->enc;
}

void ct_collector_free(struct ct_collector *c)
{
	if (c->enc)
		ct_encoder_free(c->enc);
	free(c->enc);
	ct_workers_free(&c->workers);
	ct_chunk_job_free(&c->job);
	ct_buf_free(&c->side_copy);
	ct_map_free(&c->seen);
	free(c->seen_recent);
	ct_map_free(&c->called);
	ct_map_free(&c->next_seq);
	ct_map_free(&c->last_clock);
	for (size_t i = 0; i < c->nmods; i++)
		free(c->mods[i].path);
	free(c->mods);
	free(c->insts);
	free(c->views);
	free(c->read_off);
	free(c->early);
	free(c->seen_ns);
}

/* The process of an instance, as first told; 0 if it is new. */
static int32_t ct_instance_pid(const struct ct_collector *c, uint32_t instance)
{
	for (size_t i = 0; i < c->ninsts; i++)
		if (c->insts[i].instance == instance)
			return c->insts[i].pid;
	return 0;
}

static void ct_note_instance(struct ct_collector *c, uint32_t instance, int32_t pid)
{
	if (ct_instance_pid(c, instance))
		return;
	c->insts = ct_realloc(c->insts, (c->ninsts + 1) * sizeof(*c->insts));
	c->insts[c->ninsts++] = (struct ct_rec_instance){ instance, pid };
}

/* Read a descriptor once: from here on only the copy counts. */
static void ct_read_desc(const struct ct_pool *p, uint32_t idx, uint32_t state,
			 struct ct_desc_view *v)
{
	struct ct_chunk_desc *d = &p->ctl->desc[idx];

	v->idx = idx;
	v->state = state;
	v->instance = __atomic_load_n(&d->instance, __ATOMIC_RELAXED);
	v->pid = __atomic_load_n(&d->pid, __ATOMIC_RELAXED);
	v->tid = __atomic_load_n(&d->tid, __ATOMIC_RELAXED);
	v->flags = __atomic_load_n(&d->flags, __ATOMIC_RELAXED);
	v->used = __atomic_load_n(&d->used, __ATOMIC_RELAXED);
	v->thread_seq = __atomic_load_n(&d->thread_seq, __ATOMIC_RELAXED);
	v->base_clock = __atomic_load_n(&d->base_clock, __ATOMIC_RELAXED);
}

#define CT_PID_LIMIT (1 << 22) /* the kernel's PID_MAX_LIMIT */

/*
 * Could a traced thread have written this descriptor? Its instance was
 * handed out, its ids are ids, an instance stays in one process, its flags
 * are ours and its length fits. The program can write anything there: a
 * descriptor that fails is never followed.
 */
static int ct_desc_ok(const struct ct_collector *c, const struct ct_desc_view *v)
{
	uint32_t instances = atomic_load_explicit(&c->pool->ctl->next_instance,
						  memory_order_relaxed);
	if (!v->instance || v->instance > instances || v->pid <= 0 || v->pid >= CT_PID_LIMIT ||
	    v->tid <= 0 || v->tid >= CT_PID_LIMIT || (v->flags & ~CT_CHUNK_LAST))
		return 0;
	if (v->state == CT_CHUNK_FULL && v->used > c->pool->geo.chunk_size)
		return 0;
	int32_t pid = ct_instance_pid(c, v->instance);
	return !pid || pid == v->pid;
}

static void ct_on_process(struct ct_collector *c, const struct ct_desc_view *d, const uint8_t *p,
			  uint32_t len)
{
	struct ct_ext_process ep;
	if (len < sizeof(ep))
		return;
	memcpy(&ep, p, sizeof(ep));
	if ((uint64_t)sizeof(ep) + ep.exe_len + ep.args_len > len || !ep.exe_len)
		return;
	struct ct_process_rec r = {
		.instance = d->instance,
		.parent_instance = ep.parent_instance,
		.pid = ep.pid,
		.ppid = ep.ppid,
		.realtime_ns = ep.realtime_ns,
		.exe_len = ep.exe_len,
		.args_len = ep.args_len,
		.parent_tid = ep.parent_tid,
		.exec_instance = ep.exec_instance,
		.fork_clock = ep.fork_clock,
		.flags = ep.flags,
	};
	ct_note_instance(c, d->instance, ep.pid);
	ct_writer_block(c->w, CT_BLOCK_PROCESS, 0, &r, sizeof(r), p + sizeof(ep),
			ep.exe_len + ep.args_len);
}

static void ct_on_module(struct ct_collector *c, const struct ct_desc_view *d, const uint8_t *p,
			 uint32_t len)
{
	struct ct_ext_module em;
	if (len < sizeof(em))
		return;
	memcpy(&em, p, sizeof(em));
	if ((uint64_t)sizeof(em) + em.path_len > len || !em.path_len)
		return;
	const char *path = (const char *)p + sizeof(em);
	size_t plen = strnlen(path, em.path_len);

	for (size_t i = 0; i < c->nmods; i++) {
		struct ct_rec_module *m = &c->mods[i];
		if (m->instance == d->instance && m->base == em.base && m->lo == em.lo &&
		    !m->unloaded && strlen(m->path) == plen && !memcmp(m->path, path, plen))
			return; /* described again after a dlopen: nothing new */
	}
	c->mods = ct_realloc(c->mods, (c->nmods + 1) * sizeof(*c->mods));
	struct ct_rec_module *m = &c->mods[c->nmods++];
	memset(m, 0, sizeof(*m));
	m->instance = d->instance;
	m->base = em.base;
	m->lo = em.lo;
	m->hi = em.hi;
	m->build_id_len = em.build_id_len > 32 ? 32 : em.build_id_len;
	memcpy(m->build_id, em.build_id, m->build_id_len);
	m->path = ct_strndup(path, plen);

	struct ct_module_rec r = {
		.instance = m->instance,
		.build_id_len = m->build_id_len,
		.base = m->base,
		.lo = m->lo,
		.hi = m->hi,
	};
	memcpy(r.build_id, m->build_id, sizeof(r.build_id));
	ct_writer_block(c->w, CT_BLOCK_MODULE, 0, &r, sizeof(r), m->path, (uint32_t)plen + 1);
}

static void ct_on_crash(struct ct_collector *c, const struct ct_desc_view *d, uint64_t clock,
			const uint8_t *p, uint32_t len)
{
	struct ct_ext_crash x;
	if (len < sizeof(x))
		return;
	memcpy(&x, p, sizeof(x));
	struct ct_crash_rec r = {
		.instance = d->instance,
		.signo = x.signo,
		.code = x.code,
		.pid = x.pid,
		.tid = x.tid,
		.clock = clock,
		.addr = x.addr,
		.pc = x.pc,
		.sp = x.sp,
	};
	ct_writer_block(c->w, CT_BLOCK_CRASH, 0, &r, sizeof(r), NULL, 0);
	/* name where it died, even in a module with no traced function */
	int added;
	ct_map_put(&c->seen, (uint64_t)d->instance << 47 | (x.pc & CT_EV_ADDR_MASK), &added);
}

static void ct_on_thread_name(struct ct_collector *c, const struct ct_desc_view *d,
			      uint64_t clock, const uint8_t *p, uint32_t len)
{
	struct ct_ext_thread_name x;
	if (len < sizeof(x))
		return;
	memcpy(&x, p, sizeof(x));
	struct ct_thread_rec r = { .instance = d->instance, .tid = x.tid, .clock = clock };
	memcpy(r.name, x.name, ct_min(sizeof(x.name), sizeof(r.name) - 1));
	ct_writer_block(c->w, CT_BLOCK_THREAD, 0, &r, sizeof(r), NULL, 0);
}

static void ct_on_unload(struct ct_collector *c, const struct ct_desc_view *d, uint64_t clock,
			 const uint8_t *p, uint32_t len)
{
	struct ct_ext_unload x;
	if (len < sizeof(x))
		return;
	memcpy(&x, p, sizeof(x));
	struct ct_unload_rec r = {
		.instance = d->instance, .clock = clock, .base = x.base, .lo = x.lo, .hi = x.hi
	};
	ct_writer_block(c->w, CT_BLOCK_UNLOAD, 0, &r, sizeof(r), NULL, 0);
	/* a module loaded at its place later is another one: let it be described */
	for (size_t i = 0; i < c->nmods; i++)
		if (c->mods[i].instance == d->instance && c->mods[i].base == x.base &&
		    c->mods[i].lo == x.lo)
			c->mods[i].unloaded = 1;
}

/* Prototypes of functions whose arguments are captured: kept beside the symbols. */
static void ct_on_protos(struct ct_collector *c, const struct ct_desc_view *d, const uint8_t *p,
			 uint32_t len)
{
	uint8_t *b = ct_malloc((size_t)len + 4);
	memcpy(b, &d->instance, 4);
	memcpy(b + 4, p, len);
	ct_writer_block_zstd(c->w, CT_BLOCK_PROTOS, b, len + 4);
	free(b);
}

/* What the collector does about an extended record (encode.c put it in the stream if it goes there). */
static void ct_on_side(struct ct_collector *c, const struct ct_desc_view *d,
		       const struct ct_side *x)
{
	uint32_t len = x->len;

	/*
	 * The program can still write the chunk the payload is in: read a copy,
	 * so that a length measured in it (a path's) stays true when it is used.
	 */
	c->side_copy.len = 0;
	ct_buf_reserve(&c->side_copy, (size_t)len + 1);
	if (len)
		memcpy(c->side_copy.data, x->p, len);
	const uint8_t *p = c->side_copy.data;

	switch (x->type) {
	case CT_EXT_PROCESS:
		ct_on_process(c, d, p, len);
		ct_untraced_process(p, len);
		break;
	case CT_EXT_EXEC_NOTE:
		ct_untraced_exec_note(d->instance, d->pid, x->clock, p, len);
		break;
	case CT_EXT_EXEC_FAILED:
		ct_untraced_exec_failed(d->instance);
		break;
	case CT_EXT_UNTRACED:
		ct_untraced_stopped(c->w, d->instance, d->pid, x->clock, p, len);
		break;
	case CT_EXT_MODULE:
		ct_on_module(c, d, p, len);
		break;
	case CT_EXT_CRASH:
		ct_on_crash(c, d, x->clock, p, len);
		c->crashes++;
		break;
	case CT_EXT_THREAD_NAME:
		ct_on_thread_name(c, d, x->clock, p, len);
		break;
	case CT_EXT_UNLOAD:
		ct_on_unload(c, d, x->clock, p, len);
		break;
	case CT_EXT_PROTOS:
		ct_on_protos(c, d, p, len);
		break;
	case CT_EXT_LOST: {
		uint64_t n = 0;
		memcpy(&n, p, len < 8 ? len : 8);
		c->lost += n;
		break;
	}
	}
}

static void ct_recycle(struct ct_collector *c, uint32_t idx, uint64_t dirty);

/* A chunk taken for good: its read state forgotten, its dirty bytes zeroed, free again. */
static void ct_give_back(struct ct_collector *c, uint32_t idx, uint64_t dirty)
{
	c->read_off[idx] = 0;
	c->early[idx] = 0;
	c->seen_ns[idx] = 0;
	ct_recycle(c, idx, dirty);
}

/*
 * An encoded chunk's outcome, in the order the chunks were handed out: what
 * the collector does about its extended records (blocks of their own before
 * the EVENTS block, as they came first), the block, the counts, then the chunk
 * goes back or, live, is remembered as read so far.
 */
static void ct_commit(struct ct_collector *c, struct ct_chunk_job *j)
{
	const struct ct_desc_view *d = &j->d;

	for (uint32_t k = 0; k < j->nside; k++)
		ct_on_side(c, d, &j->side[k]);
	c->abandoned += j->abandoned;
	if (j->hdr.nrecords) {
		int added;
		ct_writer_block(c->w, CT_BLOCK_EVENTS, 0, j->out.data, (uint32_t)j->out.len, NULL,
				0);
		c->blocks++;
		if (j->hdr.nfuncs)
			ct_map_put(&c->called, d->instance, &added);
		for (uint32_t f = 0; f < j->hdr.nfuncs; f++) {
			uint64_t addr;
			memcpy(&addr, j->funcs.data + f * 8, 8);
			uint64_t key = (uint64_t)d->instance << 47 | addr;
			/* most were in the block before: a compare, not a hash and a probe */
			uint64_t *recent = &c->seen_recent[((key ^ key >> 13) >> 4) % CT_SEEN_RECENT];
			if (*recent == key)
				continue;
			*recent = key;
			ct_map_put(&c->seen, key, &added);
		}
		*ct_map_put(&c->last_clock,
			    (uint64_t)d->instance << 32 | (uint32_t)d->tid | UINT64_C(1) << 63, &added) =
			j->hdr.last_clock;
	}
	c->events += j->calls;
	if (j->flags & CT_EVENTS_SALVAGED)
		c->salvaged += j->calls;
	if (j->kind == CT_JOB_LIVE) {
		c->read_off[d->idx] += (uint32_t)j->used;
	} else if (j->kind == CT_JOB_TAKE) {
		/* a salvaged chunk may hold a torn record past what we read */
		uint64_t dirty = j->salvage ? CT_ZERO_ALL
					    : ct_chunk_dirty(j->read_before + j->used, d->used);
		ct_give_back(c, d->idx, j->zeroed ? 0 : dirty);
		for (uint32_t k = 0; k < j->nmore; k++) {
			const struct ct_chunk_more *m = &j->more[k];
			dirty = ct_chunk_dirty(m->read_before + m->used, m->d.used);
			ct_give_back(c, m->d.idx, m->zeroed ? 0 : dirty);
		}
	}
}

/* Encode one chunk here and now (live, snapshots); returns the number of bytes it used. */
static uint64_t ct_encode_now(struct ct_collector *c, const struct ct_desc_view *d,
			      const uint64_t *w, uint64_t nwords, uint32_t flags,
			      enum ct_job_kind kind)
{
	struct ct_chunk_job *j = &c->job;

	j->d = *d;
	j->w = w;
	j->nwords = nwords;
	j->flags = flags;
	j->generation = c->generation;
	j->kind = kind;
	j->salvage = 0;
	j->read_before = 0;
	j->zero_read = 0; /* live: the thread goes on filling it; a snapshot's copy */
	j->nmore = 0;
	ct_chunk_encode(ct_collector_encoder(c), j);
	ct_commit(c, j);
	return j->used;
}

/* Take back the oldest chunk handed to the workers. */
static int ct_commit_oldest(struct ct_collector *c)
{
	struct ct_chunk_job *j = ct_workers_oldest(&c->workers);
	if (!j)
		return 0;
	ct_commit(c, j);
	ct_workers_retire(&c->workers);
	return 1;
}

/* Every chunk handed out, encoded and written. */
static void ct_commit_all(struct ct_collector *c)
{
	while (ct_commit_oldest(c))
		;
}

/* The clock of a thread's last record we wrote, to date what it lost after it. */
static uint64_t ct_last_clock(struct ct_collector *c, const struct ct_desc_view *d)
{
	uint64_t *v = ct_map_find(&c->last_clock,
				  (uint64_t)d->instance << 32 | (uint32_t)d->tid | UINT64_C(1) << 63);
	return v ? *v : d->base_clock;
}

static void ct_recycle(struct ct_collector *c, uint32_t idx, uint64_t dirty)
{
	struct ct_pool_ctl *ctl = c->pool->ctl;
	ct_pool_zero(c->pool, idx, dirty);
	ct_pool_give_back(c->pool, idx);
	atomic_fetch_add(&ctl->free_seq, 1);
	if (atomic_load(&ctl->free_waiters))
		syscall(SYS_futex, &ctl->free_seq, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

/* A chunk whose descriptor the program damaged: counted, not read, and put back. */
static void ct_refuse(struct ct_collector *c, const struct ct_desc_view *v)
{
	c->refused++;
	ct_give_back(c, v->idx, CT_ZERO_ALL);
}

/* A thread's next chunk, by sequence; a new thread's first is 0. */
static uint64_t *ct_next_seq(struct ct_collector *c, const struct ct_desc_view *d)
{
	int added;
	return ct_map_put(&c->next_seq,
			  (uint64_t)d->instance << 32 | (uint32_t)d->tid | UINT64_C(1) << 63, &added);
}

/* Hand the chunks gathered for a block to the encoder. */
static void ct_submit_group(struct ct_collector *c)
{
	if (!c->group)
		return;
	c->group = NULL;
	ct_workers_submit(&c->workers);
}

/*
 * Chunk d after the open group's last, into the same block? Only the next
 * published chunk of the same thread, while the group has room.
 */
static int ct_joins_group(const struct ct_collector *c, const struct ct_desc_view *d, int salvage)
{
	const struct ct_chunk_job *j = c->group;
	if (!j || salvage || j->nmore + 1 >= c->block_chunks)
		return 0;
	const struct ct_desc_view *last = j->nmore ? &j->more[j->nmore - 1].d : &j->d;
	return d->instance == last->instance && d->tid == last->tid && d->pid == last->pid &&
	       d->thread_seq == last->thread_seq + 1 && !(last->flags & CT_CHUNK_LAST);
}

/*
 * Take chunk d: the next of the open group's thread joins the group;
 * another starts a group of its own (a salvaged chunk is a job alone). A
 * group goes to the encoder when it is full, ends with the thread's last
 * chunk, or another thread's chunk comes (ct_collect hands out the last).
 */
static void ct_collect_chunk(struct ct_collector *c, const struct ct_desc_view *d, int salvage)
{
	uint32_t idx = d->idx, size = c->pool->geo.chunk_size;
	const uint64_t *w = ct_rec_chunk(c->pool, idx);
	uint64_t used = salvage ? size : d->used / 8 * 8;
	uint64_t off = c->read_off[idx]; /* live: what was read already */
	uint64_t nwords = used > off ? (used - off) / 8 : 0;
	struct ct_chunk_job *j;

	ct_note_instance(c, d->instance, d->pid);
	if (ct_joins_group(c, d, salvage)) {
		j = c->group;
		j->more[j->nmore++] = (struct ct_chunk_more){ *d, w + off / 8, nwords, off, 0, 0 };
	} else {
		ct_submit_group(c);
		while (!(j = ct_workers_slot(&c->workers)))
			ct_commit_oldest(c);
		j->d = *d;
		j->w = w + off / 8;
		j->nwords = nwords;
		j->nmore = 0;
		j->flags = salvage ? c->ring ? CT_EVENTS_SNAPSHOT : CT_EVENTS_SALVAGED : 0;
		j->generation = c->generation;
		j->kind = CT_JOB_TAKE;
		j->salvage = salvage;
		j->read_before = off;
		j->zero_read = !salvage; /* a salvaged chunk's pages are punched out instead */
		c->group = j;
	}
	if (d->flags & CT_CHUNK_LAST)
		j->flags |= CT_EVENTS_LAST;
	if (salvage || (d->flags & CT_CHUNK_LAST) || j->nmore + 1 >= c->block_chunks)
		ct_submit_group(c);
}

/*
 * Live: what threads wrote into chunks they are still filling, so the tree
 * shows calls within a tenth of a second even in a thread that is slow to
 * fill its chunk. A chunk is read up to its first empty slot (the thread may
 * fill it yet), and next time from there; when it is full, from there too.
 */
size_t ct_collect_partial(struct ct_collector *c)
{
	struct ct_pool *p = c->pool;
	uint32_t size = p->geo.chunk_size;
	size_t done = 0;

	for (uint32_t i = 0; i < p->released; i++) {
		uint32_t st = atomic_load_explicit(&p->ctl->desc[i].state, memory_order_acquire);
		if (st != CT_CHUNK_OWNED)
			continue;
		struct ct_desc_view d;
		ct_read_desc(p, i, st, &d);
		if (!ct_desc_ok(c, &d))
			continue; /* refused, if still so, when it is taken */
		uint64_t *next = ct_map_find(&c->next_seq, (uint64_t)d.instance << 32 |
								    (uint32_t)d.tid | UINT64_C(1) << 63);
		if ((next ? *next : 0) != d.thread_seq)
			continue; /* an earlier chunk of this thread is still to come */
		uint64_t off = c->read_off[i];
		const uint64_t *w = ct_rec_chunk(p, i);
		if (off >= size || !w[off / 8])
			continue;
		ct_note_instance(c, d.instance, d.pid);
		ct_encode_now(c, &d, w + off / 8, (size - off) / 8, CT_EVENTS_LIVE, CT_JOB_LIVE);
		done++;
	}
	return done;
}

static int ct_by_thread(const void *a, const void *b)
{
	const struct ct_desc_view *x = a, *y = b;
	if (x->instance != y->instance)
		return x->instance < y->instance ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->thread_seq != y->thread_seq)
		return x->thread_seq < y->thread_seq ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* A thread is gone when the kernel no longer knows it, or its process image was replaced. */
static int ct_thread_gone(struct ct_collector *c, const struct ct_desc_view *d)
{
	for (size_t i = 0; i < c->ninsts; i++)
		if (c->insts[i].pid == d->pid && c->insts[i].instance > d->instance)
			return 1; /* exec'd since */
	return syscall(SYS_tgkill, d->pid, d->tid, 0) == -1 && errno == ESRCH;
}

/*
 * Lossy mode: what threads dropped and did not get to tell in their stream
 * (killed, crashed, or ended while dropping), told by us in a block of their
 * own, after their last events.
 */
static void ct_tell_untold(struct ct_collector *c, int everyone)
{
	struct ct_lost_slot *slots = ct_rec_lost_slots(c->pool);

	for (uint32_t i = 0; i < CT_LOST_SLOTS; i++) {
		struct ct_lost_slot *s = &slots[i];
		int32_t tid = atomic_load(&s->tid);
		if (!tid)
			continue;
		struct ct_desc_view d = { .instance = __atomic_load_n(&s->instance, __ATOMIC_RELAXED),
					  .pid = __atomic_load_n(&s->pid, __ATOMIC_RELAXED),
					  .tid = tid,
					  .state = CT_CHUNK_OWNED,
					  .thread_seq = UINT64_MAX };
		if (!ct_desc_ok(c, &d)) { /* a slot the program wrote: nobody's */
			atomic_store(&s->tid, 0);
			continue;
		}
		if (!everyone && !ct_thread_gone(c, &d))
			continue;
		uint64_t untold = atomic_load(&s->dropped) - atomic_load(&s->told);
		if (untold) {
			struct ct_encoder *e = ct_collector_encoder(c);
			ct_encoder_begin(e, d.instance, d.pid, d.tid, d.thread_seq, CT_EVENTS_LAST, 1);
			e->hdr.snapshot = c->generation;
			ct_encoder_ext(e, ct_last_clock(c, &d), CT_EXT_LOST, &untold, sizeof(untold));
			ct_encoder_finish(e);
			ct_writer_block(c->w, CT_BLOCK_EVENTS, 0, e->out.data, (uint32_t)e->out.len,
					NULL, 0);
			c->lost += untold;
		}
		atomic_store(&s->tid, 0);
	}
}

/*
 * Which chunks to take: published ones always; owned ones of threads that
 * are gone (CT_TAKE_DEAD) or all owned ones (CT_TAKE_ALL, at the end).
 * A state no thread writes is counted once, at the end.
 */
static int ct_wanted(struct ct_collector *c, const struct ct_desc_view *d, enum ct_take take)
{
	if (d->state == CT_CHUNK_FULL)
		return 1;
	if (d->state != CT_CHUNK_OWNED || take == CT_TAKE_FULL)
		return 0;
	return take == CT_TAKE_ALL || !ct_desc_ok(c, d) || ct_thread_gone(c, d);
}

/*
 * Take chunk d, or leave it for a later pass (0). A thread's chunks must
 * reach the file in the thread's order. A scan of the descriptors can see a
 * thread's newer chunk published while the older one, looked at a moment
 * earlier, was not yet: so each thread's next expected chunk is known, and
 * a chunk that comes early waits for the next scan. One that is still early,
 * with the same sequence, after a second of scans for dead threads (threads
 * wait for chunks) waits for a chunk the program lost (it wrote over its
 * descriptor): it goes, lest the pool drain. A chunk older than its thread's next was made up: refused.
 * At the end (CT_TAKE_ALL) everything left goes, in order.
 */
#define CT_EARLY_SCANS 20 /* scans for dead threads are 50 ms apart at least: a second */

static int ct_take_in_order(struct ct_collector *c, const struct ct_desc_view *d,
			    enum ct_take take)
{
	uint64_t *next = ct_next_seq(c, d);

	/* flight recorder: threads publish only chunks of names and flush rings with gaps */
	if (!c->ring && d->thread_seq != *next && take != CT_TAKE_ALL) {
		if (d->thread_seq < *next) {
			ct_refuse(c, d);
			return 1;
		}
		/* low bits: scans for dead threads that found it early; the rest: its sequence */
		uint64_t mark = (d->thread_seq + 1) << 8;
		if ((c->early[d->idx] & ~UINT64_C(0xff)) != mark)
			c->early[d->idx] = mark;
		if (take == CT_TAKE_FULL || (c->early[d->idx] & 0xff) < CT_EARLY_SCANS) {
			c->early[d->idx] += take == CT_TAKE_DEAD;
			return 0;
		}
	}
	int salvage = d->state == CT_CHUNK_OWNED;
	/* a thread that ended, or is gone: a new one with its id counts from 0 */
	*next = salvage || (d->flags & CT_CHUNK_LAST) ? 0 : d->thread_seq + 1;
	ct_collect_chunk(c, d, salvage);
	return 1;
}

/*
 * A thread's published chunks, when fewer than a block holds, may wait for
 * the next ones (a block of many costs less a record than many blocks:
 * one function table, one zstd frame), for CT_GATHER_NS at most: only in a
 * plain recording (not live, not a flight recorder), while no thread waits
 * for a chunk and the free stack has chunks to spare.
 */
#define CT_GATHER_NS (20 * 1000 * 1000)
/* free chunks, at least, for chunks to wait: two of the recorder's wake batches (pool.h) */
#define CT_GATHER_SPARE (2 * CT_WAKE_BATCH)

int ct_collector_unhurried(const struct ct_collector *c)
{
	const struct ct_pool_ctl *ctl = c->pool->ctl;
	return c->gather && !atomic_load(&ctl->free_waiters) &&
	       atomic_load(&ctl->free_count) >= (int32_t)CT_GATHER_SPARE;
}

/*
 * Views v[0 .. n): how many from v[0] on are the next chunks of v[0]'s
 * thread, published, in order (a thread's last ends the run).
 */
static size_t ct_run_length(const struct ct_collector *c, const struct ct_desc_view *v, size_t n)
{
	size_t k = 1;
	while (k < n && k < c->block_chunks && v[k].state == CT_CHUNK_FULL &&
	       v[k].instance == v[0].instance && v[k].tid == v[0].tid &&
	       v[k].thread_seq == v[k - 1].thread_seq + 1 && !(v[k - 1].flags & CT_CHUNK_LAST))
		k++;
	return k;
}

/* Hold back the k chunks of a run shorter than a block, if their oldest is young enough. */
static int ct_hold(struct ct_collector *c, const struct ct_desc_view *v, size_t k, uint64_t now)
{
	if (k >= c->block_chunks || v[0].state != CT_CHUNK_FULL || (v[k - 1].flags & CT_CHUNK_LAST))
		return 0;
	uint64_t oldest = now;
	for (size_t i = 0; i < k; i++) {
		if (!c->seen_ns[v[i].idx])
			c->seen_ns[v[i].idx] = now;
		oldest = ct_min(oldest, c->seen_ns[v[i].idx]);
	}
	return now - oldest < CT_GATHER_NS;
}

size_t ct_collect(struct ct_collector *c, enum ct_take take)
{
	struct ct_pool *p = c->pool;
	size_t n = 0, done = 0;
	uint32_t left = 0;

	for (uint32_t i = 0; i < p->released; i++) {
		uint32_t st = atomic_load_explicit(&p->ctl->desc[i].state, memory_order_acquire);
		if (st == CT_CHUNK_FREE || (st == CT_CHUNK_OWNED && take == CT_TAKE_FULL))
			continue;
		if (st > CT_CHUNK_RECYCLING) { /* no thread writes that: never followed */
			if (take == CT_TAKE_ALL)
				c->refused++;
			continue;
		}
		struct ct_desc_view *v = &c->views[n];
		ct_read_desc(p, i, st, v);
		if (ct_wanted(c, v, take))
			n++;
	}
	qsort(c->views, n, sizeof(*c->views), ct_by_thread);
	int gather = take == CT_TAKE_FULL && ct_collector_unhurried(c);
	uint64_t now = gather ? ct_time_ns(CLOCK_MONOTONIC) : 0;
	size_t decided = 0; /* views before this one belong to a run taken whole */
	for (size_t i = 0; i < n; i++) {
		const struct ct_desc_view *d = &c->views[i];
		if (gather && i >= decided && ct_desc_ok(c, d) &&
		    d->thread_seq == *ct_next_seq(c, d)) {
			size_t k = ct_run_length(c, d, n - i);
			if (ct_hold(c, d, k, now)) {
				left += (uint32_t)k;
				i += k - 1;
				continue;
			}
			decided = i + k;
		}
		if (!ct_desc_ok(c, d))
			ct_refuse(c, d);
		else if (ct_take_in_order(c, d, take))
			done++;
		else
			left++;
	}
	ct_submit_group(c);
	ct_commit_all(c);
	c->full_left = left;
	if (take != CT_TAKE_FULL)
		ct_tell_untold(c, take == CT_TAKE_ALL);
	return done;
}

/*
 * Copy a chunk a live thread may be writing or reusing: valid if it was owned
 * before and after, with the same sequence number (a reuse changes it).
 */
static int ct_copy_owned(struct ct_pool *p, uint32_t idx, uint64_t seq, struct ct_desc_view *copy,
			 uint64_t *buf)
{
	struct ct_chunk_desc *d = &p->ctl->desc[idx];

	if (atomic_load_explicit(&d->state, memory_order_acquire) != CT_CHUNK_OWNED ||
	    __atomic_load_n(&d->thread_seq, __ATOMIC_RELAXED) != seq)
		return 0;
	ct_read_desc(p, idx, CT_CHUNK_OWNED, copy);
	copy->thread_seq = seq;
	/*
	 * Page by page, up to a page that ends in 128 zero bytes (more empty
	 * slots than the encoder skips): reading the pages of the chunk the
	 * thread never reached would give them memory, for nothing.
	 */
	const char *src = (const char *)ct_rec_chunk(p, idx);
	static const uint64_t zero[16];
	uint32_t at = 0, size = p->geo.chunk_size;
	while (at < size) {
		uint32_t n = (uint32_t)ct_min(4096, size - at);
		memcpy((char *)buf + at, src + at, n);
		at += n;
		if (n >= sizeof(zero) && !memcmp((char *)buf + at - sizeof(zero), zero, sizeof(zero)))
			break;
	}
	memset((char *)buf + at, 0, size - at);
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&d->state, memory_order_relaxed) == CT_CHUNK_OWNED &&
	       __atomic_load_n(&d->thread_seq, __ATOMIC_RELAXED) == seq;
}

/*
 * A flight-recorder snapshot: every ring, as it is now, without stopping the
 * threads. Their chunks stay theirs; the blocks carry the snapshot number.
 */
size_t ct_snapshot(struct ct_collector *c)
{
	struct ct_pool *p = c->pool;
	uint64_t *buf = ct_malloc(p->geo.chunk_size);
	size_t n = 0, done = 0;

	ct_collect(c, CT_TAKE_DEAD); /* threads that are gone: their rings for good */
	for (uint32_t i = 0; i < p->released; i++) {
		uint32_t st = atomic_load_explicit(&p->ctl->desc[i].state, memory_order_acquire);
		if (st == CT_CHUNK_OWNED)
			ct_read_desc(p, i, st, &c->views[n++]);
	}
	qsort(c->views, n, sizeof(*c->views), ct_by_thread);
	for (size_t i = 0; i < n; i++) {
		struct ct_desc_view copy;
		if (!ct_copy_owned(p, c->views[i].idx, c->views[i].thread_seq, &copy, buf))
			continue; /* reused while we copied: it was the oldest anyway */
		if (!ct_desc_ok(c, &copy))
			continue; /* damaged by the program: refused when it is taken */
		ct_note_instance(c, copy.instance, copy.pid);
		ct_encode_now(c, &copy, buf, p->geo.chunk_size / 8, CT_EVENTS_SNAPSHOT,
			      CT_JOB_SNAPSHOT);
		done++;
	}
	free(buf);
	c->generation++;
	return done;
}
