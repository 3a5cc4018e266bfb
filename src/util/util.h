/* SPDX-License-Identifier: MIT */
/* Small helpers every part of the command-line tool uses. */
#ifndef CT_UTIL_H
#define CT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#define CT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ct_min(a, b)	 ((a) < (b) ? (a) : (b))
#define ct_max(a, b)	 ((a) > (b) ? (a) : (b))

/* exit statuses */
#define CT_EXIT_USAGE	 2
#define CT_EXIT_NOEXEC	 126
#define CT_EXIT_NOTFOUND 127

/* "calltrace: message" on stderr, one line. */
void ct_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ct_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void ct_die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void *ct_malloc(size_t n);
void *ct_calloc(size_t n, size_t size);
void *ct_realloc(void *p, size_t n);
/*
 * A table indexed by an id (a function's, a symbol's) made to hold index i:
 * the array p of *n elements of size bytes, grown by doubling (from 256),
 * the new elements zeroed. Returns the array; *n is its new length.
 */
void *ct_table_fit(void *p, size_t *n, size_t i, size_t size);
char *ct_strdup(const char *s);
char *ct_strndup(const char *s, size_t n);
char *ct_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable byte buffer. */
struct ct_buf {
	uint8_t *data;
	size_t len, cap;
};

void ct_buf_reserve(struct ct_buf *b, size_t extra);
void ct_buf_append(struct ct_buf *b, const void *p, size_t n);
void ct_buf_free(struct ct_buf *b);

static inline uint8_t *ct_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Returns NULL if the varint runs past end. */
static inline const uint8_t *ct_get_varint(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
	if (__builtin_expect(p < end && *p < 0x80, 1)) { /* most are one byte */
		*out = *p;
		return p + 1;
	}
	uint64_t v = 0;
	for (unsigned shift = 0; p < end && shift < 64; shift += 7) {
		uint8_t b = *p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return p;
		}
	}
	return NULL;
}

/*
 * The bits set in v, in a dozen instructions: the builtin is a call into
 * libgcc on x86-64 machines built without POPCNT, the baseline.
 */
static inline uint64_t ct_popcount64(uint64_t v)
{
	v -= v >> 1 & UINT64_C(0x5555555555555555);
	v = (v & UINT64_C(0x3333333333333333)) + (v >> 2 & UINT64_C(0x3333333333333333));
	v = (v + (v >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return v * UINT64_C(0x0101010101010101) >> 56;
}

static inline uint64_t ct_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t ct_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/*
 * A double as u64, saturated: times computed from a trace's clocks may be past
 * what u64 holds, and converting such a value is undefined behaviour.
 */
static inline uint64_t ct_sat_u64(double v)
{
	return v >= 18446744073709549568.0 ? UINT64_MAX : v > 0 ? (uint64_t)v : 0;
}

/* An open-addressing map from non-zero u64 keys to u64 values. */
struct ct_map {
	uint64_t *keys;
	uint64_t *vals;
	size_t cap, count;
};

void ct_map_init(struct ct_map *m, size_t cap_hint);
void ct_map_free(struct ct_map *m);
uint64_t *ct_map_find(const struct ct_map *m, uint64_t key);
/* The value slot for key, inserted with value 0 if absent; *added says which. */
uint64_t *ct_map_put(struct ct_map *m, uint64_t key, int *added);
/* dst (initialised) gets every entry of src. */
void ct_map_copy(struct ct_map *dst, const struct ct_map *src);

static inline uint64_t ct_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

int ct_parse_size(const char *s, uint64_t *out);
/* "1,234,567": for the recorder's summary and every reader's output */
void ct_fmt_count(char *buf, size_t len, uint64_t n);
const char *ct_basename(const char *path);

/* "SIGSEGV", "signal 42": a static buffer, use it at once */
const char *ct_signal_name(int sig);

/*
 * Fork a child that runs child(arg, report), report being the write end of a
 * close-on-exec pipe: the child writes one int there, 0 once it is under way
 * or an errno (then it exits), or execs (which closes it: under way). The
 * child's pid; else -1 with *err the errno it wrote (the child reaped), or
 * with *err -1 when there was no child (the error said).
 */
pid_t ct_fork_reporting(void (*child)(void *arg, int report), void *arg, int *err);
/* Say why prog could not run (its exec's errno); the shell's status for it (127, 126). */
int ct_exec_error(const char *prog, int err);

#endif
