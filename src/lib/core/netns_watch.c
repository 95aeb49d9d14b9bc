// SPDX-License-Identifier: GPL-2.0-only
/*
 * netns tracking, a core mechanism (always on, whatever -a selects):
 * follows network namespaces coming and going.  When one is destroyed,
 * every tuner's state there goes GONE (each plugin's netns_state() and the
 * observers are told) and is freed, change records are marked gone, and
 * the library's netns cache forgets it.  It tunes nothing itself.
 *
 * With fentry or kprobes every destruction is seen (proc_net_ns_exit()).
 * With tracepoints only, a netns is seen to go only if it was tracked: created
 * or exec'd in while the daemon runs, named in /run/netns when it started,
 * or entered by the daemon.  To make sure every netns where some tuner keeps state is
 * tracked, the first event from an untracked netns makes the daemon enter
 * it once; a netns it cannot find (no task of the event in it, no name)
 * stays untracked and its state is freed at exit only.
 */
#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/internal.h"
#include "core/core.h"
#include "core/observer.h"
#include "loader/loader.h"
#include "netns_watch.h"
#include "netns_watch.skel.h"
#include "netns_watch.legacy.skel.h"

static const char *const sources[] = {
	[NETNS_SRC_CLONE] = "clone",
	[NETNS_SRC_EXEC] = "exec",
	[NETNS_SRC_DAEMON] = "the daemon",
	[NETNS_SRC_EXIT] = "proc_net_ns_exit",
	[NETNS_SRC_CLEANUP] = "cleanup_net",
};

/* Untracked namespaces we failed to find; not retried for ever. */
#define NETNS_MISSES		64
#define NETNS_MISS_TRIES	3

struct netns_miss {
	uint64_t cookie;
	unsigned int tries;
};

struct netns_priv {
	struct bpftune_tuner *tuner;
	int live_fd;
	uint64_t created, seen, destroyed, released;
	uint64_t entered, unfound, tracked_full;
	bool every_exit;		/* every destruction is seen */
	struct netns_miss misses[NETNS_MISSES];
	unsigned int next_miss;
};

/* the observer has no context argument: one netns tracker at most */
static struct netns_priv *priv_of_observer;
/* opt_entered, loaded and never attached; NULL if this kernel cannot run it */
static struct bpf_program *_Atomic entered_prog;
static atomic_flag entered_failed;

static const char *source_name(uint32_t s)
{
	return s < BPFTUNE_ARRAY_SIZE(sources) ? sources[s] : "?";
}

static struct netns_miss *miss_find(struct netns_priv *p, uint64_t cookie)
{
	unsigned int i;

	for (i = 0; i < NETNS_MISSES; i++)
		if (p->misses[i].cookie == cookie)
			return &p->misses[i];
	return NULL;
}

/*
 * The daemon's thread has just entered a netns (netns.c calls this): run
 * opt_entered there, which tracks the netns if it is new.  Why
 * BPF_PROG_TEST_RUN and not prctl(PR_SET_NAME) caught by task:task_rename:
 * the exec hook is sched_process_exec, which thread-naming applications
 * do not trigger (task_rename fires at each of their prctl() calls); and
 * the run is one bpf() call with no side effect on the thread, where a
 * check from here first would cost more (the cookie: a socket and
 * getsockopt(); then a map lookup) than the program's own lookup.
 */
static void netns_entered(void)
{
	struct bpf_program *prog = entered_prog;
	int err;

	if (!prog)
		return;
	err = bpftune_bpf_prog_run(prog);
	if (err < 0 && !atomic_flag_test_and_set(&entered_failed))
		bpftune_log(LOG_WARNING, "netns: cannot run opt_entered: %s: namespaces the daemon enters are not tracked",
			    strerror(-err));
}

/*
 * The daemon enters the netns once: opt_entered then tracks it.
 * Called for every event of every tuner, so the common case (tracked
 * already) is one map lookup.
 */
