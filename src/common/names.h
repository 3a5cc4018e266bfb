/* SPDX-License-Identifier: MIT */
/* Function names as users write them: shared by the tool and the runtime. */
#ifndef CT_COMMON_NAMES_H
#define CT_COMMON_NAMES_H

#include <stddef.h>

/*
 * The short name inside a demangled signature, [start, end): no return type,
 * parameters or trailing qualifiers. The whole string if it is no signature.
 */
void ct_short_name_span(const char *demangled, size_t *start, size_t *end);
/*
 * Length of a symbol without the suffix of a copy the compiler made of the
 * function (".constprop.0", ".isra.0", ".part.0", ".cold", ".lto_priv.0",
 * ".localalias", ".llvm.123", and their combinations): foo.part.0 -> 3.
 */
size_t ct_clone_base_len(const char *sym);
/* Remove ABI tags in place: c_str[abi:cxx11] -> c_str. */
void ct_drop_abi_tags(char *s);
/* A glob matches the whole name, or the name from any "::" on: Parser::* finds ns::Parser::parse. */
int ct_glob_name(const char *pat, const char *name);

#endif
