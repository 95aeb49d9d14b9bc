// SPDX-License-Identifier: GPL-2.0-only
/*
 * Telemetry pure logic: the /proc parsers and gauge aggregates the
 * sampler uses (src/lib/telemetry/telemetry_proc.c), on hand-written
 * cases, on real /proc files (telemetry_proc_snapshot.h) and on random
 * bytes, every declared /proc column against those files, and the
 * retention plan.  Declarations: test_telemetry_decl.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "telemetry/telemetry_schema.h"
#include "telemetry_proc_snapshot.h"
#include "declarers.h"
#include "unit.h"

/* ---- /proc parsers -------------------------------------------------------- */

static int64_t lookup_int(enum bpftune_proc_format fmt, const char *text,
			  const char *key)
{
	struct bpftune_proc_value v;

	assert_int_equal(bpftune_proc_lookup(fmt, text, key, &v), 0);
	assert_false(v.real);
	return v.i;
}

static double lookup_real(enum bpftune_proc_format fmt, const char *text,
			  const char *key)
{
	struct bpftune_proc_value v;

	assert_int_equal(bpftune_proc_lookup(fmt, text, key, &v), 0);
	return v.d;
}

static int lookup_err(enum bpftune_proc_format fmt, const char *text, const char *key)
{
	struct bpftune_proc_value v;

	return bpftune_proc_lookup(fmt, text, key, &v);
}

static void test_snmp(void **state)
{
	const char *t =
		"Ip: Forwarding DefaultTTL ReasmFails\n"
		"Ip: 1 64 7\n"
		"Tcp: RtoAlgorithm MaxConn ActiveOpens RetransSegs\n"
		"Tcp: 1 -1 35 18446744\n"
		"Udp: InDatagrams NoPorts\n"
		"Udp: 56 0";		/* no final newline */

	(void)state;
	assert_int_equal(lookup_int(BPFTUNE_PROC_SNMP, t, "Ip.ReasmFails"), 7);
	assert_int_equal(lookup_int(BPFTUNE_PROC_SNMP, t, "Tcp.MaxConn"), -1);
	assert_int_equal(lookup_int(BPFTUNE_PROC_SNMP, t, "Tcp.RetransSegs"), 18446744);
	assert_int_equal(lookup_int(BPFTUNE_PROC_SNMP, t, "Udp.NoPorts"), 0);
	assert_int_equal(lookup_int(BPFTUNE_PROC_SNMP, t, "Tcp.RtoAlgorithm"), 1);
	/* a field of another section, a missing section, a prefix of a name */
	assert_int_equal(lookup_err(BPFTUNE_PROC_SNMP, t, "Ip.RetransSegs"), -ENOENT);
	assert_int_equal(lookup_err(BPFTUNE_PROC_SNMP, t, "Icmp.InMsgs"), -ENOENT);
	assert_int_equal(lookup_err(BPFTUNE_PROC_SNMP, t, "Tcp.Retrans"), -ENOENT);
	assert_int_equal(lookup_err(BPFTUNE_PROC_SNMP, t, "Tc.ActiveOpens"), -ENOENT);
	assert_int_equal(lookup_err(BPFTUNE_PROC_SNMP, t, "Tcp"), -EINVAL);
	assert_int_equal(lookup_err(BPFTUNE_PROC_SNMP, t, ".x"), -EINVAL);
	assert_int_equal(lookup_err(BPFTUNE_PROC_SNMP, t, "Tcp."), -EINVAL);
	/* value line missing or short */
	assert_int_equal(lookup_err(BPFTUNE_PROC_SNMP, "Tcp: A B\n", "Tcp.B"), -EINVAL);
	assert_int_equal(lookup_err(BPFTUNE_PROC_SNMP, "Tcp: A B\nTcp: 1\n", "Tcp.B"), -EINVAL);
	assert_int_equal(lookup_err(BPFTUNE_PROC_SNMP, "Tcp: A B\nTcp: 1 x\n", "Tcp.B"), -EINVAL);
	assert_int_equal(lookup_err(BPFTUNE_PROC_SNMP, "", "Tcp.B"), -ENOENT);
}

