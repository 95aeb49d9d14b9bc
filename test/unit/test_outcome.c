// SPDX-License-Identifier: GPL-2.0-only
/*
 * A policy's outcome as typed data (src/lib/telemetry/schema_outcome.c):
 * its check, its table, counter rates, the reward and the propensity;
 * a gauge's mean over a window (src/lib/telemetry/gauge_window.c).
 */
#include <errno.h>
#include <string.h>

#include "telemetry/telemetry_schema.h"
#include "unit.h"

static const struct bpftune_col_desc inputs[] = {
	BPFTUNE_INPUT_INT("srtt_us", "us", "RTT"),
	BPFTUNE_INPUT_INT("min_rtt_us", "us", "min RTT"),
	BPFTUNE_INPUT_TEXT("cc", "algorithm"),
};

static const char *const actions[] = { "raise", "none" };
static const struct bpftune_reward_input proc_reward[] = {
	BPFTUNE_REWARD_PROC_COUNTER("rx_bytes", 1, 0, "bytes", "/proc/net/dev", NETDEV,
				    "rx_bytes", "received"),
	BPFTUNE_REWARD_PROC_COUNTER("drops", -1, 0, "packets", "/proc/net/softnet_stat",
				    SOFTNET, "1", "dropped"),
	BPFTUNE_REWARD_PROC_GAUGE("avail", 0.5, 0, "kB", "/proc/meminfo", KEYVAL,
				  "MemAvailable", "available"),
};
static const struct bpftune_outcome_desc proc_outcome =
	BPFTUNE_OUTCOME(actions, 10, proc_reward, "more received, fewer drops");

static const struct bpftune_reward_input input_reward[] = {
	BPFTUNE_REWARD_INPUT_REF("srtt_us", "min_rtt_us", -1, "us", "queueing"),
};
static const char *const cc_actions[] = { "cc=cubic", "cc=bbr", "none" };
static struct bpftune_outcome_desc input_outcome = {
	.actions = cc_actions, .num_actions = 3, .horizon_s = 0,
	.reward = input_reward, .num_reward = 1, .reward_doc = "minus queueing",
	.explore_choices = 2,
};

/* a proc counter and a gauge's mean (an RTT, a cost) */
static const struct bpftune_reward_input gauge_reward[] = {
	BPFTUNE_REWARD_PROC_COUNTER("rx_bytes", 1, 0, "bytes", "/proc/net/dev", NETDEV,
				    "rx_bytes", "received"),
	BPFTUNE_REWARD_GAUGE("srtt_mean_us", -1, 1, "us", "smoothed RTT"),
};
static const struct bpftune_outcome_desc gauge_outcome =
	BPFTUNE_OUTCOME(actions, 10, gauge_reward, "more received, lower RTT");

