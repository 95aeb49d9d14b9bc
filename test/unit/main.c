// SPDX-License-Identifier: GPL-2.0-only
/*
 * Entry point of the unit-test binary: runs every group with cmocka and
 * exits non-zero if any test failed.  Build and run: make test-unit
 * (or make check for the ASan/UBSan build).
 */
#include <stdio.h>

#include "unit.h"

int main(void)
{
	int failed = 0;

	failed += unit_run_sampling();
	failed += unit_run_repeat();
	failed += unit_run_sysctl_value();
	failed += unit_run_tunable_cap();
	failed += unit_run_plugin_name();
	failed += unit_run_control_proto();
	failed += unit_run_journal_record();
	failed += unit_run_file_replace();
	failed += unit_run_proc_file();
	failed += unit_run_trusted_file();
	failed += unit_run_netns_priv();
	failed += unit_run_telemetry();
	failed += unit_run_telemetry_decl();
	failed += unit_run_correlation();
	failed += unit_run_tcp_mem_plan();
	failed += unit_run_grow();
	failed += unit_run_tcp_buffer_policy();
	failed += unit_run_tcp_conn_policy();
	failed += unit_run_tcp_conn_model();
	failed += unit_run_udp_buffer_policy();
	failed += unit_run_ip_frag_policy();
	failed += unit_run_net_buffer_policy();
	failed += unit_run_route_table_policy();
	failed += unit_run_neigh_table_policy();
	failed += unit_run_kit();
	failed += unit_run_refusal();
	failed += unit_run_btf_min();
	failed += unit_run_config();
	failed += unit_run_ship();
	failed += unit_run_perf_scale();
	failed += unit_run_decision_inputs();
	failed += unit_run_outcome();
	failed += unit_run_notify();
	failed += unit_run_ids();
	failed += unit_run_gate();

	if (failed)
		fprintf(stderr, "unit tests: %d failed\n", failed);
	return failed ? 1 : 0;
}
