// SPDX-License-Identifier: GPL-2.0-only
/*
 * Telemetry pure logic: the schema descriptor and what is generated from
 * it (src/lib/telemetry/telemetry_schema.c), and the /proc parsers the sampler uses
 * (src/lib/telemetry/telemetry_proc.c), on hand-written cases, on real /proc files
 * (telemetry_proc_snapshot.h) and on random bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "telemetry/telemetry_schema.h"
#include "telemetry_proc_snapshot.h"
#include "unit.h"

/* ---- schema ------------------------------------------------------------- */

static const struct bpftune_tcol demo_cols[] = {
	{ "a", BPFTUNE_TCOL_INTEGER, 0, "an int", NULL, 0, NULL },
	{ "b_2", BPFTUNE_TCOL_TEXT, BPFTUNE_TCOL_NOT_NULL, "text", NULL, 0, NULL },
	{ "c", BPFTUNE_TCOL_REAL, 0, "a real", NULL, 0, NULL },
};

static const struct bpftune_ttable demo = {
	.name = "demo", .flags = 0, .doc = "demo", .cols = demo_cols, .num_cols = 3,
};

static const struct bpftune_ttable demo_common = {
	.name = "demo", .flags = BPFTUNE_TT_COMMON, .doc = "demo",
	.cols = demo_cols, .num_cols = 1,
};

static void test_ddl_exact(void **state)
{
	char buf[512];
	int n;

	(void)state;
	n = bpftune_telemetry_ddl(&demo, buf, sizeof(buf));
	assert_string_equal(buf, "CREATE TABLE IF NOT EXISTS demo (a INTEGER, b_2 TEXT NOT NULL, c REAL)");
	assert_int_equal(n, strlen(buf));
	n = bpftune_telemetry_ddl(&demo_common, buf, sizeof(buf));
	assert_string_equal(buf, "CREATE TABLE IF NOT EXISTS demo (run_id TEXT NOT NULL, "
			    "host_id TEXT NOT NULL, seq INTEGER NOT NULL, "
			    "ts_uptime_us INTEGER NOT NULL, a INTEGER)");
	assert_int_equal(n, strlen(buf));
}

