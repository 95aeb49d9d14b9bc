/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tcp_buffer's decisions as pure functions: given what was read, what to
 * do.  No I/O and no library state: the scenario files
 * (tcp_buffer_buffers.c, tcp_buffer_mem.c, tcp_buffer_syn.c) read the
 * kernel, call these and apply the verdict.  Unit-tested in
 * test/unit/test_tcp_buffer_policy.c.
 *
 * Every function takes the learning rate (0..4) where it needs the step
 * "delta" = value >> (6 - rate).  To change a decision, change it here and
 * in its unit test; the verdicts and their action strings are what the
 * decisions table records.
 */
#ifndef BPFTUNE_TCP_BUFFER_POLICY_H
#define BPFTUNE_TCP_BUFFER_POLICY_H

#include <stdbool.h>
#include <stdint.h>

struct bpftune_corr;

/* ---- buffers: tcp_rmem[2] / tcp_wmem[2] ---------------------------------- */

enum tb_buf_verdict {
	TB_BUF_GROW,		/* raise the max by delta */
	TB_BUF_UNREADABLE,	/* the live value could not be read */
	TB_BUF_MAX_CHANGED,	/* the max moved since the event */
	TB_BUF_LOWMEM,		/* low-memory mode holds the buffers */
	TB_BUF_PRESSURE,	/* TCP memory near or under pressure */
	TB_BUF_HELD,		/* the latency guard holds the max */
	TB_BUF_AT_CAP,		/* the max is at the tunable's cap */
	TB_BUF_ABOVE_BDP,	/* the max is TB_BUF_BDP_FACTOR x the BDP already */
};

/*
 * tcp_rmem's max is not raised past this many times the bandwidth-delay
 * product the event's socket measured (its receive rate x its receive
 * RTT: the bytes it took in per RTT), nor held below the kernel's own
 * default max: receive autotuning sizes a buffer at about twice what
 * arrived in an RTT, and the kernel's overhead (truesize) takes up to
 * half of it.  A receiver bound by its window takes in about its window
 * per RTT, and its window is at most about half the max: its bound, 4x
 * that, stays above the max and lets it grow; one that is not bound by
 * its window stops the ratchet a few steps above what its path holds.
 * No receiver is exempt: an exemption for those that took in half their
 * window per RTT let a receiver whose reads come in batches (its "RTT's
 * worth" spans several RTTs) grow the max past 4x the BDP it measured.
 */
#define TB_BUF_BDP_FACTOR	4
#define TB_BUF_BDP_FLOOR	6291456L	/* tcp_rmem[2]'s built-in default */

/* The event itself: is it still about the live max? */
enum tb_buf_verdict tb_buf_precheck(bool have_live, const long live[3],
				    long event_max);

struct tb_buf_in {
	long live[3];		/* tcp_rmem or tcp_wmem now */
	bool lowmem;		/* low-memory mode, global or in the netns */
	bool pressure;		/* the kernel's tcp_memory_pressure flag */
	long tcp_pages;		/* TCP memory in use at the event (pages) */
	long tcp_mem1;		/* tcp_mem[1] at the event; <= 0 unknown */
	bool held;		/* a latency guard hold is in force */
	long cap;		/* the tunable's max */
	long bdp;		/* bytes the socket measured per RTT; 0 unknown */
	unsigned int rate;	/* learning rate */
};

/* rate x RTT in bytes (0 if either is unknown) */
long tb_bdp_bytes(unsigned int rate_kbps, unsigned int rtt_us);
/* the highest max a measured @bdp allows (LONG_MAX: unknown, no bound) */
long tb_bdp_limit(long bdp);

/*
 * After tb_buf_precheck(): grow the max?  On TB_BUF_GROW, @want is @live
 * with the max raised by delta, no further than tb_bdp_limit(@bdp) (the
 * library clamps it to the cap).
 */
enum tb_buf_verdict tb_buf_decide(const struct tb_buf_in *in, long want[3]);
/* "raise" or "none: ..." as the decisions table records it */
const char *tb_buf_action(enum tb_buf_verdict v);

/* ---- window scale: receivers set up before a raise ------------------------ */

#define TB_WSCALE_MAX		14	/* TCP_MAX_WSCALE */

/*
 * The receive window scale the kernel gives a connection set up now: from
 * the larger of tcp_rmem[2] and rmem_max, @space (tcp_select_initial_window:
 * ilog2(space) - 15, within 0..14).  A connection keeps the scale its SYN
 * chose for good.
 */
unsigned int tb_wscale_for(long space);
/* the largest window a receiver with scale @wscale can advertise (bytes) */
long tb_wscale_window(unsigned int wscale);
/*
 * With tcp_rmem[2] at @max, is a receiver of scale @wscale bound by it?
 * Its window cannot reach what a buffer of @max allows (about half of it:
 * the kernel's default share of a buffer for the window).  Then its SYN
 * chose the scale from a smaller max (a connection set up at @max gets a
 * scale whose windows reach @max / 2): the max was raised after its SYN.
 */
