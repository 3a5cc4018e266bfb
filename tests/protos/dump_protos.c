/* SPDX-License-Identifier: MIT */
/*
 * dump_protos FILE: "name<TAB>proto" for every function ct_dwarf_protos
 * finds in FILE (with -a, "addr<TAB>name<TAB>proto"); a prototype that
 * ct_proto_parse rejects is marked "<TAB>UNPARSABLE". Exit status 1 if the
 * file has no DWARF.
 */
#include <stdio.h>
#include <string.h>

#include "src/common/proto.h"
#include "src/symbols/protos.h"

static int with_addr;

static void print(void *ctx, uint64_t addr, const char *name, const char *proto)
{
	struct ct_proto p;
	(void)ctx;
	if (with_addr)
		printf("%llx\t", (unsigned long long)addr);
	printf("%s\t%s%s\n", name, proto,
	       ct_proto_parse(proto, strlen(proto), &p) ? "\tUNPARSABLE" : "");
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "-a")) {
		with_addr = 1;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: dump_protos [-a] FILE\n");
		return 2;
	}
	int n = ct_dwarf_protos(argv[1], print, NULL);
	if (n < 0) {
		fprintf(stderr, "dump_protos: %s: no DWARF\n", argv[1]);
		return 1;
	}
	return 0;
}
