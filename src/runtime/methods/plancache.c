/* SPDX-License-Identifier: MIT */
/*
 * The patch plan cache. Decoding every function of a module is most of
 * dynamic patching's start-up (18 of 20 ms for sqlite3's shell); what it
 * finds depends only on the module's code, the runtime and the selection
 * (method, -P patterns, --libcalls). So the plan is kept in
 * $XDG_CACHE_HOME/calltrace (else ~/.cache/calltrace), one file per module
 * build-id and key:
 *
 *	struct ct_plan_head
 *	key		the text the plan depends on, padded to 8 bytes
 *	records		struct ct_plan_rec, count of them
 *	checksum	FNV-1a 64 of all that comes before
 *
 * The file is untrusted input: it is read only from a directory and a file
 * the user owns that nobody else may write, every length is checked, and
 * a file that is not exactly what this key would write is ignored. What
 * it can still say wrongly is which functions are safe to patch; the
 * caller therefore checks each one's bytes against the code in memory and
 * plans its entry again (a few instructions) before anything is written.
 * Whatever else comes to decide which functions are selected must go into
 * the key (ct_plancache_open), or a plan made under other settings is used.
 * No cache in a secure (AT_SECURE) process, without HOME, or with
 * CALLTRACE_NO_CACHE=1 (record --no-cache). CALLTRACE_CACHE_DEBUG=1 says
 * on stderr what was done with each file (for the tests).
 *
 * The cache stays small: a run that uses a plan sets its file's time, and
 * a run that writes one prunes the directory, least recently used first:
 * plans unused for CT_PLAN_KEEP_DAYS days go, then the oldest until at most
 * CT_PLAN_KEEP_FILES files and CT_PLAN_KEEP_BYTES bytes are left (the plan
 * just written always stays), and temporary files a crashed writer left.
 * What each module's plan came from is counted in the pool, for info.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../runtime.h"
#include "../process/process.h"
#include "elfmap.h"
#include "plancache.h"

#define CT_PLAN_MAGIC	 "CTPLAN\0\1"
#define CT_PLAN_MAX_FILE (64u << 20)

/* What the cache keeps (see the top). */
#define CT_PLAN_KEEP_DAYS  30
#define CT_PLAN_KEEP_FILES 256
#define CT_PLAN_KEEP_BYTES (64ull << 20)
#define CT_PLAN_SCAN_MAX   4096 /* files looked at in one pruning */
#define CT_PLAN_TMP_SECS   3600 /* a temporary file older than this was left by a crash */

struct ct_plan_head {
	char magic[8];
	uint32_t key_len;
	uint32_t count;
	uint32_t rec_size;
	uint32_t pad;
	uint64_t text_off, text_len;
};

static uint64_t ct_fnv1a(const void *p, size_t n, uint64_t h)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

#define CT_FNV_START 0xcbf29ce484222325ull

static size_t ct_pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static void ct_plan_debug(const struct ct_plancache *pc, const char *what)
{
	const char *d = ct_getenv("CALLTRACE_CACHE_DEBUG");
	if (d && *d == '1')
		fprintf(stderr, "calltrace: plan cache %s: %s\n", pc->name, what);
}

/* The module's GNU build-id in hex, from its notes in memory; 0 if it has none. */
static int ct_build_id_hex(const struct dl_phdr_info *info, char *out, size_t room)
{
	uint32_t len;
	const uint8_t *id = ct_module_build_id_note(info, &len);
	if (!id || len < 8 || (size_t)len * 2 >= room)
		return 0;
	for (uint32_t k = 0; k < len; k++)
		sprintf(out + 2 * k, "%02x", id[k]);
	return 1;
}

struct ct_self_id {
	char hex[80];
	int found;
};

/* Our own build-id: a rebuilt runtime may plan differently under the same version. */
static int ct_find_self(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct ct_self_id *self = data;
	uintptr_t me = (uintptr_t)ct_find_self;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && me >= start && me < start + ph->p_memsz) {
			self->found = ct_build_id_hex(info, self->hex, sizeof(self->hex));
			return 1;
		}
	}
	return 0;
}

