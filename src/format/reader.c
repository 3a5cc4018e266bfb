/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "inflate.h"
#include "reader.h"

static int ct_pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

static void ct_add_meta(struct ct_trace *t, const uint8_t *p, uint32_t len)
{
	if (!len) /* an empty block's payload may be NULL: no pointer arithmetic on it */
		return;
	const char *s = (const char *)p, *end = s + len;
	while (s < end) {
		const char *k = s, *v = memchr(s, 0, (size_t)(end - s));
		if (!v)
			return;
		v++;
		const char *vend = memchr(v, 0, (size_t)(end - v));
		if (!vend)
			return;
		t->meta = ct_realloc(t->meta, (t->nmeta + 1) * sizeof(*t->meta));
		t->meta[t->nmeta].key = ct_strdup(k);
		t->meta[t->nmeta].val = ct_strdup(v);
		t->nmeta++;
		s = vend + 1;
	}
}

static int ct_add_process(struct ct_trace *t, const uint8_t *p, uint32_t len)
{
	struct ct_process_rec r;
	/* version 1 records end before parent_tid */
	size_t rs = t->version >= 2 ? sizeof(r) : offsetof(struct ct_process_rec, parent_tid);
	if (len < rs)
		return -1;
	memset(&r, 0, sizeof(r));
	memcpy(&r, p, rs);
	if ((uint64_t)rs + r.exe_len + r.args_len > len || !r.exe_len)
		return -1;
	t->procs = ct_realloc(t->procs, (t->nprocs + 1) * sizeof(*t->procs));
	struct ct_process_info *pi = &t->procs[t->nprocs++];
	memset(pi, 0, sizeof(*pi));
	pi->rec = r;
	pi->exe = ct_strndup((const char *)p + rs, r.exe_len);
	pi->args = ct_malloc(r.args_len + 1);
	memcpy(pi->args, p + rs + r.exe_len, r.args_len);
	pi->args[r.args_len] = 0;
	return 0;
}

static int ct_add_module(struct ct_trace *t, const uint8_t *p, uint32_t len)
{
	struct ct_module_rec r;
	if (len <= sizeof(r))
		return -1;
	memcpy(&r, p, sizeof(r));
	if (r.build_id_len > sizeof(r.build_id))
		return -1;
	t->mods = ct_realloc(t->mods, (t->nmods + 1) * sizeof(*t->mods));
	struct ct_module_info *m = &t->mods[t->nmods++];
	m->rec = r;
	m->path = ct_strndup((const char *)p + sizeof(r), len - sizeof(r));
	return 0;
}

static int ct_unpack(struct ct_buf *b, const uint8_t *p, uint32_t len, uint16_t flags);

/*
 * A symbol table's header against what it holds: a terminated path inside the
 * block, and no more symbols than the block has room for (17 bytes at least
 * each), so that nsyms can size what a reader allocates.
 */
static int ct_symtab_valid(const struct ct_buf *b)
{
	struct ct_symtab_hdr h;
	if (b->len < sizeof(h))
		return 0;
	memcpy(&h, b->data, sizeof(h));
	uint64_t rest = b->len - sizeof(h);
	const uint8_t *path = b->data + sizeof(h);
	return h.path_len && h.path_len <= rest && !path[h.path_len - 1] &&
	       memchr(path, 0, h.path_len) == path + h.path_len - 1 &&
	       h.build_id_len <= sizeof(h.build_id) && (uint64_t)h.nsyms * 17 <= rest - h.path_len;
}

static int ct_add_symtab(struct ct_trace *t, const uint8_t *p, uint32_t len, uint16_t flags)
{
	struct ct_buf b = { 0 };
	if (ct_unpack(&b, p, len, flags) < 0)
		return -1;
	if (!ct_symtab_valid(&b)) {
		ct_buf_free(&b);
		return -1;
	}
	t->symtabs = ct_realloc(t->symtabs, (t->nsymtabs + 1) * sizeof(*t->symtabs));
	t->symtabs[t->nsymtabs++] = b;
	return 0;
}

