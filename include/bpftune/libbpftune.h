/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libbpftune: the API a tuner plugin is written against.
 *
 * A tuner is a shared object named <name>_tuner.so that defines one
 * struct bpftune_tuner_ops with BPFTUNE_TUNER().  The daemon opens the
 * tuner's BPF object (full or legacy variant), enables the hooks the
 * kernel supports, writes tuner_id and the other bpftune_* globals, makes
 * the object share the one ring buffer, loads and attaches it, and then
 * calls init().  Events from the BPF side reach event_handler(); the tuner
 * changes tunables only through bpftune_tunable_set(), which enforces the
 * caps, skips no-op writes, logs the reason and records the change.
 */
#ifndef BPFTUNE_LIBBPFTUNE_H
#define BPFTUNE_LIBBPFTUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <syslog.h>
#include <bpftune/bpftune.h>
#include <bpftune/sampling.h>
#include <bpftune/telemetry.h>

struct bpf_object;
struct bpftune_tuner;

/* ---- logging -------------------------------------------------------- */

/* Levels are syslog's: LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG */
void bpftune_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- tunables ------------------------------------------------------- */

enum bpftune_tunable_flags {
	BPFTUNE_TUNABLE_NAMESPACED = 1 << 0,	/* one value per netns */
	BPFTUNE_TUNABLE_STRING     = 1 << 1,	/* e.g. tcp_congestion_control */
};

/*
 * One sysctl a tuner manages.  min and max are hard caps: no value outside
 * [min, max] is ever written, whatever the tuner asks for.  cap_reason says
 * where the cap comes from and is printed by the daemon's documentation.
 */
struct bpftune_tunable_desc {
	const char *name;		/* "net.core.somaxconn" */
	unsigned int flags;
	unsigned int num_values;	/* 1..BPFTUNE_MAX_VALUES */
	long min;
	long max;
	const char *cap_reason;
};

struct bpftune_scenario_desc {
	const char *name;		/* short: "listen backlog truncated" */
	const char *description;	/* what was seen and why we act */
};

/* ---- plugin descriptor ---------------------------------------------- */

/* An embedded BPF object: the bytes from a bpftool-generated skeleton. */
struct bpftune_bpf_image {
	const void *(*bytes)(size_t *size);
};

struct bpftune_tuner_ops {
	unsigned int abi_version;	/* BPFTUNE_ABI_VERSION */
	const char *name;
	const char *description;
	struct bpftune_bpf_image full;	/* tp_btf/fentry variant */
	struct bpftune_bpf_image legacy;	/* raw_tp/kprobe variant */
	const struct bpftune_tunable_desc *tunables;
	unsigned int num_tunables;
	const struct bpftune_scenario_desc *scenarios;
	unsigned int num_scenarios;
	/* called after the BPF object is loaded and attached; 0 or -errno */
	int (*init)(struct bpftune_tuner *tuner);
	void (*fini)(struct bpftune_tuner *tuner);
	void (*event_handler)(struct bpftune_tuner *tuner,
			      const struct bpftune_event *event);
	/* the plugin's telemetry tables and gauges; may be NULL */
	const struct bpftune_telemetry_desc *telemetry;
};

#define BPFTUNE_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Define the plugin's descriptor.  skel is the skeleton name given to
 * bpftool gen skeleton for the full object; the legacy one is skel##_legacy.
 * Further members may follow as designated initialisers, e.g.
 * .telemetry = &my_telemetry.
 */
