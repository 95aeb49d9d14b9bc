// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's own telemetry tables, declared with the same types as a
 * plugin's (bpftune/telemetry.h).  The domain tables (samples_tcp, ...)
 * are declared by the plugins that own their domain, in their
 * <name>_tables.c.  Everything else is generated from the declarations:
 * the DDL, the INSERT statements, what the sampler reads, the rows of
 * telemetry_tables/telemetry_columns and docs/telemetry.md (make docs; a
 * test regenerates it and fails if the copy in git differs).  To add a
 * column here: add it, bind it where the core writes the table (the
 * writer checks every bind against these names), bump the schema
 * version, make docs.
 */
#include "telemetry/telemetry_schema.h"

#define TABLE(n, f, d, c) { .name = n, .flags = f, .description = d, .cols = c, \
			    .num_cols = BPFTUNE_TELEMETRY_ARRAY_SIZE(c) }

/* columns of the core's record tables: not drawn */
#define INT(n, d)	{ .name = n, .type = BPFTUNE_COL_INTEGER, .description = d }
#define REAL(n, d)	{ .name = n, .type = BPFTUNE_COL_REAL, .description = d }
#define TEXT(n, d)	{ .name = n, .type = BPFTUNE_COL_TEXT, .description = d }
#define NN_TEXT(n, d)	{ .name = n, .type = BPFTUNE_COL_TEXT, \
			  .flags = BPFTUNE_COL_NOT_NULL, .description = d }
/* health: the daemon's own counters and gauges */
#define HCTR(n, u, d)	BPFTUNE_COL(n, BPFTUNE_COL_INTEGER, BPFTUNE_KIND_COUNTER, 0, u, d)
#define HGAUGE(n, u, d)	BPFTUNE_COL(n, BPFTUNE_COL_INTEGER, BPFTUNE_KIND_GAUGE, 0, u, d)
#define HFLAT(n, u, d)	BPFTUNE_COL(n, BPFTUNE_COL_INTEGER, BPFTUNE_KIND_GAUGE, \
				    BPFTUNE_COL_NO_PLOT, u, d)
/* samples_system: read from /proc every interval (fmt is pasted: no macro) */
#define CTR(n, u, f, fmt, k, d)		BPFTUNE_COL_PROC_COUNTER(n, 0, u, f, fmt, k, d)
#define GAUGE(n, u, f, fmt, k, d)	BPFTUNE_COL_PROC_GAUGE(n, 0, u, f, fmt, k, d)
#define RGAUGE(n, u, f, fmt, k, d)	BPFTUNE_COL_PROC_REAL(n, 0, u, f, fmt, k, d)
#define OV			BPFTUNE_COL_OVERVIEW

#define F_LOADAVG	"/proc/loadavg"
#define F_STAT		"/proc/stat"
#define F_MEMINFO	"/proc/meminfo"
#define F_PSI_CPU	"/proc/pressure/cpu"
#define F_PSI_MEM	"/proc/pressure/memory"
#define F_PSI_IO	"/proc/pressure/io"

const struct bpftune_col_desc bpftune_common_cols[BPFTUNE_NUM_COMMON_COLS] = {
	NN_TEXT("run_id", "UUID of the daemon run the row belongs to (runs.run_id)"),
	NN_TEXT("host_id", "id of the host: --host-id if given, else systemd's app-specific hash of /etc/machine-id, else a random id kept in the telemetry directory's host-id file"),
	{ .name = "seq", .type = BPFTUNE_COL_INTEGER, .flags = BPFTUNE_COL_NOT_NULL,
	  .description = "row number in this table for this run, from 1; a gap means rows were dropped (writer queue full, counted in health)" },
	{ .name = "ts_uptime_us", .type = BPFTUNE_COL_INTEGER, .flags = BPFTUNE_COL_NOT_NULL,
	  .unit = "us",
	  .description = "CLOCK_BOOTTIME in microseconds when the row was observed; for events the BPF-side bpf_ktime_get_boot_ns() of the event" },
};