static void test_sockstat(void **state)
{
	const char *t =
		"sockets: used 14\n"
		"TCP: inuse 1 orphan 0 tw 4 alloc 1 mem 162\n"
		"UDP: inuse 0 mem 3\n"
		"FRAG: inuse 2 memory 4096\n";

	(void)state;
	assert_int_equal(lookup_int(BPFTUNE_PROC_SOCKSTAT, t, "TCP.mem"), 162);
	assert_int_equal(lookup_int(BPFTUNE_PROC_SOCKSTAT, t, "TCP.tw"), 4);
	assert_int_equal(lookup_int(BPFTUNE_PROC_SOCKSTAT, t, "UDP.mem"), 3);
	assert_int_equal(lookup_int(BPFTUNE_PROC_SOCKSTAT, t, "FRAG.memory"), 4096);
	assert_int_equal(lookup_int(BPFTUNE_PROC_SOCKSTAT, t, "sockets.used"), 14);
	/* TCP6 must not match TCP, mem must not match memory */
	assert_int_equal(lookup_err(BPFTUNE_PROC_SOCKSTAT, t, "TCP6.inuse"), -ENOENT);
	assert_int_equal(lookup_err(BPFTUNE_PROC_SOCKSTAT, t, "FRAG.mem"), -ENOENT);
	assert_int_equal(lookup_err(BPFTUNE_PROC_SOCKSTAT, "TCP: inuse\n", "TCP.inuse"), -ENOENT);
}

static void test_keyval(void **state)
{
	const char *meminfo =
		"MemTotal:       24684156 kB\n"
		"MemFree:        22000000 kB\n"
		"Active(anon):      1000 kB\n"
		"HugePages_Total:       0\n";
	const char *stat =
		"cpu  51889 0 16563 107943 939 0 367 145 0 0\n"
		"cpu0 26606 0 7627 54557 146 0 146 69 0 0\n"
		"intr 3362 0 9 0\n"
		"ctxt 5582390\n";

	(void)state;
	assert_int_equal(lookup_int(BPFTUNE_PROC_KEYVAL, meminfo, "MemTotal"), 24684156);
	assert_int_equal(lookup_int(BPFTUNE_PROC_KEYVAL, meminfo, "Active(anon)"), 1000);
	assert_int_equal(lookup_int(BPFTUNE_PROC_KEYVAL, meminfo, "HugePages_Total"), 0);
	assert_int_equal(lookup_err(BPFTUNE_PROC_KEYVAL, meminfo, "Mem"), -ENOENT);
	/* "kB" is skipped: there is no second number */
	assert_int_equal(lookup_err(BPFTUNE_PROC_KEYVAL, meminfo, "MemTotal#1"), -ENOENT);
	assert_int_equal(lookup_int(BPFTUNE_PROC_KEYVAL, stat, "cpu"), 51889);
	assert_int_equal(lookup_int(BPFTUNE_PROC_KEYVAL, stat, "cpu#2"), 16563);
	assert_int_equal(lookup_int(BPFTUNE_PROC_KEYVAL, stat, "cpu#7"), 145);
	assert_int_equal(lookup_int(BPFTUNE_PROC_KEYVAL, stat, "cpu0#3"), 54557);
	assert_int_equal(lookup_int(BPFTUNE_PROC_KEYVAL, stat, "intr"), 3362);
	assert_int_equal(lookup_int(BPFTUNE_PROC_KEYVAL, stat, "ctxt"), 5582390);
	assert_int_equal(lookup_err(BPFTUNE_PROC_KEYVAL, stat, "cpu#10"), -ENOENT);
	assert_int_equal(lookup_err(BPFTUNE_PROC_KEYVAL, stat, "cpu#-1"), -EINVAL);
	assert_int_equal(lookup_err(BPFTUNE_PROC_KEYVAL, stat, "cpu#"), -EINVAL);
	assert_int_equal(lookup_err(BPFTUNE_PROC_KEYVAL, stat, "#1"), -EINVAL);
	assert_int_equal(lookup_int(BPFTUNE_PROC_KEYVAL, "Udp6InDatagrams   \t 9\n", "Udp6InDatagrams"), 9);
}

