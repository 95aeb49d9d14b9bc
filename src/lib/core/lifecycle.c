// SPDX-License-Identifier: GPL-2.0-only
/*
 * A plugin's life cycle, owned by the library: start (BPF object, private
 * state, per-netns table, timer, init()), events (checked against the
 * scenario's declared payload, counted when refused, handed to the
 * scenario's handler), netns state changes for that plugin only, its
 * timer, and stop (fini(), then everything the library made for it).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/loop.h"
#include "core/observer.h"
#include "core/operate.h"
#include "core/sysctl.h"

static uint64_t malformed_events;

/* ---- accessors --------------------------------------------------------- */

void *bpftune_tuner_priv(const struct bpftune_tuner *t)
{
	return t->priv;
}

void *bpftune_tuner_skel(const struct bpftune_tuner *t)
{
	return t->skel;
}

bool bpftune_tuner_legacy(const struct bpftune_tuner *t)
{
	return t->legacy;
}

/* ---- its BPF object, through the loader ----------------------------------- */

struct bpftune_bpf_obj bpftune_tuner_bpf(const struct bpftune_tuner *t)
{
	return (struct bpftune_bpf_obj){
		.name = t->ops->name,
		.image = t->legacy ? &t->ops->legacy : &t->ops->full,
		.skel = t->skel, .obj = t->obj,
	};
}

int bpftune_tuner_read_config(const struct bpftune_tuner *t,
			      struct bpftune_bpf_config *c, uint64_t *lost)
{
	struct bpftune_bpf_obj o = bpftune_tuner_bpf(t);

	return bpftune_bpf_read_config(&o, c, lost);
}

int bpftune_check_learning_rate(const struct bpftune_tuner *t)
{
	struct bpftune_bpf_config c;
	int err;

	err = bpftune_tuner_read_config(t, &c, NULL);
	if (err) {
		bpftune_log(LOG_WARNING, "tuner %s: cannot read back the learning rate of its BPF programs: %s",
			    t->ops->name, strerror(-err));
		return err;
	}
	if (c.learning_rate != bpftune_learning_rate()) {
		bpftune_log(LOG_WARNING, "tuner %s: its BPF programs use learning rate %u, the daemon %u",
			    t->ops->name, c.learning_rate, bpftune_learning_rate());
		return -EINVAL;
	}
	return 0;
}

/* the BPF object opened and its programs chosen: loaded and attached */
static int load_attach(struct bpftune_tuner *t, const struct bpftune_bpf_opts *opts)
{
	const struct bpftune_bpf_config config = {
		.tuner_id = t->id, .daemon_tgid = getpid(),
		.learning_rate = bpftune_learning_rate(),
	};
	struct bpftune_bpf_obj o = bpftune_tuner_bpf(t);
	int err;

	err = bpftune_collector_size_buffers(t);
	if (err)
		return err;
	/* in the initial image: set before any program can run */
	bpftune_tuner_observe_flag(t, bpftune_observe_only());
	return bpftune_bpf_load_attach(&o, &config, opts->cgroup_fd, &t->links,
				       &t->num_links);
}

/* the skeleton destroyed, its object closed */
void bpftune_tuner_bpf_close(struct bpftune_tuner *t)
{
	struct bpftune_bpf_obj o = bpftune_tuner_bpf(t);

	bpftune_bpf_close(&o);
	t->skel = NULL;
	t->obj = NULL;
}

uint64_t bpftune_tuner_rejected(const struct bpftune_tuner *t, unsigned int s)
{
	return s <= t->ops->num_scenarios ? t->rejected[s] : 0;
}

uint64_t bpftune_events_malformed(void)
{
	return malformed_events;
}

/* ---- the plugin's timer ------------------------------------------------ */

static void timer_fired(void *ctx)
{
	struct bpftune_tuner *t = ctx;

	t->ops->timer(t, t->priv);
}

int bpftune_timer_set(struct bpftune_tuner *t, uint64_t delay_ms)
{
	return t && t->timer ? bpftune_loop_timer_set(t->timer, delay_ms) : -EINVAL;
}

static bool timer_armed(const struct bpftune_tuner *t)
{
	return t && bpftune_loop_timer_armed(t->timer);
}

