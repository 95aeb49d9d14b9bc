// SPDX-License-Identifier: GPL-2.0-only
/*
 * The service manager notification (src/daemon/notify.c): $NOTIFY_SOCKET
 * parsed into an address, and a state sent to a real datagram socket
 * bound where the variable says, as systemd does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/daemon/notify.h"
#include "unit.h"

static void test_addr(void **state)
{
	struct sockaddr_un a;
	char longp[sizeof(a.sun_path) + 2];
	socklen_t len;

	(void)state;
	assert_int_equal(bpftune_notify_addr("/run/systemd/notify", &a, &len), 0);
	assert_string_equal(a.sun_path, "/run/systemd/notify");
	assert_int_equal(len, offsetof(struct sockaddr_un, sun_path) + 20);
	/* abstract: "@name" is "\0name", its length without a NUL */
	assert_int_equal(bpftune_notify_addr("@sd-notify", &a, &len), 0);
	assert_int_equal(a.sun_path[0], '\0');
	assert_memory_equal(a.sun_path + 1, "sd-notify", 9);
	assert_int_equal(len, offsetof(struct sockaddr_un, sun_path) + 10);
	/* refused: empty, a lone prefix, relative, too long */
	assert_int_equal(bpftune_notify_addr("", &a, &len), -EINVAL);
	assert_int_equal(bpftune_notify_addr(NULL, &a, &len), -EINVAL);
	assert_int_equal(bpftune_notify_addr("/", &a, &len), -EINVAL);
	assert_int_equal(bpftune_notify_addr("@", &a, &len), -EINVAL);
	assert_int_equal(bpftune_notify_addr("run/notify", &a, &len), -EINVAL);
	memset(longp, 'x', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(a.sun_path) - 1] = '\0';	/* 107 bytes and a NUL: fits */
	assert_int_equal(bpftune_notify_addr(longp, &a, &len), 0);
	longp[sizeof(a.sun_path) - 1] = 'x';	/* 108: no room for the NUL */
	longp[sizeof(a.sun_path)] = '\0';
	assert_int_equal(bpftune_notify_addr(longp, &a, &len), -EINVAL);
}

static void test_send(void **state)
{
	char dir[] = "/tmp/bpftune-notify-XXXXXX", path[64], buf[32];
	struct sockaddr_un a;
	socklen_t len;
	ssize_t n;
	int fd;

	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(bpftune_notify("READY=1"), 0);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/notify", dir);
	assert_int_equal(bpftune_notify_addr(path, &a, &len), 0);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, len), 0);
	setenv("NOTIFY_SOCKET", path, 1);
	assert_int_equal(bpftune_notify("READY=1"), 1);
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	assert_int_equal(n, 7);
	assert_memory_equal(buf, "READY=1", 7);
	/* nobody there any more: an error, not a crash */
	close(fd);
	unlink(path);
	assert_true(bpftune_notify("STOPPING=1") < 0);
	setenv("NOTIFY_SOCKET", "relative", 1);
	assert_int_equal(bpftune_notify("READY=1"), -EINVAL);
	unsetenv("NOTIFY_SOCKET");
	rmdir(dir);
}

int unit_run_notify(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_send),
	};

	return cmocka_run_group_tests_name("notify", tests, NULL, NULL);
}
