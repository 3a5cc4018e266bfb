/* SPDX-License-Identifier: MIT */
/* A function defined in a header: its definition is in this file, not the unit's. */
#ifndef SL_HDR_H
#define SL_HDR_H

#include "report.h"

static NOINL int hdr_func(const char *site, int x) /* DEF:hdr_func */
{
	SL_RET(site);
	return x ^ 5;
}

#endif
