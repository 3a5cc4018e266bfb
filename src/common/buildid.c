/* SPDX-License-Identifier: MIT */
/* A loaded module's GNU build-id: see buildid.h. */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "buildid.h"

const uint8_t *ct_module_build_id_note(const struct dl_phdr_info *info, uint32_t *len)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *note = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = note + ph->p_memsz;
		while (note + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const void *)note;
			const char *name = note + sizeof(*nh);
			const char *desc = name + ((nh->n_namesz + 3) & ~3u);
			if (desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4)) {
				*len = nh->n_descsz;
				return (const uint8_t *)desc;
			}
			note = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return NULL;
}

void ct_hex_bytes(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

int ct_module_build_id_hex(const struct dl_phdr_info *info, char *out, size_t room)
{
	uint32_t len;
	const uint8_t *id = ct_module_build_id_note(info, &len);
	if (!id || len < 8 || (size_t)len * 2 >= room)
		return 0;
	ct_hex_bytes(id, len, out);
	return 1;
}
