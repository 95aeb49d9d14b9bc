// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plugin names and trust (src/lib/plugin/plugin.c, src/lib/plugin/plugin_dir.c): the
 * <name>_tuner.so rule, -a allow-list normalisation and matching, and the
 * trusted-directory walk on directories made for the test.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "plugin/plugin.h"
#include "unit.h"

/* ---- bpftune_plugin_name_valid ----------------------------------------- */

static void test_name_valid(void **state)
{
	static const char *const good[] = {
		"sample_tuner.so", "tcp_buffer_tuner.so", "a_tuner.so",
		"net-buffer_tuner.so", "X9_tuner.so", "_tuner_tuner.so",
		"sched_collector.so", "perf_collector.so",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!bpftune_plugin_name_valid(good[i]))
			fail_msg("'%s' refused", good[i]);
}

static void test_name_invalid(void **state)
{
	static const char *const bad[] = {
		"", "_tuner.so", "tuner.so", "sample.so", "sample_tuner",
		"sample_tuner.so.1", "sample_tuner.SO", "../x_tuner.so",
		"dir/x_tuner.so", ".hidden_tuner.so", "a b_tuner.so",
		"a;rm_tuner.so", "a.b_tuner.so", "\xc3\xa9_tuner.so",
		"libbpftune.so", "sample_tuner.so ", "_collector.so",
		"sched_collector", "a.b_collector.so", "sched_collector.so.1",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (bpftune_plugin_name_valid(bad[i]))
			fail_msg("'%s' accepted", bad[i]);
}

/* bpftune_plugin_open() refuses a bad name before it touches the disk */
static void test_open_refuses_bad_name(void **state)
{
	char why[128] = "";
	void *handle = (void *)1;
	int fd = 42;

	(void)state;
	assert_null(bpftune_plugin_open(-1, "../evil_tuner.so", &handle, &fd,
					why, sizeof(why)));
	assert_null(handle);
	assert_int_equal(fd, -1);
	assert_non_null(strstr(why, "_tuner.so"));
}

/* ---- allow-list ---------------------------------------------------------- */

static void expect_norm(const char *name, const char *want)
{
	char buf[NAME_MAX + 1];

	bpftune_plugin_normalize(name, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_normalize(void **state)
{
	(void)state;
	expect_norm("sample", "sample_tuner.so");
	expect_norm("sample_tuner.so", "sample_tuner.so");
	expect_norm("/usr/lib/bpftune/sample_tuner.so", "sample_tuner.so");
	expect_norm("./tcp_buffer_tuner.so", "tcp_buffer_tuner.so");
	expect_norm("tcp_buffer", "tcp_buffer_tuner.so");
	expect_norm("/x/sysctl", "sysctl_tuner.so");
}

static void test_normalize_truncates(void **state)
{
	char buf[8];

	(void)state;
	memset(buf, 'X', sizeof(buf));
	bpftune_plugin_normalize("sample", buf, sizeof(buf));
	assert_string_equal(buf, "sample_");
}

static void test_allowed(void **state)
{
	char *names[] = { "sysctl", "/opt/bpftune/sample_tuner.so", "x_tuner.so" };
	struct bpftune_allow allow = { .names = names, .num = 3 };
	struct bpftune_allow empty = { .names = NULL, .num = 0 };

	(void)state;
	/* no list: everything */
	assert_true(bpftune_plugin_allowed(NULL, "sysctl_tuner.so"));
	assert_true(bpftune_plugin_allowed(&empty, "whatever_tuner.so"));
	/* by name, by file, by path */
	assert_true(bpftune_plugin_allowed(&allow, "sysctl_tuner.so"));
	assert_true(bpftune_plugin_allowed(&allow, "sample_tuner.so"));
	assert_true(bpftune_plugin_allowed(&allow, "x_tuner.so"));
	/* others are not */
	assert_false(bpftune_plugin_allowed(&allow, "tcp_buffer_tuner.so"));
	assert_false(bpftune_plugin_allowed(&allow, "sysctl"));
	assert_false(bpftune_plugin_allowed(&allow, "sysctl_tuner.so.bak"));
	assert_false(bpftune_plugin_allowed(&allow, "xsysctl_tuner.so"));
}

/* ---- bpftune_dir_open_trusted ------------------------------------------ */

/* a directory made for the test under a trusted parent; skip if none */
struct trust_dir {
	char path[PATH_MAX];
};

static int trust_setup(void **state)
{
	struct trust_dir *t = calloc(1, sizeof(*t));
	char why[256];
	int fd;

	if (!t)
		return -1;
	*state = t;
	if (geteuid() != 0)
		return 0;
	fd = bpftune_dir_open_trusted("/run", why, sizeof(why));
	if (fd < 0)
		return 0;
	close(fd);
	snprintf(t->path, sizeof(t->path), "/run/bpftune-unit-XXXXXX");
	if (!mkdtemp(t->path))
		t->path[0] = '\0';
	return 0;
}

static int trust_teardown(void **state)
{
	struct trust_dir *t = *state;
	char p[PATH_MAX + 16];

	if (t && t->path[0]) {
		snprintf(p, sizeof(p), "%s/link", t->path);
		unlink(p);
		snprintf(p, sizeof(p), "%s/file", t->path);
		unlink(p);
		snprintf(p, sizeof(p), "%s/sub", t->path);
		rmdir(p);
		rmdir(t->path);
	}
	free(t);
	return 0;
}

static int trusted(const char *dir, char *why, size_t len)
{
	int fd = bpftune_dir_open_trusted(dir, why, len);

	if (fd >= 0) {
		struct stat st;

		assert_int_equal(fstat(fd, &st), 0);
		assert_true(S_ISDIR(st.st_mode));
		close(fd);
		return 0;
	}
	return fd;
}

/* collectors load only when --collectors (or -a) names them */
static void test_collectors_allowed(void **state)
{
	char *tuners[] = { "sysctl" }, *colls[] = { "sched" }, *by_file[] = { "perf_collector.so" };
	struct bpftune_allow none = { 0 };
	struct bpftune_allow named = { .collectors = colls, .num_collectors = 1 };
	struct bpftune_allow by_a = { .names = by_file, .num = 1 };
	struct bpftune_allow mixed = { .names = tuners, .num = 1, .collectors = colls,
				       .num_collectors = 1 };

	(void)state;
	assert_false(bpftune_plugin_allowed(NULL, "sched_collector.so"));
	assert_false(bpftune_plugin_allowed(&none, "sched_collector.so"));
	assert_true(bpftune_plugin_allowed(&none, "sysctl_tuner.so"));
	assert_true(bpftune_plugin_allowed(&named, "sched_collector.so"));
	assert_false(bpftune_plugin_allowed(&named, "perf_collector.so"));
	/* naming a collector does not restrict the tuners */
	assert_true(bpftune_plugin_allowed(&named, "tcp_buffer_tuner.so"));
	assert_true(bpftune_plugin_allowed(&by_a, "perf_collector.so"));
	assert_false(bpftune_plugin_allowed(&by_a, "sysctl_tuner.so"));
	assert_true(bpftune_plugin_allowed(&mixed, "sched_collector.so"));
	assert_true(bpftune_plugin_allowed(&mixed, "sysctl_tuner.so"));
	assert_false(bpftune_plugin_allowed(&mixed, "tcp_buffer_tuner.so"));
	assert_true(bpftune_plugin_is_collector("sched_collector.so"));
	assert_false(bpftune_plugin_is_collector("sched_tuner.so"));
}

static void test_trust_bad_names(void **state)
{
	char why[256];

	(void)state;
	assert_int_equal(trusted("", why, sizeof(why)), -EINVAL);
	assert_int_equal(trusted("/usr/../tmp", why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, ".."));
	assert_int_equal(trusted("/nonexistent-bpftune-unit", why, sizeof(why)),
			 -ENOENT);
}

static void test_trust_root(void **state)
{
	struct stat st;
	char why[256] = "";

	(void)state;
	if (stat("/", &st) || st.st_uid || (st.st_mode & (S_IWGRP | S_IWOTH)))
		skip();
	assert_int_equal(trusted("/", why, sizeof(why)), 0);
	assert_int_equal(trusted("//", why, sizeof(why)), 0);
}

static void test_trust_world_writable(void **state)
{
	struct stat st;
	char why[256] = "";

	(void)state;
	if (lstat("/tmp", &st) || !S_ISDIR(st.st_mode) || !(st.st_mode & S_IWOTH))
		skip();
	assert_int_equal(trusted("/tmp", why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "writable by others"));
}

static void test_trust_made_dir(void **state)
{
	struct trust_dir *t = *state;
	char p[PATH_MAX + 16], why[256] = "";
	int fd;

	if (!t->path[0])
		skip();
	assert_int_equal(trusted(t->path, why, sizeof(why)), 0);
	/* trailing slash and "." components are fine */
	snprintf(p, sizeof(p), "%s/./", t->path);
	assert_int_equal(trusted(p, why, sizeof(why)), 0);

	assert_int_equal(chmod(t->path, 0775), 0);
	assert_int_equal(trusted(t->path, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "its group"));
	assert_int_equal(chmod(t->path, 0757), 0);
	assert_int_equal(trusted(t->path, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "others"));
	assert_int_equal(chmod(t->path, 0755), 0);

	/* a trusted parent does not make an untrusted child trusted */
	snprintf(p, sizeof(p), "%s/sub", t->path);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(trusted(p, why, sizeof(why)), 0);
	assert_int_equal(chown(p, 65534, 65534), 0);
	assert_int_equal(trusted(p, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "uid 65534"));

	/* a symlink anywhere on the way is refused */
	snprintf(p, sizeof(p), "%s/link", t->path);
	assert_int_equal(symlink("/usr", p), 0);
	assert_int_equal(trusted(p, why, sizeof(why)), -ELOOP);
	snprintf(p, sizeof(p), "%s/link/lib", t->path);
	assert_int_equal(trusted(p, why, sizeof(why)), -ELOOP);

	/* a file is not a directory */
	snprintf(p, sizeof(p), "%s/file", t->path);
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(trusted(p, why, sizeof(why)), -ENOTDIR);
}

/* a relative name is resolved against the working directory */
static void test_trust_relative(void **state)
{
	struct trust_dir *t = *state;
	char cwd[PATH_MAX], why[256] = "";
	int ret;

	if (!t->path[0] || !getcwd(cwd, sizeof(cwd)))
		skip();
	assert_int_equal(chdir("/run"), 0);
	ret = trusted(strrchr(t->path, '/') + 1, why, sizeof(why));
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(ret, 0);
}

/* --buffer-size: KiB per CPU times the CPUs, a power of two, capped */
static void test_collector_ringbuf_bytes(void **state)
{
	(void)state;
	assert_int_equal(bpftune_collector_ringbuf_bytes(16384, 2), 32UL << 20);
	assert_int_equal(bpftune_collector_ringbuf_bytes(16384, 3), 64UL << 20);
	assert_int_equal(bpftune_collector_ringbuf_bytes(4, 1), 4096);
	assert_int_equal(bpftune_collector_ringbuf_bytes(5, 1), 8192);
	assert_int_equal(bpftune_collector_ringbuf_bytes(1, 1), 4096);
	assert_int_equal(bpftune_collector_ringbuf_bytes(1024 * 1024, 2), 1UL << 30);
	assert_int_equal(bpftune_collector_ringbuf_bytes(~0UL, 64), 1UL << 30);
	assert_int_equal(bpftune_collector_ringbuf_bytes(16, 0), 16384);
}

int unit_run_plugin_name(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_valid),
		cmocka_unit_test(test_name_invalid),
		cmocka_unit_test(test_open_refuses_bad_name),
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_normalize_truncates),
		cmocka_unit_test(test_allowed),
		cmocka_unit_test(test_collectors_allowed),
		cmocka_unit_test(test_collector_ringbuf_bytes),
		cmocka_unit_test(test_trust_bad_names),
		cmocka_unit_test(test_trust_root),
		cmocka_unit_test(test_trust_world_writable),
		cmocka_unit_test_setup_teardown(test_trust_made_dir,
						trust_setup, trust_teardown),
		cmocka_unit_test_setup_teardown(test_trust_relative,
						trust_setup, trust_teardown),
	};

	return cmocka_run_group_tests_name("plugin", tests, NULL, NULL);
}