/* record --kernel's system calls and off-CPU intervals (kernel_recs.c) */
static int ct_add_kernel(struct ct_trace *t, const uint8_t *p, uint32_t len, uint16_t flags)
{
	struct ct_buf b = { 0 };
	int r = ct_unpack(&b, p, len, flags) < 0 ? -1 : ct_kernel_recs_add(t, b.data, b.len);
	ct_buf_free(&b);
	return r;
}

static int ct_add_kargs(struct ct_trace *t, const uint8_t *p, uint32_t len, uint16_t flags)
{
	struct ct_buf b = { 0 };
	int r = ct_unpack(&b, p, len, flags) < 0 ? -1 : ct_kargs_add(t, b.data, b.len);
	ct_buf_free(&b);
	return r;
}

static int ct_add_protos(struct ct_trace *t, const uint8_t *p, uint32_t len, uint16_t flags)
{
	struct ct_buf b = { 0 };
	if (ct_unpack(&b, p, len, flags) < 0 || b.len < 4) {
		ct_buf_free(&b);
		return -1;
	}
	t->protos = ct_realloc(t->protos, (t->nprotos + 1) * sizeof(*t->protos));
	t->protos[t->nprotos++] = b;
	return 0;
}

/*
 * A block's payload as written, zstd-compressed or not, into out with a NUL
 * after it: a string the block does not terminate still ends.
 */
static int ct_unpack(struct ct_buf *out, const uint8_t *p, uint32_t len, uint16_t flags)
{
	struct ct_buf b = { 0 };
	if (flags & CT_BLOCK_ZSTD) {
		uint32_t raw;
		if (len < 4)
			return -1;
		memcpy(&raw, p, 4);
		ZSTD_DCtx *dctx = ZSTD_createDCtx();
		int r = ct_inflate(dctx, &b, raw, p + 4, len - 4);
		ZSTD_freeDCtx(dctx);
		if (r < 0) {
			ct_buf_free(&b);
			return -1;
		}
	} else {
		ct_buf_reserve(&b, (size_t)len + 1);
		ct_buf_append(&b, p, len);
		b.data[b.len] = 0;
	}
	*out = b;
	return 0;
}

static struct ct_thread_info *ct_thread_for(struct ct_trace *t, const struct ct_events_hdr *h,
					    struct ct_map *index)
{
	/* a thread of a process image, in one flight-recorder snapshot (or none) */
	uint64_t key = ((uint64_t)h->snapshot << 48 ^ (uint64_t)h->instance << 32 ^ (uint32_t)h->tid) |
		       UINT64_C(1) << 63;
	int added;
	uint64_t *slot = ct_map_put(index, key, &added);
	if (added) {
		t->threads = ct_realloc(t->threads, (t->nthreads + 1) * sizeof(*t->threads));
		struct ct_thread_info *th = &t->threads[t->nthreads];
		memset(th, 0, sizeof(*th));
		th->instance = h->instance;
		th->pid = h->pid;
		th->tid = h->tid;
		th->snapshot = h->snapshot;
		th->first_clock = h->first_clock;
		*slot = t->nthreads++;
	}
	return &t->threads[*slot];
}

static int ct_add_events(struct ct_trace *t, const uint8_t *p, uint32_t len, uint64_t off,
			 struct ct_map *index)
{
	struct ct_block_ref ref = { .offset = off, .length = len };
	if (len < sizeof(ref.hdr))
		return -1;
	memcpy(&ref.hdr, p, sizeof(ref.hdr));
	t->events = ct_realloc(t->events, (t->nevents + 1) * sizeof(*t->events));
	t->events[t->nevents] = ref;

	struct ct_thread_info *th = ct_thread_for(t, &ref.hdr, index);
	if (th->nblocks == th->cap) {
		th->cap = th->cap ? th->cap * 2 : 8;
		th->blocks = ct_realloc(th->blocks, th->cap * sizeof(*th->blocks));
	}
	th->blocks[th->nblocks++] = (uint32_t)t->nevents++;
	th->nrecords += ref.hdr.nrecords;
	th->lost += ref.hdr.lost;
	th->flags |= ref.hdr.flags;
	if (ref.hdr.nrecords) {
		if (ref.hdr.first_clock < th->first_clock || th->nrecords == ref.hdr.nrecords)
			th->first_clock = ref.hdr.first_clock;
		if (ref.hdr.last_clock > th->last_clock)
			th->last_clock = ref.hdr.last_clock;
	}
	return 0;
}