const struct bpftune_col_desc bpftune_netns_cookie_col = {
	.name = "netns_cookie", .type = BPFTUNE_COL_INTEGER, .kind = BPFTUNE_KIND_LABEL,
	.flags = BPFTUNE_COL_NOT_NULL,
	.description = "network namespace the row describes (its cookie, as in events.netns_cookie); 0 for the daemon's (global) netns",
};

static const struct bpftune_col_desc meta_cols[] = {
	NN_TEXT("key", "schema_version, run_id, host_id, created_by, created_wall"),
	TEXT("value", "the value, as text"),
};

static const struct bpftune_col_desc runs_cols[] = {
	TEXT("boot_id", "/proc/sys/kernel/random/boot_id: ts_uptime_us values compare only within one boot"),
	INT("start_wall_us", "CLOCK_REALTIME at start, microseconds since the epoch (the row's ts_uptime_us is the same instant on CLOCK_BOOTTIME)"),
	TEXT("start_wall", "start, ISO 8601 UTC"),
	INT("end_ts_uptime_us", "CLOCK_BOOTTIME at clean exit; NULL if the daemon was killed or crashed"),
	INT("exit_status", "the daemon's exit status; NULL if it did not exit cleanly"),
	TEXT("daemon_version", "bpftune version"),
	INT("schema_version", "telemetry schema version (also PRAGMA user_version)"),
	TEXT("kernel_release", "uname -r"),
	TEXT("kernel_version", "uname -v"),
	TEXT("arch", "uname -m"),
	TEXT("cpu_model", "model name from /proc/cpuinfo"),
	INT("cpu_cores", "online CPUs"),
	INT("mem_total_kb", "MemTotal from /proc/meminfo"),
	TEXT("support_mode", "what the kernel supports: full, legacy or tracepoint-only (bpftune -S)"),
	TEXT("bpf_objects", "which BPF objects were loaded: full, or legacy (-L)"),
	INT("learning_rate", "-r, 0..4"),
	TEXT("tuners", "names of the tuners that started, comma-separated"),
	TEXT("label", "--label: the workload or experiment name; NULL if none"),
	INT("observe_only", "1 with --observe: tuners decided, nothing was written to the kernel"),
	INT("sample_interval_ms", "--sample-interval: period of the samples_* and health rows"),
	INT("pid", "the daemon's pid"),
	TEXT("args", "the daemon's command line"),
};

static const struct bpftune_col_desc tuners_cols[] = {
	INT("tuner_id", "id of the tuner in this run (events.tuner_id, ...)"),
	TEXT("tuner", "tuner name"),
	TEXT("description", "what the tuner does"),
	TEXT("file", "plugin file it was loaded from"),
	INT("num_tunables", "number of tunables it manages"),
	TEXT("scenarios", "its scenarios, 'id=name' separated by '; '"),
};

static const struct bpftune_col_desc tunables_cols[] = {
	INT("tuner_id", "tuner that manages it"),
	TEXT("tuner", "tuner name"),
	INT("tunable_index", "index of the tunable within its tuner (decisions/changes.tunable_index)"),
	TEXT("tunable", "sysctl name, e.g. net.core.somaxconn"),
	INT("namespaced", "1 if the sysctl has one value per network namespace"),
	INT("num_values", "number of values (tcp_rmem has 3)"),
	INT("min", "hard cap: no value below is ever written"),
	INT("max", "hard cap: no value above is ever written"),
	TEXT("cap_reason", "why the cap is where it is"),
	TEXT("initial_values", "values in the daemon's netns at start, space-separated; NULL if unreadable"),
	INT("initial_0", "first initial value"),
	INT("initial_1", "second initial value, if any"),
	INT("initial_2", "third initial value, if any"),
	INT("read_errno", "0, or the errno reading the initial values failed with"),
};

static const struct bpftune_col_desc states_cols[] = {
	INT("tuner_id", "tuner whose state changed"),
	TEXT("tuner", "tuner name"),
	INT("netns_cookie", "network namespace cookie; 0 means every netns (the tuner as a whole)"),
	TEXT("netns", "the netns, as the log names it"),
	TEXT("state", "ACTIVE (tuning), MANUAL (an admin set a tunable it manages: it stopped there) or GONE (netns destroyed)"),
	TEXT("cause", "why: 'started', or what the admin wrote, ..."),
};

