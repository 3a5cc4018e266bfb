/* SPDX-License-Identifier: MIT */
/* ct_export(): the one entry of the export formats, above them and their kit. */
#include "export_kit.h"

int ct_export(struct ct_trace *t, struct ct_symbols *sym, struct ct_walk *w, FILE *f,
	      const struct ct_export_opts *o, int *werr)
{
	struct ct_export x = { .t = t, .sym = sym, .w = w, .o = o };
	int rc;

	ct_export_kit_init(&x, f);
	switch (o->format) {
	case CT_EXPORT_PERFETTO:
		rc = ct_export_perfetto(&x);
		break;
	case CT_EXPORT_CHROME:
		rc = ct_export_chrome(&x);
		break;
	default:
		rc = ct_export_folded(&x);
		break;
	}
	*werr = ct_export_kit_finish(&x);
	return rc;
}
