/* SPDX-License-Identifier: MIT */
#ifndef SL_LIBSL_H
#define SL_LIBSL_H

int lib_func(const char *site, int x);
int lib_apply(const char *site, int (*fn)(const char *, int), int x);

#endif