#define BPFTUNE_TUNER(tname, desc, skel, tun, scen, init_fn, fini_fn, ev_fn, ...) \
	const struct bpftune_tuner_ops bpftune_tuner_ops = {		\
		.abi_version = BPFTUNE_ABI_VERSION,			\
		.name = tname,						\
		.description = desc,					\
		.full = { .bytes = skel##__elf_bytes },			\
		.legacy = { .bytes = skel##_legacy__elf_bytes },	\
		.tunables = tun,					\
		.num_tunables = BPFTUNE_ARRAY_SIZE(tun),		\
		.scenarios = scen,					\
		.num_scenarios = BPFTUNE_ARRAY_SIZE(scen),		\
		.init = init_fn,					\
		.fini = fini_fn,					\
		.event_handler = ev_fn,					\
		__VA_ARGS__						\
	}

#define BPFTUNE_TUNER_OPS_SYMBOL	"bpftune_tuner_ops"

/* ---- tuner accessors ------------------------------------------------ */

const char *bpftune_tuner_name(const struct bpftune_tuner *tuner);
struct bpf_object *bpftune_tuner_bpf_object(const struct bpftune_tuner *tuner);
/* fd of a map of the tuner's object, or -ENOENT */
int bpftune_tuner_map_fd(const struct bpftune_tuner *tuner, const char *map);
void bpftune_tuner_set_priv(struct bpftune_tuner *tuner, void *priv);
void *bpftune_tuner_priv(const struct bpftune_tuner *tuner);
/* learning rate 0..4 and the matching delta (value >> (6 - rate)) */
unsigned int bpftune_learning_rate(void);
long bpftune_delta(long value);

/* ---- network namespaces --------------------------------------------- */

/* Cookie of the daemon's own (the initial) network namespace. */
uint64_t bpftune_global_netns_cookie(void);
static inline bool bpftune_netns_is_global(uint64_t cookie)
{
	return cookie == 0 || cookie == bpftune_global_netns_cookie();
}
/*
 * An fd for the network namespace an event came from, found through the
 * event's pid and checked against its cookie.  -1 (global) when the cookie
 * is the global one; -errno if it cannot be found.  The fd belongs to
 * the library: do not close it, and do not keep it past the event
 * handler, which is when the library closes it (an open netns fd would
 * keep a deleted namespace alive).
 */
int bpftune_netns_fd_for_event(const struct bpftune_event *event);

/*
 * A tuner's private state per network namespace.  The tuner's struct
 * starts with a struct bpftune_netns_priv; the library allocates it
 * (zeroed, ops->size bytes) on first use in a netns and frees it when
 * that netns is destroyed or the admin takes the tuner over there (every
 * entry when over the global netns) -- before the tuner's own state
 * observer is told -- and in bpftune_netns_table_fini().
 */
struct bpftune_netns_priv {
	struct bpftune_netns_priv *next;	/* the library's */
	uint64_t cookie;	/* 0 for the global netns */
	uint32_t pid;		/* last task seen there, to find it again */
	uint64_t last_used_ms;	/* bpftune_now_ms() of the last get */
};

struct bpftune_netns_table_ops {
	size_t size;		/* of the tuner's struct */
	unsigned int max;	/* entries at most; 0: no limit */
	/* a new entry (already zeroed, cookie set); may be NULL */
	void (*init)(struct bpftune_netns_priv *p);
	/*
	 * At max, get() recycles the least recently used entry that is not
	 * busy (something of ours to undo there) and fails if all are, or
	 * if busy is NULL.
	 */
	bool (*busy)(const struct bpftune_netns_priv *p);
	/* an entry is about to be freed, whatever the reason; may be NULL */
	void (*release)(struct bpftune_tuner *tuner,
			struct bpftune_netns_priv *p);
};

/* Call from init(): 0 or -errno. */
int bpftune_netns_table_init(struct bpftune_tuner *tuner,
			     const struct bpftune_netns_table_ops *ops);
/* The entry of the event's netns, created if need be (pid and last use
 * updated); NULL if it cannot be. */
void *bpftune_netns_table_get(struct bpftune_tuner *tuner,
			      const struct bpftune_event *event);
/* The entry of @cookie, or NULL; never creates one. */
void *bpftune_netns_table_find(const struct bpftune_tuner *tuner,
			       uint64_t cookie);
void bpftune_netns_table_remove(struct bpftune_tuner *tuner, uint64_t cookie);
/* Iterate: next(NULL) is the first entry; do not remove while iterating. */
void *bpftune_netns_table_next(const struct bpftune_tuner *tuner,
			       const void *prev);
unsigned int bpftune_netns_table_count(const struct bpftune_tuner *tuner);
#define bpftune_netns_table_for_each(tuner, p)				\
	for ((p) = bpftune_netns_table_next(tuner, NULL); (p);		\
	     (p) = bpftune_netns_table_next(tuner, p))
/* Free every entry (release() is called); call from fini(). */
void bpftune_netns_table_fini(struct bpftune_tuner *tuner);

/* ---- sysctl I/O ----------------------------------------------------- */

/*
 * Read or write a sysctl, by dotted ("net.core.somaxconn") or slash name,
 * in the network namespace netns_fd (-1: the daemon's own).  Values are
 * whitespace-separated integers; return the number of values read, or
 * -errno.
 */
int bpftune_sysctl_read(int netns_fd, const char *name, long *values,
			unsigned int max_values);
int bpftune_sysctl_write(int netns_fd, const char *name, const long *values,
			 unsigned int num_values);
int bpftune_sysctl_read_string(int netns_fd, const char *name, char *buf,
			       size_t len);
int bpftune_sysctl_write_string(int netns_fd, const char *name,
				const char *value);

/* ---- changing tunables ---------------------------------------------- */

/*
 * Set tunable @index of @tuner to @values in the netns of @netns_cookie
 * (global netns for non-namespaced tunables), clamping to the tunable's
 * caps.  @scenario indexes the tuner's scenarios; @reason is logged.
 * Returns 1 if the value changed, 0 for a no-op (nothing written, logged
 * or counted), -EPERM if the admin has taken the tunable over in that
 * netns, or another -errno.
 */
int bpftune_tunable_set(struct bpftune_tuner *tuner, unsigned int index,
			const struct bpftune_event *event,
			unsigned int scenario, const long *values,
			unsigned int num_values, const char *reason);

/*
 * Record that the tuner evaluated a situation, whatever it decided --
 * including doing nothing.  Decisions feed the telemetry tables (state ->
 * action -> outcome) and the debug log.
 */
struct bpftune_decision {
	unsigned int scenario;
	const char *policy;	/* "grow-near-limit", "epsilon-greedy", ... */
	const char *inputs;	/* "key=value ..." the policy looked at */
	const char *action;	/* "none", "raise", "cc=bbr", ... */
	int tunable;		/* tunable index it concerns, or -1 */
	double epsilon;		/* exploring policies; negative otherwise */
	int explored;		/* 1 explore, 0 greedy, -1 not applicable */
};

void bpftune_decision(struct bpftune_tuner *tuner,
		      const struct bpftune_event *event,
		      const struct bpftune_decision *decision);

/*
 * bpftune_decision() for the usual policy that does not explore (epsilon
 * -1, explored -1); @tunable is the tunable index it concerns, or -1.
 */
void bpftune_decide(struct bpftune_tuner *tuner,
		    const struct bpftune_event *event, unsigned int scenario,
		    int tunable, const char *policy, const char *inputs,
		    const char *action);

/* Current values of tunable @index in the event's netns (live read). */
int bpftune_tunable_get(struct bpftune_tuner *tuner, unsigned int index,
			const struct bpftune_event *event, long *values);

/*
 * A tunable applied another way than by writing its /proc/sys file: the
 * neighbour table thresholds through rtnetlink (RTM_SETNEIGHTBL), say.
 * Register the writer from init().  bpftune_tunable_set() then calls it
 * instead of the sysctl write -- after the caps, the no-op check and the
 * rollback journal -- with the thread already in the tunable's network
 * namespace (a socket it opens belongs to that netns) and the daemon's
 * capabilities raised.  It returns 0 or -errno.
 *
 * The sysctl named by the tunable must read back what the writer applies:
 * live reads, the journal and -R restore go through /proc/sys.  Since a
 * writer is not seen by the sysctl tuner, bpftune_tunable_set() compares
 * the live value of such a tunable with the value it last wrote there and,
 * if someone else has changed it, stops the tuner in that netns (-EPERM).
 */
typedef int (*bpftune_tunable_writer_fn)(struct bpftune_tuner *tuner,
					 unsigned int index,
					 const long *values,
					 unsigned int num_values, void *ctx);
int bpftune_tunable_set_writer(struct bpftune_tuner *tuner, unsigned int index,
			       bpftune_tunable_writer_fn fn, void *ctx);

/* ---- timers --------------------------------------------------------- */

/* Milliseconds of CLOCK_MONOTONIC. */
uint64_t bpftune_now_ms(void);

/*
 * A one-shot timer on the daemon's loop, for work due later (shrinking a
 * value back, say).  Arm it only while something is pending: an idle
 * daemon must never wake.  @fn runs in the daemon's thread, with the timer
 * already disarmed, so it re-arms it if more work remains; netns fds
 * obtained during @fn are released after it, as after an event handler.
 */
typedef void (*bpftune_timer_fn)(void *ctx);
struct bpftune_timer;

/* NULL with errno set on failure.  Create it from init(). */
struct bpftune_timer *bpftune_timer_new(bpftune_timer_fn fn, void *ctx);
/* Fire once in @delay_ms (re-arming if armed); 0 disarms.  0 or -errno. */
int bpftune_timer_set(struct bpftune_timer *tm, uint64_t delay_ms);
bool bpftune_timer_armed(const struct bpftune_timer *tm);
/* Remove from the loop and free; NULL is fine.  Call from fini(). */
void bpftune_timer_free(struct bpftune_timer *tm);

/*
 * An event to pass to bpftune_tunable_set() and bpftune_decide() when
 * acting from a timer rather than from a BPF event: @netns_cookie 0 means
 * the global netns; for another, @pid is a task seen in it (for finding it
 * again).  Timestamped now, on the events' clock (CLOCK_BOOTTIME).
 */
void bpftune_event_init(struct bpftune_event *ev,
			const struct bpftune_tuner *tuner,
			unsigned int scenario, uint64_t netns_cookie,
			uint32_t pid);

/* ---- performance counters -------------------------------------------- */

struct perf_event_attr;
/*
 * perf_event_open(2) with the daemon's capabilities raised for the call
 * (CAP_PERFMON: counting a whole CPU).  Returns the fd (O_CLOEXEC) or
 * -errno: -ENOENT/-EOPNOTSUPP where the event does not exist here (no
 * PMU), -EACCES/-EPERM if not allowed.
 */
int bpftune_perf_event_open(struct perf_event_attr *attr, int pid, int cpu,
			    int group_fd, unsigned long flags);

/* ---- memory ---------------------------------------------------------- */

/* Page size, at least 4096: memory sysctls (tcp_mem, udp_mem) count pages. */
long bpftune_page_size(void);
/* A quarter of RAM in pages, the usual cap of a memory sysctl; -1 unknown */
long bpftune_ram_quarter_pages(void);
/* MemAvailable of /proc/meminfo in pages; -1 if unknown */
long bpftune_mem_available_pages(void);

/* ---- strategies ------------------------------------------------------ */

/*
 * A tuner may try several ways of tuning in turn.  The active strategy
 * runs for timeout_ms; then every strategy is scored with evaluate() and
 * the best one becomes active (the current one stays on a tie).  Only the
 * active strategy's BPF programs are attached: programs[] names them, by
 * program name or by hook group ("<hook>" of "<hook>__<variant>"), and
 * they must be attachable without a cgroup (tracing programs).
 */
struct bpftune_strategy {
	const char *name;
	const char *description;
	unsigned int timeout_ms;
	double (*evaluate)(struct bpftune_tuner *tuner, unsigned int index);
	const char *const *programs;	/* NULL-terminated; may be NULL */
};

/* Call from init(): the first strategy becomes active.  0 or -errno. */
int bpftune_strategies_set(struct bpftune_tuner *tuner,
			   const struct bpftune_strategy *strategies,
			   unsigned int num);
/* Index of the active strategy, or -1 if the tuner has none. */
int bpftune_strategy_active(const struct bpftune_tuner *tuner);

#endif /* BPFTUNE_LIBBPFTUNE_H */
