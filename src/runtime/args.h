/* SPDX-License-Identifier: MIT */
/* Moved to args/args.h: this stays only until the files that include it move to their rooms. */
#include "args/args.h"
