/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libbpftune: the API a plugin -- a tuner or a collector -- is written
 * against.  With the tuner kit (grow.h, correlation.h, proc.h, netlink.h,
 * kernel.h) it is all a plugin may use: the library
 * exports nothing else.
 *
 * A plugin is a shared object named NAME_tuner.so (or NAME_collector.so)
 * that defines its descriptor with BPFTUNE_TUNER() or BPFTUNE_COLLECTOR().
 * The library owns its life cycle:
 *
 *  1. load: the descriptor is checked (ABI version, tables); the BPF
 *     skeleton of the mode (full or legacy) is opened, the best program
 *     per hook enabled, bpftune's globals written through the skeleton,
 *     the one ring buffer shared, the object loaded and attached;
 *  2. the library allocates ops->priv_size bytes of private state (zeroed),
 *     the per-netns table (ops->netns) and the timer (ops->timer), then
 *     calls init(tuner, priv) -- which holds only what is the plugin's own;
 *  3. events: an event of an unknown scenario, or whose payload is shorter
 *     than its scenario's payload_size, is rejected and counted (-q status,
 *     metrics; logged once per scenario); one from a netns where the
 *     plugin was stopped is ignored; the rest go to the scenario's
 *     handle(), else to ops->event();
 *  4. netns_state(tuner, priv, cookie, state) tells the plugin it was
 *     stopped in a netns (MANUAL: an admin wrote a tunable it manages) or
 *     that a netns is gone, after the library dropped its per-netns entry
 *     and its correlation windows there -- for this plugin only;
 *  5. unload: fini(tuner, priv), then the library frees the timer, the
 *     per-netns entries (release() each), the correlation windows and the
 *     private state, and closes the BPF object.
 *
 * A tuner changes tunables only through bpftune_tunable_set(), which
 * enforces the caps, skips no-op writes, journals the original value,
 * refuses tunables the admin has taken over, logs the reason and records
 * the change.  Callbacks run in the daemon's one thread: never block.
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

#pragma GCC visibility push(default)

struct bpf_map;
struct bpf_object;
struct bpf_object_open_opts;
struct bpftune_tuner;
struct bpftune_gate;

/* ---- logging -------------------------------------------------------- */

/* Levels are syslog's: LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG */
void bpftune_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- what a plugin declares ----------------------------------------- */

enum bpftune_plugin_kind {
	BPFTUNE_KIND_TUNER,	/* changes tunables */
	BPFTUNE_KIND_COLLECTOR,	/* tunes nothing: only records rows */
	BPFTUNE_KIND_CORE,	/* built into the daemon: admin override, netns */
};

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
	/*
	 * Payload bytes an event of this scenario carries at least
	 * (sizeof its payload struct): a shorter one is rejected and
	 * counted, never handled.
	 */
	unsigned int payload_size;
	/*
	 * The scenario's events; NULL: ops->event, or none when the
	 * scenario is decided in userspace only (timers).
	 */
	void (*handle)(struct bpftune_tuner *tuner, void *priv,
		       const struct bpftune_event *event);
};

/* Where a tuner is stopped, or a netns gone (netns_state()). */
enum bpftune_state {
	BPFTUNE_STATE_ACTIVE,
	BPFTUNE_STATE_MANUAL,	/* an admin wrote a tunable we manage */
	BPFTUNE_STATE_GONE,	/* netns destroyed */
};

/*
 * Per-netns private state, kept by the library: the plugin's struct
 * starts with a struct bpftune_netns_priv.  An entry is made (zeroed,
 * size bytes) on first use in a netns and freed when that netns is
 * destroyed, when the admin stops the plugin there (every entry when in
 * the global netns) and at unload -- before netns_state() is called.
 */
struct bpftune_netns_priv {
	struct bpftune_netns_priv *next;	/* the library's */
	uint64_t cookie;	/* 0 for the global netns */
	uint32_t pid;		/* last task seen there, to find it again */
	uint64_t last_used_ms;	/* bpftune_now_ms() of the last get */
};

struct bpftune_netns_table_ops {
	size_t size;		/* of the plugin's struct; 0: no table */
	unsigned int max;	/* entries at most; 0: no limit */
	/* a new entry (already zeroed, cookie set); may be NULL */
	void (*init)(struct bpftune_netns_priv *p);
	/*
	 * At max, a new netns recycles the least recently used entry that
	 * is not busy (something of ours to undo there); none if all are,
	 * or if busy is NULL.
	 */
	bool (*busy)(const struct bpftune_netns_priv *p);
	/* an entry is about to be freed, whatever the reason; may be NULL */
	void (*release)(struct bpftune_tuner *tuner, void *priv,
			struct bpftune_netns_priv *p);
};

