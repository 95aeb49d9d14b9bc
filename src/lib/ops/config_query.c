// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpftune -q config: the config in force and where each value came from
 * (a file and line, the command line, or the default), as text or JSON;
 * and the config line of each bounded tunable in bpftune -q status.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "ops/control.h"
#include "ops/config_daemon.h"

static const char *scope_name(enum bpftune_netns_scope s)
{
	switch (s) {
	case BPFTUNE_SCOPE_SKIP:
		return "skip";
	case BPFTUNE_SCOPE_ONLY:
		return "only";
	case BPFTUNE_SCOPE_GLOBAL_ONLY:
		return "global-only";
	default:
		return "all";
	}
}

/* a setting changed by a reload that only a restart applies */
static bool restart_needed(enum bpftune_config_key k,
			   const struct bpftune_config_setting *s)
{
	const struct bpftune_config_setting *st = bpftune_config_started(k);

	if (!st || bpftune_config_key(k)->live)
		return false;
	return st->set != s->set || (s->set && strcmp(st->value, s->value));
}

static void setting(struct bpftune_buf *o, bool json, bool first,
		    const struct bpftune_config *p, enum bpftune_config_key k)
{
	const struct bpftune_config_keydesc *kd = bpftune_config_key(k);
	const struct bpftune_config_setting *s = &p->settings[k];
	const struct bpftune_config_setting *st = bpftune_config_started(k);
	char src[PATH_MAX + 16], line[BPFTUNE_CONFIG_VALUE_LEN + 80];
	bool restart = restart_needed(k, s);

	bpftune_config_src_text(p, &s->src, src, sizeof(src));
	if (json) {
		bpftune_buf_printf(o, "%s{\"key\":", first ? "" : ",");
		bpftune_buf_json_str(o, kd->key);
		bpftune_buf_add(o, ",\"value\":", 9);
		bpftune_buf_json_str(o, s->set ? s->value : kd->def);
		bpftune_buf_add(o, ",\"source\":", 10);
		bpftune_buf_json_str(o, src);
		bpftune_buf_printf(o, ",\"live\":%s,\"restart_needed\":%s}",
				   kd->live ? "true" : "false", restart ? "true" : "false");
		return;
	}
	snprintf(line, sizeof(line), "%s = %s", kd->key, s->set ? s->value : kd->def);
	bpftune_buf_printf(o, "  %-44s ; %s", line, src);
	if (restart)
		bpftune_buf_printf(o, "; restart needed, running with %s",
				   st->set ? st->value : kd->def);
	bpftune_buf_add(o, "\n", 1);
}

static void netns_scope(struct bpftune_buf *o, bool json, const struct bpftune_config *p)
{
	char src[PATH_MAX + 16], names[BPFTUNE_CONFIG_MAX_NAMES * BPFTUNE_CONFIG_NAME_LEN];
	size_t off = 0;
	unsigned int i;

	bpftune_config_src_text(p, &p->scope_src, src, sizeof(src));
	if (json) {
		bpftune_buf_printf(o, "\"netns\":{\"scope\":\"%s\",\"names\":[", scope_name(p->scope));
		for (i = 0; i < p->num_scope_names; i++) {
			bpftune_buf_add(o, i ? "," : "", i ? 1 : 0);
			bpftune_buf_json_str(o, p->scope_names[i]);
		}
		bpftune_buf_add(o, "],\"source\":", 11);
		bpftune_buf_json_str(o, src);
		bpftune_buf_add(o, "}", 1);
		return;
	}
	names[0] = '\0';
	for (i = 0; i < p->num_scope_names && off < sizeof(names); i++)
		off += snprintf(names + off, sizeof(names) - off, "%s%s", i ? " " : "",
				p->scope_names[i]);
	bpftune_buf_printf(o, "[netns]\n");
	if (p->scope == BPFTUNE_SCOPE_ALL)
		bpftune_buf_printf(o, "  ; every netns is tuned (%s)\n", src);
	else if (p->scope == BPFTUNE_SCOPE_GLOBAL_ONLY)
		bpftune_buf_printf(o, "  %-44s ; %s\n", "global-only = yes", src);
	else
		bpftune_buf_printf(o, "  %s = %-*s ; %s\n", scope_name(p->scope),
				   (int)(41 - strlen(scope_name(p->scope))), names, src);
}