void bpftune_timer_keep(struct bpftune_tuner *t, bool pending,
			uint64_t period_ms)
{
	if (pending != timer_armed(t))
		bpftune_timer_set(t, pending ? period_ms : 0);
}

/* ---- start and stop ---------------------------------------------------- */

/* What the library makes for the plugin before init(). */
static int make_state(struct bpftune_tuner *t)
{
	const struct bpftune_tuner_ops *ops = t->ops;
	int err;

	if (ops->priv_size) {
		t->priv = calloc(1, ops->priv_size);
		if (!t->priv)
			return -ENOMEM;
	}
	if (ops->netns.size) {
		err = bpftune_netns_table_init(t, &ops->netns);
		if (err)
			return err;
	}
	if (ops->timer) {
		t->timer = bpftune_loop_timer_new(timer_fired, t);
		if (!t->timer)
			return -errno;
	}
	return 0;
}

/* ... and frees after fini() (or a failed init()). */
static void free_state(struct bpftune_tuner *t)
{
	bpftune_loop_timer_free(t->timer);
	t->timer = NULL;
	bpftune_netns_table_fini(t);
	free(t->priv);
	t->priv = NULL;
}

static int open_select(struct bpftune_tuner *t, const struct bpftune_bpf_opts *opts)
{
	const struct bpftune_tuner_ops *ops = t->ops;
	char why[512] = "";
	int err;

	t->legacy = opts->legacy;
	err = bpftune_bpf_open(opts->legacy ? &ops->legacy : &ops->full,
			       ops->name, opts->legacy, &t->skel, &t->obj, why,
			       sizeof(why));
	if (!err)
		err = bpftune_bpf_select_programs(t->obj, bpftune_support(),
						  why, sizeof(why));
	if (err)
		bpftune_log(LOG_NOTICE, "%s %s %s: %s",
			    bpftune_kind_name(ops->kind), ops->name,
			    ops->kind == BPFTUNE_KIND_CORE ? "cannot start" : "skipped",
			    why);
	return err;
}

int bpftune_tuner_start(struct bpftune_tuner *t,
			const struct bpftune_bpf_opts *opts)
{
	const struct bpftune_tuner_ops *ops = t->ops;
	const char *kind = bpftune_kind_name(ops->kind);
	char why[512 + 32] = "";
	int err;

	/* telemetry checks the plugin's table declarations: "telemetry: ..." */
	err = bpftune_notify_tuner_check(t, why, sizeof(why));
	if (err) {
		bpftune_log(LOG_ERR, "%s %s refused: %s", kind, ops->name, why);
		return err;
	}
	err = open_select(t, opts);
	if (err)
		goto err;
	err = load_attach(t, opts);
	if (err) {
		bpftune_log(LOG_NOTICE, "%s %s skipped: could not load or attach its BPF programs",
			    kind, ops->name);
		goto err;
	}
	err = make_state(t);
	if (!err && ops->init)
		err = ops->init(t, t->priv);
	if (err) {
		bpftune_log(LOG_NOTICE, "%s %s skipped: init failed: %s", kind,
			    ops->name, strerror(err < 0 ? -err : err));
		free_state(t);
		bpftune_bpf_detach(&t->links, &t->num_links);
		goto err;
	}
	t->started = true;
	t->state = BPFTUNE_STATE_ACTIVE;
	/* a gate that cannot be set leaves its hooks attached: watched always */
	if (BPFTUNE_OPS_HAS(ops, num_gates) && ops->num_gates &&
	    (err = bpftune_gates_set(t, ops->gates, ops->num_gates)))
		bpftune_log(LOG_WARNING, "%s %s: gates not set (%s): hot hooks attached always",
			    kind, ops->name, strerror(-err));
	err = 0;
	bpftune_bpf_images_release(ops);
	bpftune_log(LOG_INFO, "%s %s started (%s objects, %u hooks): %s", kind,
		    ops->name, opts->legacy ? "legacy" : "full", t->num_links,
		    ops->description ? ops->description : "");
	bpftune_tunables_audit(t);
	/* a plugin hot-plugged into a running daemon gets its telemetry rows */
	bpftune_notify_tuner_added(t);
	return 0;
err:
	bpftune_tuner_bpf_close(t);
	return err ? err : -EINVAL;
}

