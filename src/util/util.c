/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

static void ct_vmessage(const char *prefix, const char *fmt, va_list ap)
{
	char line[4096];
	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "calltrace: %s%s\n", prefix, line);
}

void ct_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ct_vmessage("", fmt, ap);
	va_end(ap);
}

void ct_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ct_vmessage("warning: ", fmt, ap);
	va_end(ap);
}

void ct_die(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ct_vmessage("", fmt, ap);
	va_end(ap);
	exit(status);
}

static void *ct_check_alloc(void *p)
{
	if (!p)
		ct_die(1, "out of memory");
	return p;
}

void *ct_malloc(size_t n)
{
	return ct_check_alloc(malloc(n ? n : 1));
}

void *ct_calloc(size_t n, size_t size)
{
	return ct_check_alloc(calloc(n ? n : 1, size ? size : 1));
}

void *ct_realloc(void *p, size_t n)
{
	return ct_check_alloc(realloc(p, n ? n : 1));
}

void *ct_table_fit(void *p, size_t *n, size_t i, size_t size)
{
	size_t m = *n ? *n : 256;
	while (m <= i)
		m *= 2;
	p = ct_realloc(p, m * size);
	memset((char *)p + *n * size, 0, (m - *n) * size);
	*n = m;
	return p;
}

char *ct_strdup(const char *s)
{
	return ct_check_alloc(strdup(s));
}

char *ct_strndup(const char *s, size_t n)
{
	return ct_check_alloc(strndup(s, n));
}

char *ct_printf(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		ct_die(1, "out of memory");
	return s;
}

void ct_buf_reserve(struct ct_buf *b, size_t extra)
{
	if (b->len + extra <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra)
		cap *= 2;
	b->data = ct_realloc(b->data, cap);
	b->cap = cap;
}

void ct_buf_append(struct ct_buf *b, const void *p, size_t n)
{
	if (n == 0) /* p and b->data may both be NULL: memcpy must not see them */
		return;
	ct_buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void ct_buf_free(struct ct_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void ct_map_init(struct ct_map *m, size_t cap_hint)
{
	size_t cap = 16;
	while (cap < cap_hint * 2)
		cap *= 2;
	m->keys = ct_calloc(cap, sizeof(uint64_t));
	m->vals = ct_calloc(cap, sizeof(uint64_t));
	m->cap = cap;
	m->count = 0;
}

void ct_map_free(struct ct_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

uint64_t *ct_map_find(const struct ct_map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	size_t mask = m->cap - 1;
	for (size_t i = ct_hash64(key) & mask;; i = (i + 1) & mask) {
		if (m->keys[i] == key)
			return &m->vals[i];
		if (!m->keys[i])
			return NULL;
	}
}

void ct_map_copy(struct ct_map *dst, const struct ct_map *src)
{
	for (size_t i = 0; i < src->cap; i++) {
		if (src->keys[i]) {
			int added;
			*ct_map_put(dst, src->keys[i], &added) = src->vals[i];
		}
	}
}

static void ct_map_grow(struct ct_map *m)
{
	struct ct_map bigger;
	ct_map_init(&bigger, m->cap);
	ct_map_copy(&bigger, m);
	ct_map_free(m);
	*m = bigger;
}

uint64_t *ct_map_put(struct ct_map *m, uint64_t key, int *added)
{
	if (!m->cap)
		ct_map_init(m, 16);
	if ((m->count + 1) * 4 > m->cap * 3)
		ct_map_grow(m);
	size_t mask = m->cap - 1;
	for (size_t i = ct_hash64(key) & mask;; i = (i + 1) & mask) {
		if (m->keys[i] == key) {
			*added = 0;
			return &m->vals[i];
		}
		if (!m->keys[i]) {
			m->keys[i] = key;
			m->vals[i] = 0;
			m->count++;
			*added = 1;
			return &m->vals[i];
		}
	}
}

/* "64M", "512k", "1G", "4096" -> bytes */
int ct_parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	uint64_t mult = 1;
	switch (*end) {
	case 'k':
	case 'K':
		mult = 1ull << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mult = 1ull << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mult = 1ull << 30;
		end++;
		break;
	default:
		break;
	}
	if (*end == 'i' && mult > 1)
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v > UINT64_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

const char *ct_basename(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

void ct_fmt_count(char *buf, size_t len, uint64_t n)
{
	char tmp[32];
	int l = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)n);
	size_t o = 0;
	for (int i = 0; i < l && o + 2 < len; i++) {
		if (i && (l - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
}

/* "SIGSEGV" (a static buffer: use it at once) */
const char *ct_signal_name(int sig)
{
	static char buf[32];
	const char *abbrev = sigabbrev_np(sig);
	if (abbrev) {
		snprintf(buf, sizeof(buf), "SIG%s", abbrev);
		return buf;
	}
	snprintf(buf, sizeof(buf), "signal %d", sig);
	return buf;
}

pid_t ct_fork_reporting(void (*child)(void *arg, int report), void *arg, int *err)
{
	int pfd[2];
	*err = -1;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		ct_error("cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		ct_error("cannot fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		close(pfd[0]);
		child(arg, pfd[1]);
		_exit(1); /* never: the child exits itself */
	}
	close(pfd[1]);
	int e = ECHILD;
	ssize_t r;
	do
		r = read(pfd[0], &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	close(pfd[0]);
	*err = r == (ssize_t)sizeof(e) ? e : 0; /* nothing written: it exec'd */
	if (!*err)
		return pid;
	waitpid(pid, NULL, 0);
	return -1;
}

int ct_exec_error(const char *prog, int err)
{
	if (err == ENOENT && !strchr(prog, '/')) {
		ct_error("%s: command not found", prog);
		return CT_EXIT_NOTFOUND;
	}
	ct_error("cannot execute %s: %s", prog, strerror(err));
	return err == ENOENT ? CT_EXIT_NOTFOUND : CT_EXIT_NOEXEC;
}
