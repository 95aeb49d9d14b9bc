// SPDX-License-Identifier: GPL-2.0-only
/* Run, host and boot ids of the telemetry (see ids.h). */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <systemd/sd-id128.h>

#include "telemetry/ids.h"

static const char hex[] = "0123456789abcdef";

void tm_id_hex(const uint8_t id[16], char out[TM_ID_HEX_LEN])
{
	unsigned int i;

	for (i = 0; i < 16; i++) {
		out[2 * i] = hex[id[i] >> 4];
		out[2 * i + 1] = hex[id[i] & 15];
	}
	out[32] = '\0';
}

void tm_id_uuid(const uint8_t id[16], char out[TM_ID_UUID_LEN])
{
	unsigned int i, o = 0;

	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[id[i] >> 4];
		out[o++] = hex[id[i] & 15];
	}
	out[o] = '\0';
}

void tm_id_make_v4(uint8_t id[16])
{
	id[6] = (id[6] & 0x0f) | 0x40;
	id[8] = (id[8] & 0x3f) | 0x80;
}

int tm_id_random(uint8_t id[16])
{
	ssize_t n = getrandom(id, 16, 0);

	if (n != 16)
		return n < 0 ? -errno : -EIO;
	tm_id_make_v4(id);
	return 0;
}

int tm_id_app_machine(const uint8_t app[16], uint8_t id[16])
{
	int (*get)(sd_id128_t app_id, sd_id128_t *ret);
	sd_id128_t a, r;
	void *lib;
	int err;

	lib = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return -ENOENT;
	*(void **)&get = dlsym(lib, "sd_id128_get_machine_app_specific");
	memcpy(a.bytes, app, 16);
	err = get ? get(a, &r) : -ENOSYS;
	if (!err)
		memcpy(id, r.bytes, 16);
	dlclose(lib);
	return err < 0 ? err : 0;
}