static void test_psi(void **state)
{
	const char *t =
		"some avg10=7.50 avg60=22.86 avg300=18.33 total=101954346\n"
		"full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";

	(void)state;
	assert_true(lookup_real(BPFTUNE_PROC_PSI, t, "some.avg10") == 7.50);
	assert_true(lookup_real(BPFTUNE_PROC_PSI, t, "some.avg300") == 18.33);
	assert_int_equal(lookup_int(BPFTUNE_PROC_PSI, t, "some.total"), 101954346);
	assert_int_equal(lookup_int(BPFTUNE_PROC_PSI, t, "full.total"), 0);
	assert_int_equal(lookup_err(BPFTUNE_PROC_PSI, t, "some.avg"), -ENOENT);
	assert_int_equal(lookup_err(BPFTUNE_PROC_PSI, t, "half.avg10"), -ENOENT);
	/* older kernels: no "full" line for cpu */
	assert_int_equal(lookup_err(BPFTUNE_PROC_PSI, "some avg10=1.00 total=5\n", "full.avg10"),
			 -ENOENT);
	assert_int_equal(lookup_err(BPFTUNE_PROC_PSI, "some avg10=x total=5\n", "some.avg10"),
			 -EINVAL);
}

static void test_stathdr(void **state)
{
	const char *t =
		"entries  allocs   destroys table_fulls\n"
		"00000005 00000001 00000002 0000000a\n"
		"00000005 00000010 00000000 00000001\n";

	(void)state;
	/* summed over CPUs, but entries is the table size on every row */
	assert_int_equal(lookup_int(BPFTUNE_PROC_STATHDR, t, "allocs"), 0x11);
	assert_int_equal(lookup_int(BPFTUNE_PROC_STATHDR, t, "table_fulls"), 11);
	assert_int_equal(lookup_int(BPFTUNE_PROC_STATHDR, t, "entries"), 5);
	assert_int_equal(lookup_err(BPFTUNE_PROC_STATHDR, t, "hits"), -ENOENT);
	assert_int_equal(lookup_err(BPFTUNE_PROC_STATHDR, "entries allocs\n", "allocs"), -ENOENT);
	assert_int_equal(lookup_err(BPFTUNE_PROC_STATHDR, "entries allocs\n1 zz\n", "allocs"),
			 -EINVAL);
	assert_int_equal(lookup_err(BPFTUNE_PROC_STATHDR, "entries allocs\n1 -2\n", "allocs"),
			 -EINVAL);
}

static void test_softnet(void **state)
{
	const char *t =
		"00020aa1 00000003 00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000002 00000000 00000004\n"
		"0001cf26 00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000001 00000000\n";

	(void)state;
	assert_int_equal(lookup_int(BPFTUNE_PROC_SOFTNET, t, "0"), 0x20aa1 + 0x1cf26);
	assert_int_equal(lookup_int(BPFTUNE_PROC_SOFTNET, t, "1"), 4);
	assert_int_equal(lookup_int(BPFTUNE_PROC_SOFTNET, t, "9"), 3);
	/* a column only some rows have (older kernels print fewer) */
	assert_int_equal(lookup_int(BPFTUNE_PROC_SOFTNET, t, "11"), 4);
	assert_int_equal(lookup_err(BPFTUNE_PROC_SOFTNET, t, "12"), -ENOENT);
	assert_int_equal(lookup_err(BPFTUNE_PROC_SOFTNET, t, "x"), -EINVAL);
	assert_int_equal(lookup_err(BPFTUNE_PROC_SOFTNET, t, "-1"), -EINVAL);
}