static const struct bpftune_col_desc events_cols[] = {
	INT("tuner_id", "tuner whose BPF program sent the event"),
	TEXT("tuner", "tuner name"),
	INT("scenario_id", "scenario index within the tuner"),
	TEXT("scenario", "scenario name"),
	INT("netns_cookie", "network namespace the event happened in (its cookie); 0 for the daemon's (global) netns"),
	INT("pid", "tgid of the task that caused it"),
	TEXT("comm", "its command name"),
	INT("payload_len", "bytes of tuner-specific payload"),
	TEXT("payload_hex", "the payload, lower-case hex (layout: the tuner's <name>_tuner.h)"),
};

static const struct bpftune_col_desc decisions_cols[] = {
	INT("event_seq", "events.seq of the event being handled; NULL if the decision was not made for an event"),
	INT("tuner_id", "tuner that decided"),
	TEXT("tuner", "tuner name"),
	INT("scenario_id", "scenario index"),
	TEXT("scenario", "scenario name"),
	INT("netns_cookie", "netns of the event, 0 for the global one; NULL without an event"),
	TEXT("policy", "decision rule, e.g. raise-to-request, grow-near-limit, epsilon-greedy (at most 63 bytes)"),
	TEXT("inputs", "what the policy looked at, 'key=value ...' (at most 255 bytes)"),
	TEXT("action", "what it chose, e.g. none, raise, cc=bbr; a decision with no changes row (changes.decision_seq) changed nothing"),
	INT("tunable_index", "tunable it concerns; NULL if none"),
	TEXT("tunable", "sysctl name; NULL if none"),
	REAL("epsilon", "exploration rate of an exploring policy; NULL otherwise"),
	INT("explored", "1 the choice explored, 0 it was greedy; NULL if not an exploring policy"),
};

static const struct bpftune_col_desc changes_cols[] = {
	INT("decision_seq", "decisions.seq of the decision that asked for it; NULL for rollbacks"),
	INT("event_seq", "events.seq of the event behind that decision; NULL if none"),
	INT("tuner_id", "tuner"),
	TEXT("tuner", "tuner name"),
	INT("scenario_id", "scenario index; NULL for rollbacks"),
	TEXT("scenario", "scenario name"),
	INT("tunable_index", "tunable index within the tuner"),
	TEXT("tunable", "sysctl name"),
	INT("netns_cookie", "netns written in; 0 for the daemon's (global) netns"),
	TEXT("netns", "the netns, as the log names it"),
	INT("num_values", "number of values"),
	TEXT("old_values", "values before, space-separated; NULL for rollbacks"),
	TEXT("new_values", "values after (asked for, capped), space-separated"),
	INT("old_0", "first value before"),
	INT("old_1", "second value before, if any"),
	INT("old_2", "third value before, if any"),
	INT("new_0", "first value after"),
	INT("new_1", "second value after, if any"),
	INT("new_2", "third value after, if any"),
	TEXT("reason", "why, as logged (at most 255 bytes)"),
	INT("errno", "0, or the errno the write failed with"),
	INT("applied", "1 if written; 0 if it failed or --observe kept it from being written (then errno is 0)"),
	INT("rollback", "1 if this restores an original value on exit (-R)"),
};

static const struct bpftune_col_desc tables_cols[] = {
	NN_TEXT("table_name", "a table of this file (every one but meta and these two)"),
	TEXT("owner", "who declared it: core, or the plugin's name"),
	TEXT("description", "what a row is"),
	INT("sampled", "1: a row every sample interval (per sampled netns if per_netns); 0: rows as things happen"),
	INT("per_netns", "1: rows carry the netns_cookie of the network namespace they describe"),
	INT("num_columns", "columns, run_id, host_id, seq and ts_uptime_us included"),
};

