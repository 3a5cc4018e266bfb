/* SPDX-License-Identifier: MIT */
/* The trace writer: blocks reach the file whole and in the order they were given. */
#include <stdlib.h>
#include <unistd.h>

#include "tests/unit/unit.h"
#include "src/format/writer.h"

/*
 * Blocks of many sizes, small ones held back for one write, large ones (over
 * a quarter of the batch) written alone: the file holds them in the order
 * given. A large block used to go out before the small ones held back, and a
 * thread's blocks of 64 KiB and more reached the file out of order.
 */
static void test_block_order(void)
{
	static const uint32_t sizes[] = { 100,	 70000, 200, 100000, 50,    300000,
					  65000, 66000, 10,  262144, 40000, 8 };
	enum { N = sizeof(sizes) / sizeof(sizes[0]) };
	char dir[] = "/tmp/ct-writer-XXXXXX", path[64];
	struct ct_writer w;
	uint8_t *payload = calloc(1, 300000);

	CHECK(payload && mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.data", dir);
	CHECK(ct_writer_open(&w, path) == 0 && ct_writer_start(&w) == 0);
	for (uint32_t i = 0; i < N; i++) {
		memcpy(payload, &i, 4); /* the block's place in the order */
		CHECK(ct_writer_block(&w, 0x7001, 0, payload, sizes[i], NULL, 0) == 0);
	}
	CHECK(ct_writer_close(&w) == 0);

	FILE *f = fopen(path, "rb");
	struct ct_block_header h;
	uint32_t seen = 0;
	CHECK(f && fseek(f, sizeof(struct ct_file_header), SEEK_SET) == 0);
	while (f && fread(&h, sizeof(h), 1, f) == 1) {
		uint32_t at = UINT32_MAX;
		CHECK(h.magic == CT_BLOCK_MAGIC && h.type == 0x7001);
		CHECK(fread(&at, 4, 1, f) == 1 && fseek(f, (long)h.length - 4, SEEK_CUR) == 0);
		CHECK(seen < N && at == seen && h.length == sizes[seen]);
		seen++;
	}
	CHECK(seen == N);
	if (f)
		fclose(f);
	unlink(path);
	rmdir(dir);
	free(payload);
}

int main(void)
{
	int failures = 0;
	RUN(test_block_order);
	return failures != 0;
}