static void test_netdev(void **state)
{
	const char *t =
		"Inter-|   Receive                                                |  Transmit\n"
		" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
		"    lo:    7203     101    0    0    0     0          0         0     7203     101    0    0    0     0       0          0\n"
		"  eth0:1000 10 1 2 3 4 5 6 2000 20 7 8 9 10 11 12\n"
		"veth-a: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n";

	(void)state;
	assert_int_equal(lookup_int(BPFTUNE_PROC_NETDEV, t, "rx_bytes"), 1001);
	assert_int_equal(lookup_int(BPFTUNE_PROC_NETDEV, t, "rx_drop"), 2);
	assert_int_equal(lookup_int(BPFTUNE_PROC_NETDEV, t, "tx_bytes"), 2001);
	assert_int_equal(lookup_int(BPFTUNE_PROC_NETDEV, t, "tx_carrier"), 11);
	assert_int_equal(lookup_int(BPFTUNE_PROC_NETDEV, t, "tx_compressed"), 12);
	assert_int_equal(lookup_err(BPFTUNE_PROC_NETDEV, t, "rx_nothing"), -EINVAL);
	/* only lo: zero, not missing */
	assert_int_equal(lookup_int(BPFTUNE_PROC_NETDEV, "lo: 5 5 5 5 5 5 5 5 5 5 5 5 5 5 5 5\n",
				    "rx_bytes"), 0);
	assert_int_equal(lookup_err(BPFTUNE_PROC_NETDEV, "eth0: 1 2\n", "tx_bytes"), -EINVAL);
}

static void test_loadavg(void **state)
{
	const char *t = "2.29 1.71 0.84 4/106 2736\n";

	(void)state;
	assert_true(lookup_real(BPFTUNE_PROC_LOADAVG, t, "load1") == 2.29);
	assert_true(lookup_real(BPFTUNE_PROC_LOADAVG, t, "load15") == 0.84);
	assert_int_equal(lookup_int(BPFTUNE_PROC_LOADAVG, t, "runnable"), 4);
	assert_int_equal(lookup_int(BPFTUNE_PROC_LOADAVG, t, "threads"), 106);
	assert_int_equal(lookup_err(BPFTUNE_PROC_LOADAVG, t, "pid"), -EINVAL);
	assert_int_equal(lookup_err(BPFTUNE_PROC_LOADAVG, "1 2 3 4 5\n", "threads"), -EINVAL);
	assert_int_equal(lookup_err(BPFTUNE_PROC_LOADAVG, "1 2\n", "load15"), -EINVAL);
	assert_int_equal(lookup_err(BPFTUNE_PROC_LOADAVG, "", "load1"), -ENOENT);
}

static void test_bad_arguments(void **state)
{
	struct bpftune_proc_value v;

	(void)state;
	assert_int_equal(bpftune_proc_lookup(BPFTUNE_PROC_SNMP, NULL, "Tcp.A", &v), -EINVAL);
	assert_int_equal(bpftune_proc_lookup(BPFTUNE_PROC_SNMP, "", NULL, &v), -EINVAL);
	assert_int_equal(bpftune_proc_lookup(BPFTUNE_PROC_SNMP, "", "", &v), -EINVAL);
	assert_int_equal(bpftune_proc_lookup(0, "x", "x", &v), -EINVAL);
	assert_int_equal(bpftune_proc_lookup(BPFTUNE_PROC_LOADAVG + 1, "x", "x", &v), -EINVAL);
	/* a token too long for a number is refused, not truncated */
	assert_int_equal(lookup_err(BPFTUNE_PROC_KEYVAL,
		"x 1234567890123456789012345678901234567890123456789012345678901234567890\n", "x"),
		-ENOENT);
	/* a real beyond int64 saturates; inf and nan are no numbers here */
	assert_int_equal(bpftune_proc_lookup(BPFTUNE_PROC_KEYVAL, "x 1e300\n", "x", &v), 0);
	assert_true(v.real && v.i == INT64_MAX);
	assert_int_equal(bpftune_proc_lookup(BPFTUNE_PROC_KEYVAL, "x -1e300\n", "x", &v), 0);
	assert_true(v.real && v.i == INT64_MIN);
	assert_int_equal(lookup_int(BPFTUNE_PROC_KEYVAL, "x inf nan 5\n", "x"), 5);
	assert_int_equal(lookup_err(BPFTUNE_PROC_LOADAVG, "0.1 inf 0.3 1/2 3\n", "load5"), -EINVAL);
}

