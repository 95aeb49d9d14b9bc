// SPDX-License-Identifier: GPL-2.0-only
/*
 * Strategies: a tuner registers several ways of tuning; one is active at
 * a time, with only its BPF programs attached.  When it times out every
 * strategy is scored and the best one takes over.  One timerfd in the
 * main loop serves every tuner, registered only while some tuner has
 * strategies and armed for the earliest timeout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/loop.h"
#include "core/observer.h"
#include "core/operate.h"
#include "core/tuner_rec.h"

struct strategy_set {
	struct bpftune_tuner_rec rec;	/* first: the list of sets */
	const struct bpftune_strategy *s;
	unsigned int num;
	int active;
	bool stopped;			/* tuner taken over by the admin */
	uint64_t deadline_ms;
	uint64_t switches;
	uint64_t *activations;
	struct bpf_program ***progs;	/* per strategy, NULL-terminated */
	struct bpf_link **links;	/* of the active strategy */
	unsigned int num_links;
};

static struct bpftune_tuner_rec *sets;
static struct bpftune_timer *timer;	/* while a set has hooks */

static struct strategy_set *set_of(struct bpftune_tuner_rec *r)
{
	return (struct strategy_set *)r;
}

static struct strategy_set *find(const struct bpftune_tuner *t)
{
	return set_of(bpftune_tuner_rec_find(sets, t));
}

static void rearm(void)
{
	struct strategy_set *s;
	uint64_t when = 0;

	for (s = set_of(sets); s; s = set_of(s->rec.next))
		if (!s->stopped && s->num > 1 && (!when || s->deadline_ms < when))
			when = s->deadline_ms;
	bpftune_loop_timer_at(timer, when);
}

/* Does program @name belong to entry @want (a name or a hook group)? */
bool bpftune_prog_matches(const char *name, const char *want)
{
	size_t n = strlen(want);

	return !strcmp(name, want) ||
	       (!strncmp(name, want, n) && name[n] == '_' && name[n + 1] == '_');
}

static int prog_id(int fd, __u32 *id, bool link)
{
	struct bpf_link_info li;
	struct bpf_prog_info pi;
	__u32 len;

	if (link) {
		memset(&li, 0, sizeof(li));
		len = sizeof(li);
		if (bpf_obj_get_info_by_fd(fd, &li, &len))
			return -errno;
		*id = li.prog_id;
	} else {
		memset(&pi, 0, sizeof(pi));
		len = sizeof(pi);
		if (bpf_obj_get_info_by_fd(fd, &pi, &len))
			return -errno;
		*id = pi.id;
	}
	return 0;
}

/* Take the tuner's own link of @prog away: the caller owns it now. */
void bpftune_tuner_unlink_prog(struct bpftune_tuner *t, struct bpf_program *prog)
{
	__u32 want, id;
	unsigned int i;

	if (bpf_program__fd(prog) < 0 || prog_id(bpf_program__fd(prog), &want, false))
		return;
	for (i = 0; i < t->num_links; i++) {
		if (prog_id(bpf_link__fd(t->links[i]), &id, true) || id != want)
			continue;
		bpf_link__destroy(t->links[i]);
		t->links[i] = t->links[--t->num_links];
		return;
	}
}

static void deactivate(struct strategy_set *s)
{
	unsigned int i;

	for (i = 0; i < s->num_links; i++)
		bpf_link__destroy(s->links[i]);
	s->num_links = 0;
}

static void (*drain_events)(void);

void bpftune_strategies_set_drain(void (*drain)(void))
{
	drain_events = drain;
}

static void activate(struct strategy_set *s, unsigned int idx)
{
	struct bpf_program **p;

	deactivate(s);
	/* what the old strategy's programs sent is handled under it */
	if (drain_events)
		drain_events();
	s->active = idx;
	s->activations[idx]++;
	s->deadline_ms = bpftune_now_ms() + s->s[idx].timeout_ms;
	bpftune_cap_raise();
	for (p = s->progs[idx]; *p; p++) {
		struct bpf_link *l = bpf_program__attach(*p);

		if (!l) {
			bpftune_log(LOG_WARNING, "tuner %s: strategy %s: cannot attach %s: %s",
				    s->rec.t->ops->name, s->s[idx].name,
				    bpf_program__name(*p), strerror(errno));
			continue;
		}
		s->links[s->num_links++] = l;
	}
	bpftune_cap_lower();
}

static void set_free(struct strategy_set *s)
{
	unsigned int i;

	if (!s)
		return;
	deactivate(s);
	for (i = 0; s->progs && i < s->num; i++)
		free(s->progs[i]);
	free(s->progs);
	free(s->links);
	free(s->activations);
	free(s);
}

