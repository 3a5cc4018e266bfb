/* SPDX-License-Identifier: MIT */
/*
 * Which functions have their arguments and return values captured, and how
 * (record -a, -A, -R, --srcline). Decided once per function when its module
 * is patched, never on a call:
 *
 *   - a prototype: from -A/-R specs (CALLTRACE_ARGSPEC), else from DWARF
 *     (record -a: CALLTRACE_ARGS=1; libcalltrace-dwarf.so, loaded only
 *     then, reads it with libdw), else, for library calls, from the built-in
 *     prototypes of the C library (builtin_protos.c);
 *   - what it needs captured (struct ct_capture), interned in a table whose
 *     index (1-4095) travels with the function: in the top bits of its
 *     trampoline's head (patching, library calls) or in a hash table by
 *     address (-pg -mfentry and patchable entries, whose hook only knows
 *     the address);
 *   - the prototype's text, handed to the recorder in CT_EXT_PROTOS records
 *     for readers to show the values.
 *
 * Index 1 is "the call site only" (--srcline without a prototype).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../runtime.h"
#include "args.h"
#include "../../common/select.h"
#include "../../common/proto.h"

struct ct_capture ct_captures[CT_MAX_CAPTURES];
static uint32_t ct_ncaptures = CT_CAPTURE_CALLSITE + 1;
struct ct_args_slot *ct_args_hash;
uint32_t ct_str_max = 64;
int ct_args_mode; /* CT_ARGS_* */

static int ct_args_parsed;
static char *ct_specs; /* copy of CALLTRACE_ARGSPEC: lines "A pattern@text" */

/* DWARF prototypes of the module being patched, sorted by address */
struct ct_dwarf_proto {
	uint64_t addr;
	char *name;
	char *text;
};
static struct ct_dwarf_proto *ct_mod_protos;
static size_t ct_mod_nprotos, ct_mod_cap;

typedef int (*ct_protos_fn)(const char *path,
			    void (*cb)(void *ctx, uint64_t addr, const char *name, const char *proto),
			    void *ctx);
static ct_protos_fn ct_dwarf_protos_of;

/*
 * CT_EXT_PROTOS being filled: small enough for a record to fit the smallest
 * chunk (record --chunk-size 4K); a longer prototype is not told.
 */
static uint8_t ct_protos_buf[3584];
static size_t ct_protos_len;

static void ct_args_parse(void)
{
	const char *a = ct_getenv("CALLTRACE_ARGS"), *s = ct_getenv("CALLTRACE_ARGSPEC");
	const char *cs = ct_getenv("CALLTRACE_CALLSITES"), *n = ct_getenv("CALLTRACE_STRLEN");
	ct_args_parsed = 1;
	if (a && *a == '1')
		ct_args_mode |= CT_ARGS_DWARF;
	if (s && *s) {
		ct_args_mode |= CT_ARGS_SPECS;
		ct_specs = strdup(s);
	}
	if (cs && *cs == '1')
		ct_args_mode |= CT_ARGS_CALLSITES;
	if (n && atoi(n) > 0)
		ct_str_max = (uint32_t)atoi(n) > CT_STR_LIMIT ? CT_STR_LIMIT : (uint32_t)atoi(n);
}

int ct_args_wanted(void)
{
	if (!ct_args_parsed)
		ct_args_parse();
	return ct_args_mode;
}

/* The same capture twice gets the same index; 0 if the table is full. */
static uint16_t ct_capture_intern(const struct ct_capture *c)
{
	for (uint32_t i = CT_CAPTURE_CALLSITE + 1; i < ct_ncaptures; i++)
		if (!memcmp(&ct_captures[i], c, sizeof(*c)))
			return (uint16_t)i;
	if (ct_ncaptures == CT_MAX_CAPTURES)
		return 0;
	ct_captures[ct_ncaptures] = *c;
	return (uint16_t)ct_ncaptures++;
}

static void ct_protos_flush(void)
{
	if (ct_protos_len)
		ct_emit_ext(CT_EXT_PROTOS, ct_protos_buf, (uint32_t)ct_protos_len, 1);
	ct_protos_len = 0;
}

/* Tell readers the prototype of the function at addr. */
static void ct_protos_add(uintptr_t addr, const char *text, size_t len)
{
	size_t need = (8 + 2 + len + 7) & ~(size_t)7;
	if (need > sizeof(ct_protos_buf))
		return;
	if (ct_protos_len + need > sizeof(ct_protos_buf))
		ct_protos_flush();
	uint8_t *p = ct_protos_buf + ct_protos_len;
	uint64_t a = addr;
	uint16_t l = (uint16_t)len;
	memcpy(p, &a, 8);
	memcpy(p + 8, &l, 2);
	memcpy(p + 10, text, len);
	memset(p + 10 + len, 0, need - 10 - len);
	ct_protos_len += need;
}

