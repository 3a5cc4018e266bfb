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
 * a run that writes one prunes the directory, least recently used first
 * (ct_cache_prune, src/common/cachedir.c: 30 days, 256 files, 64 MiB; the
 * plan just written always stays), and temporary files a crashed writer left.
 * What each module's plan came from is counted in the pool, for info.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runtime.h"
#include "../../common/cachedir.h"
#include "../process/process.h"
#include "elfmap.h"
#include "plancache.h"

#define CT_PLAN_MAGIC	 "CTPLAN\0\1"
#define CT_PLAN_MAX_FILE (64u << 20)

struct ct_plan_head {
	char magic[8];
	uint32_t key_len;
	uint32_t count;
	uint32_t rec_size;
	uint32_t pad;
	uint64_t text_off, text_len;
};

static void ct_plan_debug(const struct ct_plancache *pc, const char *what)
{
	const char *d = ct_getenv("CALLTRACE_CACHE_DEBUG");
	if (d && *d == '1')
		fprintf(stderr, "calltrace: plan cache %s: %s\n", pc->name, what);
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
			self->found = ct_module_build_id_hex(info, self->hex, sizeof(self->hex));
			return 1;
		}
	}
	return 0;
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
	if (ct_plan_disabled() || !ct_module_build_id_hex(info, id, sizeof(id)))
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
	pc->dir = ct_cache_dir_open(NULL, NULL, 0);
	pc->usable = pc->dir >= 0;
}

/* The whole file, if it is a regular file of ours nobody else may write, of a sane size. */
static int ct_plan_read(struct ct_plancache *pc)
{
	int r = ct_cache_read(pc->dir, pc->name, sizeof(struct ct_plan_head), CT_PLAN_MAX_FILE,
			      &pc->data, &pc->len);
	if (r == -2)
		ct_plan_debug(pc, "ignored (not a file of the user's own, or its size)");
	return r < 0 ? -1 : 0;
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
	size_t body = sizeof(h) + ct_cache_pad8(h.key_len);
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
			       ct_cache_pad8(pc->key_len));
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

void ct_plancache_save(struct ct_plancache *pc, const struct ct_plan_rec *r, size_t n)
{
	struct ct_plan_head h = {
		CT_PLAN_MAGIC, (uint32_t)pc->key_len, (uint32_t)n, sizeof(struct ct_plan_rec), 0,
		pc->text_off,  pc->text_len
	};
	static const char zeros[8];
	pc->save_tried = 1;
	if (!pc->usable || n > CT_PLAN_MAX_FILE / sizeof(*r))
		return;
	size_t pad = ct_cache_pad8(pc->key_len) - pc->key_len;
	uint64_t sum = ct_fnv1a(&h, sizeof(h), CT_FNV_START);
	sum = ct_fnv1a(pc->key, pc->key_len, sum);
	sum = ct_fnv1a(zeros, pad, sum);
	sum = ct_fnv1a(r, n * sizeof(*r), sum);
	struct iovec parts[] = { { &h, sizeof(h) },
				 { pc->key, pc->key_len },
				 { (void *)zeros, pad },
				 { (void *)r, n * sizeof(*r) },
				 { &sum, sizeof(sum) } };
	if (ct_cache_write(pc->dir, pc->name, parts, 5) < 0)
		return;
	pc->saved = 1;
	ct_plan_debug(pc, "written");
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
		ct_cache_prune(pc->dir, pc->name);
	if (pc->dir >= 0)
		close(pc->dir);
	free(pc->data);
	pc->data = NULL;
	pc->dir = -1;
}
