/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The policy file in the running daemon (policy.c, policy_hook.c,
 * policy_query.c); the pure part is in policy.h.
 */
#ifndef BPFTUNE_POLICY_DAEMON_H
#define BPFTUNE_POLICY_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include "base/daemon_api.h"
#include "ops/policy.h"

/* exit status for an invalid policy (sysexits' EX_CONFIG): the unit does
 * not restart on it (RestartPreventExitStatus) */
#define BPFTUNE_EXIT_CONFIG	78

struct bpftune_tuner;
struct bpftune_event;
struct bpftune_buf;

/*
 * The command line gave long option @option (without "--") with @arg:
 * recorded so that it wins over every file, on reload too.  Returns 1 if
 * the policy has a key for it.
 */
BPFTUNE_DAEMON int bpftune_policy_cli(const char *option, const char *arg);
/*
 * Read the policy (@path, or /etc/bpftune/bpftune.conf when NULL, which
 * may be absent) and its drop-ins (PATH.d/ *.conf).  The file's [daemon]
 * settings come back as options in @argv (argv[0] "bpftune"; free with
 * bpftune_policy_argv_free()).  An invalid policy is printed on stderr
 * with FILE:LINE and returns -errno.
 */
BPFTUNE_DAEMON int bpftune_policy_start(const char *path, int *argc, char ***argv);
BPFTUNE_DAEMON void bpftune_policy_argv_free(int argc, char **argv);
/* once the tuners are loaded: bounds vs their caps; -EINVAL is fatal */
BPFTUNE_DAEMON int bpftune_policy_resolve(void);
struct bpftune_allow;
/* --check-config: the bounds against the caps of the plugins in @libdir */
BPFTUNE_DAEMON int bpftune_policy_check_config(const char *libdir, const struct bpftune_allow *allow);
/* the daemon runs: remember the settings it started with */
BPFTUNE_DAEMON void bpftune_policy_running(void);
/* SIGHUP: a valid policy replaces the old one; 0 or -errno (logged) */
BPFTUNE_DAEMON int bpftune_policy_reload(void);
BPFTUNE_DAEMON void bpftune_policy_fini(void);

const struct bpftune_policy *bpftune_policy_current(void);
const struct bpftune_policy_setting *bpftune_policy_started(enum bpftune_policy_key k);
BPFTUNE_DAEMON const char *bpftune_policy_path(bool *given);

/*
 * The policy's hook in bpftune_tunable_set() (policy_hook.c), on the
 * observer bus from bpftune_policy_start() to bpftune_policy_fini():
 * do-not-touch and netns scope refuse a write, admin bounds hold it.
 */
void bpftune_policy_hook_start(void);
void bpftune_policy_hook_stop(void);
void bpftune_policy_hook_reset(void);
/* writes of tunable @name held at a bound (returned) and refused since reload */
unsigned long bpftune_policy_counts(const char *name, unsigned long *refused);
unsigned long bpftune_policy_out_of_scope(void);

/* -q config and the policy lines of -q status (policy_query.c) */
int bpftune_policy_format(struct bpftune_buf *o, bool json);
void bpftune_policy_status_line(struct bpftune_buf *o, const char *tunable,
				bool json);

#endif /* BPFTUNE_POLICY_DAEMON_H */