/* Every /proc column of a sampled table resolves in real /proc files. */
static unsigned int table_in_real_proc(const struct bpftune_table_desc *t)
{
	unsigned int j, k, checked = 0;

	for (j = 0; j < t->num_cols; j++) {
		const struct bpftune_col_desc *c = &t->cols[j];
		struct bpftune_proc_value v;
		const char *text = NULL;

		if (c->source != BPFTUNE_SRC_PROC)
			continue;	/* BPF gauges, rows */
		for (k = 0; k < BPFTUNE_ARRAY_SIZE(proc_snapshot); k++)
			if (!strcmp(proc_snapshot[k].path, c->proc.file))
				text = proc_snapshot[k].text;
		if (!text)
			fail_msg("%s.%s: no snapshot of %s", t->name, c->name, c->proc.file);
		if (bpftune_proc_lookup(c->proc.format, text, c->proc.key, &v))
			fail_msg("%s.%s: %s not found in %s", t->name, c->name,
				 c->proc.key, c->proc.file);
		/* REAL columns are fractions, INTEGER ones whole numbers */
		if (c->type == BPFTUNE_COL_INTEGER)
			assert_false(v.real);
		checked++;
	}
	return checked;
}

static void test_declared_columns_in_real_proc(void **state)
{
	unsigned int i, j, checked = 0;

	(void)state;
	for (i = 0; i < BPFTUNE_T_MAX; i++)
		checked += table_in_real_proc(&bpftune_core_tables[i]);
	for (i = 0; i < UNIT_NUM_DECLARERS; i++)
		for (j = 0; j < unit_declarers[i].desc->num_tables; j++)
			checked += table_in_real_proc(&unit_declarers[i].desc->tables[j]);
	assert_true(checked > 100);
}

/* ---- BPF-side gauges ------------------------------------------------------ */

static void test_gauge_value(void **state)
{
	const struct bpftune_gauge g = { .n = 4, .sum = 10, .max = 7 };
	const struct bpftune_gauge none = { 0 };
	const struct bpftune_gauge huge = { .n = 1, .sum = UINT64_MAX, .max = UINT64_MAX };
	struct bpftune_proc_value v;

	(void)state;
	assert_int_equal(bpftune_gauge_value(&g, BPFTUNE_GAUGE_N, &v), 0);
	assert_false(v.real);
	assert_int_equal(v.i, 4);
	assert_int_equal(bpftune_gauge_value(&g, BPFTUNE_GAUGE_SUM, &v), 0);
	assert_int_equal(v.i, 10);
	assert_int_equal(bpftune_gauge_value(&g, BPFTUNE_GAUGE_MAX, &v), 0);
	assert_int_equal(v.i, 7);
	assert_int_equal(bpftune_gauge_value(&g, BPFTUNE_GAUGE_MEAN, &v), 0);
	assert_true(v.real);
	assert_true(v.d == 2.5);
	/* no observation: a count and sum of 0, no mean or max (NULL) */
	assert_int_equal(bpftune_gauge_value(&none, BPFTUNE_GAUGE_N, &v), 0);
	assert_int_equal(v.i, 0);
	assert_int_equal(bpftune_gauge_value(&none, BPFTUNE_GAUGE_SUM, &v), 0);
	assert_int_equal(v.i, 0);
	assert_int_equal(bpftune_gauge_value(&none, BPFTUNE_GAUGE_MEAN, &v), -ENOENT);
	assert_int_equal(bpftune_gauge_value(&none, BPFTUNE_GAUGE_MAX, &v), -ENOENT);
	/* no entry for the netns at all: the same */
	assert_int_equal(bpftune_gauge_value(NULL, BPFTUNE_GAUGE_N, &v), 0);
	assert_int_equal(v.i, 0);
	assert_int_equal(bpftune_gauge_value(NULL, BPFTUNE_GAUGE_MAX, &v), -ENOENT);
	/* a mean beyond int64 (a sum near 2^64) saturates its integer */
	assert_int_equal(bpftune_gauge_value(&huge, BPFTUNE_GAUGE_MEAN, &v), 0);
	assert_true(v.real && v.i == INT64_MAX);
	/* an aggregate that does not exist */
	assert_int_equal(bpftune_gauge_value(&g, 0, &v), -EINVAL);
	assert_int_equal(bpftune_gauge_value(&g, BPFTUNE_GAUGE_MAX + 1, &v), -EINVAL);
	assert_int_equal(bpftune_gauge_value(&g, BPFTUNE_GAUGE_N, NULL), -EINVAL);
}

