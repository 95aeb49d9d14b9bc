// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tuner kit's readers: the pure parsers of /proc/net/protocols,
 * /proc/pressure/cpu and /proc/schedstat (src/lib/telemetry/telemetry_proc.c), and
 * the rtnetlink walkers (src/lib/kit/netlink.c) against the running
 * kernel, in the test's own netns (event NULL): its loopback device,
 * 127.0.0.1/8 and the ARP table, whose thresholds must read as
 * /proc/sys shows them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <net/if.h>
#include <linux/rtnetlink.h>
#include <bpftune/netlink.h>

#include "unit.h"
#include "kit/proc_file.h"

static const char protocols[] =
	"protocol  size sockets  memory press maxhdr  slab module     cl co di ac io in de sh ss gs se re sp bi br ha uh gp em\n"
	"UDPv6     1344      2       6   NI       0   yes  kernel      y  y  y  n  y  y  y  n  y  y  y  y  y  n  n  y  y  y  n\n"
	"TCPv6     2552      4      15   no     320   yes  kernel      y  y  y  y  y  y  y  y  y  y  y  y  y  n  y  y  y  y  y\n"
	"UDP       1152      3       6   NI       0   yes  kernel      y  y  y  n  y  y  y  n  y  y  y  y  y  n  n  y  y  y  n\n"
	"TCP       2368     12      15   yes    320   yes  kernel      y  y  y  y  y  y  y  y  y  y  y  y  y  n  y  y  y  y  y\n";

static void test_protocols(void **state)
{
	bool pressure = false;
	long pages = 0;

	(void)state;
	assert_int_equal(bpftune_protocols_parse(protocols, "TCP", &pages, &pressure), 0);
	assert_int_equal(pages, 15);
	assert_true(pressure);
	/* "UDP" is not "UDPv6"; "NI" (not implemented) is no pressure */
	assert_int_equal(bpftune_protocols_parse(protocols, "UDP", &pages, &pressure), 0);
	assert_int_equal(pages, 6);
	assert_false(pressure);
	assert_int_equal(bpftune_protocols_parse(protocols, "SCTP", &pages, &pressure),
			 -ENOENT);
	assert_int_equal(bpftune_protocols_parse("", "TCP", &pages, &pressure), -ENOENT);
	assert_int_equal(bpftune_protocols_parse("TCP 1 2", "TCP", &pages, &pressure),
			 -ENOENT);
}

/* the kit's CPU wait: the "some" line's total (bpftune_proc_cpu_wait) */
static int psi_some_total(const char *text, double *total)
{
	struct bpftune_proc_value v;
	int err = bpftune_proc_lookup(BPFTUNE_PROC_PSI, text, "some.total", &v);

	if (!err)
		*total = v.d;
	return err;
}

static void test_psi(void **state)
{
	double total = 0;

	(void)state;
	assert_int_equal(psi_some_total(
		"some avg10=0.12 avg60=0.05 avg300=0.01 total=123456\n"
		"full avg10=0.00 avg60=0.00 avg300=0.00 total=99\n", &total), 0);
	assert_true(total == 123456);
	assert_int_equal(psi_some_total("full avg10=0.00 avg60=0.00 avg300=0.00 total=99\n",
					&total), -ENOENT);
	assert_int_equal(psi_some_total("", &total), -ENOENT);
}

static void test_schedstat(void **state)
{
	double total = 0;

	(void)state;
	/* the 8th field of each cpuN line: time spent waiting to run (ns) */
	assert_int_equal(bpftune_schedstat_wait(
		"version 15\ntimestamp 4295\n"
		"cpu0 0 0 0 0 0 0 111 1000 7\n"
		"domain0 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
		"cpu1 0 0 0 0 0 0 222 2500 9\n", &total), 0);
	assert_true(total == 3500);
	assert_int_equal(bpftune_schedstat_wait("version 15\ncpu0 1 2\n", &total), -ENOENT);
	/* "cpu" alone is not a CPU line */
	assert_int_equal(bpftune_schedstat_wait("cpu 1 2 3 4 5 6 7 8 9\n", &total), -ENOENT);
}

/* ---- rtnetlink --------------------------------------------------------- */

struct found {
	int lo_index;
	bool lo_loopback;
	bool lo_addr;
	unsigned int calls;
};

static int see_link(const struct bpftune_link *l, void *ctx)
{
	struct found *f = ctx;

	if (!strcmp(l->name, "lo")) {
		f->lo_index = l->ifindex;
		f->lo_loopback = l->flags & IFF_LOOPBACK;
	}
	return 0;
}