static const struct bpftune_col_desc columns_cols[] = {
	NN_TEXT("table_name", "the table (telemetry_tables.table_name)"),
	INT("position", "0-based position in the table (PRAGMA table_info cid)"),
	NN_TEXT("column_name", "the column"),
	TEXT("type", "INTEGER, REAL or TEXT"),
	TEXT("kind", "label (names a thing), counter (cumulative), gauge (a level), distribution (an observation per row); NULL for the core's record columns"),
	TEXT("draw", "how bpftune-telemetry plot draws it: rate, value or cdf; NULL: not drawn"),
	TEXT("unit", "its unit, e.g. bytes, us, packets; NULL if none"),
	TEXT("description", "what it holds"),
	TEXT("source", "where the value comes from: a /proc file and key, a BPF gauge, or the owner's rows"),
	INT("machine_wide", "1: the same in every netns, filled in the daemon's netns row only"),
	INT("overview", "1: drawn in the run's overview figure too"),
	INT("not_null", "1: never NULL"),
};

#define PSI(pfx, ov, file, what) \
	BPFTUNE_COL_PROC_REAL(pfx "some_avg10", ov, "%", file, PSI, "some.avg10", "% of time some tasks stalled on " what ", last 10 s"), \
	RGAUGE(pfx "some_avg60", "%", file, PSI, "some.avg60", "% of time some tasks stalled on " what ", last 60 s"), \
	CTR(pfx "some_total_us", "us", file, PSI, "some.total", "microseconds some tasks stalled on " what), \
	RGAUGE(pfx "full_avg10", "%", file, PSI, "full.avg10", "% of time all non-idle tasks stalled on " what ", last 10 s"), \
	CTR(pfx "full_total_us", "us", file, PSI, "full.total", "microseconds all non-idle tasks stalled on " what)

static const struct bpftune_col_desc samples_system_cols[] = {
	BPFTUNE_COL_PROC_REAL("load1", OV, NULL, F_LOADAVG, LOADAVG, "load1", "load average, 1 minute"),
	RGAUGE("load5", NULL, F_LOADAVG, LOADAVG, "load5", "load average, 5 minutes"),
	RGAUGE("load15", NULL, F_LOADAVG, LOADAVG, "load15", "load average, 15 minutes"),
	GAUGE("runnable", "tasks", F_LOADAVG, LOADAVG, "runnable", "runnable tasks now"),
	GAUGE("threads", "tasks", F_LOADAVG, LOADAVG, "threads", "tasks (threads) now"),
	CTR("cpu_user", "ticks", F_STAT, KEYVAL, "cpu#0", "CPU time in user mode, all CPUs, USER_HZ ticks"),
	CTR("cpu_nice", "ticks", F_STAT, KEYVAL, "cpu#1", "CPU time in niced user mode, ticks"),
	CTR("cpu_system", "ticks", F_STAT, KEYVAL, "cpu#2", "CPU time in the kernel, ticks"),
	CTR("cpu_idle", "ticks", F_STAT, KEYVAL, "cpu#3", "idle CPU time, ticks"),
	CTR("cpu_iowait", "ticks", F_STAT, KEYVAL, "cpu#4", "idle waiting for I/O, ticks"),
	CTR("cpu_irq", "ticks", F_STAT, KEYVAL, "cpu#5", "hard interrupts, ticks"),
	CTR("cpu_softirq", "ticks", F_STAT, KEYVAL, "cpu#6", "soft interrupts (network receive), ticks"),
	CTR("cpu_steal", "ticks", F_STAT, KEYVAL, "cpu#7", "stolen by the hypervisor, ticks"),
	CTR("ctxt", "switches", F_STAT, KEYVAL, "ctxt", "context switches"),
	CTR("intr", "interrupts", F_STAT, KEYVAL, "intr", "interrupts"),
	GAUGE("procs_running", "tasks", F_STAT, KEYVAL, "procs_running", "tasks running now"),
	GAUGE("procs_blocked", "tasks", F_STAT, KEYVAL, "procs_blocked", "tasks blocked on I/O now"),
	PSI("psi_cpu_", OV, F_PSI_CPU, "CPU"),
	PSI("psi_memory_", 0, F_PSI_MEM, "memory"),
	PSI("psi_io_", 0, F_PSI_IO, "I/O"),
	GAUGE("mem_total_kb", "kB", F_MEMINFO, KEYVAL, "MemTotal", "MemTotal, kB"),
	GAUGE("mem_free_kb", "kB", F_MEMINFO, KEYVAL, "MemFree", "MemFree, kB"),
	BPFTUNE_COL_PROC_GAUGE("mem_available_kb", OV, "kB", F_MEMINFO, KEYVAL, "MemAvailable", "MemAvailable, kB"),
	GAUGE("buffers_kb", "kB", F_MEMINFO, KEYVAL, "Buffers", "Buffers, kB"),
	GAUGE("cached_kb", "kB", F_MEMINFO, KEYVAL, "Cached", "page cache, kB"),
	GAUGE("anon_kb", "kB", F_MEMINFO, KEYVAL, "AnonPages", "anonymous memory, kB"),
	GAUGE("shmem_kb", "kB", F_MEMINFO, KEYVAL, "Shmem", "shared memory, kB"),
	GAUGE("slab_kb", "kB", F_MEMINFO, KEYVAL, "Slab", "slab (kernel objects, sk_buffs), kB"),
	GAUGE("slab_unreclaimable_kb", "kB", F_MEMINFO, KEYVAL, "SUnreclaim", "unreclaimable slab, kB"),
	GAUGE("committed_as_kb", "kB", F_MEMINFO, KEYVAL, "Committed_AS", "memory committed, kB"),
};

