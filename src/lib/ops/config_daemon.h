/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The config file in the running daemon (config.c, config_hook.c,
 * config_query.c); the pure part is in config.h.
 */
#ifndef BPFTUNE_CONFIG_DAEMON_H
#define BPFTUNE_CONFIG_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include "base/daemon_api.h"
#include "ops/config.h"

/* exit status for an invalid config (sysexits' EX_CONFIG): the unit does
 * not restart on it (RestartPreventExitStatus) */
#define BPFTUNE_EXIT_CONFIG	78

struct bpftune_tuner;
struct bpftune_event;
struct bpftune_buf;

/*
 * The command line gave long option @option (without "--") with @arg:
 * recorded so that it wins over every file, on reload too.  Returns 1 if
 * the config has a key for it.
 */
BPFTUNE_DAEMON int bpftune_config_cli(const char *option, const char *arg);
/*
 * Read the config (@path, or /etc/bpftune/bpftune.conf when NULL, which
 * may be absent) and its drop-ins (PATH.d/ *.conf).  The file's [daemon]
 * settings come back as options in @argv (argv[0] "bpftune"; free with
 * bpftune_config_argv_free()).  An invalid config is printed on stderr
 * with FILE:LINE and returns -errno.
 */
BPFTUNE_DAEMON int bpftune_config_start(const char *path, int *argc, char ***argv);
BPFTUNE_DAEMON void bpftune_config_argv_free(int argc, char **argv);
/* once the tuners are loaded: bounds vs their caps; -EINVAL is fatal */
BPFTUNE_DAEMON int bpftune_config_resolve(void);
struct bpftune_allow;
/* --check-config: the bounds against the caps of the plugins in @libdir */
BPFTUNE_DAEMON int bpftune_config_check(const char *libdir, const struct bpftune_allow *allow);
/* the daemon runs: remember the settings it started with */
BPFTUNE_DAEMON void bpftune_config_running(void);
/* SIGHUP: a valid config replaces the old one; 0 or -errno (logged) */
BPFTUNE_DAEMON int bpftune_config_reload(void);
BPFTUNE_DAEMON void bpftune_config_fini(void);

const struct bpftune_config *bpftune_config_current(void);
const struct bpftune_config_setting *bpftune_config_started(enum bpftune_config_key k);
BPFTUNE_DAEMON const char *bpftune_config_path(bool *given);

/*
 * The config's hook in bpftune_tunable_set() (config_hook.c), on the
 * observer bus from bpftune_config_start() to bpftune_config_fini():
 * do-not-touch and netns scope refuse a write, admin bounds hold it.
 */
void bpftune_config_hook_start(void);
void bpftune_config_hook_stop(void);
void bpftune_config_hook_reset(void);
/* writes of tunable @name held at a bound (returned) and refused since reload */
unsigned long bpftune_config_counts(const char *name, unsigned long *refused);
unsigned long bpftune_config_out_of_scope(void);

/* -q config and the config lines of -q status (config_query.c) */
int bpftune_config_format(struct bpftune_buf *o, bool json);
void bpftune_config_status_line(struct bpftune_buf *o, const char *tunable,
				bool json);

#endif /* BPFTUNE_CONFIG_DAEMON_H */