static void tunable(struct bpftune_buf *o, bool json, bool first,
		    const struct bpftune_config *p,
		    const struct bpftune_config_tunable *pt)
{
	char src[PATH_MAX + 16], v[96], line[160];
	unsigned long refused, held = bpftune_config_counts(pt->name, &refused);

	if (json) {
		bpftune_buf_printf(o, "%s{\"name\":", first ? "" : ",");
		bpftune_buf_json_str(o, pt->name);
		bpftune_buf_printf(o, ",\"touch\":%s", pt->no_touch ? "false" : "true");
		if (pt->src_touch.origin) {
			bpftune_buf_add(o, ",\"touch_source\":", 16);
			bpftune_buf_json_str(o, bpftune_config_src_text(p, &pt->src_touch, src, sizeof(src)));
		}
		if (pt->has_min) {
			bpftune_buf_add(o, ",\"min\":", 7);
			bpftune_buf_json_values(o, pt->min, pt->num_min);
			bpftune_buf_add(o, ",\"min_source\":", 14);
			bpftune_buf_json_str(o, bpftune_config_src_text(p, &pt->src_min, src, sizeof(src)));
		}
		if (pt->has_max) {
			bpftune_buf_add(o, ",\"max\":", 7);
			bpftune_buf_json_values(o, pt->max, pt->num_max);
			bpftune_buf_add(o, ",\"max_source\":", 14);
			bpftune_buf_json_str(o, bpftune_config_src_text(p, &pt->src_max, src, sizeof(src)));
		}
		bpftune_buf_printf(o, ",\"held\":%lu,\"refused\":%lu}", held, refused);
		return;
	}
	bpftune_buf_printf(o, "[tunable %s]\n", pt->name);
	if (pt->src_touch.origin)
		bpftune_buf_printf(o, "  %-44s ; %s\n", pt->no_touch ? "touch = no" : "touch = yes",
				   bpftune_config_src_text(p, &pt->src_touch, src, sizeof(src)));
	if (pt->has_min) {
		bpftune_values_text(pt->min, pt->num_min, " ", v, sizeof(v));
		snprintf(line, sizeof(line), "min = %s", v);
		bpftune_buf_printf(o, "  %-44s ; %s\n", line,
				   bpftune_config_src_text(p, &pt->src_min, src, sizeof(src)));
	}
	if (pt->has_max) {
		bpftune_values_text(pt->max, pt->num_max, " ", v, sizeof(v));
		snprintf(line, sizeof(line), "max = %s", v);
		bpftune_buf_printf(o, "  %-44s ; %s\n", line,
				   bpftune_config_src_text(p, &pt->src_max, src, sizeof(src)));
	}
	if (held || refused)
		bpftune_buf_printf(o, "  ; since the config was loaded: %lu write%s held at a bound, %lu refused\n",
				   held, held == 1 ? "" : "s", refused);
}

/* [strategy TUNER] settings: KEY = VALUE and where from */
static void strategies(struct bpftune_buf *o, bool json, const struct bpftune_config *p)
{
	char src[PATH_MAX + 16], line[BPFTUNE_CONFIG_VALUE_LEN + 80];
	unsigned int i;

	if (json)
		bpftune_buf_add(o, ",\"strategies\":[", 15);
	for (i = 0; i < p->num_strategies; i++) {
		const struct bpftune_config_strategy *s = &p->strategies[i];

		bpftune_config_src_text(p, &s->src, src, sizeof(src));
		if (json) {
			bpftune_buf_add(o, i ? ",{\"tuner\":" : "{\"tuner\":", i ? 10 : 9);
			bpftune_buf_json_str(o, s->tuner);
			bpftune_buf_add(o, ",\"key\":", 7);
			bpftune_buf_json_str(o, s->key);
			bpftune_buf_add(o, ",\"value\":", 9);
			bpftune_buf_json_str(o, s->value);
			bpftune_buf_add(o, ",\"source\":", 10);
			bpftune_buf_json_str(o, src);
			bpftune_buf_add(o, "}", 1);
			continue;
		}
		snprintf(line, sizeof(line), "%s = %s", s->key, s->value);
		bpftune_buf_printf(o, "[strategy %s]\n  %-44s ; %s\n", s->tuner, line, src);
	}
	if (json)
		bpftune_buf_add(o, "]", 1);
}

