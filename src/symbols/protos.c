/* SPDX-License-Identifier: MIT */
/*
 * Prototypes from DWARF (protos.h): every subprogram with code, its
 * parameters placed in registers and stack words as the file's calling
 * convention places them (SysV x86-64: protos_abi.c classifies the types,
 * protos_text.c writes them; AAPCS64 for an aarch64 file: protos_aapcs64.c),
 * in the text form of common/proto.h. Split DWARF is read through libdw,
 * which finds the split unit of each skeleton in a .dwo (or, from elfutils
 * 0.191 on, a .dwp; before, protos_dwp.c reads the package); the skeleton
 * only gives the addresses.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "protos.h"
#include "protos_int.h"
#include "../common/proto.h"
#include "../common/regfile.h"

/* ---- functions ------------------------------------------------------------------------- */

/*
 * The parameters come from the abstract origin of a concrete instance
 * (clang may leave out of it the parameters it does not use). But gcc's
 * constructors and destructors are instances of an abstract one that also
 * has the artificial __in_chrg and __vtt_parm, which most instances do not
 * take: an artificial parameter (but `this`) counts only if the instance
 * has it too.
 */
#define CT_MAX_REFS 64

/* The state of one prototype being written. */
struct ct_proto_w {
	const struct ct_cc *cc; /* the file's calling convention */
	struct ct_sb *b;
	struct ct_regs r;
	size_t room; /* bytes the params may take (the return value's are kept) */
	int n, cut;  /* parameters written; cut short */
	int seen;    /* formal parameters met, written or not */
	int named;   /* parameters that are not artificial */
	int kr;	     /* an unprototyped C function: float arguments are doubles */
	int nrefs;   /* -1: no abstract origin, every parameter counts */
	struct {
		Dwarf_Off origin; /* a parameter of the origin */
		Dwarf_Die die;	  /* the instance's */
	} refs[CT_MAX_REFS];
	Dwarf_Addr entry; /* where the function starts */
	int exact;	  /* its unit is clang's: a single location holds from the entry */
	int moved;	  /* the compiler changed its signature */
	const char *pack; /* the template parameter pack being expanded (gcc) */
	const char *names[CT_PROTO_MAX_PARAMS]; /* of the parameters written */
};