/* $XDG_CACHE_HOME/calltrace or $HOME/.cache/calltrace, made 0700 if missing; -1 if none. */
static int ct_cache_dir(void)
{
	char base[4096];
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;
	if (xdg && *xdg == '/')
		n = snprintf(base, sizeof(base), "%s", xdg);
	else if (home && *home == '/')
		n = snprintf(base, sizeof(base), "%s/.cache", home);
	else
		return -1;
	if (n < 0 || (size_t)n + sizeof("/calltrace") > sizeof(base))
		return -1;
	mkdir(base, 0700);
	strcat(base, "/calltrace");
	mkdir(base, 0700);
	int fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return -1;
	/* ours and nobody else's to write in: else its files could be anyone's */
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int ct_plan_disabled(void)
{
	const char *off = ct_getenv("CALLTRACE_NO_CACHE");
	return (off && *off && strcmp(off, "0")) || ct_secure_exec() || !getenv("HOME");
}

static void ct_key_add(struct ct_plancache *pc, const char *what, const char *value)
{
	size_t room = sizeof(pc->key) - pc->key_len;
	int n = snprintf(pc->key + pc->key_len, room, "%s=%s\n", what, value ? value : "");
	pc->key_len = n < 0 || (size_t)n >= room ? sizeof(pc->key) : pc->key_len + (size_t)n;
}

void ct_plancache_open(struct ct_plancache *pc, const struct dl_phdr_info *info, const char *path,
		       int program, uint64_t text_lo, uint64_t text_hi)
{
	char id[80];
	struct ct_self_id self = { { 0 }, 0 };

	memset(pc, 0, offsetof(struct ct_plancache, key));
	pc->dir = -1;
	pc->key_len = 0;
	pc->data = NULL;
	pc->offered = pc->save_tried = pc->saved = 0;
	if (ct_plan_disabled() || !ct_build_id_hex(info, id, sizeof(id)))
		return;
	dl_iterate_phdr(ct_find_self, &self);
	ct_key_add(pc, "calltrace-plan", CT_VERSION);
	ct_key_add(pc, "runtime", self.found ? self.hex : "?");
	ct_key_add(pc, "build-id", id);
	ct_key_add(pc, "module", path);
	ct_key_add(pc, "program", program ? "1" : "0");
	ct_key_add(pc, "method", ct_getenv("CALLTRACE_METHOD"));
	ct_key_add(pc, "patterns", ct_getenv("CALLTRACE_PATTERNS"));
	ct_key_add(pc, "libcalls", ct_getenv("CALLTRACE_LIBCALLS"));
	/* the demangler is loaded for -A specs too, and patterns may match what it gives */
	ct_key_add(pc, "argspec", ct_getenv("CALLTRACE_ARGSPEC"));
	if (pc->key_len >= sizeof(pc->key))
		return; /* patterns too long to keep: no cache */
	pc->text_off = text_lo - info->dlpi_addr;
	pc->text_len = text_hi - text_lo;
	snprintf(pc->name, sizeof(pc->name), "%.64s-%016llx.plan", id,
		 (unsigned long long)ct_fnv1a(pc->key, pc->key_len, CT_FNV_START));
	pc->dir = ct_cache_dir();
	pc->usable = pc->dir >= 0;
}

/* The whole file, if it is a regular file of ours nobody else may write, of a sane size. */
static int ct_plan_read(struct ct_plancache *pc)
{
	struct stat st;
	int fd = openat(pc->dir, pc->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || st.st_size < (off_t)sizeof(struct ct_plan_head) ||
	    st.st_size > (off_t)CT_PLAN_MAX_FILE) {
		close(fd);
		ct_plan_debug(pc, "ignored (not a file of the user's own, or its size)");
		return -1;
	}
	pc->len = (size_t)st.st_size;
	pc->data = malloc(pc->len);
	size_t got = 0;
	while (pc->data && got < pc->len) {
		ssize_t r = read(fd, (char *)pc->data + got, pc->len - got);
		if (r <= 0 && !(r < 0 && errno == EINTR))
			break;
		if (r > 0)
			got += (size_t)r;
	}
	close(fd);
	if (got != pc->len) {
		free(pc->data);
		pc->data = NULL;
		return -1;
	}
	return 0;
}

/* The header, key, size and checksum are exactly what this module and key would write. */
static int ct_plan_well_formed(const struct ct_plancache *pc, size_t *count)
{
	struct ct_plan_head h;
	uint64_t sum;
	if (pc->len < sizeof(h) + sizeof(sum))
		return 0;
	memcpy(&h, pc->data, sizeof(h));
	if (memcmp(h.magic, CT_PLAN_MAGIC, 8) || h.rec_size != sizeof(struct ct_plan_rec) ||
	    h.key_len != pc->key_len || h.text_off != pc->text_off || h.text_len != pc->text_len)
		return 0;
	size_t body = sizeof(h) + ct_pad8(h.key_len);
	if (h.count > (pc->len - sizeof(h)) / sizeof(struct ct_plan_rec) ||
	    pc->len != body + (size_t)h.count * sizeof(struct ct_plan_rec) + sizeof(sum))
		return 0;
	if (memcmp((const char *)pc->data + sizeof(h), pc->key, pc->key_len))
		return 0;
	memcpy(&sum, (const char *)pc->data + pc->len - sizeof(sum), sizeof(sum));
	if (sum != ct_fnv1a(pc->data, pc->len - sizeof(sum), CT_FNV_START))
		return 0;
	*count = h.count;
	return 1;
}

/* Each record on its own: a known reason, moved bytes that fit, in ascending order. */
static int ct_plan_records_sane(const struct ct_plan_rec *r, size_t n, uint64_t text_off,
				uint64_t text_len)
{
	uint64_t next_free = 0;
	for (size_t i = 0; i < n; i++) {
		const struct ct_plan_rec *c = &r[i];
		if (c->reason >= CT_SKIP_N || c->off < text_off || c->off > text_off + text_len ||
		    c->size > text_off + text_len - c->off || c->off < next_free)
			return 0;
		if (!c->reason &&
		    ((c->patch_off != 0 && c->patch_off != 4) || c->moved < 5 ||
		     c->patch_off + c->moved > CT_PLAN_BYTES || c->patch_off + c->moved > c->size))
			return 0;
		next_free = (uint64_t)c->off + (c->reason ? 1 : c->patch_off + c->moved);
	}
	return 1;
}

const struct ct_plan_rec *ct_plancache_records(struct ct_plancache *pc, size_t *n)
{
	size_t count;
	if (!pc->usable || ct_plan_read(pc) < 0)
		return NULL;
	if (!ct_plan_well_formed(pc, &count)) {
		ct_plan_debug(pc, "ignored (not well-formed)");
		return NULL;
	}
	const struct ct_plan_rec *r =
		(const void *)((const char *)pc->data + sizeof(struct ct_plan_head) +
			       ct_pad8(pc->key_len));
	if (!ct_plan_records_sane(r, count, pc->text_off, pc->text_len)) {
		ct_plan_debug(pc, "ignored (a record out of bounds)");
		return NULL;
	}
	*n = count;
	pc->offered = 1;
	return r;
}

void ct_plancache_say(struct ct_plancache *pc, const char *what)
{
	ct_plan_debug(pc, what);
}

const char *ct_plancache_name(const struct ct_elf_map *m, uint32_t sym, uint32_t off, uint32_t size)
{
	const ElfW(Shdr) *symtab = ct_elf_section_type(m, SHT_SYMTAB);
	if (!symtab)
		symtab = ct_elf_section_type(m, SHT_DYNSYM);
	if (!symtab || symtab->sh_entsize != sizeof(ElfW(Sym)) ||
	    sym >= symtab->sh_size / sizeof(ElfW(Sym)))
		return NULL;
	const ElfW(Sym) *y = (const ElfW(Sym) *)ct_elf_contents(m, symtab);
	if (!y)
		return NULL;
	y += sym;
	if (ELF64_ST_TYPE(y->st_info) != STT_FUNC || y->st_shndx == SHN_UNDEF ||
	    y->st_value != off || y->st_size != size)
		return NULL;
	return ct_elf_string(m, ct_elf_section_at(m, symtab->sh_link), y->st_name);
}

static int ct_write_all(int fd, const void *p, size_t n)
{
	const char *b = p;
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

void ct_plancache_save(struct ct_plancache *pc, const struct ct_plan_rec *r, size_t n)
{
	struct ct_plan_head h = {
		CT_PLAN_MAGIC, (uint32_t)pc->key_len, (uint32_t)n, sizeof(struct ct_plan_rec), 0,
		pc->text_off,  pc->text_len
	};
	static const char zeros[8];
	char tmp[128];
	pc->save_tried = 1;
	if (!pc->usable || n > CT_PLAN_MAX_FILE / sizeof(*r))
		return;
	snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", pc->name, (long)getpid());
	int fd = openat(pc->dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	uint64_t sum = ct_fnv1a(&h, sizeof(h), CT_FNV_START);
	size_t pad = ct_pad8(pc->key_len) - pc->key_len;
	sum = ct_fnv1a(pc->key, pc->key_len, sum);
	sum = ct_fnv1a(zeros, pad, sum);
	sum = ct_fnv1a(r, n * sizeof(*r), sum);
	int bad = fchmod(fd, 0600) < 0 || ct_write_all(fd, &h, sizeof(h)) < 0 ||
		  ct_write_all(fd, pc->key, pc->key_len) < 0 || ct_write_all(fd, zeros, pad) < 0 ||
		  ct_write_all(fd, r, n * sizeof(*r)) < 0 ||
		  ct_write_all(fd, &sum, sizeof(sum)) < 0;
	bad |= close(fd) < 0;
	if (bad || renameat(pc->dir, tmp, pc->dir, pc->name) < 0) {
		unlinkat(pc->dir, tmp, 0);
		return;
	}
	pc->saved = 1;
	ct_plan_debug(pc, "written");
}

/* ---- keeping the cache small ---------------------------------------------- */

struct ct_plan_file {
	time_t used; /* its mtime: set when written or used */
	off_t size;
	char name[96];
};

/*
 * A name plancache.c gives (hex digits and '-', then ".plan"), or the
 * recorder's lists of functions from system headers (".syshdr",
 * src/record/syshdr.c), pruned alike; else a temporary file of ours.
 */
static int ct_plan_file_kind(const char *name)
{
	size_t len = strlen(name), hex = strspn(name, "0123456789abcdef-");
	if (len > 5 && len < sizeof(((struct ct_plan_file *)0)->name) &&
	    (!strcmp(name + hex, ".plan") || !strcmp(name + hex, ".syshdr")))
		return 'p';
	if (len > 5 && !strcmp(name + len - 4, ".tmp") &&
	    ((name[0] == '.' && strstr(name, ".plan.")) || strstr(name, ".syshdr.")))
		return 't';
	return 0;
}

static int ct_plan_newer_first(const void *a, const void *b)
{
	const struct ct_plan_file *x = a, *y = b;
	return (x->used < y->used) - (x->used > y->used);
}

/*
 * The plans in the directory (regular files of ours, by their names), with
 * those unused for too long and stale temporary files removed on the way.
 */
static size_t ct_plan_list(int dir, struct ct_plan_file *out, size_t room)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	time_t now = time(NULL);
	size_t n = 0;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (n < room && (e = readdir(d))) {
		struct stat st;
		int kind = ct_plan_file_kind(e->d_name);
		if (!kind || fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (kind == 't') {
			if (now - st.st_mtime > CT_PLAN_TMP_SECS)
				unlinkat(dir, e->d_name, 0);
		} else if (now - st.st_mtime > (time_t)CT_PLAN_KEEP_DAYS * 86400) {
			unlinkat(dir, e->d_name, 0);
		} else {
			out[n].used = st.st_mtime;
			out[n].size = st.st_size;
			snprintf(out[n].name, sizeof(out[n].name), "%s", e->d_name);
			n++;
		}
	}
	closedir(d);
	return n;
}

/*
 * The most recently used plans are kept while they fit the bounds; from the
 * first that does not, every older one goes. keep (just written) stays.
 */
static void ct_plan_prune(int dir, const char *keep)
{
	struct ct_plan_file *f = malloc(CT_PLAN_SCAN_MAX * sizeof(*f));
	unsigned long long bytes = 0;
	size_t kept = 0;
	int full = 0;

	if (!f)
		return;
	size_t n = ct_plan_list(dir, f, CT_PLAN_SCAN_MAX);
	qsort(f, n, sizeof(*f), ct_plan_newer_first);
	for (size_t i = 0; i < n; i++) {
		bytes += (unsigned long long)f[i].size;
		full |= ++kept > CT_PLAN_KEEP_FILES || bytes > CT_PLAN_KEEP_BYTES;
		if (full && strcmp(f[i].name, keep))
			unlinkat(dir, f[i].name, 0);
	}
	free(f);
}

/* What this module's plan came from, for info's "patch plans:" line. */
static void ct_plan_count(const struct ct_plancache *pc)
{
	if (!ct_ctl)
		return;
	if (pc->offered && !pc->save_tried) {
		atomic_fetch_add(&ct_ctl->plans_cached, 1);
	} else if (pc->save_tried) {
		atomic_fetch_add(&ct_ctl->plans_made, 1);
		if (pc->saved)
			atomic_fetch_add(&ct_ctl->plans_saved, 1);
	}
}

void ct_plancache_close(struct ct_plancache *pc)
{
	ct_plan_count(pc);
	if (pc->dir >= 0 && pc->offered && !pc->save_tried)
		utimensat(pc->dir, pc->name, NULL, AT_SYMLINK_NOFOLLOW);
	if (pc->dir >= 0 && pc->saved)
		ct_plan_prune(pc->dir, pc->name);
	if (pc->dir >= 0)
		close(pc->dir);
	free(pc->data);
	pc->data = NULL;
	pc->dir = -1;
}
