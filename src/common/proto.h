/* SPDX-License-Identifier: MIT */
/*
 * A function's prototype as calltrace needs it: where each argument is when
 * the function is entered (by the calling convention of the program's
 * architecture: SysV x86-64, AAPCS64), where the return
 * value is when it returns, and how to show each value. Made from DWARF
 * (src/symbols/protos.c), from -A/-R specs and from the built-in prototypes of
 * common C library functions; kept in traces as text (CT_EXT_PROTO), parsed
 * by the runtime (what to capture per call) and by readers (how to show it).
 *
 * The text, one line, no spaces:
 *
 *   PROTO  := PARAMS '|' RET
 *   PARAMS := ''  |  PARAM (',' PARAM)* [',...']  |  '...'    ("..." variadic)
 *   PARAM  := NAME ':' VALUE
 *   RET    := ''  (void, or not known)  |  VALUE
 *   VALUE  := TYPE '@' LOC ('+' LOC)*     the value's bytes, in order (up to 4 LOCs)
 *   LOC    := 'r' N   integer register N: at entry 0-5 = rdi rsi rdx rcx r8 r9
 *                     (aarch64: 0-7 = x0-x7), at return 0-1 = rax rdx (x0 x1)
 *           | 'x' N   xmm (aarch64: v) register N, its low 8 bytes: entry 0-7,
 *                     return 0-1 (aarch64: 0-3)
 *           | 'w' N   the low 4 bytes of v register N (a float member of an HFA)
 *           | 'q' N   all 16 bytes of v register N (aarch64's long double)
 *           | 's' N   the Nth 8-byte stack word above the return address (entry;
 *                     aarch64: from the sp at the call)
 *           | 'm'     in memory the caller owns, not captured (a large struct
 *                     returned through a hidden pointer; long double returns)
 *   TYPE   := 'i' SIZE | 'u' SIZE      signed, unsigned integer of SIZE bytes
 *           | 'b'                      bool
 *           | 'c'                      char, shown as 'x' (with escapes)
 *           | 'p'                      pointer (and C++ reference), in hex
 *           | 's'                      char * / const char *: the string
 *           | 'f' SIZE                 float (4), double (8), long double (16: x87)
 *           | 'F' 16                   IEEE binary128 (aarch64's long double)
 *           | 'e' SIZE '{' NAME '=' NUMBER (';' NAME '=' NUMBER)* '}'   enum
 *           | 'S' SIZE ['{' NAME ':' TYPE '+' OFFSET (';' ...)* '}']
 *                     struct or class by value: its scalar fields when it is
 *                     small (<= 16 bytes, an HFA <= 32; all fields scalars),
 *                     else "{…}"
 *
 * e.g. "line:s@r0,len:i4@r1,strict:b@r2|e4{PARSE_OK=0;PARSE_ERR=1}@r0".
 * Names are C identifiers ("this" for C++ methods, "argN" when unnamed).
 */
#ifndef CT_COMMON_PROTO_H
#define CT_COMMON_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define CT_PROTO_MAX_PARAMS 24
#define CT_PROTO_MAX_TEXT   4096 /* longer prototypes are cut at a parameter */

struct ct_ploc {
	char kind; /* 'r', 'x', 's', 'm' */
	uint8_t n;
};

#define CT_PROTO_MAX_LOCS 4

struct ct_pvalue {
	char type;    /* 'i' 'u' 'b' 'c' 'p' 's' 'f' 'F' 'e' 'S' (0: none, void) */
	uint8_t size; /* bytes (0 where the type has none) */
	uint8_t nlocs;
	struct ct_ploc locs[CT_PROTO_MAX_LOCS];
	const char *body; /* enum or struct body, after '{' (NULL: none) */
	uint16_t body_len;
};

struct ct_param {
	const char *name;
	uint16_t name_len;
	struct ct_pvalue v;
};

struct ct_proto {
	uint8_t nparams;
	uint8_t variadic;
	struct ct_param params[CT_PROTO_MAX_PARAMS];
	struct ct_pvalue ret; /* ret.type == 0: nothing to show */
};

/* Parse text (len bytes, no NUL needed); 0, or -1 if it is malformed. Points into text. */
int ct_proto_parse(const char *text, size_t len, struct ct_proto *p);

/*
 * What the runtime keeps per call of a function with this prototype: the
 * registers and stack words its arguments use, which integer registers hold
 * strings to copy, and what the return trampoline keeps.
 */
enum ct_ret_kind {
	CT_RET_NONE = 0,
	CT_RET_INT = 1,	   /* rax */
	CT_RET_INT2 = 2,   /* rax, rdx */
	CT_RET_SSE = 3,	   /* xmm0 */
	CT_RET_SSE2 = 4,   /* xmm0, xmm1 */
	CT_RET_MIXED = 5,  /* rax, rdx, xmm0, xmm1: a struct of both kinds */
	CT_RET_STR = 6,	   /* rax, and the string it points to */
	CT_RET_SSE3 = 7,   /* v0-v2 (aarch64: an HFA of three) */
	CT_RET_SSE4 = 8,   /* v0-v3 */
	CT_RET_WIDE1 = 9,  /* v0 whole (16 bytes: aarch64's long double) ... */
	CT_RET_WIDE4 = 12, /* ... v0-v3 whole */
};

struct ct_capture {
	uint8_t nint;	/* integer argument registers, 0-6 (aarch64: 0-8) */
	uint8_t nsse;	/* xmm registers, 0-8 */
	uint8_t nstack; /* stack words, 0-CT_CAPTURE_MAX_STACK */
	uint8_t strs;	/* bit n: integer register n points to a string */
	uint8_t ret;	/* enum ct_ret_kind */
	uint8_t wide;	/* the vector registers whole (16 bytes each), not their low halves */
};

#define CT_CAPTURE_MAX_INT 8
#define CT_CAPTURE_WIDE	   0x80 /* in a record's nsse: each vector register is two words */

#define CT_CAPTURE_MAX_STACK 16

/* The capture a prototype needs; 0 if it needs nothing (no parameter, no value returned). */
int ct_proto_capture(const struct ct_proto *p, struct ct_capture *c);

/*
 * What one call captured, as readers get it back from a CT_EXT_ARGS record
 * (registers at entry) or a CT_EXT_RETVAL record (at return: ints are rax,
 * rdx; sse are xmm0, xmm1; str[0] is the string rax points to).
 */
#define CT_STR_CUT	  1 /* the string goes on past the bytes kept */
#define CT_STR_UNREADABLE 2 /* the pointer is not readable memory: nothing kept */
#define CT_STR_NULL	  4 /* the pointer is NULL */

struct ct_captured_str {
	const char *bytes;
	uint32_t len;  /* bytes kept */
	uint8_t flags; /* CT_STR_* */
};

struct ct_captured {
	uint64_t call_site; /* the return address (0: not kept) */
	uint32_t sp_tag;    /* the call's stack pointer as events carry it (ct_ev_sp) */
	uint8_t nint, nsse, nstack, strs;
	uint8_t wide; /* sse has two words per register (its low, then high half) */
	const uint64_t *ints, *sse, *stack;
	struct ct_captured_str
		str[CT_CAPTURE_MAX_INT]; /* for integer register n, if strs has bit n */
};

/* Decode a CT_EXT_ARGS or CT_EXT_RETVAL payload (captured.c); -1 if it is malformed. */
int ct_captured_decode(const uint64_t *payload, size_t nwords, struct ct_captured *c);

#endif