/* The capture index of a prototype, and its text told; 0 if it needs nothing. */
static uint16_t ct_args_take(uintptr_t addr, const char *text)
{
	struct ct_proto p;
	struct ct_capture c;
	size_t len = strlen(text);
	if (ct_proto_parse(text, len, &p) < 0)
		return ct_args_mode & CT_ARGS_CALLSITES ? CT_CAPTURE_CALLSITE : 0;
	if (!ct_proto_capture(&p, &c))
		return ct_args_mode & CT_ARGS_CALLSITES ? CT_CAPTURE_CALLSITE : 0;
	uint16_t ci = ct_capture_intern(&c);
	if (ci)
		ct_protos_add(addr, text, len);
	return ci;
}

/* ---- DWARF, through libcalltrace-dwarf.so ---------------------------------------------- */

static void ct_dwarf_loaded(void)
{
	static int tried;
	Dl_info self;
	char path[4096];

	if (tried++ || !dladdr((void *)ct_dwarf_loaded, &self) || !self.dli_fname)
		return;
	const char *slash = strrchr(self.dli_fname, '/');
	size_t dir = slash ? (size_t)(slash - self.dli_fname) + 1 : 0;
	if (dir + sizeof("libcalltrace-dwarf.so") > sizeof(path))
		return;
	memcpy(path, self.dli_fname, dir);
	strcpy(path + dir, "libcalltrace-dwarf.so");
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ct_dwarf_protos_of = h ? (ct_protos_fn)dlsym(h, "calltrace_dwarf_protos") : NULL;
}

static void ct_collect_proto(void *ctx, uint64_t addr, const char *name, const char *proto)
{
	(void)ctx;
	if (ct_mod_nprotos == ct_mod_cap) {
		size_t cap = ct_mod_cap ? ct_mod_cap * 2 : 256;
		void *n = realloc(ct_mod_protos, cap * sizeof(*ct_mod_protos));
		if (!n)
			return;
		ct_mod_protos = n;
		ct_mod_cap = cap;
	}
	char *t = strdup(proto), *n = strdup(name ? name : "");
	if (t && n)
		ct_mod_protos[ct_mod_nprotos++] = (struct ct_dwarf_proto){ addr, n, t };
	else
		free(t), free(n);
}

