/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpftune C unit tests: one binary (main.c) runs every group.  Each
 * test_*.c file defines one group and exposes a runner here.
 */
#ifndef BPFTUNE_UNIT_H
#define BPFTUNE_UNIT_H

/* cmocka needs these before its own header */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

/* each returns the number of failed tests in its group */
int unit_run_sampling(void);
int unit_run_repeat(void);
int unit_run_sysctl_value(void);
int unit_run_tunable_cap(void);
int unit_run_plugin_name(void);
int unit_run_control_proto(void);
int unit_run_journal_record(void);
int unit_run_file_replace(void);
int unit_run_proc_file(void);
int unit_run_trusted_file(void);
int unit_run_netns_priv(void);
int unit_run_telemetry(void);
int unit_run_telemetry_decl(void);
int unit_run_correlation(void);
int unit_run_tcp_mem_plan(void);
int unit_run_grow(void);
int unit_run_tcp_buffer_policy(void);
int unit_run_tcp_conn_policy(void);
int unit_run_tcp_conn_model(void);
int unit_run_udp_buffer_policy(void);
int unit_run_ip_frag_policy(void);
int unit_run_net_buffer_policy(void);
int unit_run_route_table_policy(void);
int unit_run_neigh_table_policy(void);
int unit_run_kit(void);
int unit_run_refusal(void);
int unit_run_btf_min(void);
int unit_run_config(void);
int unit_run_ship(void);
int unit_run_perf_scale(void);
int unit_run_decision_inputs(void);
int unit_run_outcome(void);
int unit_run_notify(void);
int unit_run_ids(void);
int unit_run_gate(void);

/* deterministic PRNG for property and fuzz-style tests (xorshift64*) */
static inline uint64_t unit_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

#endif /* BPFTUNE_UNIT_H */