static int see_addr(const struct bpftune_addr *a, void *ctx)
{
	struct found *f = ctx;

	assert_int_equal(a->family, AF_INET);
	if (a->ifindex == f->lo_index && a->prefixlen == 8 &&
	    a->scope == RT_SCOPE_HOST)
		f->lo_addr = true;
	return 0;
}

static int stop_at_first(const struct bpftune_link *l, void *ctx)
{
	(void)l;
	((struct found *)ctx)->calls++;
	return 7;
}

static long proc_sys(const char *path)
{
	long v = -1;
	FILE *f = fopen(path, "re");

	if (f && fscanf(f, "%ld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

static void test_netlink_links_addrs(void **state)
{
	struct bpftune_nl *nl = bpftune_nl_open(NULL);
	struct found f = { 0 };

	(void)state;
	assert_non_null(nl);
	assert_int_equal(bpftune_nl_links(nl, see_link, &f), 0);
	assert_true(f.lo_index > 0 && f.lo_loopback);
	assert_int_equal(bpftune_nl_addrs(nl, AF_INET, see_addr, &f), 0);
	assert_true(f.lo_addr);
	/* a walker's non-zero return stops the walk and is returned */
	assert_int_equal(bpftune_nl_links(nl, stop_at_first, &f), 7);
	assert_int_equal(f.calls, 1);
	bpftune_nl_close(nl);
}

static void test_netlink_neigh_table(void **state)
{
	struct bpftune_nl *nl = bpftune_nl_open(NULL);
	struct bpftune_neigh_table t;

	(void)state;
	assert_non_null(nl);
	assert_int_equal(bpftune_nl_neigh_table(nl, AF_INET, &t), 0);
	assert_string_equal(t.name, "arp_cache");
	assert_true(t.entries >= 0);
	/* the sysctls read back the same table fields */
	assert_int_equal(t.thresh[0], proc_sys("/proc/sys/net/ipv4/neigh/default/gc_thresh1"));
	assert_int_equal(t.thresh[1], proc_sys("/proc/sys/net/ipv4/neigh/default/gc_thresh2"));
	assert_int_equal(t.thresh[2], proc_sys("/proc/sys/net/ipv4/neigh/default/gc_thresh3"));
	assert_int_equal(bpftune_nl_neigh_table(nl, AF_UNIX, &t), -EINVAL);
	assert_int_equal(bpftune_nl_neigh_table_set(nl, AF_INET, 4, 1), -EINVAL);
	bpftune_nl_close(nl);
}

/*
 * gc_thresh3 set to what it is (a no-op for the kernel and anyone else):
 * the message must name the third threshold and leave the others alone.
 */
static void test_netlink_neigh_table_set(void **state)
{
	struct bpftune_nl *nl = bpftune_nl_open(NULL);
	struct bpftune_neigh_table before, after;
	int err;

	(void)state;
	assert_non_null(nl);
	assert_int_equal(bpftune_nl_neigh_table(nl, AF_INET, &before), 0);
	err = bpftune_nl_neigh_table_set(nl, AF_INET, 3, before.thresh[2]);
	assert_int_equal(err, geteuid() ? -EPERM : 0);
	assert_int_equal(bpftune_nl_neigh_table(nl, AF_INET, &after), 0);
	assert_int_equal(after.thresh[0], before.thresh[0]);
	assert_int_equal(after.thresh[1], before.thresh[1]);
	assert_int_equal(after.thresh[2], before.thresh[2]);
	bpftune_nl_close(nl);
}

static int count_neigh(const struct bpftune_neigh *n, void *ctx)
{
	(void)n;
	(*(unsigned int *)ctx)++;
	return 0;
}

static void test_netlink_neighs(void **state)
{
	struct bpftune_nl *nl = bpftune_nl_open(NULL);
	unsigned int n = 0;

	(void)state;
	assert_non_null(nl);
	assert_int_equal(bpftune_nl_neighs(nl, AF_INET, count_neigh, &n), 0);
	assert_int_equal(bpftune_nl_neighs(NULL, AF_INET, count_neigh, &n), -EINVAL);
	bpftune_nl_close(nl);
}

int unit_run_kit(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_protocols),
		cmocka_unit_test(test_psi),
		cmocka_unit_test(test_schedstat),
		cmocka_unit_test(test_netlink_links_addrs),
		cmocka_unit_test(test_netlink_neigh_table),
		cmocka_unit_test(test_netlink_neigh_table_set),
		cmocka_unit_test(test_netlink_neighs),
	};

	return cmocka_run_group_tests_name("kit", tests, NULL, NULL);
}
