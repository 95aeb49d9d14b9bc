// SPDX-License-Identifier: GPL-2.0-only
/* Whole-file /proc reads and multi-key lookups (src/lib/kit/proc_file.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kit/proc_file.h"
#include "unit.h"

static char path[64];

static void write_tmp(const char *text, size_t len)
{
	FILE *f;

	strcpy(path, "/tmp/bpftune-unit-proc.XXXXXX");
	close(mkstemp(path));
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

static int teardown(void **state)
{
	(void)state;
	if (path[0])
		unlink(path);
	path[0] = '\0';
	return 0;
}

static void test_netstat_keys(void **state)
{
	static const char text[] =
		"TcpExt: SyncookiesSent SyncookiesRecv ListenDrops\n"
		"TcpExt: 3 0 17\n"
		"IpExt: InNoRoutes\n"
		"IpExt: 5\n";
	static const char *const keys[] = {
		"TcpExt.SyncookiesSent", "TcpExt.ListenDrops",
		"TcpExt.NoSuchCounter", "IpExt.InNoRoutes",
	};
	struct bpftune_proc_value v[4];

	(void)state;
	write_tmp(text, sizeof(text) - 1);
	assert_int_equal(bpftune_proc_file_lookup(path, BPFTUNE_PROC_SNMP,
						  keys, v, 4), 3);
	assert_int_equal(v[0].i, 3);
	assert_int_equal(v[1].i, 17);
	assert_int_equal(v[2].i, 0);	/* missing: zeroed, not counted */
	assert_int_equal(v[3].i, 5);
}

/* the reassembly counters ip_frag reads: "Ip" is not "IpExt" nor "Icmp" */
static void test_snmp_sections(void **state)
{
	static const char text[] =
		"IpExt: ReasmOKs\n"
		"IpExt: 5\n"
		"Ip: Forwarding DefaultTTL ReasmTimeout ReasmReqds ReasmOKs ReasmFails\n"
		"Ip: 2 64 7 120 3 97\n"
		"Icmp: InMsgs ReasmOKs\n"
		"Icmp: 5 999\n";
	static const char *const keys[] = {
		"Ip.ReasmReqds", "Ip.ReasmOKs", "Ip.ReasmFails", "Ip.ReasmTimeout",
	};
	struct bpftune_proc_value v[4];

	(void)state;
	write_tmp(text, sizeof(text) - 1);
	assert_int_equal(bpftune_proc_file_lookup(path, BPFTUNE_PROC_SNMP,
						  keys, v, 4), 4);
	assert_int_equal(v[0].i, 120);
	assert_int_equal(v[1].i, 3);
	assert_int_equal(v[2].i, 97);
	assert_int_equal(v[3].i, 7);
}

/* snmp6 and sockstat6, as ip_frag reads them for IPv6 */
static void test_snmp6_and_sockstat(void **state)
{
	static const char snmp6[] = "Ip6InReceives 10\nIp6ReasmReqds 44\n"
				    "garbage\nIp6ReasmOKs 2\n";
	static const char sockstat6[] = "TCP6: inuse 3\nUDP6: inuse 1\n"
					"FRAG6: inuse 2 memory 4480\n";
	static const char *const k6[] = { "Ip6ReasmReqds", "Ip6ReasmOKs" };
	static const char *const kf[] = { "FRAG6.memory", "FRAG.memory" };
	struct bpftune_proc_value v[2];

	(void)state;
	write_tmp(snmp6, sizeof(snmp6) - 1);
	assert_int_equal(bpftune_proc_file_lookup(path, BPFTUNE_PROC_KEYVAL,
						  k6, v, 2), 2);
	assert_int_equal(v[0].i, 44);
	assert_int_equal(v[1].i, 2);
	teardown(NULL);
	write_tmp(sockstat6, sizeof(sockstat6) - 1);
	assert_int_equal(bpftune_proc_file_lookup(path, BPFTUNE_PROC_SOCKSTAT,
						  kf, v, 2), 1);
	assert_int_equal(v[0].i, 4480);
}

static void test_meminfo_units(void **state)
{
	static const char text[] = "MemTotal:       24000000 kB\n"
				   "MemAvailable:   123456 kB\n";
	static const char *const keys[] = { "MemAvailable" };
	struct bpftune_proc_value v;

	(void)state;
	write_tmp(text, sizeof(text) - 1);
	assert_int_equal(bpftune_proc_file_lookup(path, BPFTUNE_PROC_KEYVAL,
						  keys, &v, 1), 1);
	assert_int_equal(v.i, 123456);
}