/* ---- retention -------------------------------------------------------------- */

#define RUN(stamp)	stamp "-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0.db"

static void test_file_kind(void **state)
{
	(void)state;
	assert_int_equal(bpftune_telemetry_file_kind(RUN("20240102T030405Z")), BPFTUNE_TFILE_DB);
	assert_int_equal(bpftune_telemetry_file_kind(RUN("20240102T030405Z") "-wal"), BPFTUNE_TFILE_WAL);
	assert_int_equal(bpftune_telemetry_file_kind(RUN("20240102T030405Z") "-shm"), BPFTUNE_TFILE_SHM);
	/* not ours: other names, near misses */
	assert_int_equal(bpftune_telemetry_file_kind("host-id"), -1);
	assert_int_equal(bpftune_telemetry_file_kind("notes.db"), -1);
	assert_int_equal(bpftune_telemetry_file_kind(RUN("20240102T030405Z") "-journal"), -1);
	assert_int_equal(bpftune_telemetry_file_kind(RUN("20240102T030405Z") ".bak"), -1);
	assert_int_equal(bpftune_telemetry_file_kind(RUN("2024010XT030405Z")), -1);
	assert_int_equal(bpftune_telemetry_file_kind(RUN("20240102-030405Z")), -1);
	assert_int_equal(bpftune_telemetry_file_kind(RUN("20240102T030405")), -1);
	assert_int_equal(bpftune_telemetry_file_kind("20240102T030405Z-0F1E2D3C-4b5a-6978-8796-a5b4c3d2e1f0.db"), -1);
	assert_int_equal(bpftune_telemetry_file_kind("20240102T030405Z-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f.db"), -1);
	assert_int_equal(bpftune_telemetry_file_kind("20240102T030405Z-0f1e2d3c-4b5a-6978-8796a5b4c3d2e1f0.db"), -1);
	assert_int_equal(bpftune_telemetry_file_kind("20240102T030405Z-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0.d"), -1);
	assert_int_equal(bpftune_telemetry_file_kind(""), -1);
	assert_int_equal(bpftune_telemetry_file_kind(NULL), -1);
}

static unsigned int plan(struct bpftune_tfile *f, unsigned int n, unsigned int keep,
			 uint64_t max, const char *expect_removed)
{
	char got[64] = "";
	unsigned int i, r;

	r = bpftune_telemetry_prune_plan(f, n, keep, max);
	for (i = 0; i < n; i++)
		if (f[i].remove)
			got[strlen(got)] = f[i].name[7];	/* the day's last digit */
	assert_string_equal(got, expect_removed);
	return r;
}