static void test_table(void **state)
{
	struct bpftune_policy_desc p = BPFTUNE_POLICY_OUTCOME("grow-near-limit", "grows",
							      inputs, &proc_outcome);
	struct bpftune_outcome_table t;
	char buf[64];

	(void)state;
	assert_int_equal(bpftune_policy_table_name("outcomes", "tcp_buffer",
						   "grow-near-limit", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "outcomes_tcp_buffer_grow_near_limit");
	assert_int_equal(bpftune_policy_table_name("outcomes", "a_plugin_with_a_long_name",
						   "and-a-long-policy-name", buf, sizeof(buf)),
			 -ENAMETOOLONG);
	assert_int_equal(bpftune_outcome_table("tcp_buffer", &p, &t), 0);
	assert_string_equal(t.t.name, "outcomes_tcp_buffer_grow_near_limit");
	assert_true(t.t.flags & BPFTUNE_TABLE_PER_NETNS);
	/* context, before/after per reward input, reward */
	assert_int_equal(t.t.num_cols, BPFTUNE_OUTCOME_CONTEXT_COLS + 6 + 1);
	assert_string_equal(t.t.cols[0].name, "decision_seq");
	assert_string_equal(t.t.cols[2].name, "propensity");
	assert_string_equal(t.t.cols[7].name, "rx_bytes_before");
	assert_string_equal(t.t.cols[8].name, "rx_bytes_after");
	assert_string_equal(t.t.cols[8].unit, "/s");
	assert_string_equal(t.t.cols[12].unit, "kB");
	assert_string_equal(t.t.cols[13].name, "reward");
	assert_non_null(strstr(t.t.description, "deterministic"));
	assert_non_null(strstr(t.t.description, "Actions: raise | none."));
	p.outcome = NULL;
	assert_int_equal(bpftune_outcome_table("tcp_buffer", &p, &t), -EINVAL);
}

static int check(const struct bpftune_outcome_desc *o)
{
	struct bpftune_policy_desc p = BPFTUNE_POLICY_OUTCOME("p", "a policy", inputs, o);
	char why[160];

	return bpftune_outcome_check(&p, why, sizeof(why));
}

static void test_check(void **state)
{
	struct bpftune_reward_input bad_in[1] = { input_reward[0] };
	static const char *const twice[] = { "raise", "raise" };
	struct bpftune_outcome_desc o;

	(void)state;
	assert_int_equal(check(&proc_outcome), 0);
	assert_int_equal(check(&input_outcome), 0);
	o = proc_outcome;
	o.num_actions = 0;
	assert_int_equal(check(&o), -EINVAL);
	o = proc_outcome;
	o.actions = twice;
	assert_int_equal(check(&o), -EINVAL);
	o = proc_outcome;
	o.horizon_s = BPFTUNE_OUTCOME_MAX_HORIZON_S + 1;
	assert_int_equal(check(&o), -EINVAL);
	o = proc_outcome;
	o.reward_doc = NULL;
	assert_int_equal(check(&o), -EINVAL);
	o = proc_outcome;
	o.explore_choices = 3;
	assert_int_equal(check(&o), -EINVAL);
	/* a reward from the inputs needs horizon 0, a numeric input, a weight */
	o = input_outcome;
	o.horizon_s = 5;
	assert_int_equal(check(&o), -EINVAL);
	o = input_outcome;
	o.reward = bad_in;
	bad_in[0].col.name = "cc";
	assert_int_equal(check(&o), -EINVAL);
	bad_in[0] = input_reward[0];
	bad_in[0].ref = "nothing";
	assert_int_equal(check(&o), -EINVAL);
	bad_in[0] = input_reward[0];
	bad_in[0].weight = 0;
	assert_int_equal(check(&o), -EINVAL);
}

static void test_reward(void **state)
{
	struct bpftune_outcome_reading r = { 0 };
	double rate, reward;

	(void)state;
	assert_int_equal(bpftune_outcome_rate(100, 300, 2000000, &rate), 0);
	assert_true(rate == 100);
	assert_int_equal(bpftune_outcome_rate(300, 100, 2000000, &rate), -ERANGE);
	assert_int_equal(bpftune_outcome_rate(1, 2, 0, &rate), -ERANGE);

	/* throughput doubled (+0.5), drops gone (+1), avail the same: /2.5 */
	r.before[0] = 1000, r.after[0] = 2000;
	r.before[1] = 50, r.after[1] = 0;
	r.before[2] = r.after[2] = 4096;
	memset(r.has_before, 1, sizeof(r.has_before));
	memset(r.has_after, 1, sizeof(r.has_after));
	assert_int_equal(bpftune_outcome_reward(&proc_outcome, &r, &reward), 0);
	assert_true(reward > 0.599 && reward < 0.601);
	/* nothing moved: 0, small counts not blown up (scale at least 1) */
	r.before[0] = r.after[0] = 0;
	r.before[1] = 0, r.after[1] = 0.5;
	assert_int_equal(bpftune_outcome_reward(&proc_outcome, &r, &reward), 0);
	assert_true(reward > -0.201 && reward < -0.199);
	r.has_before[1] = false;
	assert_int_equal(bpftune_outcome_reward(&proc_outcome, &r, &reward), -ENODATA);

	/* from the inputs, relative to the ref: -(srtt - min) / srtt */
	memset(&r, 0, sizeof(r));
	r.after[0] = 40000, r.before[0] = 10000;
	r.has_after[0] = r.has_before[0] = true;
	assert_int_equal(bpftune_outcome_reward(&input_outcome, &r, &reward), 0);
	assert_true(reward > -0.751 && reward < -0.749);
}

static void test_propensity(void **state)
{
	(void)state;
	/* deterministic: 1 whatever the decision says about exploring */
	assert_true(bpftune_outcome_propensity(&proc_outcome, 0, 0.1, 1) == 1.0);
	assert_true(bpftune_outcome_propensity(NULL, 0, -1, -1) == 1.0);
	/* epsilon-greedy among 2: greedy 0.9 + 0.05, explored 0.05 */
	assert_true(bpftune_outcome_propensity(&input_outcome, 0, 0.1, 0) > 0.9499);
	assert_true(bpftune_outcome_propensity(&input_outcome, 0, 0.1, 0) < 0.9501);
	assert_true(bpftune_outcome_propensity(&input_outcome, 0, 0.1, 1) > 0.0499);
	assert_true(bpftune_outcome_propensity(&input_outcome, 0, 0.1, 1) < 0.0501);
	/* not an exploring decision (the default left in place): 1 */
	assert_true(bpftune_outcome_propensity(&input_outcome, 0, -1, -1) == 1.0);
	/* the decision's own wins when it is a probability */
	assert_true(bpftune_outcome_propensity(&input_outcome, 0.25, 0.1, 1) == 0.25);
	assert_true(bpftune_outcome_propensity(&input_outcome, 1.5, 0.1, 1) < 0.0501);
}

static void test_expand(void **state)
{
	static const struct bpftune_policy_desc pols[] = {
		BPFTUNE_POLICY_OUTCOME("grow", "grows", inputs, &proc_outcome),
		BPFTUNE_POLICY("plain", "no outcome", inputs),
	};
	const struct bpftune_telemetry_desc d = { .policies = pols, .num_policies = 2 };
	static struct bpftune_telemetry_x x;
	char why[160];

	(void)state;
	assert_int_equal(bpftune_telemetry_check(&d, why, sizeof(why)), 0);
	assert_int_equal(bpftune_telemetry_expand("demo", &d, &x, why, sizeof(why)), 0);
	/* two policy tables, admin-policy's, then one outcome table */
	assert_int_equal(x.d.num_tables, 4);
	assert_int_equal(x.outcome_table[0], 3);
	assert_int_equal(x.outcome_table[1], -1);
	assert_int_equal(x.outcome_table[2], -1);
	assert_string_equal(x.tables[3].name, "outcomes_demo_grow");
}

static void test_gauge_reward(void **state)
{
	struct bpftune_policy_desc p = BPFTUNE_POLICY_OUTCOME("grow-near-limit", "grows",
							      inputs, &gauge_outcome);
	static const struct bpftune_gauge_desc gauges[] = {
		{ "a", NULL, "a gauge" }, { "tcp_srtt_us", "us", "an RTT" },
	};
	struct bpftune_telemetry_desc d = {
		.gauges = gauges, .num_gauges = 2, .policies = &p, .num_policies = 1,
	};
	struct bpftune_reward_input bad[2] = { gauge_reward[0], gauge_reward[1] };
	struct bpftune_outcome_desc o = gauge_outcome;
	struct bpftune_outcome_reading r = { 0 };
	struct bpftune_outcome_table t;
	double reward;
	char why[200];

	(void)state;
	assert_int_equal(check(&gauge_outcome), 0);
	assert_int_equal(bpftune_telemetry_check(&d, why, sizeof(why)), 0);
	/* a gauge the plugin does not declare */
	d.num_gauges = 1;
	assert_int_equal(bpftune_telemetry_check(&d, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "reads gauge 1, not declared"));
	/* a mean, over windows: no ref, a horizon */
	o.reward = bad;
	bad[1].col.gauge.agg = BPFTUNE_GAUGE_MAX;
	assert_int_equal(check(&o), -EINVAL);
	bad[1] = gauge_reward[1];
	bad[1].ref = "min_rtt_us";
	assert_int_equal(check(&o), -EINVAL);
	bad[1] = gauge_reward[1];
	bad[1].col.gauge.id = BPFTUNE_GAUGE_SLOTS;
	assert_int_equal(check(&o), -EINVAL);
	o = gauge_outcome;
	o.horizon_s = 0;
	assert_int_equal(check(&o), -EINVAL);

	/* its columns: means in its own unit, said to be over the windows */
	assert_int_equal(bpftune_outcome_table("tcp_buffer", &p, &t), 0);
	assert_string_equal(t.t.cols[9].name, "srtt_mean_us_before");
	assert_string_equal(t.t.cols[9].unit, "us");
	assert_int_equal(t.t.cols[9].type, BPFTUNE_COL_REAL);
	assert_non_null(strstr(t.t.cols[9].description, "over the horizon before the decision"));
	assert_string_equal(t.t.cols[10].name, "srtt_mean_us_after");
	assert_non_null(strstr(t.t.cols[10].description, "over the horizon after the decision"));

	/* relative like a /proc term: throughput +1/2, RTT doubled -1/2: 0 */
	r.before[0] = 1000, r.after[0] = 2000;
	r.before[1] = 100, r.after[1] = 200;
	memset(r.has_before, 1, sizeof(r.has_before));
	memset(r.has_after, 1, sizeof(r.has_after));
	assert_int_equal(bpftune_outcome_reward(&gauge_outcome, &r, &reward), 0);
	assert_true(reward > -0.001 && reward < 0.001);
	/* RTT halved: (0.5 + 0.5) / 2 */
	r.after[1] = 50;
	assert_int_equal(bpftune_outcome_reward(&gauge_outcome, &r, &reward), 0);
	assert_true(reward > 0.499 && reward < 0.501);
	/* no RTT observed after: no reward, not one with a 0 RTT */
	r.has_after[1] = false;
	assert_int_equal(bpftune_outcome_reward(&gauge_outcome, &r, &reward), -ENODATA);
}

static struct bpftune_gauges obs(unsigned int slot, uint64_t n, uint64_t sum)
{
	struct bpftune_gauges g = { 0 };

	g.g[slot].n = n;
	g.g[slot].sum = sum;
	g.g[slot].max = n ? sum : 0;
	return g;
}

static void test_gauge_window(void **state)
{
	struct bpftune_gauge_take storage[4];
	struct bpftune_gauge_history h;
	struct bpftune_gauges g;
	double mean = -1;
	uint64_t n = 99;

	(void)state;
	bpftune_gauge_history_init(&h, storage, 4);
	assert_int_equal(bpftune_gauge_window_mean(&h, 7, 1, 0, 0, 100, &mean, &n), -ENODATA);
	assert_true(n == 0 && mean == -1);
	/* netns 7, tuner 1: takes at 10 (2 obs, sum 100) and 20 (1 obs, 400) */
	g = obs(0, 2, 100);
	bpftune_gauge_history_add(&h, 7, 1, 10, &g);
	g = obs(0, 1, 400);
	bpftune_gauge_history_add(&h, 7, 1, 20, &g);
	/* another netns and another tuner: never mixed in */
	g = obs(0, 5, 5000000);
	bpftune_gauge_history_add(&h, 8, 1, 15, &g);
	bpftune_gauge_history_add(&h, 7, 2, 15, &g);
	/* the mean of observations, not of takes: (100 + 400) / 3 */
	assert_int_equal(bpftune_gauge_window_mean(&h, 7, 1, 0, 0, 20, &mean, &n), 0);
	assert_true(n == 3 && mean > 166.66 && mean < 166.67);
	/* (from, to]: a take at the decision counts before it, not after */
	assert_int_equal(bpftune_gauge_window_mean(&h, 7, 1, 0, 0, 10, &mean, &n), 0);
	assert_true(n == 2 && mean == 50);
	assert_int_equal(bpftune_gauge_window_mean(&h, 7, 1, 0, 10, 20, &mean, &n), 0);
	assert_true(n == 1 && mean == 400);
	/* another slot, nothing observed: no value */
	assert_int_equal(bpftune_gauge_window_mean(&h, 7, 1, 3, 0, 20, &mean, &n), -ENODATA);
	assert_int_equal(bpftune_gauge_window_mean(&h, 7, 1, BPFTUNE_GAUGE_SLOTS, 0, 20,
						   &mean, &n), -EINVAL);
	assert_int_equal(bpftune_gauge_window_mean(&h, 7, 1, 0, 20, 10, &mean, &n), -EINVAL);
	/* full: the take at 10 goes; a window from before 10 is not whole */
	g = obs(0, 1, 1000);
	bpftune_gauge_history_add(&h, 7, 1, 30, &g);
	assert_int_equal(bpftune_gauge_window_mean(&h, 7, 1, 0, 5, 30, &mean, &n), -ERANGE);
	assert_int_equal(bpftune_gauge_window_mean(&h, 7, 1, 0, 10, 30, &mean, &n), 0);
	assert_true(n == 2 && mean == 700);
	/* no storage: nothing kept, nothing found */
	bpftune_gauge_history_init(&h, NULL, 0);
	bpftune_gauge_history_add(&h, 7, 1, 40, &g);
	assert_int_equal(bpftune_gauge_window_mean(&h, 7, 1, 0, 0, 50, &mean, &n), -ENODATA);
}

int unit_run_outcome(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_reward),
		cmocka_unit_test(test_propensity),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_gauge_reward),
		cmocka_unit_test(test_gauge_window),
	};

	return cmocka_run_group_tests_name("outcome", tests, NULL, NULL);
}