static int ct_proto_cmp(const void *a, const void *b)
{
	const struct ct_dwarf_proto *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void ct_args_prepare(void)
{
	if (ct_args_wanted() & CT_ARGS_DWARF)
		ct_dwarf_loaded();
}

void ct_args_module_begin(const char *path)
{
	if (!(ct_args_wanted() & CT_ARGS_DWARF))
		return;
	if (ct_dwarf_protos_of && ct_dwarf_protos_of(path, ct_collect_proto, NULL) > 0)
		qsort(ct_mod_protos, ct_mod_nprotos, sizeof(*ct_mod_protos), ct_proto_cmp);
}

static const char *ct_dwarf_proto_at(uint64_t elf_addr)
{
	size_t lo = 0, hi = ct_mod_nprotos;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ct_mod_protos[mid].addr < elf_addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ct_mod_nprotos && ct_mod_protos[lo].addr == elf_addr ? ct_mod_protos[lo].text
									     : NULL;
}

void ct_args_module_end(void)
{
	for (size_t i = 0; i < ct_mod_nprotos; i++)
		free(ct_mod_protos[i].text), free(ct_mod_protos[i].name);
	free(ct_mod_protos);
	ct_mod_protos = NULL;
	ct_mod_nprotos = ct_mod_cap = 0;
	ct_protos_flush();
}

/* ---- -A / -R specs ------------------------------------------------------------------------ */

/*
 * The spec's prototype text for raw from the lines "K<TAB>glob<TAB>text" of
 * kind K ('A' or 'R'), or NULL; the last matching line wins.
 */
static const char *ct_spec_for(char kind, const char *raw, char *buf, size_t len)
{
	const char *found = NULL;
	for (const char *line = ct_specs; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		const char *pat = line + 2;
		const char *tab = n > 2 ? memchr(pat, '\t', n - 2) : NULL;
		char glob[512];
		size_t plen = tab ? (size_t)(tab - pat) : 0, tlen = tab ? n - 2 - plen - 1 : 0;
		if (line[0] == kind && line[1] == '\t' && tab && plen < sizeof(glob) && tlen < len) {
			memcpy(glob, pat, plen);
			glob[plen] = 0;
			if (ct_select_name(glob, raw)) {
				memcpy(buf, tab + 1, tlen);
				buf[tlen] = 0;
				found = buf;
			}
		}
		line = end ? end + 1 : NULL;
	}
	return found;
}

/* "params|ret" with -A replacing the parameters and -R the return value of base. */
static const char *ct_apply_specs(const char *raw, const char *base, char *out, size_t len)
{
	char a[CT_PROTO_MAX_TEXT], r[256];
	const char *params = ct_specs ? ct_spec_for('A', raw, a, sizeof(a)) : NULL;
	const char *ret = ct_specs ? ct_spec_for('R', raw, r, sizeof(r)) : NULL;
	if (!params && !ret)
		return base;
	const char *bar = base ? strrchr(base, '|') : NULL;
	size_t blen = bar ? (size_t)(bar - base) : 0;
	int n = snprintf(out, len, "%.*s|%s", params ? (int)strlen(params) : (int)blen,
			 params ? params : base ? base : "", ret ? ret : bar ? bar + 1 : "");
	return n > 0 && (size_t)n < len ? out : base;
}

/* ---- functions ---------------------------------------------------------------------------- */

/* The capture of a function: by the DWARF prototype at elf_addr, with the specs applied. */
static uint16_t ct_args_of(uintptr_t addr, const char *text, const char *raw)
{
	char buf[CT_PROTO_MAX_TEXT + 256];
	if (ct_specs && raw)
		text = ct_apply_specs(raw, text, buf, sizeof(buf));
	if (!text)
		return ct_args_mode & CT_ARGS_CALLSITES ? CT_CAPTURE_CALLSITE : 0;
	return ct_args_take(addr, text);
}

uint16_t ct_args_function(uintptr_t addr, uint64_t elf_addr, const char *raw)
{
	if (!ct_args_wanted())
		return 0;
	return ct_args_of(addr, ct_dwarf_proto_at(elf_addr), raw);
}

uint16_t ct_args_libcall(uintptr_t id, const char *raw)
{
	char buf[CT_PROTO_MAX_TEXT + 256];
	if (!ct_args_wanted())
		return 0;
	const char *text = ct_args_mode & CT_ARGS_DWARF ? ct_builtin_proto(raw) : NULL;
	if (ct_specs)
		text = ct_apply_specs(raw, text, buf, sizeof(buf));
	if (!text)
		return ct_args_mode & CT_ARGS_CALLSITES ? CT_CAPTURE_CALLSITE : 0;
	return ct_args_take(id, text);
}

/* ---- by address: hooks that know only the function ---------------------------------------- */

void ct_args_hash_add(uintptr_t addr, uint16_t ci)
{
	if (!ci)
		return;
	if (!ct_args_hash) {
		void *m = mmap(NULL, sizeof(struct ct_args_slot) << CT_ARGS_HASH_BITS,
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);
		if (m == MAP_FAILED)
			return;
		__atomic_store_n(&ct_args_hash, (struct ct_args_slot *)m, __ATOMIC_RELEASE);
	}
	uint32_t mask = (1u << CT_ARGS_HASH_BITS) - 1;
	for (uint32_t i = ct_args_hash_start(addr), n = 0; n <= mask; i = (i + 1) & mask, n++) {
		struct ct_args_slot *s = &ct_args_hash[i];
		if (s->addr == addr)
			return;
		if (!s->addr) {
			s->ci = ci; /* the value first: a reader that sees the key sees it */
			__atomic_store_n(&s->addr, addr, __ATOMIC_RELEASE);
			return;
		}
	}
}

/* Every function the module's DWARF describes, for the fentry and patchable hooks. */
void ct_args_module_by_address(uintptr_t bias)
{
	for (size_t i = 0; i < ct_mod_nprotos; i++) {
		uintptr_t addr = bias + ct_mod_protos[i].addr;
#if defined(__aarch64__)
		/* gcc's DWARF starts the function after its patchable entry's two nops, the
		 * hooks and the symbol before them */
		uint32_t w[2];
		memcpy(w, (const void *)(addr - 8), 8);
		if (w[0] == 0xd503201fu && w[1] == 0xd503201fu)
			addr -= 8;
#endif
		ct_args_hash_add(addr, ct_args_of(addr, ct_mod_protos[i].text, ct_mod_protos[i].name));
	}
}