static void ensure_tracked(const struct bpftune_tuner *t,
			   const struct bpftune_event *ev)
{
	struct netns_priv *p = priv_of_observer;
	struct netns_miss *m;
	uint64_t addr;
	int fd, saved;

	if (!p || p->every_exit || t == p->tuner ||
	    bpftune_netns_is_global(ev->netns_cookie))
		return;
	if (!bpf_map_lookup_elem(p->live_fd, &ev->netns_cookie, &addr))
		return;
	m = miss_find(p, ev->netns_cookie);
	if (m && m->tries >= NETNS_MISS_TRIES)
		return;
	fd = bpftune_netns_fd_for_event(ev);
	if (fd >= 0 && !bpftune_netns_enter(fd, &saved)) {
		bpftune_netns_leave(saved);
		p->entered++;
		if (m)
			m->cookie = 0;
		return;
	}
	if (!m) {
		m = &p->misses[p->next_miss++ % NETNS_MISSES];
		m->cookie = ev->netns_cookie;
		m->tries = 0;
	}
	if (++m->tries == NETNS_MISS_TRIES) {
		p->unfound++;
		bpftune_log(LOG_DEBUG, "netns: cannot find netns cookie %llu (event of tuner %s, pid %u): its destruction will not be seen",
			    (unsigned long long)ev->netns_cookie,
			    t->ops->name, ev->pid);
	}
}

static void observe_event(const struct bpftune_tuner *t,
			  const struct bpftune_event *ev)
{
	ensure_tracked(t, ev);
}

/* Enter every named netns once so that they are tracked from the start. */
static void track_named(void)
{
	struct dirent *d;
	DIR *dir;
	int fd, saved;

	dir = opendir("/run/netns");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		fd = openat(dirfd(dir), d->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		if (!bpftune_netns_enter(fd, &saved))
			bpftune_netns_leave(saved);
		close(fd);
	}
	closedir(dir);
}

/* a function's address from /proc/kallsyms, 0 if absent or hidden */
static uint64_t kernel_fn_addr(const char *name)
{
	char line[256], sym[128], type;
	unsigned long long addr;
	uint64_t found = 0;
	FILE *f;

	/* addresses show to an opener with CAP_SYSLOG (kptr_restrict 0, 1) */
	bpftune_cap_raise();
	f = fopen("/proc/kallsyms", "re");
	bpftune_cap_lower();
	if (!f)
		return 0;
	/* 120 k lines: parse only those that name it */
	while (!found && fgets(line, sizeof(line), f))
		if (strstr(line, name) &&
		    sscanf(line, "%llx %c %127s", &addr, &type, sym) == 3 &&
		    (type == 't' || type == 'T') && !strcmp(sym, name))
			found = addr;
	fclose(f);
	return found;
}

/* cleanup_net()'s work item is then known by what it runs (netns_watch.bpf.c) */
static void set_cleanup_fn(struct bpftune_tuner *t)
{
	uint64_t addr = kernel_fn_addr("cleanup_net");
	__u64 *fn = BPFTUNE_SKEL_VAR(t, netns_watch_bpf, bss, cleanup_fn);

	if (fn)
		*fn = addr;
	if (!addr)
		bpftune_log(LOG_INFO, "netns: cleanup_net not in /proc/kallsyms (CAP_SYSLOG?): its work item is learnt when it is queued, and a cleanup queued before the daemon started is not seen");
}

static bool prog_loaded(const struct bpftune_tuner *t, const char *name)
{
	struct bpf_program *prog;

	prog = bpf_object__find_program_by_name(t->obj, name);
	return prog && bpf_program__autoload(prog);
}

static struct bpftune_observer observer = { .event = observe_event };

static int netns_init(struct bpftune_tuner *t, void *priv)
{
	struct netns_priv *p = priv;
	struct bpf_program *entered;
	bool fn, complete;

	if (priv_of_observer)
		return -EEXIST;
	p->tuner = t;
	p->live_fd = bpf_map__fd(BPFTUNE_SKEL_MAP(t, netns_watch_bpf, netns_live));
	if (p->live_fd < 0)
		return p->live_fd;
	priv_of_observer = p;
	bpftune_observer_add(&observer);
	fn = prog_loaded(t, "netns_gone__exit");
	p->every_exit = fn;
	/* the tracepoint path sees only what it tracks: entering is how */
	entered = prog_loaded(t, "opt_entered") ?
		  bpf_object__find_program_by_name(t->obj, "opt_entered") : NULL;
	complete = fn || entered;
	entered_prog = entered;
	atomic_flag_clear(&entered_failed);
	bpftune_netns_on_enter(netns_entered);
	/* what the cache learnt before we ran was never tracked */
	bpftune_netns_flush();
	bpftune_netns_set_tracking(complete);
	if (!fn) {
		set_cleanup_fn(t);
		track_named();
	}
	bpftune_log(LOG_INFO, "netns: destruction seen through %s%s",
		    fn ? "proc_net_ns_exit()" : "the netns workqueue (cleanup_net()) and tracked namespaces",
		    complete ? "" : "; no raw_tp to run when the daemon enters a netns: namespaces that existed before the daemon are not followed");
	return 0;
}