/*
 * bpftune's own globals in every plugin object (bpftune.bpf.h), written
 * before load and read back after it, through the plugin's skeleton.
 */
struct bpftune_bpf_config {
	__u32 tuner_id;
	__u32 daemon_tgid;
	__u32 learning_rate;
};

/*
 * Typed access to one BPF skeleton (full or legacy), generated by
 * BPFTUNE_TUNER() from the bpftool skeletons: never filled by hand.
 */
struct bpftune_bpf_image {
	void *(*open)(const struct bpf_object_open_opts *opts);
	struct bpf_object *(*object)(void *skel);
	int (*load)(void *skel);
	void (*destroy)(void *skel);
	void (*configure)(void *skel, const struct bpftune_bpf_config *config);
	/* after load: the globals as the kernel has them, ring buffer losses */
	void (*read)(const void *skel, struct bpftune_bpf_config *config,
		     uint64_t *ringbuf_lost);
	/* the object's ELF image (its CO-RE records pick the kernel types) */
	const void *(*bytes)(size_t *size);
};

struct bpftune_tuner_ops {
	unsigned int abi_version;	/* first in every ABI */
	unsigned int ops_size;		/* sizeof(struct bpftune_tuner_ops) built against */
	enum bpftune_plugin_kind kind;
	const char *name;		/* [A-Za-z0-9_-], at most 32 */
	const char *description;
	struct bpftune_bpf_image full;	/* tp_btf/fentry variant */
	struct bpftune_bpf_image legacy;	/* raw_tp/kprobe variant */
	const struct bpftune_tunable_desc *tunables;	/* BPFTUNE_TUNABLES() */
	unsigned int num_tunables;
	const struct bpftune_scenario_desc *scenarios;	/* BPFTUNE_SCENARIOS() */
	unsigned int num_scenarios;
	size_t priv_size;		/* private state passed to every callback */
	struct bpftune_netns_table_ops netns;	/* per-netns state, if size */
	/* after load and attach; 0 or -errno (the plugin is skipped) */
	int (*init)(struct bpftune_tuner *tuner, void *priv);
	void (*fini)(struct bpftune_tuner *tuner, void *priv);
	/* events of scenarios without a handle() of their own */
	void (*event)(struct bpftune_tuner *tuner, void *priv,
		      const struct bpftune_event *event);
	/* stopped in a netns (MANUAL; cookie 0: everywhere) or a netns GONE */
	void (*netns_state)(struct bpftune_tuner *tuner, void *priv,
			    uint64_t netns_cookie, enum bpftune_state state);
	/* the plugin's timer fired (see bpftune_timer_set()) */
	void (*timer)(struct bpftune_tuner *tuner, void *priv);
	/* the plugin's telemetry tables and gauges (telemetry.h); may be NULL */
	const struct bpftune_telemetry_desc *telemetry;
	/*
	 * Pressure gates of its hot hooks (gate.h, BPFTUNE_GATES()): the
	 * library attaches those programs only while their gate is open.
	 */
	const struct bpftune_gate *gates;
	unsigned int num_gates;
	/*
	 * The config was re-read (SIGHUP, a valid one): settings such as
	 * bpftune_strategy_setting() may have changed.  May be NULL.
	 */
	void (*reload)(struct bpftune_tuner *tuner, void *priv);
	/*
	 * The daemon is stopping and telemetry is still on: write what the
	 * plugin still holds (a collector's ring buffer); main thread, may
	 * wait for room in the writer's queue (bpftune_table_room()).
	 */
	void (*drain)(struct bpftune_tuner *tuner, void *priv);
	/*
	 * New members go here, at the end: the library reads one only when
	 * the plugin's ops_size covers it (BPFTUNE_OPS_HAS()).
	 */
};

#define BPFTUNE_OPS_HAS(ops, member)					\
	((ops)->ops_size >= offsetof(struct bpftune_tuner_ops, member) +	\
			    sizeof((ops)->member))

#define BPFTUNE_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BPFTUNE_TUNABLES(a)	.tunables = (a), .num_tunables = BPFTUNE_ARRAY_SIZE(a)
#define BPFTUNE_SCENARIOS(a)	.scenarios = (a), .num_scenarios = BPFTUNE_ARRAY_SIZE(a)

/*
 * The typed glue of skeleton @skel (struct skel from bpftool gen skeleton
 * ... name skel): open, load and destroy it, and reach bpftune's globals
 * through its rodata and bss, libbpf-tools style.
 */