int bpftune_config_format(struct bpftune_buf *o, bool json)
{
	const struct bpftune_config *p = bpftune_config_current();
	bool given;
	const char *path = bpftune_config_path(&given);
	unsigned int i;

	if (!p) {
		bpftune_buf_printf(o, BPFTUNE_CTL_ERROR_PREFIX "no config loaded\n");
		return -1;
	}
	if (json) {
		bpftune_buf_add(o, "{\"path\":", 8);
		bpftune_buf_json_str(o, path);
		bpftune_buf_add(o, ",\"files\":[", 10);
		for (i = 0; i < p->num_files; i++) {
			bpftune_buf_add(o, i ? "," : "", i ? 1 : 0);
			bpftune_buf_json_str(o, p->files[i]);
		}
		bpftune_buf_add(o, "],\"daemon\":[", 12);
	} else {
		bpftune_buf_printf(o, "; config %s%s; files read, in order:%s\n", path,
				   given ? " (--config)" : "", p->num_files ? "" : " none");
		for (i = 0; i < p->num_files; i++)
			bpftune_buf_printf(o, ";   %s\n", p->files[i]);
		bpftune_buf_printf(o, "[daemon]\n");
	}
	for (i = 0; i < BPFTUNE_CK_MAX; i++)
		setting(o, json, !i, p, i);
	if (json)
		bpftune_buf_add(o, "],", 2);
	netns_scope(o, json, p);
	if (json)
		bpftune_buf_printf(o, ",\"out_of_scope\":%lu,\"tunables\":[",
				   bpftune_config_out_of_scope());
	for (i = 0; i < p->num_tunables; i++)
		tunable(o, json, !i, p, &p->tunables[i]);
	if (json)
		bpftune_buf_add(o, "]", 1);
	else if (!p->num_tunables)
		bpftune_buf_printf(o, "; no [tunable] bounds: the built-in caps apply\n");
	strategies(o, json, p);
	if (json)
		bpftune_buf_add(o, "}\n", 2);
	return 0;
}

void bpftune_config_status_line(struct bpftune_buf *o, const char *name, bool json)
{
	const struct bpftune_config *p = bpftune_config_current();
	const struct bpftune_config_tunable *pt = bpftune_config_tunable(p, name);
	char src[PATH_MAX + 16], v[96];
	unsigned long refused, held;

	if (!pt)
		return;
	held = bpftune_config_counts(name, &refused);
	if (json) {
		bpftune_buf_add(o, ",\"config\":", 10);
		tunable(o, true, true, p, pt);
		/* its old name, kept for existing readers (bpftune.conf(5)) */
		bpftune_buf_add(o, ",\"policy\":", 10);
		tunable(o, true, true, p, pt);
		return;
	}
	bpftune_buf_printf(o, "    admin config:");
	if (pt->no_touch)
		bpftune_buf_printf(o, " touch = no (%s)",
				   bpftune_config_src_text(p, &pt->src_touch, src, sizeof(src)));
	if (pt->has_min) {
		bpftune_values_text(pt->min, pt->num_min, " ", v, sizeof(v));
		bpftune_buf_printf(o, " min %s (%s)", v,
				   bpftune_config_src_text(p, &pt->src_min, src, sizeof(src)));
	}
	if (pt->has_max) {
		bpftune_values_text(pt->max, pt->num_max, " ", v, sizeof(v));
		bpftune_buf_printf(o, " max %s (%s)", v,
				   bpftune_config_src_text(p, &pt->src_max, src, sizeof(src)));
	}
	bpftune_buf_printf(o, "; %lu write%s held at a bound, %lu refused\n", held,
			   held == 1 ? "" : "s", refused);
}
