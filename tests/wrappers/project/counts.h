/* SPDX-License-Identifier: MIT */
/*
 * Every function of the project counts its own calls here, so the program
 * knows the truth a trace must show: main prints the counts at its end, one
 * "count NAME N" line per function, NAME as calltrace displays it.
 */
#ifndef COUNTS_H
#define COUNTS_H

#ifdef __cplusplus
extern "C" {
#endif

enum fn_id {
	F_MAIN,
	F_RUN,
	F_FILL,
	F_BY_LENGTH,
	F_INV_ADD,
	F_INV_TOTAL,
	F_INV_NAMES,
	F_INV_SIZE,
	F_INV_CTOR,
	F_INV_DTOR,
	F_SUM_INT,
	F_SUM_DOUBLE,
	F_ACCUM_INT_CTOR,
	F_ACCUM_INT_ADD,
	F_ACCUM_INT_TOTAL,
	F_CHECKSUM,
	F_MIX,
	F_COUNT
};

extern unsigned long calls[F_COUNT];

#define COUNT(id) (calls[id]++)

unsigned checksum(const char *s);

#ifdef __cplusplus
}
#endif

#endif