static void netns_fini(struct bpftune_tuner *t, void *priv)
{
	struct netns_priv *p = priv;
	uint64_t key, next, *prev = NULL;
	unsigned int tracked = 0;

	(void)t;
	while (!bpf_map_get_next_key(p->live_fd, prev, &next)) {
		key = next;
		prev = &key;
		tracked++;
	}
	bpftune_log(LOG_INFO, "netns: %llu created, %llu seen, %llu destroyed (%llu per-netns states released); %u tracked now, %llu entered to track them, %llu not found; per-netns tuner states: %u, netns cache entries: %u",
		    (unsigned long long)p->created, (unsigned long long)p->seen,
		    (unsigned long long)p->destroyed,
		    (unsigned long long)p->released, tracked,
		    (unsigned long long)p->entered,
		    (unsigned long long)p->unfound, bpftune_netns_states(),
		    bpftune_netns_cached());
	bpftune_netns_set_tracking(false);
	bpftune_netns_on_enter(NULL);
	entered_prog = NULL;
	bpftune_observer_remove(&observer);
	priv_of_observer = NULL;
}

static void log_event(const struct bpftune_event *ev, const char *what,
		      const char *how)
{
	bpftune_log(LOG_DEBUG, "netns: cookie %llu %s by pid %u (%.*s) with %s",
		    (unsigned long long)ev->netns_cookie, what, ev->pid,
		    BPFTUNE_COMM_LEN, ev->comm, how);
}

static void netns_event(struct bpftune_tuner *t, void *priv,
			const struct bpftune_event *ev)
{
	const struct netns_change *c = (const void *)ev->payload;
	struct netns_priv *p = priv;
	char where[128];
	unsigned int n;

	(void)t;
	switch (ev->scenario_id) {
	case NETNS_SCENARIO_CREATED:
		p->created++;
		log_event(ev, "created", source_name(c->source));
		break;
	case NETNS_SCENARIO_SEEN:
		p->seen++;
		if (c->source == NETNS_SRC_DAEMON)
			bpftune_log(LOG_DEBUG, "netns: cookie %llu entered by the daemon",
				    (unsigned long long)ev->netns_cookie);
		else
			log_event(ev, "seen", source_name(c->source));
		break;
	case NETNS_SCENARIO_DESTROYED:
		p->destroyed++;
		bpftune_netns_describe(ev->netns_cookie, where, sizeof(where));
		n = bpftune_netns_gone(ev->netns_cookie, "netns destroyed");
		p->released += n;
		bpftune_log(n ? LOG_INFO : LOG_DEBUG, "netns: %s destroyed (seen by %s): %u per-netns states and change records released",
			    where, source_name(c->source), n);
		break;
	default:
		return;
	}
	if (c->tracked_full > p->tracked_full) {
		p->tracked_full = c->tracked_full;
		bpftune_log(LOG_WARNING, "netns: %llu namespaces not tracked: more than %d at once",
			    (unsigned long long)c->tracked_full, NETNS_MAX_TRACKED);
	}
}

static const struct bpftune_scenario_desc scenarios[] = {
	[NETNS_SCENARIO_CREATED] = {
		.name = "netns created",
		.description = "a task was created in a new network namespace (clone)",
		.payload_size = sizeof(struct netns_change),
	},
	[NETNS_SCENARIO_SEEN] = {
		.name = "netns seen",
		.description = "a network namespace not tracked yet: a task exec'd in it, or the daemon entered it",
		.payload_size = sizeof(struct netns_change),
	},
	[NETNS_SCENARIO_DESTROYED] = {
		.name = "netns destroyed",
		.description = "a network namespace was destroyed: per-netns state is freed",
		.payload_size = sizeof(struct netns_change),
	},
};

BPFTUNE_SKEL_GLUE(netns_watch_bpf)
BPFTUNE_SKEL_GLUE(netns_watch_bpf_legacy)

const struct bpftune_tuner_ops bpftune_netns_watch_ops =
	BPFTUNE_OPS_INITIALIZER(BPFTUNE_KIND_CORE, netns_watch_bpf,
		.name = "netns",
		.description = "netns tracking: follows network namespaces coming and going, frees per-netns state",
		BPFTUNE_SCENARIOS(scenarios),
		.priv_size = sizeof(struct netns_priv),
		.init = netns_init,
		.fini = netns_fini,
		.event = netns_event);
