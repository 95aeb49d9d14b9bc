// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcp_buffer: tcp_mem and low-memory mode.  tcp_mem grows near the
 * pressure threshold; when TCP is really short, low-memory mode turns
 * metrics saving off, skb pages to order 0 and shrinks the buffer maxima,
 * and the timer undoes it once the pressure is gone.  Reads and writes
 * here; the decisions are in tcp_buffer_policy.c.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpftune/proc.h>

#include "tcp_buffer.h"

/* low-memory mode: shrink at most this often, to no less than 1/4 */
#define SHRINK_EVERY_MS		1000
/* checks in a row without pressure before low-memory mode is undone */
#define RECOVERED_CHECKS	2
/* the kernel's per-CPU reserve without net.core.mem_pcpu_rsv: 1 MiB */
#define TB_PCPU_RESERVE_BYTES	(1L << 20)

static const char *buf_name(unsigned int tunable)
{
	return tunable == TB_RMEM ? "tcp_rmem" : "tcp_wmem";
}

static void save_and_set(struct tb_state *s, const struct bpftune_event *ev,
			 unsigned int tunable, long value, long *saved,
			 const char *reason)
{
	long old;

	if (bpftune_tunable_get(s->tuner, tunable, ev, &old) != 1)
		return;
	if (tb_set1(s, ev, tunable, TCP_BUFFER_MEM_EXHAUSTED, value, reason) == 1 &&
	    *saved < 0)
		*saved = old;
}

/* The buffer maxima of @n's netns, one step down each. */
static void lowmem_shrink(struct tb_state *s, const struct bpftune_event *ev,
			  struct tb_netns *n, const char *why)
{
	char reason[512];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		unsigned int tunable = i ? TB_WMEM : TB_RMEM;
		long cur[3], want[3];

		if (bpftune_tunable_get(s->tuner, tunable, ev, cur) != 3)
			continue;
		tb_lowmem_shrink(cur, n->saved_max[i], bpftune_learning_rate(), want);
		snprintf(reason, sizeof(reason),
			 "low-memory mode: %s; shrinking the %s max limits what each socket can hold",
			 why, buf_name(tunable));
		if (bpftune_tunable_set(s->tuner, tunable, ev,
					TCP_BUFFER_MEM_EXHAUSTED, want, 3,
					reason) == 1 && n->saved_max[i] < 0)
			n->saved_max[i] = cur[2];
	}
}

/* TCP has no memory left: use less of it per socket, in @n's netns. */
static void lowmem_apply(struct tb_state *s, const struct bpftune_event *ev,
			 struct tb_netns *n, const char *why)
{
	uint64_t now = bpftune_now_ms();
	char reason[512];

	snprintf(reason, sizeof(reason), "low-memory mode: %s", why);
	if (!s->lowmem) {
		s->lowmem = true;
		s->calm_checks = 0;
		save_and_set(s, ev, TB_HIGH_ORDER_OFF, 1, &s->saved_high_order,
			     reason);
	}
	if (!n->lowmem) {
		n->lowmem = true;
		save_and_set(s, ev, TB_NO_METRICS_SAVE, 1, &n->saved_no_metrics,
			     reason);
		save_and_set(s, ev, TB_NO_SSTHRESH_SAVE, 1, &n->saved_no_ssthresh,
			     reason);
	}
	if (now - n->last_shrink_ms >= SHRINK_EVERY_MS) {
		n->last_shrink_ms = now;
		lowmem_shrink(s, ev, n, why);
	}
	tb_timer_update(s);
}

static void restore1(struct tb_state *s, const struct bpftune_event *ev,
		     unsigned int tunable, long *saved, const char *reason)
{
	if (*saved >= 0)
		tb_set1(s, ev, tunable, TCP_BUFFER_MEM_RECOVERED, *saved, reason);
	*saved = -1;
}

#define UNDO_NUM_INPUTS	7