static void test_insert_exact(void **state)
{
	char buf[512];

	(void)state;
	assert_true(bpftune_telemetry_insert_sql(&demo, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "INSERT INTO demo (a, b_2, c) VALUES (?, ?, ?)");
	assert_true(bpftune_telemetry_insert_sql(&demo_common, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "INSERT INTO demo (run_id, host_id, seq, ts_uptime_us, a) "
			    "VALUES (?, ?, ?, ?, ?)");
}

/* every length short of the full statement fails cleanly, never overflows */
static void test_generate_short_buffers(void **state)
{
	char full[512], buf[512];
	int n, len;

	(void)state;
	n = bpftune_telemetry_ddl(&demo_common, full, sizeof(full));
	for (len = 0; len <= n; len++) {
		memset(buf, 'X', sizeof(buf));
		assert_int_equal(bpftune_telemetry_ddl(&demo_common, buf, len), -ENOSPC);
		assert_int_equal(buf[len], 'X');
	}
	assert_int_equal(bpftune_telemetry_ddl(&demo_common, buf, n + 1), n);
	n = bpftune_telemetry_insert_sql(&demo_common, full, sizeof(full));
	for (len = 0; len <= n; len++)
		assert_int_equal(bpftune_telemetry_insert_sql(&demo_common, buf, len), -ENOSPC);
}

static void test_bad_identifiers_refused(void **state)
{
	static const struct bpftune_tcol bad_cols[] = {
		{ "x; DROP TABLE runs", BPFTUNE_TCOL_INTEGER, 0, "", NULL, 0, NULL },
	};
	static const struct bpftune_ttable bad_col = {
		.name = "ok", .cols = bad_cols, .num_cols = 1,
	};
	static const struct bpftune_ttable bad_name = {
		.name = "Runs", .cols = demo_cols, .num_cols = 1,
	};
	static const struct bpftune_ttable empty = { .name = "empty" };
	char buf[256];

	(void)state;
	assert_int_equal(bpftune_telemetry_ddl(&bad_col, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(bpftune_telemetry_insert_sql(&bad_col, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(bpftune_telemetry_ddl(&bad_name, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(bpftune_telemetry_ddl(&empty, buf, sizeof(buf)), -EINVAL);
}

/* The real tables: names unique, statements generate, columns consistent. */
static void test_real_schema_consistent(void **state)
{
	char ddl[16384], ins[16384];
	unsigned int i, j, k, placeholders;

	(void)state;
	for (i = 0; i < BPFTUNE_T_MAX; i++) {
		const struct bpftune_ttable *t = &bpftune_telemetry_tables[i];
		unsigned int n = bpftune_ttable_num_cols(t);

		assert_non_null(t->name);
		assert_non_null(t->doc);
		for (j = 0; j < i; j++)
			assert_string_not_equal(t->name, bpftune_telemetry_tables[j].name);
		assert_true(bpftune_telemetry_ddl(t, ddl, sizeof(ddl)) > 0);
		assert_true(bpftune_telemetry_insert_sql(t, ins, sizeof(ins)) > 0);
		for (placeholders = 0, k = 0; ins[k]; k++)
			placeholders += ins[k] == '?';
		assert_int_equal(placeholders, n);
		assert_null(bpftune_ttable_col(t, n));
		for (j = 0; j < n; j++) {
			const struct bpftune_tcol *c = bpftune_ttable_col(t, j);

			assert_non_null(c);
			assert_non_null(c->doc);
			assert_true(strlen(c->doc) > 0);
			assert_non_null(strstr(ddl, c->name));
			for (k = 0; k < j; k++)
				assert_string_not_equal(c->name, bpftune_ttable_col(t, k)->name);
			/* sample columns say where they come from, others do not */
			if (t->flags & BPFTUNE_TT_SAMPLES && j >= bpftune_telemetry_num_common_cols) {
				struct bpftune_proc_value v;

				assert_non_null(c->key);
				assert_int_not_equal(c->fmt, BPFTUNE_PROC_NONE);
				assert_true(c->flags & (BPFTUNE_TCOL_COUNTER | BPFTUNE_TCOL_GAUGE));
				/* BPF gauges and the netns are no file; the rest are */
				if (c->fmt == BPFTUNE_PROC_BPF || c->fmt == BPFTUNE_PROC_NETNS)
					assert_null(c->file);
				else
					assert_non_null(c->file);
				/* every gauge key names a gauge and an aggregate */
				if (c->fmt == BPFTUNE_PROC_BPF) {
					static const struct bpftune_gauges one = {
						.g = { [0 ... BPFTUNE_GAUGE_SLOTS - 1] = { 1, 1, 1 } },
					};

					assert_int_equal(bpftune_gauge_lookup(&one, ~0ULL, c->key, &v), 0);
					/* means are REAL columns, the rest INTEGER */
					assert_int_equal(v.real, c->type == BPFTUNE_TCOL_REAL);
				}
				/* per-netns tables start with the netns; others have none */
				assert_int_equal(c->fmt == BPFTUNE_PROC_NETNS,
						 (t->flags & BPFTUNE_TT_NETNS) &&
						 j == bpftune_telemetry_num_common_cols);
				/* machine-wide columns only make sense in per-netns tables */
				if (c->flags & BPFTUNE_TCOL_GLOBAL)
					assert_true(t->flags & BPFTUNE_TT_NETNS);
			} else {
				assert_null(c->file);
			}
		}
		/* meta alone has no run_id/seq/ts_uptime_us */
		assert_int_equal(!(t->flags & BPFTUNE_TT_COMMON), i == BPFTUNE_T_META);
	}
}

static void test_markdown_documents_every_column(void **state)
{
	char *doc = NULL, needle[128];
	size_t len = 0;
	unsigned int i, j;
	FILE *f;

	(void)state;
	f = open_memstream(&doc, &len);
	assert_non_null(f);
	assert_int_equal(bpftune_telemetry_write_markdown(f), 0);
	fclose(f);
	for (i = 0; i < BPFTUNE_T_MAX; i++) {
		const struct bpftune_ttable *t = &bpftune_telemetry_tables[i];

		snprintf(needle, sizeof(needle), "\n## %s\n", t->name);
		assert_non_null(strstr(doc, needle));
		for (j = 0; j < t->num_cols; j++) {
			snprintf(needle, sizeof(needle), "| `%s` | %s |", t->cols[j].name,
				 bpftune_tcol_type_name(t->cols[j].type));
			assert_non_null(strstr(doc, needle));
		}
	}
	free(doc);
}

/* ---- /proc parsers -------------------------------------------------------- */

static int64_t lookup_int(enum bpftune_proc_fmt fmt, const char *text,
			  const char *key)
{
	struct bpftune_proc_value v;

	assert_int_equal(bpftune_proc_lookup(fmt, text, key, &v), 0);
	assert_false(v.real);
	return v.i;
}

static double lookup_real(enum bpftune_proc_fmt fmt, const char *text,
			  const char *key)
{
	struct bpftune_proc_value v;

	assert_int_equal(bpftune_proc_lookup(fmt, text, key, &v), 0);
	return v.d;
}

static int lookup_err(enum bpftune_proc_fmt fmt, const char *text, const char *key)
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
	assert_int_equal(bpftune_proc_lookup(BPFTUNE_PROC_NONE, "x", "x", &v), -EINVAL);
	/* a token too long for a number is refused, not truncated */
	assert_int_equal(lookup_err(BPFTUNE_PROC_KEYVAL,
		"x 1234567890123456789012345678901234567890123456789012345678901234567890\n", "x"),
		-ENOENT);
}

/* Every sample column of the schema resolves in real /proc files. */
static void test_schema_columns_in_real_proc(void **state)
{
	unsigned int i, j, k, checked = 0;

	(void)state;
	for (i = 0; i < BPFTUNE_T_MAX; i++) {
		const struct bpftune_ttable *t = &bpftune_telemetry_tables[i];

		if (!(t->flags & BPFTUNE_TT_SAMPLES))
			continue;
		for (j = 0; j < t->num_cols; j++) {
			const struct bpftune_tcol *c = &t->cols[j];
			struct bpftune_proc_value v;
			const char *text = NULL;

			if (!c->file)
				continue;	/* BPF gauges, the netns */
			for (k = 0; k < BPFTUNE_ARRAY_SIZE(proc_snapshot); k++)
				if (!strcmp(proc_snapshot[k].path, c->file))
					text = proc_snapshot[k].text;
			if (!text)
				fail_msg("%s.%s: no snapshot of %s", t->name, c->name, c->file);
			if (bpftune_proc_lookup(c->fmt, text, c->key, &v))
				fail_msg("%s.%s: %s not found in %s", t->name, c->name,
					 c->key, c->file);
			/* REAL columns are fractions, INTEGER ones whole numbers */
			if (c->type == BPFTUNE_TCOL_INTEGER)
				assert_false(v.real);
			checked++;
		}
	}
	assert_true(checked > 100);
}

/* ---- BPF-side gauges ------------------------------------------------------ */

static void test_gauge_lookup(void **state)
{
	struct bpftune_gauges g = { 0 };
	struct bpftune_proc_value v;
	uint64_t all = ~0ULL;

	(void)state;
	g.g[BPFTUNE_GAUGE_TCP_SRTT_US] = (struct bpftune_gauge){ .n = 4, .sum = 10, .max = 7 };
	g.g[BPFTUNE_GAUGE_TCP_SNDBUF_NEAR_MAX] = (struct bpftune_gauge){ .n = 3, .sum = 3, .max = 1 };
	assert_int_equal(bpftune_gauge_lookup(&g, all, "tcp_srtt_us.n", &v), 0);
	assert_false(v.real);
	assert_int_equal(v.i, 4);
	assert_int_equal(bpftune_gauge_lookup(&g, all, "tcp_srtt_us.sum", &v), 0);
	assert_int_equal(v.i, 10);
	assert_int_equal(bpftune_gauge_lookup(&g, all, "tcp_srtt_us.max", &v), 0);
	assert_int_equal(v.i, 7);
	assert_int_equal(bpftune_gauge_lookup(&g, all, "tcp_srtt_us.mean", &v), 0);
	assert_true(v.real);
	assert_true(v.d == 2.5);
	assert_int_equal(bpftune_gauge_lookup(&g, all, "tcp_sndbuf_near_max.n", &v), 0);
	assert_int_equal(v.i, 3);
	/* no observations: a count of 0, no mean or max */
	assert_int_equal(bpftune_gauge_lookup(&g, all, "tcp_rcvbuf.n", &v), 0);
	assert_int_equal(v.i, 0);
	assert_int_equal(bpftune_gauge_lookup(&g, all, "tcp_rcvbuf.mean", &v), -ENOENT);
	assert_int_equal(bpftune_gauge_lookup(&g, all, "tcp_rcvbuf.max", &v), -ENOENT);
	/* no entry for the netns at all: the same */
	assert_int_equal(bpftune_gauge_lookup(NULL, all, "tcp_srtt_us.n", &v), 0);
	assert_int_equal(v.i, 0);
	assert_int_equal(bpftune_gauge_lookup(NULL, all, "tcp_srtt_us.max", &v), -ENOENT);
	/* a gauge nobody feeds is NULL, whatever the map holds */
	assert_int_equal(bpftune_gauge_lookup(&g, BPFTUNE_GAUGE_BIT(BPFTUNE_GAUGE_TCP_RCVBUF),
					      "tcp_srtt_us.n", &v), -ENOENT);
	assert_int_equal(bpftune_gauge_lookup(&g, 0, "tcp_srtt_us.mean", &v), -ENOENT);
	/* malformed keys */
	assert_int_equal(bpftune_gauge_lookup(&g, all, "tcp_srtt_us", &v), -EINVAL);
	assert_int_equal(bpftune_gauge_lookup(&g, all, "tcp_srtt_us.avg", &v), -EINVAL);
	assert_int_equal(bpftune_gauge_lookup(&g, all, "tcp_srtt.n", &v), -EINVAL);
	assert_int_equal(bpftune_gauge_lookup(&g, all, "tcp_srtt_us_x.n", &v), -EINVAL);
	assert_int_equal(bpftune_gauge_lookup(&g, all, ".n", &v), -EINVAL);
	assert_int_equal(bpftune_gauge_lookup(&g, all, "tcp_srtt_us.", &v), -EINVAL);
	assert_int_equal(bpftune_gauge_lookup(&g, all, NULL, &v), -EINVAL);
	/* every gauge has a name, and a schema column reads it */
	for (unsigned int id = 0; id < BPFTUNE_NUM_GAUGES; id++) {
		char key[64];

		assert_non_null(bpftune_gauge_names[id]);
		snprintf(key, sizeof(key), "%s.n", bpftune_gauge_names[id]);
		assert_int_equal(bpftune_gauge_lookup(NULL, all, key, &v), 0);
	}
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
		enum bpftune_proc_fmt fmt;

		assert_non_null(buf);
		for (i = 0; i < len; i++)
			buf[i] = alphabet[unit_rand(&seed) % (sizeof(alphabet) - 1)];
		buf[len] = '\0';
		for (fmt = BPFTUNE_PROC_NONE; fmt <= BPFTUNE_PROC_LOADAVG; fmt++) {
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
		cmocka_unit_test(test_ddl_exact),
		cmocka_unit_test(test_insert_exact),
		cmocka_unit_test(test_generate_short_buffers),
		cmocka_unit_test(test_bad_identifiers_refused),
		cmocka_unit_test(test_real_schema_consistent),
		cmocka_unit_test(test_markdown_documents_every_column),
		cmocka_unit_test(test_snmp),
		cmocka_unit_test(test_sockstat),
		cmocka_unit_test(test_keyval),
		cmocka_unit_test(test_psi),
		cmocka_unit_test(test_stathdr),
		cmocka_unit_test(test_softnet),
		cmocka_unit_test(test_netdev),
		cmocka_unit_test(test_loadavg),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_schema_columns_in_real_proc),
		cmocka_unit_test(test_parsers_random_input),
		cmocka_unit_test(test_gauge_lookup),
		cmocka_unit_test(test_file_kind),
		cmocka_unit_test(test_prune_plan),
	};

	return cmocka_run_group_tests_name("telemetry", tests, NULL, NULL);
}
