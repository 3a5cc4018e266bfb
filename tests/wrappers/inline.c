// SPDX-License-Identifier: MIT
/*
 * Inline-heavy code: a loop calling static inline helpers, the way a
 * compression library is written. Built with -finstrument-functions every
 * helper is a traced call (and slow untraced); with patchable entries only
 * main and hash_block are functions. ./inline ROUNDS prints a checksum.
 */
#include <stdio.h>
#include <stdlib.h>

static inline unsigned rotl(unsigned x, int r) { return (x << r) | (x >> (32 - r)); }
static inline unsigned mix(unsigned h, unsigned v) { return rotl(h ^ v, 13) * 5 + 0xe6546b64u; }
static inline unsigned fold(unsigned h) { h ^= h >> 16; h *= 0x85ebca6bu; return h ^ (h >> 13); }

__attribute__((noinline)) static unsigned hash_block(const unsigned *p, int n)
{
	unsigned h = 0;
	for (int i = 0; i < n; i++)
		h = mix(h, p[i]);
	return fold(h);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1000;
	unsigned buf[4096], acc = 0;
	for (int i = 0; i < 4096; i++)
		buf[i] = i * 2654435761u;
	for (int r = 0; r < rounds; r++) {
		buf[r & 4095] ^= r;
		acc += hash_block(buf, 4096);
	}
	printf("%u\n", acc);
	return 0;
}