bool tb_wscale_bound(unsigned int wscale, long max);

/* ---- the latency guard --------------------------------------------------- */

#define TB_GUARD_MIN_SAMPLES	4
#define TB_GUARD_MIN_R		0.8
#define TB_GUARD_MIN_RISE	0.5
#define TB_GUARD_MIN_GAIN	0.1
#define TB_GUARD_HOLD_MS	(60 * 1000ULL)
#define TB_GUARD_HOLD_MAX_MS	(16 * TB_GUARD_HOLD_MS)
/*
 * A max raised again sooner than this after our last raise says nothing
 * about the RTT it brings: those are the raises of a connection's ramp
 * (from a too-small start on a fast path, five in 20 ms), whose RTT grows
 * with its congestion window whatever the buffer; fitted as settings, they
 * tripped the guard at start (bench-report a39a43a, tcp_buffer effect:
 * RTT +200 % "with" the max over six settings in 19 ms).  What is seen at
 * such a max is left out of the windows.
 */
#define TB_GUARD_MIN_DWELL_MS	100

/* One buffer max in one netns. */
struct tb_guard {
	double rtt_sum;		/* RTT seen at the current max */
	unsigned long rtt_n;
	double rate_sum;	/* and throughput */
	unsigned long rate_n;
	long raised_from;	/* max before our last raise, 0 if none */
	uint64_t since_ms;	/* the max in force since (0: not set by us) */
	uint64_t hold_until_ms;
	unsigned int trips;
};

/* A socket's RTT and rate at the current max (0: not known). */
void tb_guard_observe(struct tb_guard *g, unsigned int rtt_us,
		      unsigned int rate_kbps);
/*
 * Add the mean RTT and rate seen at @max to the windows @rtt_w and
 * @rate_w and start over; a window gets nothing when nothing was seen,
 * or when we set @max less than TB_GUARD_MIN_DWELL_MS before @now_ms.
 */
void tb_guard_feed(struct tb_guard *g, struct bpftune_corr *rtt_w,
		   struct bpftune_corr *rate_w, long max, uint64_t now_ms);
/* we raised the max from @from at @now_ms */
void tb_guard_raised(struct tb_guard *g, long from, uint64_t now_ms);

struct tb_guard_verdict {
	bool have_fit;		/* r and rise were computed */
	bool have_gain;		/* gain was computed */
	double r, rise, gain;
	unsigned int samples;	/* settings in the RTT window */
	long back[3];		/* trip: the value to step back to */
	uint64_t hold_ms;	/* trip: how long raises are refused */
};

/*
 * Does RTT rise with the max (r >= TB_GUARD_MIN_R, rise >=
 * TB_GUARD_MIN_RISE over at least TB_GUARD_MIN_SAMPLES settings) while
 * throughput does not grow by TB_GUARD_MIN_GAIN?  Then trip: step back to
 * the max before our last raise (else one delta down, never below
 * cur[1]) and hold, doubling per earlier trip up to TB_GUARD_HOLD_MAX_MS;
 * @g records the hold.  Without throughput figures, RTT alone decides.
 * The kit's guard with a benefit window (bpftune_guard_check()) decides;
 * this keeps tcp_buffer's state and three-value tunable around it.
 */
bool tb_guard_check(struct tb_guard *g, const struct bpftune_corr *rtt_w,
		    const struct bpftune_corr *rate_w, const long cur[3],
		    unsigned int rate, uint64_t now_ms,
		    struct tb_guard_verdict *v);

/* ---- tcp_mem and low-memory mode ----------------------------------------- */

enum tb_mem_verdict {
	TB_MEM_BELOW,		/* below the pressure threshold: nothing */
	TB_MEM_GROW,		/* grow tcp_mem toward the ceiling */
	TB_MEM_AT_CEILING,	/* cannot grow further */
	TB_MEM_OVER_CAP,	/* set above the cap: bring it within */
};

struct tb_mem_in {
	long cur[3];		/* tcp_mem now (pages) */
	long pages;		/* TCP memory in use (pages) */
	bool pressure;		/* the kernel's pressure flag */
	bool refused;		/* the kernel refused TCP socket memory */
	long avail;		/* MemAvailable (pages), <= 0 unknown */
	long cap;		/* tcp_mem's cap (a quarter of RAM) */
	unsigned int rate;
	/*
	 * TCP pages when low-memory mode was last undone as calm (0: never):
	 * the count can stay there with no socket holding it (the per-CPU
	 * caches, tb_mem_calm()), so only more than that, or the kernel
	 * refusing memory, enters the mode again: no flapping on one reading
	 */
	long undone_at;
};