static int ct_add_block(struct ct_trace *t, const struct ct_block_header *h, const uint8_t *p,
			uint64_t off, struct ct_map *index)
{
	switch (h->type) {
	case CT_BLOCK_META:
		ct_add_meta(t, p, h->length);
		return 0;
	case CT_BLOCK_CLOCK:
		if (h->length < sizeof(struct ct_clock_sample))
			return -1;
		memcpy(t->nclocks ? &t->clock_last : &t->clock_first, p, sizeof(t->clock_first));
		if (!t->nclocks)
			t->clock_last = t->clock_first;
		t->nclocks++;
		return 0;
	case CT_BLOCK_PROCESS:
		return ct_add_process(t, p, h->length);
	case CT_BLOCK_MODULE:
		return ct_add_module(t, p, h->length);
	case CT_BLOCK_SYMTAB:
		return ct_add_symtab(t, p, h->length, h->flags);
	case CT_BLOCK_EVENTS:
		return ct_add_events(t, p, h->length, off, index);
	case CT_BLOCK_PROTOS:
		return ct_add_protos(t, p, h->length, h->flags);
	case CT_BLOCK_CRASH:
		if (h->length < sizeof(struct ct_crash_rec))
			return -1;
		t->crashes = ct_realloc(t->crashes, (t->ncrashes + 1) * sizeof(*t->crashes));
		memcpy(&t->crashes[t->ncrashes++], p, sizeof(*t->crashes));
		return 0;
	case CT_BLOCK_THREAD:
		if (h->length < sizeof(struct ct_thread_rec))
			return -1;
		t->names = ct_realloc(t->names, (t->nnames + 1) * sizeof(*t->names));
		memcpy(&t->names[t->nnames], p, sizeof(*t->names));
		t->names[t->nnames++].name[sizeof(t->names->name) - 1] = 0;
		return 0;
	case CT_BLOCK_UNLOAD:
		if (h->length < sizeof(struct ct_unload_rec))
			return -1;
		t->unloads = ct_realloc(t->unloads, (t->nunloads + 1) * sizeof(*t->unloads));
		memcpy(&t->unloads[t->nunloads++], p, sizeof(*t->unloads));
		return 0;
	case CT_BLOCK_UNTRACED: {
		if (h->length < sizeof(struct ct_untraced_rec))
			return -1;
		struct ct_untraced_info *u;
		t->untraced = ct_realloc(t->untraced, (t->nuntraced + 1) * sizeof(*t->untraced));
		u = &t->untraced[t->nuntraced++];
		memcpy(&u->rec, p, sizeof(u->rec));
		u->path = ct_strndup((const char *)p + sizeof(u->rec), h->length - sizeof(u->rec));
		return 0;
	}
	case CT_BLOCK_KERNEL:
		return ct_add_kernel(t, p, h->length, h->flags);
	case CT_BLOCK_KARGS:
		return ct_add_kargs(t, p, h->length, h->flags);
	case CT_BLOCK_END:
		/* later versions append fields: take what is there, zero what is not */
		if (h->length < offsetof(struct ct_end_rec, program_cpu_ns))
			return -1;
		memset(&t->end, 0, sizeof(t->end));
		memcpy(&t->end, p, ct_min(h->length, sizeof(t->end)));
		t->has_end = 1;
		return 0;
	default:
		return 0; /* a newer block type this reader does not know: skip it */
	}
}

