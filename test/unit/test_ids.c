// SPDX-License-Identifier: GPL-2.0-only
/*
 * Telemetry ids (src/lib/telemetry/ids.c): hex and UUID forms, random
 * version 4 ids, and systemd's app-specific machine id through a
 * libsystemd loaded for the call: stable per app, different per app,
 * never the raw machine id, and unloaded afterwards.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "telemetry/ids.h"
#include "unit.h"

static const uint8_t sample[16] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
};

static void test_forms(void **state)
{
	char h[TM_ID_HEX_LEN], u[TM_ID_UUID_LEN];
	uint8_t id[16];

	(void)state;
	tm_id_hex(sample, h);
	assert_string_equal(h, "0123456789abcdeffedcba9876543210");
	tm_id_uuid(sample, u);
	assert_string_equal(u, "01234567-89ab-cdef-fedc-ba9876543210");
	memcpy(id, sample, 16);
	tm_id_make_v4(id);
	tm_id_uuid(id, u);
	assert_string_equal(u, "01234567-89ab-4def-bedc-ba9876543210");
}

static void test_random(void **state)
{
	uint8_t a[16], b[16];

	(void)state;
	assert_int_equal(tm_id_random(a), 0);
	assert_int_equal(tm_id_random(b), 0);
	assert_memory_not_equal(a, b, 16);
	assert_int_equal(a[6] >> 4, 4);
	assert_int_equal(a[8] >> 6, 2);
}

static int mapped(const char *what)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	fclose(f);
	return n;
}

/* /etc/machine-id's line; false if there is none */
static bool machine_id(char *line, size_t len)
{
	FILE *f = fopen("/etc/machine-id", "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(line, (int)len, f) != NULL;
	fclose(f);
	return ok;
}

static void test_app_machine(void **state)
{
	uint8_t app2[16], a[16], b[16], c[16];
	char line[64], h[TM_ID_HEX_LEN];

	(void)state;
	if (!machine_id(line, sizeof(line)))
		skip();
	assert_int_equal(tm_id_app_machine(sample, a), 0);
	assert_int_equal(tm_id_app_machine(sample, b), 0);
	assert_memory_equal(a, b, 16);
	memcpy(app2, sample, 16);
	app2[15] ^= 1;
	assert_int_equal(tm_id_app_machine(app2, c), 0);
	assert_memory_not_equal(a, c, 16);
	/* never the machine id itself */
	tm_id_hex(a, h);
	assert_true(strncmp(h, line, 32) != 0);
	/* a version 4 UUID, as systemd makes it */
	assert_int_equal(a[6] >> 4, 4);
	/* libsystemd is gone again */
	assert_int_equal(mapped("libsystemd"), 0);
}

int unit_run_ids(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_app_machine),
	};

	return cmocka_run_group_tests_name("telemetry ids", tests, NULL, NULL);
}
