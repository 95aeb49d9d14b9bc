/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A list of per-tuner records, at most one a tuner: a tuner's pressure
 * gates (gate.c), its strategies (strategy.c).  A record's struct starts
 * with a struct bpftune_tuner_rec, so a record and its rec convert by a
 * cast.
 */
#ifndef BPFTUNE_TUNER_REC_H
#define BPFTUNE_TUNER_REC_H

#include <stddef.h>

struct bpftune_tuner;

struct bpftune_tuner_rec {
	struct bpftune_tuner_rec *next;
	struct bpftune_tuner *t;
};

/* the record of @t in @head, or NULL */
static inline struct bpftune_tuner_rec *
bpftune_tuner_rec_find(struct bpftune_tuner_rec *head,
		       const struct bpftune_tuner *t)
{
	for (; head; head = head->next)
		if (head->t == t)
			return head;
	return NULL;
}

/* @rec (its tuner set) first in *@head */
static inline void bpftune_tuner_rec_add(struct bpftune_tuner_rec **head,
					 struct bpftune_tuner_rec *rec)
{
	rec->next = *head;
	*head = rec;
}

/* the record of @t taken out of *@head (the caller frees it), or NULL */
static inline struct bpftune_tuner_rec *
bpftune_tuner_rec_take(struct bpftune_tuner_rec **head,
		       const struct bpftune_tuner *t)
{
	struct bpftune_tuner_rec **p, *r;

	for (p = head; (r = *p); p = &r->next) {
		if (r->t == t) {
			*p = r->next;
			return r;
		}
	}
	return NULL;
}

#endif /* BPFTUNE_TUNER_REC_H */