static const struct bpftune_col_desc health_cols[] = {
	HCTR("ringbuf_lost", "events", "events the BPF side could not queue (ring buffer full), all plugins, cumulative"),
	HCTR("events_seen", "events", "ring buffer events delivered to the daemon, cumulative"),
	HCTR("events_dropped", "rows", "of those, event rows dropped (writer queue full), cumulative"),
	HCTR("rows_queued", "rows", "rows accepted into the writer queue, cumulative"),
	HCTR("rows_dropped", "rows", "rows dropped, writer queue full, all tables, cumulative"),
	HCTR("rows_written", "rows", "rows committed to this file, cumulative, as of the previous flush"),
	HGAUGE("queue_depth", "rows", "rows waiting in the writer queue when this row was made"),
	HFLAT("queue_capacity", "rows", "size of the writer queue, rows"),
	HGAUGE("queue_max_depth", "rows", "largest queue depth seen"),
	HCTR("flushes", "transactions", "transactions committed, as of the previous flush"),
	HGAUGE("flush_rows", "rows", "rows in the previous flush"),
	HGAUGE("flush_latency_us", "us", "how long the previous flush took (BEGIN to COMMIT)"),
	HGAUGE("flush_latency_max_us", "us", "longest flush so far"),
	HGAUGE("writer_lag_us", "us", "age of the oldest row of the previous flush when it was written"),
	HGAUGE("sample_latency_us", "us", "how long this interval's samples took: every netns entered, /proc read, gauges taken, rows written"),
	HGAUGE("netns_known", "namespaces", "network namespaces besides the daemon's that the daemon can sample now (named in /run/netns, or with a task seen in them)"),
	HGAUGE("netns_sampled", "namespaces", "of those, sampled this interval (at most --sample-netns, in turns)"),
	HCTR("netns_errors", "namespaces", "of those sampled, namespaces that could not be entered (gone since they were listed), cumulative"),
	HCTR("cpu_user_us", "us", "daemon CPU time in user mode, cumulative (all threads)"),
	HCTR("cpu_system_us", "us", "daemon CPU time in the kernel, cumulative"),
	HGAUGE("rss_kb", "kB", "daemon resident memory now"),
	HGAUGE("db_bytes", "bytes", "size of this file plus its WAL"),
};