/* The DIE whose children are the parameters: the abstract origin's, for a concrete instance. */
static void ct_params_die(struct ct_proto_w *w, Dwarf_Die *fn, Dwarf_Die *out)
{
	Dwarf_Attribute at;
	Dwarf_Die c, o;
	*out = *fn;
	for (int i = 0; i < CT_TYPE_DEPTH; i++) {
		if (!dwarf_attr(out, DW_AT_abstract_origin, &at) || !dwarf_formref_die(&at, &o))
			break;
		*out = o;
	}
	w->nrefs = -1;
	if (dwarf_dieoffset(out) == dwarf_dieoffset(fn) || dwarf_child(fn, &c) != 0)
		return;
	w->nrefs = 0;
	do {
		if (dwarf_tag(&c) == DW_TAG_formal_parameter && w->nrefs < CT_MAX_REFS &&
		    dwarf_attr(&c, DW_AT_abstract_origin, &at) && dwarf_formref_die(&at, &o)) {
			w->refs[w->nrefs].origin = dwarf_dieoffset(&o);
			w->refs[w->nrefs++].die = c;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* The instance's own DIE of parameter p (of the origin); NULL if it has none. */
static Dwarf_Die *ct_concrete(struct ct_proto_w *w, Dwarf_Die *p)
{
	if (w->nrefs < 0)
		return p;
	for (int i = 0; i < w->nrefs; i++)
		if (w->refs[i].origin == dwarf_dieoffset(p))
			return &w->refs[i].die;
	return NULL;
}

static int ct_counts(struct ct_proto_w *w, Dwarf_Die *p)
{
	return w->nrefs < 0 || w->seen == 1 || !dwarf_hasattr(p, DW_AT_artificial) ||
	       ct_concrete(w, p);
}

/*
 * Did the compiler change the signature? clang drops unused and constant
 * parameters of static functions and keeps their DWARF; gcc's clones
 * (foo.isra.0, foo.constprop.0) have the DWARF of the function they were
 * made from. A parameter that is a constant, or that DWARF puts in another
 * register at entry than the ABI would (l, NULL if not in one), tells. A
 * location for the whole function holds from its entry only from clang
 * (exact).
 */
static int ct_moved(const struct ct_cc *cc, Dwarf_Die *param, const struct ct_ploc *l,
		    Dwarf_Addr entry, int exact)
{
	Dwarf_Attribute at;
	Dwarf_Op *expr;
	size_t len;
	unsigned reg;
	if (dwarf_hasattr(param, DW_AT_const_value))
		return 1;
	if (!l || !strchr("rxwq", l->kind) || !dwarf_attr(param, DW_AT_location, &at))
		return 0;
	/* one expression for the whole function: gcc's may not hold at entry (before the moves) */
	int form = dwarf_whatform(&at);
	if (!exact && (form == DW_FORM_exprloc || form == DW_FORM_block1 || form == DW_FORM_block))
		return 0;
	if (dwarf_getlocation_addr(&at, entry, &expr, &len, 1) != 1 || len != 1)
		return 0;
	if (expr[0].atom >= DW_OP_reg0 && expr[0].atom <= DW_OP_reg31)
		reg = expr[0].atom - DW_OP_reg0;
	else if (expr[0].atom == DW_OP_regx)
		reg = (unsigned)expr[0].number;
	else
		return 0; /* on the stack, or an expression */
	return reg != (l->kind == 'r' ? cc->gpr[l->n % cc->ngpr] : cc->dwarf_vec0 + l->n);
}

/*
 * "name:" of a parameter: its own, else the pack's it comes from (gcc leaves
 * them unnamed), else argN; numbered when an earlier one has it already
 * (clang names each parameter of a pack "args").
 */
static const char *ct_param_name(struct ct_proto_w *w, struct ct_sb *pb, const char *name)
{
	if (!ct_is_ident(name))
		name = w->pack;
	if (!ct_is_ident(name)) {
		ct_sb_putf(pb, "arg%d:", w->n + 1);
		return NULL;
	}
	for (int i = 0; i < w->n; i++) {
		if (w->names[i] && !strcmp(w->names[i], name)) {
			ct_sb_putf(pb, "%s%d:", name, w->n + 1);
			return name;
		}
	}
	ct_sb_putf(pb, "%s:", name);
	return name;
}

/* "name:TYPE@LOC" of one formal parameter; 0 if the prototype is cut before it. */
static int ct_param(struct ct_proto_w *w, Dwarf_Die *p)
{
	char text[CT_PROTO_MAX_TEXT + 1];
	struct ct_sb pb = { text, CT_PROTO_MAX_TEXT, 0, 0 };
	Dwarf_Attribute at;
	Dwarf_Die type;
	struct ct_abi a;
	struct ct_ploc l[CT_MAX_LOCS];
	const char *name = dwarf_formstring(dwarf_attr_integrate(p, DW_AT_name, &at));
	int has = ct_die_type(p, &type), artificial = dwarf_hasattr_integrate(p, DW_AT_artificial);
	w->seen++;
	if (!ct_counts(w, p))
		return 1;
	w->named += !artificial;
	if (w->n == CT_PROTO_MAX_PARAMS)
		return 0;
	w->cc->type_abi(has ? &type : NULL, &a);
	if (a.is_void) /* no type: a pointer-sized word is the best guess */
		a = (struct ct_abi){ .size = 8, .align = 8, .cls = { CT_INTEGER } };
	if (w->n == 0 && artificial && a.cls[0] == CT_INTEGER)
		name = "this";
	int n = w->cc->place(&w->r, &a, l);
	if (n < 0)
		return 0;
	Dwarf_Die *own = ct_concrete(w, p);
	w->moved |= own && ct_moved(w->cc, own, n == 1 ? &l[0] : NULL, w->entry, w->exact);
	name = ct_param_name(w, &pb, name);
	if (!has)
		ct_sb_put(&pb, "p");
	else if (w->kr && a.size == 4 && a.cls[0] == CT_SSE && dwarf_tag(&type) == DW_TAG_base_type)
		ct_sb_put(&pb, "f8"); /* an unprototyped float parameter is passed as a double */
	else
		ct_value_type(&pb, &type, &a);
	ct_locs_text(&pb, l, n);
	if (pb.over || w->b->len + (w->n ? 1 : 0) + pb.len > w->room)
		return 0;
	ct_sb_put(w->b, w->n ? "," : "");
	ct_sb_put(w->b, text);
	w->names[w->n++] = name;
	return 1;
}

/* The parameters, from the children of pd; 1 if the function is variadic. */
static int ct_params(struct ct_proto_w *w, Dwarf_Die *pd, int depth)
{
	Dwarf_Die c;
	int variadic = 0;
	if (dwarf_child(pd, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		if (w->cut)
			break;
		if (tag == DW_TAG_formal_parameter)
			w->cut = !ct_param(w, &c);
		else if (tag == DW_TAG_unspecified_parameters)
			variadic = 1;
		else if (tag == DW_TAG_GNU_formal_parameter_pack && depth == 0) {
			w->pack = dwarf_diename(&c); /* a template's parameter pack, expanded */
			variadic |= ct_params(w, &c, 1);
			w->pack = NULL;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return variadic;
}

/*
 * gcc writes no DW_TAG_unspecified_parameters for a C++ function whose only
 * parameter is "...": its mangled name then ends with the 'z' of "...", where
 * one without any parameter has 'v'.
 */
static int ct_only_ellipsis(Dwarf_Die *fn, const struct ct_proto_w *w)
{
	Dwarf_Attribute at;
	const char *name = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_linkage_name, &at));
	size_t len = name ? strlen(name) : 0;
	return !w->named && len > 2 && !strncmp(name, "_Z", 2) && name[len - 1] == 'z';
}

static int ct_is_clang(Dwarf_Die *cu)
{
	Dwarf_Attribute at;
	const char *producer = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &at));
	return producer && strstr(producer, "clang");
}

static int ct_is_c(Dwarf_Die *cu)
{
	int lang = dwarf_srclang(cu);
	return lang == DW_LANG_C89 || lang == DW_LANG_C || lang == DW_LANG_C99 ||
	       lang == DW_LANG_C11 || lang == 0x2c /* DW_LANG_C17 */;
}

/*
 * The prototype text of fn, which starts at entry, into out
 * (CT_PROTO_MAX_TEXT + 1 bytes). "|" when the compiler changed the
 * signature: the parameters, and the return value, are not what DWARF says.
 */
static void ct_proto_text(const struct ct_cc *cc, Dwarf_Die *fn, Dwarf_Die *cu, Dwarf_Addr entry,
			  char *out)
{
	char ret[CT_PROTO_MAX_TEXT + 1] = "";
	struct ct_sb rb = { ret, CT_PROTO_MAX_TEXT / 2, 0, 0 };
	struct ct_sb b = { out, CT_PROTO_MAX_TEXT, 0, 0 };
	struct ct_proto_w w;
	Dwarf_Die pd;
	int hidden, variadic;
	memset(&w, 0, sizeof(w));
	out[0] = 0;
	w.cc = cc;
	cc->ret_text(&rb, fn, &hidden);
	if (rb.over)
		ret[0] = rb.len = 0;
	w.b = &b;
	w.r.gpr = hidden ? 1 : 0; /* the hidden pointer to the return value takes rdi (SysV) */
	w.room = CT_PROTO_MAX_TEXT - 1 - rb.len;
	w.kr = ct_is_c(cu) && !dwarf_hasattr_integrate(fn, DW_AT_prototyped);
	w.entry = entry;
	w.exact = ct_is_clang(cu);
	ct_params_die(&w, fn, &pd);
	variadic = ct_params(&w, &pd, 0) || ct_only_ellipsis(fn, &w);
	if (w.moved) {
		strcpy(out, "|");
		return;
	}
	if (variadic && !w.cut && b.len + 4 <= w.room)
		ct_sb_put(&b, w.n ? ",..." : "...");
	ct_sb_put(&b, "|");
	ct_sb_put(&b, ret);
}

/* ---- the walk -------------------------------------------------------------------------- */

struct ct_walk {
	const struct ct_cc *cc;
	ct_dwarf_proto_fn cb;
	void *ctx;
	Dwarf_Die cu;
	int count, linked; /* linked: an executable or library (address 0 is no function) */
	struct ct_clones clones;
	/* a unit from a package libdw does not read: its addresses, from the skeleton */
	const Elf_Data *debug_addr;
	uint64_t addr_base;
	int from_dwp;
};

/* Where the function's code starts: low_pc, else its first range (gcc's hot/cold split). */
static int ct_entry(struct ct_walk *w, Dwarf_Die *fn, Dwarf_Addr *addr)
{
	Dwarf_Addr base, start, end;
	if (dwarf_hasattr(fn, DW_AT_declaration))
		return -1;
	if (w->from_dwp) /* ranges (rnglistx) are not read there */
		return ct_dwp_lowpc(fn, w->debug_addr, w->addr_base, addr);
	if (dwarf_hasattr(fn, DW_AT_low_pc))
		return dwarf_lowpc(fn, addr);
	if (dwarf_hasattr(fn, DW_AT_ranges) && dwarf_ranges(fn, 0, &base, &start, &end) > 0) {
		*addr = start;
		return 0;
	}
	return dwarf_hasattr(fn, DW_AT_entry_pc) ? dwarf_entrypc(fn, addr) : -1;
}

static const char *ct_fn_name(Dwarf_Die *fn)
{
	Dwarf_Attribute at;
	const char *name = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_linkage_name, &at));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_MIPS_linkage_name, &at));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_name, &at));
	return name;
}