/* Read the blocks from t->next_offset to the end of the file. */
static int ct_read_blocks(struct ct_trace *t, char *err, size_t errlen)
{
	uint64_t off = t->next_offset;
	struct ct_buf payload = { 0 };
	int r = 0;

	while (off < t->size) {
		struct ct_block_header h;
		if (t->size - off < sizeof(h) || ct_pread_all(t->fd, &h, sizeof(h), off) < 0 ||
		    (h.magic == CT_BLOCK_MAGIC && t->size - off - sizeof(h) < h.length)) {
			t->torn_bytes = t->size - off; /* the recorder stopped mid-block */
			break;
		}
		if (h.magic != CT_BLOCK_MAGIC) {
			snprintf(err, errlen, "%s: corrupt trace: no block at offset %llu", t->path,
				 (unsigned long long)off);
			r = -1;
			break;
		}
		payload.len = 0;
		ct_buf_reserve(&payload, h.length);
		if (ct_pread_all(t->fd, payload.data, h.length, off + sizeof(h)) < 0 ||
		    ct_crc32c(ct_crc32c(0, &h, 12), payload.data, h.length) != h.crc ||
		    ct_add_block(t, &h, payload.data, off + sizeof(h), &t->thread_index) < 0) {
			snprintf(err, errlen, "%s: corrupt trace: bad block at offset %llu",
				 t->path, (unsigned long long)off);
			r = -1;
			break;
		}
		off += sizeof(h) + h.length;
		t->next_offset = off;
	}
	ct_buf_free(&payload);
	return r;
}

int ct_trace_follow(struct ct_trace *t, char *err, size_t errlen)
{
	struct stat st;
	size_t before = t->nevents;

	if (fstat(t->fd, &st) < 0) {
		snprintf(err, errlen, "%s: %s", t->path, strerror(errno));
		return -1;
	}
	if ((uint64_t)st.st_size <= t->next_offset)
		return 0;
	t->size = (uint64_t)st.st_size;
	t->torn_bytes = 0; /* a block being written: the next look will see it whole */
	if (ct_read_blocks(t, err, errlen) < 0)
		return -1;
	return (int)(t->nevents - before);
}

static int ct_thread_cmp(const void *a, const void *b)
{
	const struct ct_thread_info *x = a, *y = b;
	if (x->snapshot != y->snapshot)
		return x->snapshot < y->snapshot ? -1 : 1;
	if (x->first_clock != y->first_clock)
		return x->first_clock < y->first_clock ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void ct_setup_clock(struct ct_trace *t)
{
	const char *hz = ct_trace_meta(t, "clock_hz");
	const char *kind = ct_trace_meta(t, "clock");

	t->clock_origin = t->clock_first.clock;
	t->ns_per_tick = 1.0;
	if (kind && !strcmp(kind, "monotonic"))
		return;
	if (t->nclocks >= 2 && t->clock_last.clock > t->clock_first.clock &&
	    t->clock_last.monotonic_ns - t->clock_first.monotonic_ns >= 10000000)
		t->ns_per_tick =
			(double)(t->clock_last.monotonic_ns - t->clock_first.monotonic_ns) /
			(double)(t->clock_last.clock - t->clock_first.clock);
	else if (hz && atof(hz) > 0)
		t->ns_per_tick = 1e9 / atof(hz);
}

struct ct_trace *ct_trace_open(const char *path, char *err, size_t errlen)
{
	struct ct_trace *t = ct_calloc(1, sizeof(*t));
	struct ct_file_header fh;
	struct stat st;

	t->path = ct_strdup(path);
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(t->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		goto fail;
	}
	t->size = (uint64_t)st.st_size;
	if (t->size == 0) {
		snprintf(err, errlen, "%s: empty file, not a calltrace trace", path);
		goto fail;
	}
	if (t->size < sizeof(fh) || ct_pread_all(t->fd, &fh, sizeof(fh), 0) < 0 ||
	    memcmp(fh.magic, CT_FILE_MAGIC, 8)) {
		snprintf(err, errlen, "%s: not a calltrace trace", path);
		goto fail;
	}
	if (fh.version > CT_FILE_VERSION) {
		snprintf(err, errlen,
			 "%s: trace format version %u is newer than this calltrace (%u)", path,
			 fh.version, CT_FILE_VERSION);
		goto fail;
	}
	t->version = fh.version;
	t->next_offset = sizeof(fh);
	if (ct_read_blocks(t, err, errlen) < 0)
		goto fail;
	if (t->nthreads) /* a trace without events has no array: qsort must not see NULL */
		qsort(t->threads, t->nthreads, sizeof(*t->threads), ct_thread_cmp);
	for (size_t i = 0; i < t->nthreads; i++)
		for (size_t j = 0; j < t->nprocs; j++)
			if (t->procs[j].rec.instance == t->threads[i].instance)
				t->procs[j].nthreads++;
	ct_setup_clock(t);
	return t;
fail:
	ct_trace_close(t);
	return NULL;
}

void ct_trace_close(struct ct_trace *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	for (size_t i = 0; i < t->nmeta; i++) {
		free(t->meta[i].key);
		free(t->meta[i].val);
	}
	for (size_t i = 0; i < t->nprocs; i++) {
		free(t->procs[i].exe);
		free(t->procs[i].args);
	}
	for (size_t i = 0; i < t->nmods; i++)
		free(t->mods[i].path);
	for (size_t i = 0; i < t->nsymtabs; i++)
		ct_buf_free(&t->symtabs[i]);
	for (size_t i = 0; i < t->nprotos; i++)
		ct_buf_free(&t->protos[i]);
	free(t->protos);
	free(t->krecs);
	free(t->kargs);
	if (t->kargs_index.keys)
		ct_map_free(&t->kargs_index);
	ct_buf_free(&t->kargs_data);
	for (size_t i = 0; i < t->nthreads; i++)
		free(t->threads[i].blocks);
	ct_map_free(&t->thread_index);
	free(t->meta);
	free(t->crashes);
	free(t->names);
	free(t->unloads);
	for (size_t i = 0; i < t->nuntraced; i++)
		free(t->untraced[i].path);
	free(t->untraced);
	free(t->procs);
	free(t->mods);
	free(t->symtabs);
	free(t->events);
	free(t->threads);
	free(t->path);
	free(t);
}

const char *ct_trace_meta(const struct ct_trace *t, const char *key)
{
	for (size_t i = t->nmeta; i-- > 0;)
		if (!strcmp(t->meta[i].key, key))
			return t->meta[i].val;
	return NULL;
}

const char *ct_trace_arch(const struct ct_trace *t)
{
	const char *v = ct_trace_meta(t, "arch");
	return v && *v ? v : "x86_64";
}

const struct ct_process_info *ct_trace_process(const struct ct_trace *t, uint32_t instance)
{
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].rec.instance == instance)
			return &t->procs[i];
	return NULL;
}