static const struct bpftune_col_desc gates_cols[] = {
	INT("tuner_id", "tuner whose hook it is"),
	TEXT("tuner", "tuner name"),
	TEXT("hook", "the gated program names or hook groups, as in -q status"),
	TEXT("gated_by", "what opens the gate, e.g. softnet_stat time_squeeze+dropped"),
	TEXT("kind", "counter, event or window"),
	TEXT("action", "attached or detached"),
	TEXT("reason", "moved (the reading moved), seen (the hook saw the condition), window (a sampling window began), calm (calm for the calm period), window_end (the window saw nothing), error (the reading failed: attached to be safe), admin_stop (the admin took the tuner over), stretched (a window gate's attach + detach costs more than 0.2 % of a CPU at its period: windows come less often), pinned (a window gate: more than that even spaced out; a counter or event gate: more than that if it cycled once per calm period; the link stays attached from now on and the program's flag gates it; action is then the flag's)"),
	INT("reading", "the counter or event reading at this check; NULL for a window gate without one, an error or admin_stop"),
	INT("attaches", "times attached so far in the run, this one included"),
	INT("detaches", "times detached so far in the run, this one included"),
	INT("attached_ms", "time the hook was attached so far in the run, ms"),
};

const struct bpftune_table_desc bpftune_core_tables[BPFTUNE_T_MAX] = {
	[BPFTUNE_T_META] = TABLE("meta", BPFTUNE_TABLE_NO_COMMON,
		"Key/value facts about the file: schema_version (also PRAGMA user_version), run_id, host_id, created_by, created_wall.",
		meta_cols),
	[BPFTUNE_T_RUNS] = TABLE("runs", 0,
		"One row per daemon run: the host, kernel, hardware and configuration. ts_uptime_us is the start.",
		runs_cols),
	[BPFTUNE_T_TUNERS] = TABLE("tuners", 0,
		"One row per tuner started in the run.",
		tuners_cols),
	[BPFTUNE_T_TUNABLES] = TABLE("tunables", 0,
		"One row per tunable of each tuner: its caps and its value when the run started.",
		tunables_cols),
	[BPFTUNE_T_STATES] = TABLE("states", 0,
		"Tuner state transitions per network namespace: ACTIVE at start, MANUAL when an admin takes a tunable over (a label: the admin disagreed), GONE when a netns is destroyed.",
		states_cols),
	[BPFTUNE_T_EVENTS] = TABLE("events", 0,
		"Every event the BPF side delivered through the ring buffer (events lost in the kernel are counted in health.ringbuf_lost). ts_uptime_us is the BPF-side timestamp, raised to the previous event's where events from different CPUs arrived out of order (by microseconds), so it never decreases in seq order.",
		events_cols),
	[BPFTUNE_T_DECISIONS] = TABLE("decisions", 0,
		"Every evaluation a tuner made (bpftune_decision()), including those that changed nothing: state -> action. Join changes on changes.decision_seq = decisions.seq for the outcome.",
		decisions_cols),
	[BPFTUNE_T_CHANGES] = TABLE("changes", 0,
		"Every tunable write: made, failed, held back by --observe, or a rollback on exit. A write that would change nothing is not made and has no row.",
		changes_cols),
	[BPFTUNE_T_TABLES] = TABLE("telemetry_tables", 0,
		"The declaration of every table of this file (the core's and each plugin's), written when the table is created: tools read a table's meaning from here, not from code.",
		tables_cols),
	[BPFTUNE_T_COLUMNS] = TABLE("telemetry_columns", 0,
		"The declaration of every column of those tables: type, kind, how it is drawn, unit, meaning and source.",
		columns_cols),
	[BPFTUNE_T_SAMPLES_SYSTEM] = TABLE("samples_system", BPFTUNE_TABLE_SAMPLED,
		"Load, CPU time, pressure stall information and memory, machine-wide, every sample interval. PSI columns are NULL where the kernel has no PSI.",
		samples_system_cols),
	[BPFTUNE_T_HEALTH] = TABLE("health", 0,
		"The telemetry pipeline and the daemon itself, every sample interval and once at exit: what was lost, queue and flush figures, CPU and memory.",
		health_cols),
	[BPFTUNE_T_GATES] = TABLE("gates", 0,
		"Every transition of a pressure gate (include/bpftune/gate.h): a tuner's hot hook attached or detached by the library, why, the reading then and the time attached so far.",
		gates_cols),
};
