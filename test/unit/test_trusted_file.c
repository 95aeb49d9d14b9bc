// SPDX-License-Identifier: GPL-2.0-only
/* Files that decide what the daemon does (src/lib/plugin/trusted_file.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpftune/libbpftune.h>
#include "unit.h"

static char dir[64], path[128];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/bpftune-unit-trusted.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(dir);
	return 0;
}

static void write_file(const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static int read_it(size_t max, char **text, size_t *len, char *err)
{
	return bpftune_trusted_file_read(path, max, text, len, err, 128);
}

static void test_read(void **state)
{
	char *text = (char *)1, err[128];
	size_t len = 0;

	(void)state;
	if (geteuid() != 0)
		skip();
	write_file("a = 1\n", 0644);
	assert_int_equal(read_it(1024, &text, &len, err), 0);
	assert_int_equal(len, 6);
	assert_string_equal(text, "a = 1\n");
	free(text);
	/* exactly @max bytes is fine, one more is not */
	assert_int_equal(read_it(6, &text, &len, err), 0);
	free(text);
	assert_int_equal(read_it(5, &text, &len, err), -EFBIG);
	assert_null(text);
	assert_string_equal(err, "refused: larger than 5 bytes");
	/* an empty file is text too */
	write_file("", 0600);
	assert_int_equal(read_it(1024, &text, &len, err), 0);
	assert_int_equal(len, 0);
	assert_string_equal(text, "");
	free(text);
}

static void test_refused(void **state)
{
	char *text = (char *)1, err[128];
	size_t len = 0;

	(void)state;
	assert_int_equal(read_it(1024, &text, &len, err), -ENOENT);
	assert_null(text);
	assert_string_equal(err, "cannot open it: No such file or directory");
	write_file("x\n", 0664);
	assert_int_equal(read_it(1024, &text, &len, err), -EPERM);
	assert_string_equal(err, "refused: must be owned by root and writable by root only");
	write_file("x\n", 0646);
	assert_int_equal(read_it(1024, &text, &len, err), -EPERM);
	unlink(path);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(read_it(1024, &text, &len, err), -EPERM);
	assert_string_equal(err, "refused: not a regular file");
	rmdir(path);
	if (geteuid() == 0) {
		write_file("x\n", 0644);
		assert_int_equal(chown(path, 65534, 0), 0);
		assert_int_equal(read_it(1024, &text, &len, err), -EPERM);
		assert_null(text);
	}
}

int unit_run_trusted_file(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
	};

	return cmocka_run_group_tests_name("trusted_file", tests, NULL, NULL);
}
