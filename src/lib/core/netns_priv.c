// SPDX-License-Identifier: GPL-2.0-only
/*
 * A plugin's private per-netns state (ops->netns): one entry per network
 * namespace, keyed by netns cookie (0 for the global netns).  The library
 * drops an entry when its netns is destroyed or the admin takes the tuner
 * over there (every entry when over the global netns), before the plugin's
 * netns_state() hears of it, and tells the observers (the kit forgets the
 * plugin's correlation windows in that netns).
 */
#include <errno.h>
#include <stdlib.h>

#include "core/internal.h"
#include "core/observer.h"

struct bpftune_netns_table {
	struct bpftune_netns_priv *head;
	unsigned int count;
	struct bpftune_netns_table_ops ops;
};

static uint64_t key_of(uint64_t cookie)
{
	return bpftune_netns_is_global(cookie) ? 0 : cookie;
}

int bpftune_netns_table_init(struct bpftune_tuner *t,
			     const struct bpftune_netns_table_ops *ops)
{
	struct bpftune_netns_table *tbl;

	if (!t || !ops || ops->size < sizeof(struct bpftune_netns_priv))
		return -EINVAL;
	if (t->netns_priv)
		return -EEXIST;
	tbl = calloc(1, sizeof(*tbl));
	if (!tbl)
		return -ENOMEM;
	tbl->ops = *ops;
	t->netns_priv = tbl;
	return 0;
}

void *bpftune_netns_table_find(const struct bpftune_tuner *t, uint64_t cookie)
{
	struct bpftune_netns_priv *p;
	uint64_t key = key_of(cookie);

	if (!t || !t->netns_priv)
		return NULL;
	for (p = t->netns_priv->head; p; p = p->next)
		if (p->cookie == key)
			return p;
	return NULL;
}

static void entry_free(struct bpftune_tuner *t, struct bpftune_netns_priv *e)
{
	struct bpftune_netns_table *tbl = t->netns_priv;
	struct bpftune_netns_priv **p;

	for (p = &tbl->head; *p; p = &(*p)->next) {
		if (*p != e)
			continue;
		*p = e->next;
		tbl->count--;
		if (tbl->ops.release)
			tbl->ops.release(t, t->priv, e);
		bpftune_notify_netns_entry_freed(t, e->cookie);
		free(e);
		return;
	}
}

void bpftune_netns_table_remove(struct bpftune_tuner *t, uint64_t cookie)
{
	struct bpftune_netns_priv *e = bpftune_netns_table_find(t, cookie);

	if (e)
		entry_free(t, e);
}

void *bpftune_netns_table_get(struct bpftune_tuner *t,
			      const struct bpftune_event *ev)
{
	struct bpftune_netns_table *tbl = t ? t->netns_priv : NULL;
	struct bpftune_netns_priv *e, *it, *old = NULL;

	if (!tbl || !ev)
		return NULL;
	e = bpftune_netns_table_find(t, ev->netns_cookie);
	if (!e && tbl->ops.max && tbl->count >= tbl->ops.max) {
		/* recycle the least recently used entry with nothing pending */
		for (it = tbl->head; it && tbl->ops.busy; it = it->next)
			if (!tbl->ops.busy(it) &&
			    (!old || it->last_used_ms < old->last_used_ms))
				old = it;
		if (!old)
			return NULL;
		entry_free(t, old);
	}
	if (!e) {
		e = calloc(1, tbl->ops.size);
		if (!e)
			return NULL;
		e->cookie = key_of(ev->netns_cookie);
		if (tbl->ops.init)
			tbl->ops.init(e);
		e->next = tbl->head;
		tbl->head = e;
		tbl->count++;
	}
	e->last_used_ms = bpftune_now_ms();
	if (ev->pid)
		e->pid = ev->pid;
	return e;
}

void *bpftune_netns_table_next(const struct bpftune_tuner *t, const void *prev)
{
	const struct bpftune_netns_priv *p = prev;

	if (!t || !t->netns_priv)
		return NULL;
	return p ? p->next : t->netns_priv->head;
}

unsigned int bpftune_netns_table_count(const struct bpftune_tuner *t)
{
	return t && t->netns_priv ? t->netns_priv->count : 0;
}

void bpftune_netns_table_fini(struct bpftune_tuner *t)
{
	if (!t || !t->netns_priv)
		return;
	while (t->netns_priv->head)
		entry_free(t, t->netns_priv->head);
	free(t->netns_priv);
	t->netns_priv = NULL;
}

void bpftune_netns_table_state(struct bpftune_tuner *t, uint64_t cookie,
			       enum bpftune_state state)
{
	if (!t || !t->netns_priv || state == BPFTUNE_STATE_ACTIVE)
		return;
	if (bpftune_netns_is_global(cookie) && state == BPFTUNE_STATE_MANUAL) {
		/* stopped everywhere: nothing is left to undo anywhere */
		while (t->netns_priv->head)
			entry_free(t, t->netns_priv->head);
		return;
	}
	bpftune_netns_table_remove(t, cookie);
}