static void ct_subprogram(struct ct_walk *w, Dwarf_Die *fn)
{
	char text[CT_PROTO_MAX_TEXT + 1];
	Dwarf_Addr addr;
	const char *name;
	if (ct_entry(w, fn, &addr) != 0 || (w->linked && (addr == 0 || addr >= (Dwarf_Addr)-2)))
		return; /* no code, or code the linker dropped */
	if (!(name = ct_fn_name(fn)) || !*name)
		return;
	if (ct_is_clone(&w->clones, addr))
		strcpy(text, "|"); /* its parameters are not the ones DWARF has */
	else
		ct_proto_text(w->cc, fn, &w->cu, addr, text);
	w->cb(w->ctx, addr, name, text);
	w->count++;
}

/* Subprograms anywhere: in namespaces, classes, and in functions (nested, local classes). */
static void ct_walk_die(struct ct_walk *w, Dwarf_Die *die, int depth)
{
	Dwarf_Die c;
	if (depth > 64 || dwarf_child(die, &c) != 0)
		return;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
			ct_subprogram(w, &c);
			/* fall through */
		case DW_TAG_namespace:
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
		case DW_TAG_lexical_block:
		case DW_TAG_module:
			ct_walk_die(w, &c, depth + 1);
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

/*
 * A skeleton whose split unit libdw did not find: in prog.dwp, which libdw
 * reads only from elfutils 0.191 on.
 */
static void ct_walk_dwp(struct ct_walk *w, Dwarf *dbg, Dwarf_CU *skel, Dwarf_Die *skel_die,
			struct ct_dwp *dwp)
{
	struct ct_dwp_unit u;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t type;
	uint64_t id;
	Dwarf_Word base;
	Dwarf_Attribute at;
	if (!dwp || dwarf_cu_info(skel, NULL, NULL, NULL, NULL, &id, NULL, NULL) != 0 ||
	    ct_dwp_unit(dwp, id, &u) != 0)
		return;
	if (!(dwarf_attr(skel_die, DW_AT_addr_base, &at) ||
	      dwarf_attr(skel_die, DW_AT_GNU_addr_base, &at)) ||
	    dwarf_formudata(&at, &base) != 0)
		base = 0;
	w->debug_addr = ct_debug_addr(dwarf_getelf(dbg));
	w->addr_base = base;
	w->from_dwp = 1;
	while (dwarf_get_units(u.dbg, cu, &cu, NULL, &type, &cudie, NULL) == 0) {
		if (type != DW_UT_split_compile)
			continue;
		w->cu = cudie;
		ct_walk_die(w, &w->cu, 0);
	}
	w->from_dwp = 0;
	ct_dwp_unit_end(&u);
}

int ct_dwarf_protos(const char *path, ct_dwarf_proto_fn cb, void *ctx)
{
	struct ct_walk w = { .cb = cb, .ctx = ctx };
	struct ct_dwp *dwp = NULL;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	Dwarf_Half version;
	uint8_t type;
	GElf_Ehdr eh;
	int fd = ct_open_regular(path), dwp_tried = 0;
	if (fd < 0)
		return -1;
	Dwarf *dbg = dwarf_begin(fd, DWARF_C_READ);
	if (!dbg) {
		close(fd);
		return -1;
	}
	Elf *elf = dwarf_getelf(dbg);
	w.linked = elf && gelf_getehdr(elf, &eh) && eh.e_type != ET_REL;
	w.cc = ct_cc_of(elf && gelf_getehdr(elf, &eh) ? eh.e_machine : EM_X86_64);
	ct_clones_read(elf, &w.clones);
	while (dwarf_get_units(dbg, cu, &cu, &version, &type, &cudie, &subdie) == 0) {
		if (type == DW_UT_skeleton && !subdie.addr) {
			if (!dwp_tried++)
				dwp = ct_dwp_open(path);
			ct_walk_dwp(&w, dbg, cu, &cudie, dwp);
			continue;
		}
		if (type == DW_UT_skeleton)
			w.cu = subdie; /* the split unit, in a .dwo (or a .dwp libdw reads) */
		else if (type == DW_UT_compile || type == DW_UT_partial)
			w.cu = cudie;
		else
			continue;
		ct_walk_die(&w, &w.cu, 0);
	}
	ct_dwp_close(dwp);
	ct_clones_free(&w.clones);
	dwarf_end(dbg);
	close(fd);
	return w.count;
}