/* bigger than the first buffer: the read grows it and keeps every byte */
static void test_large_file(void **state)
{
	size_t n = 3 * 4096 + 17, len = 0, i;
	char *text = malloc(n + 1), *got;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < n; i++)
		text[i] = (i % 64 == 63) ? '\n' : 'a' + i % 26;
	write_tmp(text, n);
	got = bpftune_proc_file_read(path, &len);
	assert_non_null(got);
	assert_int_equal(len, n);
	assert_memory_equal(got, text, n);
	assert_int_equal(got[n], '\0');
	free(got);
	free(text);
}

/* rewrite @path in place (same inode: a pinned fd sees the new text) */
static void rewrite_tmp(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	fclose(f);
}

/*
 * A pinned file is read from its start every time, and shows what it
 * holds now; more paths than there are pins are still read (opened and
 * closed), and a path that cannot be opened is not pinned.
 */
static void test_pinned(void **state)
{
	static const char *const keys[] = { "Tcp.A" };
	char more[12][64];
	struct bpftune_proc_value v;
	size_t len = 0;
	unsigned int i;
	char *got;

	(void)state;
	write_tmp("Tcp: A\nTcp: 1\n", 14);
	assert_int_equal(bpftune_proc_file_lookup_pinned(path, BPFTUNE_PROC_SNMP,
							 keys, &v, 1), 1);
	assert_int_equal(v.i, 1);
	rewrite_tmp("Tcp: B A\nTcp: 7 42\n");
	assert_int_equal(bpftune_proc_file_lookup_pinned(path, BPFTUNE_PROC_SNMP,
							 keys, &v, 1), 1);
	assert_int_equal(v.i, 42);
	/* shorter now: nothing of the longer text is left over */
	rewrite_tmp("x\n");
	got = bpftune_proc_file_read_pinned(path, &len);
	assert_non_null(got);
	assert_int_equal(len, 2);
	assert_string_equal(got, "x\n");
	free(got);
	assert_null(bpftune_proc_file_read_pinned("/nonexistent/bpftune", NULL));
	assert_int_equal(errno, ENOENT);
	for (i = 0; i < 12; i++) {
		FILE *f;

		snprintf(more[i], sizeof(more[i]), "/tmp/bpftune-unit-pin.XXXXXX");
		close(mkstemp(more[i]));
		f = fopen(more[i], "w");
		assert_non_null(f);
		fprintf(f, "%u\n", i);
		fclose(f);
		got = bpftune_proc_file_read_pinned(more[i], NULL);
		assert_non_null(got);
		assert_int_equal(strtoul(got, NULL, 10), i);
		free(got);
	}
	for (i = 0; i < 12; i++)
		unlink(more[i]);
}

static void test_errors(void **state)
{
	static const char *const keys[] = { "Tcp" };	/* no "Sec.Field" */
	struct bpftune_proc_value v;

	(void)state;
	assert_null(bpftune_proc_file_read("/nonexistent/bpftune", NULL));
	assert_int_equal(errno, ENOENT);
	assert_int_equal(bpftune_proc_file_lookup("/nonexistent/bpftune",
						  BPFTUNE_PROC_SNMP, keys, &v, 1),
			 -ENOENT);
	write_tmp("Tcp: A\nTcp: 1\n", 14);
	assert_int_equal(bpftune_proc_file_lookup(path, BPFTUNE_PROC_SNMP,
						  keys, &v, 1), -EINVAL);
	assert_int_equal(bpftune_proc_file_lookup(path, BPFTUNE_PROC_SNMP,
						  NULL, &v, 1), -EINVAL);
	/* a value line that does not follow its header is malformed */
	teardown(NULL);
	write_tmp("TcpExt: A B\nIpExt: 1 2\n", 23);
	{
		static const char *const k2[] = { "TcpExt.B" };

		assert_int_equal(bpftune_proc_file_lookup(path,
				 BPFTUNE_PROC_SNMP, k2, &v, 1), -EINVAL);
	}
}

int unit_run_proc_file(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_netstat_keys, teardown),
		cmocka_unit_test_teardown(test_snmp_sections, teardown),
		cmocka_unit_test_teardown(test_snmp6_and_sockstat, teardown),
		cmocka_unit_test_teardown(test_meminfo_units, teardown),
		cmocka_unit_test_teardown(test_large_file, teardown),
		cmocka_unit_test_teardown(test_pinned, teardown),
		cmocka_unit_test_teardown(test_errors, teardown),
	};

	return cmocka_run_group_tests_name("proc_file", tests, NULL, NULL);
}
