// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpftune_file_replace() (src/lib/core/file_replace.c): the atomic replace
 * of the metrics textfile, the journal's compaction and bpftune-ship's
 * watermarks, in a directory of the test's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "core/file_replace.h"

struct fr_dir {
	char dir[64], path[96], tmp[96];
};

static int fr_setup(void **state)
{
	struct fr_dir *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	snprintf(d->dir, sizeof(d->dir), "/tmp/bpftune-unit-fr.XXXXXX");
	if (!mkdtemp(d->dir)) {
		free(d);
		return -1;
	}
	snprintf(d->path, sizeof(d->path), "%s/file", d->dir);
	snprintf(d->tmp, sizeof(d->tmp), "%s/.file.tmp", d->dir);
	*state = d;
	return 0;
}

static int fr_teardown(void **state)
{
	struct fr_dir *d = *state;

	unlink(d->path);
	unlink(d->tmp);
	rmdir(d->dir);
	free(d);
	return 0;
}

static void read_back(const char *path, const char *want)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

static void test_replace(void **state)
{
	struct fr_dir *d = *state;
	struct bpftune_replace how = { .tmp = d->tmp, .mode = 0640 };
	struct stat st;
	mode_t old = umask(077);

	assert_int_equal(bpftune_file_replace(d->path, "one\n", 4, &how), 0);
	read_back(d->path, "one\n");
	/* the mode asked for, whatever the umask */
	assert_int_equal(stat(d->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	umask(old);
	/* no temporary left behind */
	assert_int_equal(access(d->tmp, F_OK), -1);
	how.sync = true;
	assert_int_equal(bpftune_file_replace(d->path, "", 0, &how), 0);
	read_back(d->path, "");
}

static void test_keep_fd_locked(void **state)
{
	struct fr_dir *d = *state;
	int fd = -1, other;
	struct bpftune_replace how = {
		.tmp = d->tmp, .mode = 0600, .sync = true, .lock = true, .fd = &fd,
	};

	assert_int_equal(bpftune_file_replace(d->path, "ab", 2, &how), 0);
	assert_true(fd >= 0);
	/* open for appending, and locked against a second owner */
	assert_int_equal(write(fd, "c", 1), 1);
	read_back(d->path, "abc");
	other = open(d->path, O_RDONLY | O_CLOEXEC);
	assert_true(other >= 0);
	assert_int_equal(flock(other, LOCK_EX | LOCK_NB), -1);
	assert_int_equal(errno, EWOULDBLOCK);
	close(other);
	close(fd);
}

static void test_failure_keeps_the_file(void **state)
{
	struct fr_dir *d = *state;
	struct bpftune_replace how = { .tmp = d->tmp, .mode = 0600 };
	char bad[128];

	assert_int_equal(bpftune_file_replace(d->path, "keep", 4, &how), 0);
	/* the temporary cannot be made: the file stays as it was */
	snprintf(bad, sizeof(bad), "%s/no/such/dir", d->dir);
	how.tmp = bad;
	assert_int_equal(bpftune_file_replace(d->path, "lost", 4, &how), -ENOENT);
	read_back(d->path, "keep");
	/* the rename fails (a directory is in the way): the temporary goes */
	how.tmp = d->tmp;
	assert_true(bpftune_file_replace(d->dir, "lost", 4, &how) < 0);
	assert_int_equal(access(d->tmp, F_OK), -1);
	/* a temporary that is a link is refused, not followed */
	assert_int_equal(symlink(d->path, d->tmp), 0);
	assert_int_equal(bpftune_file_replace(d->path, "lost", 4, &how), -ELOOP);
	read_back(d->path, "keep");
}

int unit_run_file_replace(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_replace, fr_setup, fr_teardown),
		cmocka_unit_test_setup_teardown(test_keep_fd_locked, fr_setup, fr_teardown),
		cmocka_unit_test_setup_teardown(test_failure_keeps_the_file, fr_setup,
						fr_teardown),
	};

	return cmocka_run_group_tests_name("file_replace", tests, NULL, NULL);
}