struct tb_mem_out {
	enum tb_mem_verdict verdict;
	bool exhausted;		/* refused, or within delta of tcp_mem[2] */
	bool at_max;		/* within delta of tcp_mem[2] */
	long ceiling;		/* what TCP holds + a quarter of what is free */
	long want[3];		/* TB_MEM_GROW, TB_MEM_OVER_CAP: the new tcp_mem */
	bool lowmem;		/* TCP is really short: low-memory mode */
};

void tb_mem_decide(const struct tb_mem_in *in, struct tb_mem_out *out);
const char *tb_mem_action(enum tb_mem_verdict v);

/*
 * Low-memory mode: one step down of a buffer max, to no less than a
 * quarter of @saved_max (the max before the mode; <= 0: the live one)
 * nor the default size cur[1].
 */
void tb_lowmem_shrink(const long cur[3], long saved_max, unsigned int rate,
		      long want[3]);
/*
 * No pressure and TCP memory clear of tcp_mem[1] by delta?  @pcpu_reserve
 * is what the kernel's per-CPU caches may hold on top of what sockets use
 * (net.core.mem_pcpu_rsv pages a CPU): the page count can sit that much
 * above the truth with no socket left.  It is allowed for, up to delta.
 */
bool tb_mem_calm(long pages, bool pressure, long mem1, long pcpu_reserve,
		 unsigned int rate);
/* the part of @pcpu_reserve that tb_mem_calm() allows for */
long tb_mem_calm_allowance(long mem1, long pcpu_reserve, unsigned int rate);

/* ---- the SYN queue and syncookies ---------------------------------------- */

#define TB_SYN_FLOOD_MIN	32
#define TB_SYN_FLOOD_VOTES	2
#define TB_SYN_FLOOD_RATIO	16

/* Counters of a netns: TcpExt of /proc/net/netstat and the BPF side's. */
struct tb_syn_counters {
	uint64_t cookies_sent, cookies_recv, cookies_failed;
	uint64_t listen_drops, listen_overflows, reqq_drops;
	uint64_t completed, synack_retrans;
};

/* What happened between two readings. */
struct tb_syn_delta {
	uint64_t stalled;	/* SYN-ACKs resent: requests not answered */
	uint64_t completed;	/* handshakes completed */
	uint64_t sent, recv;	/* syncookies */
	uint64_t drops;		/* SYNs dropped for a full SYN queue */
};

void tb_syn_delta(const struct tb_syn_counters *now,
		  const struct tb_syn_counters *before, struct tb_syn_delta *d);

enum tb_syn_verdict {
	TB_SYN_FLOOD_SUSPECTED,	/* flood evidence, not yet confirmed */
	TB_SYN_FLOOD_COOKIES_ON, /* a flood; syncookies already on */
	TB_SYN_FLOOD_COOKIES,	/* a flood: turn syncookies on */
	TB_SYN_COOKIES_ON,	/* load; syncookies on: the backlog bounds it */
	TB_SYN_NO_COMPLETION,	/* no handshake completed */
	TB_SYN_NOT_NEAR,	/* no drop, queue not near the drop threshold */
	TB_SYN_BACKLOG_LIMIT,	/* the listen backlog is the limit */
	TB_SYN_GROW,		/* legitimate load: grow tcp_max_syn_backlog */
};

struct tb_syn_in {
	struct tb_syn_delta d;
	long syncookies;	/* tcp_syncookies now */
	long max_syn;		/* tcp_max_syn_backlog now */
	unsigned int qlen;	/* the listener's half-open requests */
	unsigned int backlog;	/* its accept backlog */
	unsigned int rate;
};

/*
 * A flood: SYNs dropped, SYN-ACKs or cookies unanswered, at least
 * TB_SYN_FLOOD_MIN of them and TB_SYN_FLOOD_RATIO times the completed
 * handshakes, seen in TB_SYN_FLOOD_VOTES evaluations in a row (*votes
 * counts them; completions clear it).  Otherwise the backlog grows for
 * legitimate load dropped past 3/4 of it.  On TB_SYN_GROW *want is the
 * new tcp_max_syn_backlog.
 */
enum tb_syn_verdict tb_syn_decide(const struct tb_syn_in *in,
				  unsigned int *votes, long *want);
const char *tb_syn_action(enum tb_syn_verdict v);
/* is it about the flood (syncookies) rather than the backlog? */
bool tb_syn_is_flood(enum tb_syn_verdict v);
/* SYNs dropped or left half-open, what a flood verdict counted */
uint64_t tb_syn_bad(const struct tb_syn_delta *d);

/*
 * Syncookies we turned on: any cookie sent or SYN-ACK resent since
 * @before makes the netns busy at @now_ms (*busy_ms).  True when it has
 * been quiet for @quiet_ms: time to restore them.
 */
bool tb_syncookies_idle(const struct tb_syn_counters *now,
			const struct tb_syn_counters *before,
			uint64_t *busy_ms, uint64_t now_ms, uint64_t quiet_ms);

#endif /* BPFTUNE_TCP_BUFFER_POLICY_H */