void bpftune_tuner_stop(struct bpftune_tuner *t)
{
	if (t->started && t->ops->fini)
		t->ops->fini(t, t->priv);
	t->started = false;
	free_state(t);
}

void bpftune_tuner_notify_state(struct bpftune_tuner *t, uint64_t cookie,
				enum bpftune_state state)
{
	if (state == BPFTUNE_STATE_ACTIVE)
		return;
	/* what the library keeps for the plugin there goes first */
	bpftune_netns_table_state(t, cookie, state);
	if (t->started && t->ops->netns_state)
		t->ops->netns_state(t, t->priv,
				    bpftune_netns_is_global(cookie) ? 0 : cookie,
				    state);
}

/* ---- events ------------------------------------------------------------ */

/* Refuse an event; say so once per tuner and scenario. */
static void reject(struct bpftune_tuner *t, const struct bpftune_event *ev,
		   unsigned int slot, const char *why)
{
	if (!t->rejected[slot]++)
		bpftune_log(LOG_WARNING, "%s %s: event of scenario %u refused: %s (counted in -q status and the metrics; not logged again)",
			    bpftune_kind_name(t->ops->kind), t->ops->name,
			    ev->scenario_id, why);
}

/* The scenario's handler, or NULL (and the event refused) */
static void (*event_handler(struct bpftune_tuner *t,
			    const struct bpftune_event *ev))
	(struct bpftune_tuner *, void *, const struct bpftune_event *)
{
	const struct bpftune_tuner_ops *ops = t->ops;
	const struct bpftune_scenario_desc *sc;
	char why[160];

	if (ev->scenario_id >= ops->num_scenarios) {
		snprintf(why, sizeof(why), "the plugin declares %u scenario%s",
			 ops->num_scenarios, ops->num_scenarios == 1 ? "" : "s");
		reject(t, ev, ops->num_scenarios, why);
		return NULL;
	}
	sc = &ops->scenarios[ev->scenario_id];
	if (ev->payload_len < sc->payload_size) {
		snprintf(why, sizeof(why), "'%s' declares a payload of %u bytes, the event carries %u",
			 sc->name, sc->payload_size, ev->payload_len);
		reject(t, ev, ev->scenario_id, why);
		return NULL;
	}
	if (!sc->handle && !ops->event) {
		snprintf(why, sizeof(why), "'%s' is decided in userspace, it has no event handler",
			 sc->name);
		reject(t, ev, ev->scenario_id, why);
		return NULL;
	}
	return sc->handle ? sc->handle : ops->event;
}

void bpftune_dispatch(const struct bpftune_event *ev, size_t size)
{
	void (*handle)(struct bpftune_tuner *, void *, const struct bpftune_event *);
	struct bpftune_tuner *t;

	if (size < offsetof(struct bpftune_event, payload) ||
	    ev->payload_len > size - offsetof(struct bpftune_event, payload) ||
	    !(t = bpftune_tuner_get(ev->tuner_id)) || !t->started) {
		malformed_events++;
		bpftune_log(LOG_DEBUG, "dropped malformed event (size %zu)", size);
		return;
	}
	t->events++;
	handle = event_handler(t, ev);
	if (!handle)
		return;
	bpftune_notify_event(t, ev);
	if (bpftune_tuner_netns_state(t, ev->netns_cookie) != BPFTUNE_STATE_ACTIVE)
		t->events_ignored++;
	else
		handle(t, t->priv, ev);
	/* no netns fd outlives the event: it would pin the netns */
	bpftune_netns_release();
}

struct bpftune_tuner *bpftune_plugin_start(const char *file,
					   const struct bpftune_tuner_ops *ops,
					   void *handle, int fd,
					   const struct bpftune_bpf_opts *opts)
{
	struct bpftune_tuner *t = bpftune_tuner_add(ops, handle, fd, file);

	if (!t) {
		dlclose(handle);
		close(fd);
		return NULL;
	}
	if (bpftune_tuner_start(t, opts)) {
		bpftune_tuner_remove(t);	/* closes handle and fd */
		return NULL;
	}
	return t;
}