static void on_timer(void *ctx)
{
	uint64_t now = bpftune_now_ms();
	struct strategy_set *s;

	(void)ctx;
	for (s = set_of(sets); s; s = set_of(s->rec.next)) {
		double score[32], cur;
		unsigned int i, best, from;

		if (s->stopped || s->num < 2 || s->deadline_ms > now)
			continue;
		for (i = 0; i < s->num; i++)
			score[i] = s->s[i].evaluate(s->rec.t, i);
		/* the current strategy stays unless another one is better */
		best = s->active;
		cur = score[best];
		for (i = 0; i < s->num; i++)
			if (score[i] > score[best])
				best = i;
		if (best != (unsigned int)s->active) {
			bpftune_log(LOG_NOTICE, "tuner %s: strategy %s timed out (score %g); switching to strategy %s (score %g)",
				    s->rec.t->ops->name, s->s[s->active].name, cur,
				    s->s[best].name, score[best]);
			s->switches++;
			from = s->active;
			activate(s, best);
			/* metrics show the switch */
			bpftune_notify_strategy(s->rec.t, s->s[from].name, s->s[best].name);
		} else {
			bpftune_log(LOG_INFO, "tuner %s: strategy %s timed out (score %g) and stays: no strategy scores better",
				    s->rec.t->ops->name, s->s[s->active].name, cur);
			s->deadline_ms = now + s->s[s->active].timeout_ms;
		}
	}
	rearm();
}

static void obs_state(const struct bpftune_tuner *t, uint64_t cookie,
		      enum bpftune_state state, const char *cause)
{
	struct strategy_set *s = find(t);

	(void)cause;
	/* stopped everywhere: the tuner's own links are gone, ours go too */
	if (!s || !bpftune_netns_is_global(cookie) || state == BPFTUNE_STATE_ACTIVE)
		return;
	s->stopped = true;
	deactivate(s);
	rearm();
}

static struct bpftune_observer observer = { .state = obs_state };

static int timer_start(void)
{
	return bpftune_loop_timer_watch_start(&timer, on_timer, &observer);
}

static void timer_stop(void)
{
	if (!sets)
		bpftune_loop_timer_watch_stop(&timer, &observer);
}

int bpftune_strategies_set(struct bpftune_tuner *t,
			   const struct bpftune_strategy *strat,
			   unsigned int num)
{
	struct strategy_set *s;
	struct bpf_program *prog;
	unsigned int i, j, n, total = 0;
	int err;

	if (!t || !t->obj || !strat || !num || num > 32)
		return -EINVAL;
	for (i = 0; i < num; i++)
		if (!strat[i].name || (num > 1 && (!strat[i].timeout_ms ||
						   !strat[i].evaluate)))
			return -EINVAL;
	bpftune_strategies_free(t);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->rec.t = t;
	s->s = strat;
	s->num = num;
	s->activations = calloc(num, sizeof(*s->activations));
	s->progs = calloc(num, sizeof(*s->progs));
	if (!s->activations || !s->progs)
		goto nomem;
	for (i = 0; i < num; i++) {
		n = 0;
		s->progs[i] = calloc(1, sizeof(**s->progs));
		if (!s->progs[i])
			goto nomem;
		for (j = 0; strat[i].programs && strat[i].programs[j]; j++) {
			bpf_object__for_each_program(prog, t->obj) {
				struct bpf_program **np;

				if (!bpf_program__autoload(prog) ||
				    !bpftune_prog_matches(bpf_program__name(prog), strat[i].programs[j]))
					continue;
				np = realloc(s->progs[i], (n + 2) * sizeof(*np));
				if (!np)
					goto nomem;
				np[n++] = prog;
				np[n] = NULL;
				s->progs[i] = np;
				bpftune_tuner_unlink_prog(t, prog);
			}
		}
		total += n;
	}
	s->links = calloc(total ? total : 1, sizeof(*s->links));
	if (!s->links)
		goto nomem;
	if (num > 1) {
		err = timer_start();
		if (err) {
			set_free(s);
			return err;
		}
	}
	s->active = 0;
	activate(s, 0);
	bpftune_tuner_rec_add(&sets, &s->rec);
	bpftune_log(LOG_INFO, "tuner %s: %u strategies; %s active (%u program%s) for %u ms",
		    t->ops->name, num, strat[0].name, s->num_links,
		    s->num_links == 1 ? "" : "s", strat[0].timeout_ms);
	rearm();
	return 0;
nomem:
	set_free(s);
	return -ENOMEM;
}

int bpftune_strategy_active(const struct bpftune_tuner *t)
{
	struct strategy_set *s = find(t);

	return s ? s->active : -1;
}

void bpftune_strategies_free(struct bpftune_tuner *t)
{
	set_free(set_of(bpftune_tuner_rec_take(&sets, t)));
	timer_stop();
	rearm();
}

unsigned int bpftune_strategy_count(const struct bpftune_tuner *t)
{
	struct strategy_set *s = find(t);

	return s ? s->num : 0;
}

const char *bpftune_strategy_name(const struct bpftune_tuner *t, unsigned int i,
				  bool *active, uint64_t *activations)
{
	struct strategy_set *s = find(t);

	if (!s || i >= s->num)
		return NULL;
	*active = (int)i == s->active && !s->stopped;
	*activations = s->activations[i];
	return s->s[i].name;
}

uint64_t bpftune_strategy_switches(const struct bpftune_tuner *t)
{
	struct strategy_set *s = find(t);

	return s ? s->switches : 0;
}

unsigned int bpftune_strategy_links(const struct bpftune_tuner *t)
{
	struct strategy_set *s = find(t);

	return s ? s->num_links : 0;
}
