// SPDX-License-Identifier: GPL-2.0-only
/*
 * Decision policies as typed data (src/lib/telemetry/schema_policy.c):
 * the policy tables made from declarations, their checks, and the text
 * decisions.inputs gets from typed values.
 */
#include <errno.h>
#include <string.h>

#include "telemetry/telemetry_schema.h"
#include "unit.h"

static const struct bpftune_col_desc inputs[] = {
	BPFTUNE_COL_INT("buffer", GAUGE, "bytes", "a buffer"),
	BPFTUNE_COL_FLOAT("share", GAUGE, "fraction", "a share"),
	BPFTUNE_COL_LABEL("family", "ipv4 or ipv6"),
};

static const struct bpftune_policy_desc policies[] = {
	BPFTUNE_POLICY("grow-near-limit", "grows", inputs),
	BPFTUNE_POLICY("shrink", "shrinks", inputs),
};

static const struct bpftune_telemetry_desc desc = {
	.policies = policies, .num_policies = 2,
};

static void test_text(void **state)
{
	struct bpftune_value v[3] = {
		BPFTUNE_VALUE_INT(40000), BPFTUNE_VALUE_REAL(0.125),
		BPFTUNE_VALUE_TEXT("ipv6"),
	};
	char buf[64], small[12];

	(void)state;
	assert_int_equal(bpftune_policy_inputs_text(&policies[0], v, 3, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "buffer=40000 share=0.125 family=ipv6");
	/* NULLs are left out, not printed as a value */
	v[1] = BPFTUNE_VALUE_NULL;
	v[2] = BPFTUNE_VALUE_TEXT(NULL);
	assert_int_equal(bpftune_policy_inputs_text(&policies[0], v, 3, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "buffer=40000");
	v[0] = BPFTUNE_VALUE_NULL;
	v[1] = BPFTUNE_VALUE_INT(-3);
	assert_int_equal(bpftune_policy_inputs_text(&policies[0], v, 3, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "share=-3");
	/* truncated: said, and still a string */
	v[0] = BPFTUNE_VALUE_INT(1234567890);
	assert_int_equal(bpftune_policy_inputs_text(&policies[0], v, 3, small, sizeof(small)),
			 -ENOSPC);
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

static void test_table_name(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(bpftune_policy_table_name("decisions", "tcp_buffer",
						   "grow-near-limit", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "decisions_tcp_buffer_grow_near_limit");
	/* over 48 bytes: refused, never cut */
	assert_int_equal(bpftune_policy_table_name("decisions", "a_rather_long_plugin_name",
						   "and-a-long-policy-name", buf, sizeof(buf)),
			 -ENAMETOOLONG);
}

static void test_expand(void **state)
{
	static struct bpftune_telemetry_x x;
	const struct bpftune_table_desc *t;
	char why[256];

	(void)state;
	assert_int_equal(bpftune_telemetry_check(&desc, why, sizeof(why)), 0);
	assert_int_equal(bpftune_telemetry_expand("demo", &desc, &x, why, sizeof(why)), 0);
	/* its own policies, then the core's admin-policy */
	assert_int_equal(x.num_plugin_tables, 0);
	assert_int_equal(x.d.num_tables, 3);
	assert_string_equal(x.d.tables[0].name, "decisions_demo_grow_near_limit");
	assert_string_equal(x.d.tables[1].name, "decisions_demo_shrink");
	assert_string_equal(x.d.tables[2].name, "decisions_demo_admin_policy");
	assert_int_equal(bpftune_policy_index(&desc, "shrink"), 1);
	assert_int_equal(bpftune_policy_index(&desc, "admin-policy"), 2);
	assert_int_equal(bpftune_policy_index(&desc, "nope"), -ENOENT);
	assert_int_equal(bpftune_policy_index(&desc, NULL), -ENOENT);
	t = &x.d.tables[0];
	assert_true(t->flags & BPFTUNE_TABLE_PER_NETNS);
	assert_false(t->flags & BPFTUNE_TABLE_SAMPLED);
	assert_int_equal(t->num_cols, BPFTUNE_POLICY_CONTEXT_COLS + 3);
	assert_string_equal(t->cols[0].name, "decision_seq");
	assert_string_equal(t->cols[4].name, "decided");
	assert_string_equal(t->cols[5].name, "buffer");
	assert_int_equal(t->cols[6].type, BPFTUNE_COL_REAL);
	assert_string_equal(t->cols[7].name, "family");
	/* a plugin without policies gets no admin-policy table either */
	assert_int_equal(bpftune_telemetry_expand("demo", &(struct bpftune_telemetry_desc){ 0 },
						  &x, why, sizeof(why)), 0);
	assert_int_equal(x.d.num_tables, 0);
	assert_int_equal(bpftune_policy_index(&x.d, "admin-policy"), -ENOENT);
}

static void test_row(void **state)
{
	static struct bpftune_policy_table pt;
	const struct bpftune_value ok[8] = {
		BPFTUNE_VALUE_INT(7), BPFTUNE_VALUE_NULL, BPFTUNE_VALUE_TEXT("s"),
		BPFTUNE_VALUE_TEXT(NULL), BPFTUNE_VALUE_TEXT("raise"),
		BPFTUNE_VALUE_INT(1), BPFTUNE_VALUE_INT(2), BPFTUNE_VALUE_NULL,
	};
	struct bpftune_value bad[8];
	char why[160];

	(void)state;
	assert_int_equal(bpftune_policy_table("demo", &policies[0], &pt), 0);
	assert_int_equal(bpftune_telemetry_row_check(&pt.t, ok, 8, why, sizeof(why)), 0);
	/* one input short */
	assert_int_equal(bpftune_telemetry_row_check(&pt.t, ok, 7, why, sizeof(why)), -EINVAL);
	/* a text where an integer input is declared */
	memcpy(bad, ok, sizeof(bad));
	bad[5] = BPFTUNE_VALUE_TEXT("x");
	assert_int_equal(bpftune_telemetry_row_check(&pt.t, bad, 8, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "buffer"));
	/* the decision's own seq is never NULL */
	memcpy(bad, ok, sizeof(bad));
	bad[0] = BPFTUNE_VALUE_NULL;
	assert_int_equal(bpftune_telemetry_row_check(&pt.t, bad, 8, why, sizeof(why)), -EINVAL);
}

static int check(const struct bpftune_policy_desc *p, unsigned int n, char *why, size_t len)
{
	const struct bpftune_telemetry_desc d = { .policies = p, .num_policies = n };

	return bpftune_telemetry_check(&d, why, len);
}

static void test_check(void **state)
{
	const struct bpftune_col_desc clash[] = {
		BPFTUNE_COL_INT("decided", GAUGE, NULL, "same name as a context column"),
	};
	const struct bpftune_col_desc keyword[] = {
		BPFTUNE_COL_INT("select", GAUGE, NULL, "an SQL keyword"),
	};
	const struct bpftune_col_desc text_gauge[] = {
		BPFTUNE_COL(	"t", BPFTUNE_COL_TEXT, BPFTUNE_KIND_GAUGE, 0, NULL, "text drawn"),
	};
	struct bpftune_policy_desc p[2] = { policies[0], policies[1] };
	char why[256];

	(void)state;
	p[0].name = "Grow";
	assert_int_equal(check(p, 1, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "[a-z][a-z0-9-]*"));
	p[0].name = "grow_near";
	assert_int_equal(check(p, 1, why, sizeof(why)), -EINVAL);
	p[0].name = "shrink";
	assert_int_equal(check(p, 2, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "declared twice"));
	p[0].name = "admin-policy";
	assert_int_equal(check(p, 1, why, sizeof(why)), -EINVAL);
	p[0] = (struct bpftune_policy_desc)BPFTUNE_POLICY("a", "clash", clash);
	assert_int_equal(check(p, 1, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "declared twice"));
	p[0] = (struct bpftune_policy_desc)BPFTUNE_POLICY("a", "keyword", keyword);
	assert_int_equal(check(p, 1, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "SQL keyword"));
	p[0] = (struct bpftune_policy_desc)BPFTUNE_POLICY("a", "text gauge", text_gauge);
	assert_int_equal(check(p, 1, why, sizeof(why)), -EINVAL);
	p[0] = policies[0];
	p[0].description = NULL;
	assert_int_equal(check(p, 1, why, sizeof(why)), -EINVAL);
	p[0] = policies[0];
	p[0].num_inputs = BPFTUNE_POLICY_MAX_INPUTS + 1;
	assert_int_equal(check(p, 1, why, sizeof(why)), -EINVAL);
	assert_int_equal(check(policies, 2, why, sizeof(why)), 0);
}

int unit_run_decision_inputs(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_table_name),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_row),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests_name("decision_inputs", tests, NULL, NULL);
}