static void lowmem_undo_netns(struct tb_state *s, struct tb_netns *n,
			      const struct bpftune_value *why, const char *reason)
{
	struct bpftune_event ev;
	unsigned int i;

	bpftune_event_init(&ev, s->tuner, TCP_BUFFER_MEM_RECOVERED, n->ns.cookie,
			   n->ns.pid);
	bpftune_decide_values(s->tuner, &ev, TCP_BUFFER_MEM_RECOVERED, -1,
			      "undo-low-memory", why, UNDO_NUM_INPUTS, "restore");
	restore1(s, &ev, TB_NO_METRICS_SAVE, &n->saved_no_metrics, reason);
	restore1(s, &ev, TB_NO_SSTHRESH_SAVE, &n->saved_no_ssthresh, reason);
	for (i = 0; i < 2; i++) {
		unsigned int tunable = i ? TB_WMEM : TB_RMEM;
		long cur[3];

		if (n->saved_max[i] > 0 &&
		    bpftune_tunable_get(s->tuner, tunable, &ev, cur) == 3) {
			cur[2] = n->saved_max[i];
			bpftune_tunable_set(s->tuner, tunable, &ev,
					    TCP_BUFFER_MEM_RECOVERED, cur, 3, reason);
		}
		n->saved_max[i] = -1;
	}
	n->lowmem = false;
}

static void lowmem_undo(struct tb_state *s, const struct bpftune_value *why,
			const char *text)
{
	struct bpftune_event ev;
	char reason[256];
	struct tb_netns *n;

	snprintf(reason, sizeof(reason),
		 "TCP memory pressure gone (%s): undoing low-memory mode", text);
	bpftune_netns_table_for_each(s->tuner, n)
		if (n->lowmem)
			lowmem_undo_netns(s, n, why, reason);
	bpftune_event_init(&ev, s->tuner, TCP_BUFFER_MEM_RECOVERED, 0, 0);
	restore1(s, &ev, TB_HIGH_ORDER_OFF, &s->saved_high_order, reason);
	s->lowmem = false;
}

/* The reason low-memory mode is entered, for the log. */
static void lowmem_why(const struct tb_mem_in *in, const struct tb_mem_out *out,
		       char *buf, size_t len)
{
	snprintf(buf, len, "%s (TCP holds %ld pages, tcp_mem %ld %ld %ld)",
		 in->refused ? "the kernel refused TCP socket memory" :
		 out->at_max ? "TCP memory is near the tcp_mem hard limit" :
			       "tcp_mem cannot grow further",
		 in->pages, in->cur[0], in->cur[1], in->cur[2]);
}

/* in the order tcp_buffer_tables.c declares them (mem_inputs) */
static void mem_inputs(const struct tb_mem_in *in, const struct tcp_buffer_event *e,
		       const struct tb_mem_out *out, struct bpftune_value *v)
{
	const int64_t x[9] = {
		in->pages, e->allocated, in->cur[0], in->cur[1], in->cur[2],
		in->pressure, in->refused, in->avail, out->ceiling,
	};
	unsigned int i;

	for (i = 0; i < 9; i++)
		v[i] = BPFTUNE_VALUE_INT(x[i]);
}

/*
 * TCP memory near tcp_mem[1], or allocations refused.  Grow tcp_mem while
 * there is room; when the kernel had to refuse socket memory, or tcp_mem
 * cannot grow, TCP is really short: low-memory mode.
 */