#define BPFTUNE_SKEL_GLUE(skel)						\
static void *skel##__bpftune_open(const struct bpf_object_open_opts *o)	\
{									\
	return skel##__open_opts(o);					\
}									\
static struct bpf_object *skel##__bpftune_object(void *s)		\
{									\
	return ((struct skel *)s)->obj;					\
}									\
static int skel##__bpftune_load(void *s)				\
{									\
	return skel##__load((struct skel *)s);				\
}									\
static const void *skel##__bpftune_bytes(size_t *size)		\
{									\
	return skel##__elf_bytes(size);					\
}									\
static void skel##__bpftune_destroy(void *s)				\
{									\
	skel##__destroy((struct skel *)s);				\
}									\
static void skel##__bpftune_configure(void *s,				\
				      const struct bpftune_bpf_config *c)	\
{									\
	struct skel *o = s;						\
									\
	o->rodata->bpftune_tuner_id = c->tuner_id;			\
	o->rodata->bpftune_daemon_tgid = c->daemon_tgid;		\
	o->rodata->bpftune_learning_rate = c->learning_rate;		\
}									\
static void skel##__bpftune_read(const void *s,				\
				 struct bpftune_bpf_config *c,		\
				 uint64_t *lost)			\
{									\
	const struct skel *o = s;					\
									\
	/* NULL when the kernel could not map them (no mmap of arrays) */	\
	if (o->rodata) {						\
		c->tuner_id = o->rodata->bpftune_tuner_id;		\
		c->daemon_tgid = o->rodata->bpftune_daemon_tgid;	\
		c->learning_rate = o->rodata->bpftune_learning_rate;	\
	}								\
	*lost = o->bss ? o->bss->bpftune_ringbuf_lost : 0;		\
}

#define BPFTUNE_SKEL_IMAGE(skel) {					\
	.open = skel##__bpftune_open,					\
	.object = skel##__bpftune_object,				\
	.load = skel##__bpftune_load,					\
	.destroy = skel##__bpftune_destroy,				\
	.configure = skel##__bpftune_configure,				\
	.read = skel##__bpftune_read,					\
	.bytes = skel##__bpftune_bytes,					\
}

/*
 * Define the plugin's descriptor with designated initialisers, e.g.
 *
 *	BPFTUNE_TUNER(sample_tuner_bpf,
 *		.name = "sample",
 *		.description = "raises somaxconn when listen() backlogs are truncated",
 *		BPFTUNE_TUNABLES(tunables),
 *		BPFTUNE_SCENARIOS(scenarios),
 *		.priv_size = sizeof(struct sample_priv));
 *
 * @skel is the skeleton name of the full object (bpftool gen skeleton
 * ... name skel); the legacy one is skel##_legacy.
 */
#define BPFTUNE_OPS_INITIALIZER(plugin_kind, skel, ...) {		\
		.abi_version = BPFTUNE_ABI_VERSION,			\
		.ops_size = sizeof(struct bpftune_tuner_ops),		\
		.kind = (plugin_kind),					\
		.full = BPFTUNE_SKEL_IMAGE(skel),			\
		.legacy = BPFTUNE_SKEL_IMAGE(skel##_legacy),		\
		__VA_ARGS__						\
	}