static void test_prune_plan(void **state)
{
	/* given out of order; the name (start time) says which is oldest */
	struct bpftune_tfile f[] = {
		{ .name = RUN("20240103T000000Z"), .bytes = 300 },
		{ .name = RUN("20240101T000000Z"), .bytes = 100 },
		{ .name = RUN("20240105T000000Z"), .bytes = 500 },
		{ .name = RUN("20240102T000000Z"), .bytes = 200 },
		{ .name = RUN("20240104T000000Z"), .bytes = 400 },
	};
	const unsigned int n = BPFTUNE_ARRAY_SIZE(f);

	(void)state;
	/* no limits: nothing */
	assert_int_equal(plan(f, n, 0, 0, ""), 0);
	/* keep 3 with the new run: 2 old ones stay */
	assert_int_equal(plan(f, n, 3, 0, "123"), 3);
	assert_string_equal(f[0].name, RUN("20240101T000000Z"));
	/* keep more than there are: nothing; keep exactly n + 1: nothing */
	assert_int_equal(plan(f, n, 100, 0, ""), 0);
	assert_int_equal(plan(f, n, n + 1, 0, ""), 0);
	assert_int_equal(plan(f, n, n, 0, "1"), 1);
	/* keep 1: only the new run */
	assert_int_equal(plan(f, n, 1, 0, "12345"), 5);
	/* size: 1500 in all; at most 900 -> drop 100, 200, 300 */
	assert_int_equal(plan(f, n, 0, 900, "123"), 3);
	assert_int_equal(plan(f, n, 0, 1500, ""), 0);
	assert_int_equal(plan(f, n, 0, 1499, "1"), 1);
	/* both: whichever removes more */
	assert_int_equal(plan(f, n, 5, 1300, "12"), 2);
	assert_int_equal(plan(f, n, 3, 1400, "123"), 3);
	/* a run in use is never removed, but still counts: newer ones go */
	f[0].in_use = true;	/* 0101 after sorting */
	assert_int_equal(plan(f, n, 4, 0, "23"), 2);
	assert_int_equal(plan(f, n, 3, 0, "234"), 3);
	assert_int_equal(plan(f, n, 0, 300, "2345"), 4);
	/* nothing to remove: an empty directory */
	assert_int_equal(bpftune_telemetry_prune_plan(f, 0, 1, 1), 0);
	/* no files at all: the caller has no array (UBSan: qsort(NULL, 0)) */
	assert_int_equal(bpftune_telemetry_prune_plan(NULL, 0, 1, 1), 0);
}

/* Random bytes and random keys: no crash, no read past the end (ASan). */
static void test_parsers_random_input(void **state)
{
	static const char alphabet[] = "0123456789abcdefx:.#=/| \t\n-TcpIUDlo";
	static const char *const keys[] = {
		"Tcp.a", "a", "a#1", "some.avg10", "0", "entries", "rx_bytes",
		"load1", "threads", "1#", "x.y", "#",
	};
	uint64_t seed = 0x7e1e;
	unsigned int iter;

	(void)state;
	for (iter = 0; iter < 20000; iter++) {
		size_t len = unit_rand(&seed) % 200, i;
		char *buf = malloc(len + 1);
		struct bpftune_proc_value v;
		enum bpftune_proc_format fmt;

		assert_non_null(buf);
		for (i = 0; i < len; i++)
			buf[i] = alphabet[unit_rand(&seed) % (sizeof(alphabet) - 1)];
		buf[len] = '\0';
		for (fmt = 0; fmt <= BPFTUNE_PROC_LOADAVG; fmt++) {
			int err = bpftune_proc_lookup(fmt, buf,
						      keys[unit_rand(&seed) % BPFTUNE_ARRAY_SIZE(keys)],
						      &v);

			assert_true(err == 0 || err == -ENOENT || err == -EINVAL);
		}
		free(buf);
	}
}

int unit_run_telemetry(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snmp),
		cmocka_unit_test(test_sockstat),
		cmocka_unit_test(test_keyval),
		cmocka_unit_test(test_psi),
		cmocka_unit_test(test_stathdr),
		cmocka_unit_test(test_softnet),
		cmocka_unit_test(test_netdev),
		cmocka_unit_test(test_loadavg),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_declared_columns_in_real_proc),
		cmocka_unit_test(test_parsers_random_input),
		cmocka_unit_test(test_gauge_value),
		cmocka_unit_test(test_file_kind),
		cmocka_unit_test(test_prune_plan),
	};

	return cmocka_run_group_tests_name("telemetry", tests, NULL, NULL);
}