void tb_memory_event(struct bpftune_tuner *t, void *priv,
		     const struct bpftune_event *ev)
{
	const struct tcp_buffer_event *e = (const void *)ev->payload;
	struct tb_state *s = priv;
	struct tb_mem_in in = {
		.pages = e->allocated, .pressure = e->pressure,
		.refused = ev->scenario_id == TCP_BUFFER_MEM_EXHAUSTED,
		.cap = s->mem_cap, .rate = bpftune_learning_rate(),
		.undone_at = s->undone_at,
	};
	struct bpftune_value inputs[9];
	char reason[320];
	struct tb_mem_out out;
	unsigned int scenario;
	struct tb_netns *n;

	if (bpftune_tunable_get(t, TB_MEM, NULL, in.cur) != 3)
		return;
	if (bpftune_proc_protocol_memory("TCP", &in.pages, &in.pressure) < 0)
		in.pages = e->allocated;
	in.avail = bpftune_mem_available_pages();
	/* the lowest count since the undo is the one to rise above */
	if (s->undone_at && in.pages < s->undone_at)
		s->undone_at = in.undone_at = in.pages;
	tb_mem_decide(&in, &out);
	scenario = out.exhausted ? TCP_BUFFER_MEM_EXHAUSTED : TCP_BUFFER_MEM_PRESSURE;
	mem_inputs(&in, e, &out, inputs);
	bpftune_decide_values(s->tuner, ev, scenario, TB_MEM, "grow-tcp-mem", inputs, 9,
			      tb_mem_action(out.verdict));
	if (out.verdict == TB_MEM_GROW) {
		snprintf(reason, sizeof(reason),
			 "TCP holds %ld pages, %s the tcp_mem pressure threshold %ld%s; growing up to %ld pages at most (what TCP holds plus a quarter of available memory)",
			 in.pages, in.pages >= in.cur[1] ? "over" : "near", in.cur[1],
			 in.refused ? ", and the kernel refused socket memory" : "",
			 out.ceiling);
		bpftune_tunable_set(s->tuner, TB_MEM, ev, scenario, out.want, 3,
				    reason);
	} else if (out.verdict == TB_MEM_OVER_CAP) {
		snprintf(reason, sizeof(reason),
			 "TCP holds %ld pages and tcp_mem %ld %ld %ld is above its cap of %ld pages (a quarter of RAM): the max is brought down to the cap and the pressure thresholds raised to 1/2 and 2/3 of it, instead of low-memory mode",
			 in.pages, in.cur[0], in.cur[1], in.cur[2], in.cap);
		bpftune_tunable_set(s->tuner, TB_MEM, ev, scenario, out.want, 3,
				    reason);
	}
	if (!out.lowmem)
		return;
	n = bpftune_netns_table_get(s->tuner, ev);
	if (!n)
		return;
	lowmem_why(&in, &out, reason, sizeof(reason));
	bpftune_decide_values(s->tuner, ev, TCP_BUFFER_MEM_EXHAUSTED, -1, "low-memory-mode",
			      inputs, 9, "enter");
	lowmem_apply(s, ev, n, reason);
}

/*
 * Pages the kernel's per-CPU caches of TCP memory may hold beyond what
 * sockets use: net.core.mem_pcpu_rsv a CPU where the kernel has the
 * sysctl (newer kernels), else the fixed 1 MiB a CPU it replaced (6.1
 * has no sysctl; before 6.0 there is no cache, and tb_mem_calm() bounds
 * the allowance).
 */
static long pcpu_reserve(void)
{
	long rsv, cpus = sysconf(_SC_NPROCESSORS_CONF);

	if (bpftune_proc_sysctl(NULL, "net.core.mem_pcpu_rsv", &rsv, 1) != 1 ||
	    rsv < 0)
		rsv = TB_PCPU_RESERVE_BYTES / sysconf(_SC_PAGESIZE);
	return rsv * (cpus > 0 ? cpus : 1);
}

void tb_mem_timer(struct tb_state *s)
{
	struct bpftune_event ev;
	struct bpftune_value in[UNDO_NUM_INPUTS];
	long pages, cur[3], rsv;
	bool pressure, calm;
	char why[200];

	if (!s->lowmem || bpftune_proc_protocol_memory("TCP", &pages, &pressure) ||
	    bpftune_tunable_get(s->tuner, TB_MEM, NULL, cur) != 3)
		return;
	rsv = pcpu_reserve();
	snprintf(why, sizeof(why),
		 "tcp_pages=%ld (up to %ld of them per-CPU reserve) tcp_mem=%ld,%ld,%ld pressure=%d",
		 pages, rsv, cur[0], cur[1], cur[2], pressure);
	bpftune_event_init(&ev, s->tuner, TCP_BUFFER_MEM_RECOVERED, 0, 0);
	calm = tb_mem_calm(pages, pressure, cur[1], rsv, bpftune_learning_rate());
	s->calm_checks = calm ? s->calm_checks + 1 : 0;
	in[0] = BPFTUNE_VALUE_INT(pages);
	in[1] = BPFTUNE_VALUE_INT(cur[0]);
	in[2] = BPFTUNE_VALUE_INT(cur[1]);
	in[3] = BPFTUNE_VALUE_INT(cur[2]);
	in[4] = BPFTUNE_VALUE_INT(pressure);
	in[5] = BPFTUNE_VALUE_INT(s->calm_checks);
	in[6] = BPFTUNE_VALUE_INT(rsv);
	bpftune_decide_values(s->tuner, &ev, TCP_BUFFER_MEM_RECOVERED, -1, "undo-low-memory",
			      in, UNDO_NUM_INPUTS, s->calm_checks >= RECOVERED_CHECKS ?
			      "restore" : "none: still near pressure");
	if (s->calm_checks >= RECOVERED_CHECKS) {
		lowmem_undo(s, in, why);
		s->undone_at = pages;
	}
}