const char *ct_trace_thread_name(const struct ct_trace *t, const struct ct_thread_info *th)
{
	for (size_t i = t->nnames; i-- > 0;)
		if (t->names[i].instance == th->instance && t->names[i].tid == th->tid)
			return t->names[i].name;
	return NULL;
}

const struct ct_thread_info *ct_trace_thread(const struct ct_trace *t, uint32_t snapshot,
					     uint32_t instance, int32_t tid)
{
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].instance == instance && t->threads[i].tid == tid &&
		    t->threads[i].snapshot == snapshot)
			return &t->threads[i];
	return NULL;
}

double ct_trace_ns(const struct ct_trace *t, uint64_t clock)
{
	return (double)(int64_t)(clock - t->clock_origin) * t->ns_per_tick;
}

void ct_stream_open(struct ct_stream *s, struct ct_trace *t, const struct ct_thread_info *th)
{
	memset(s, 0, sizeof(*s));
	s->t = t;
	s->th = th;
	ct_decoder_init(&s->dec);
}

static int ct_stream_load(struct ct_stream *s)
{
	const struct ct_block_ref *b = &s->t->events[s->th->blocks[s->next_block++]];
	s->payload.len = 0;
	ct_buf_reserve(&s->payload, b->length);
	if (ct_pread_all(s->t->fd, s->payload.data, b->length, b->offset) < 0 ||
	    ct_decoder_begin(&s->dec, s->payload.data, b->length) < 0) {
		fprintf(stderr,
			"calltrace: %s: corrupt trace: cannot decode block at offset %llu\n",
			s->t->path, (unsigned long long)b->offset);
		return -1;
	}
	s->in_block = 1;
	s->blocks_read++;
	return 0;
}

int ct_stream_next_block(struct ct_stream *s)
{
	if (s->next_block >= s->th->nblocks)
		return 0;
	return ct_stream_load(s) < 0 ? -1 : 1;
}

void ct_stream_close(struct ct_stream *s)
{
	ct_decoder_free(&s->dec);
	ct_buf_free(&s->payload);
}
