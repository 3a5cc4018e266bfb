/* SPDX-License-Identifier: MIT */
/* calltrace dump: every record as it is in the trace, for debugging and scripts. */
#include "output.h"

static const char *ct_ext_name(uint16_t type)
{
	switch (type) {
	case CT_EXT_LOST:
		return "lost";
	case CT_EXT_THREAD_END:
		return "thread-end";
	case CT_EXT_JUMP:
		return "jump";
	case CT_EXT_CATCH:
		return "catch";
	case CT_EXT_THROW:
		return "throw";
	case CT_EXT_LANDING:
		return "landing";
	case CT_EXT_CRASH:
		return "crash";
	default:
		return "ext";
	}
}

int ct_dump(struct ct_trace *t, struct ct_symbols *sym, FILE *out)
{
	int rc = 0;
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct ct_thread_info *th = &t->threads[i];
		struct ct_stream s;
		struct ct_event ev;
		int got;

		fprintf(out, "# thread %d, process %d, image %u: %llu records\n", th->tid, th->pid,
			th->instance, (unsigned long long)th->nrecords);
		ct_stream_open(&s, t, th);
		while ((got = ct_stream_next(&s, &ev)) > 0) {
			fprintf(out, "%14.9f %6d ", ct_trace_ns(t, ev.clock) / 1e9, th->tid);
			if (ev.kind == CT_EV_EXT) {
				uint64_t v = 0;
				memcpy(&v, ev.ext, ev.ext_len < 8 ? ev.ext_len : 8);
				if (ev.ext_type == CT_EXT_LANDING && ev.ext_len >= 16) {
					uint64_t fn;
					memcpy(&fn, ev.ext + 8, 8);
					fprintf(out, "%-6s cfa=%#llx %#llx\n",
						ct_ext_name(ev.ext_type), (unsigned long long)v,
						(unsigned long long)fn);
					continue;
				}
				fprintf(out, "%-6s %#llx\n", ct_ext_name(ev.ext_type),
					(unsigned long long)(ev.ext_type == CT_EXT_LOST ? v
											: v << 4));
				continue;
			}
			const struct ct_func *f =
				ct_symbols_func(sym, ct_symbols_lookup(sym, th->instance, ev.addr, ev.clock));
			fprintf(out, "%-6s sp=%#llx %#llx %s\n",
				ev.kind == CT_EV_ENTER ? "enter" : "exit",
				(unsigned long long)(ev.sp << 4), (unsigned long long)ev.addr,
				f->name);
		}
		if (got < 0)
			rc = -1;
		ct_stream_close(&s);
	}
	return rc;
}