#define BPFTUNE_PLUGIN(plugin_kind, skel, ...)				\
	BPFTUNE_SKEL_GLUE(skel)						\
	BPFTUNE_SKEL_GLUE(skel##_legacy)				\
	__attribute__((visibility("default")))				\
	const struct bpftune_tuner_ops bpftune_tuner_ops =		\
		BPFTUNE_OPS_INITIALIZER(plugin_kind, skel, __VA_ARGS__)

#define BPFTUNE_TUNER(skel, ...)					\
	BPFTUNE_PLUGIN(BPFTUNE_KIND_TUNER, skel, __VA_ARGS__)
/* A collector declares no tunables: it only records rows. */
#define BPFTUNE_COLLECTOR(skel, ...)					\
	BPFTUNE_PLUGIN(BPFTUNE_KIND_COLLECTOR, skel, __VA_ARGS__)

#define BPFTUNE_TUNER_OPS_SYMBOL	"bpftune_tuner_ops"

/* ---- the plugin at run time ------------------------------------------ */

/* the private state the library allocated (ops->priv_size), or NULL */
void *bpftune_tuner_priv(const struct bpftune_tuner *tuner);
/*
 * Its loaded skeleton and whether it is the legacy one: use
 * BPFTUNE_SKEL_MAP() and BPFTUNE_SKEL_VAR() rather than these.
 */
void *bpftune_tuner_skel(const struct bpftune_tuner *tuner);
bool bpftune_tuner_legacy(const struct bpftune_tuner *tuner);
/*
 * Map @map of the plugin's skeleton @skel, typed (a struct bpf_map *;
 * the name is checked by the compiler in both variants).
 */
#define BPFTUNE_SKEL_MAP(tuner, skel, map)				\
	(bpftune_tuner_legacy(tuner) ?					\
	 ((struct skel##_legacy *)bpftune_tuner_skel(tuner))->maps.map :	\
	 ((struct skel *)bpftune_tuner_skel(tuner))->maps.map)
/*
 * Global @var of section @sec (bss, data, rodata) of the plugin's loaded
 * skeleton @skel, typed: a pointer into the mapped section, to read or
 * write while the programs run, or NULL where the kernel cannot map it
 * (before 5.5).  Write through it rather than through bpftune_tuner_skel().
 */
#define BPFTUNE_SKEL_VAR(tuner, skel, sec, var) ({			\
	void *skel_ = bpftune_tuner_skel(tuner);			\
	struct skel##_legacy *legacy_ = skel_;				\
	struct skel *full_ = skel_;					\
	bpftune_tuner_legacy(tuner) ?					\
		(legacy_->sec ? &legacy_->sec->var : NULL) :		\
		(full_->sec ? &full_->sec->var : NULL); })

/*
 * What the daemon's options ask of collectors.  buffer_kb (--buffer-size):
 * KiB per CPU of a collector's own ring buffers; before load the daemon
 * gives each BPF_MAP_TYPE_RINGBUF of a collector but the shared one
 * buffer_kb times the CPUs, rounded up to a power of two (0: the size the
 * object declares).  keep_observer (--keep-observer): keep the events of
 * the daemon's own threads, marked, instead of leaving them out.
 */
struct bpftune_collector_opts {
	unsigned long buffer_kb;
	bool keep_observer;
};
const struct bpftune_collector_opts *bpftune_collector_opts(void);

/* learning rate 0..4 and the matching delta (value >> (6 - rate)) */
unsigned int bpftune_learning_rate(void);
/*
 * true with --observe (observe = yes): the library writes no tunable and
 * the BPF side's bpftune_observing() is true; a plugin says "would" in
 * its own messages about what it did not do.
 */
bool bpftune_observe_only(void);
long bpftune_delta(long value);

/* ---- network namespaces --------------------------------------------- */

/* Cookie of the daemon's own (the initial) network namespace. */
uint64_t bpftune_global_netns_cookie(void);
static inline bool bpftune_netns_is_global(uint64_t cookie)
{
	return cookie == 0 || cookie == bpftune_global_netns_cookie();
}
/* "global netns", "netns NAME (cookie N)" or "netns cookie N", for logs */
const char *bpftune_netns_describe(uint64_t cookie, char *buf, size_t len);

/* The entry of the event's netns, created if need be; NULL if it cannot be. */
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

/* ---- changing tunables ---------------------------------------------- */

/*
 * Set tunable @index of @tuner to @values in the netns of @event (global
 * netns for non-namespaced tunables, or when @event is NULL), clamping to
 * the tunable's caps.  @scenario indexes the tuner's scenarios; @reason is
 * logged.  Returns 1 if the value changed, 0 for a no-op (nothing written,
 * logged or counted), -EPERM if the admin has taken the tunable over in
 * that netns (or the config file forbids the change), -EAGAIN if the
 * kernel refused the last write there and its back-off (10 s, doubling to
 * 10 min) has not passed, or another -errno.
 */
int bpftune_tunable_set(struct bpftune_tuner *tuner, unsigned int index,
			const struct bpftune_event *event,
			unsigned int scenario, const long *values,
			unsigned int num_values, const char *reason);

/* Current values of tunable @index in the event's netns (live read). */
int bpftune_tunable_get(struct bpftune_tuner *tuner, unsigned int index,
			const struct bpftune_event *event, long *values);

/*
 * Record that the tuner evaluated a situation, whatever it decided --
 * including doing nothing.  Decisions feed the telemetry tables (state ->
 * action -> outcome) and the debug log.
 */
struct bpftune_decision {
	unsigned int scenario;
	const char *policy;	/* "grow-near-limit", "epsilon-greedy", ... */
	/* "key=value ..." the policy looked at; NULL: made from @values */
	const char *inputs;
	const char *action;	/* "none", "raise", "cc=bbr", ... */
	int tunable;		/* tunable index it concerns, or -1 */
	double epsilon;		/* exploring policies; negative otherwise */
	int explored;		/* 1 explore, 0 greedy, -1 not applicable */
	/*
	 * The inputs typed, one per input the policy declares (telemetry.h,
	 * struct bpftune_policy_desc), in order: recorded as a row of the
	 * policy's table.  NULL: the policy records only the text.
	 */
	const struct bpftune_value *values;
	unsigned int num_values;
	/*
	 * The probability with which the policy chose @action, in (0, 1];
	 * 0: from the policy's outcome declaration (1 for a deterministic
	 * policy, from epsilon and explored for an exploring one).
	 */
	double propensity;
};

void bpftune_decision(struct bpftune_tuner *tuner,
		      const struct bpftune_event *event,
		      const struct bpftune_decision *decision);

/*
 * bpftune_decision() for the usual policy that does not explore (epsilon
 * -1, explored -1); @tunable is the tunable index it concerns, or -1.
 * @policy is one the plugin declares (ops->telemetry->policies), @values
 * its inputs in declared order.  The decisions row gets them as text
 * ("name=value ...", NULLs left out), the policy's table gets them typed.  Values that do not match the
 * declaration are logged once per policy and recorded as text only.
 */
void bpftune_decide_values(struct bpftune_tuner *tuner,
			   const struct bpftune_event *event,
			   unsigned int scenario, int tunable,
			   const char *policy,
			   const struct bpftune_value *values,
			   unsigned int num_values, const char *action);

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
 * writer is not seen by the admin-override detection, bpftune_tunable_set()
 * compares the live value of such a tunable with the value it last wrote
 * there and, if someone else has changed it, stops the tuner in that netns
 * (-EPERM).
 */
typedef int (*bpftune_tunable_writer_fn)(struct bpftune_tuner *tuner,
					 unsigned int index,
					 const long *values,
					 unsigned int num_values, void *ctx);
int bpftune_tunable_set_writer(struct bpftune_tuner *tuner, unsigned int index,
			       bpftune_tunable_writer_fn fn, void *ctx);

/* ---- time and the plugin's timer ------------------------------------ */

/* Milliseconds of CLOCK_MONOTONIC. */
uint64_t bpftune_now_ms(void);

/*
 * A plugin with ops->timer has one one-shot timer on the daemon's loop,
 * made and freed by the library, for work due later (shrinking a value
 * back, say).  Arm it only while something is pending: an idle daemon
 * must never wake.  ops->timer runs with the timer already disarmed, so
 * it re-arms it if more work remains.
 *
 * Fire once in @delay_ms (re-arming if armed); 0 disarms.  0 or -errno.
 */
int bpftune_timer_set(struct bpftune_tuner *tuner, uint64_t delay_ms);
/*
 * The usual rule: while @pending, keep it armed to fire in @period_ms
 * (an armed timer is not pushed back); once nothing is, disarm it.
 */
void bpftune_timer_keep(struct bpftune_tuner *tuner, bool pending,
			uint64_t period_ms);

/*
 * An event to pass to bpftune_tunable_set(), bpftune_decide_values() and the kit
 * when acting from the timer rather than from a BPF event: @netns_cookie
 * 0 means the global netns; for another, @pid is a task seen in it (for
 * finding it again).  Timestamped now, on the events' clock
 * (CLOCK_BOOTTIME).
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
/*
 * The admin's setting @key of [strategy NAME] for this tuner in the
 * config file (bpftune.conf(5)), or of --strategy NAME.KEY=VALUE, which
 * wins: "model" is the path of a learned model file.  NULL if not set.
 * Valid until the config is re-read (the tuner's reload() is called).
 */
const char *bpftune_strategy_setting(const struct bpftune_tuner *tuner,
				     const char *key);

/*
 * The text of a file that decides what the daemon does (the config file,
 * a tuner's model): refused unless a regular file of at most @max bytes,
 * owned by root and writable by root only.  *@text is malloc'd and
 * NUL-terminated (free() it), *@len its length.  0, or -errno with why in
 * @err (without the path): -ENOENT when absent, -EPERM when refused,
 * -EFBIG when larger than @max, -EIO when it changed while read.
 */
int bpftune_trusted_file_read(const char *path, size_t max, char **text,
			      size_t *len, char *err, size_t err_len);

#pragma GCC visibility pop

#endif /* BPFTUNE_LIBBPFTUNE_H */
