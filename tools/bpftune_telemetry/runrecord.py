# SPDX-License-Identifier: GPL-2.0-only
"""What collect knows about a run, written into the run's file after the daemon exited.

  collect_runs       one row: the workload, its category, parameters and
                     command, its exit status and time span, the run's index
  collect_tunables   one row per sysctl that matters to the run's
                     independence: every tunable a loaded tuner manages
                     (global: value before the run, the daemon's initial
                     value, value after, put back or not; namespaced: the
                     value the new pair started with), what collect set in
                     the pair, and any other network sysctl of the global
                     netns that changed during the run (someone else's)

The columns are described in docs/collectors.md.
"""

import json
import sqlite3
import time

from . import sysctls

COMMON = "run_id TEXT NOT NULL, host_id TEXT NOT NULL, seq INTEGER NOT NULL, " \
         "ts_uptime_us INTEGER NOT NULL"
DDL = {
    "collect_runs": COMMON + ", workload TEXT, category TEXT, label TEXT, "
    "run_index INTEGER, runs INTEGER, tool TEXT, argv TEXT, params TEXT, "
    "duration_s INTEGER, workload_start_us INTEGER, workload_end_us INTEGER, "
    "exit_status INTEGER, timed_out INTEGER, daemon_exit INTEGER, observe_only INTEGER, "
    "netns_server TEXT, netns_client TEXT, tunables_restored INTEGER, "
    "tunables_not_restored INTEGER",
    "collect_tunables": COMMON + ", tunable TEXT, netns TEXT, managed INTEGER, "
    "tuner TEXT, set_by_collect TEXT, before TEXT, initial TEXT, after TEXT, "
    "changed_by_run INTEGER, restored INTEGER",
}


def boottime_us():
    return int(time.clock_gettime(time.CLOCK_BOOTTIME) * 1e6)


class RunRecord:
    def __init__(self, workload, label, index, args, pair):
        self.w = workload
        self.label = label
        self.index = index
        self.args = args
        self.pair = pair
        self.t_before = self.t_after = None

    def before(self, global_snap, pair_snaps):
        self.t_before = boottime_us()
        self.snap_before = global_snap
        self.pair_before = pair_snaps

    def ran(self, argv, status, t0, t1, daemon_exit):
        self.argv, self.status, self.t0, self.t1 = argv, status, t0, t1
        self.daemon_exit = daemon_exit

    def after(self, global_snap):
        self.t_after = boottime_us()
        self.snap_after = global_snap

    # ---- rows ----------------------------------------------------------------

    def _managed(self, db):
        """[(tuner, tunable, namespaced, initial_values)] of the run's tuners."""
        try:
            return db.execute("SELECT tuner, tunable, namespaced, initial_values "
                              "FROM tunables ORDER BY seq").fetchall()
        except sqlite3.OperationalError:
            return []

    def _changed_globally(self, db):
        try:
            return {r[0] for r in db.execute(
                "SELECT DISTINCT tunable FROM changes WHERE netns_cookie = 0 "
                "AND applied = 1 AND rollback = 0")}
        except sqlite3.OperationalError:
            return set()

    def tunable_rows(self, db):
        """Rows of collect_tunables, and [(name, before, after)] of the
        managed global tunables that were not put back."""
        rows, left, seen = [], [], set()
        changed = self._changed_globally(db)
        for tuner, name, namespaced, initial in self._managed(db):
            if name in seen:	# two tuners may manage one sysctl
                continue
            seen.add(name)
            was = self.snap_before.get(name)
            now = self.snap_after.get(name) if name in self.snap_after else sysctls.read(name)
            if was is None:	# outside /proc/sys/net: the daemon's read at start
                was = initial
            ok = int(was == now) if was is not None and now is not None else None
            if ok == 0:
                left.append((name, was, now))
            rows.append(dict(ts=self.t_after, tunable=name, netns="global", managed=1,
                             tuner=tuner, before=was, initial=initial, after=now,
                             changed_by_run=int(name in changed), restored=ok))
            if namespaced:
                for role, ns in (("server", self.pair.server), ("client", self.pair.client)):
                    rows.append(dict(ts=self.t_before, tunable=name, netns=role, managed=1,
                                     tuner=tuner, before=self.pair_before[ns].get(name),
                                     set_by_collect=self.pair.set_values.get(name)))
        for name, v in sorted(self.pair.set_values.items()):
            if name in seen:
                continue
            for role, ns in (("server", self.pair.server), ("client", self.pair.client)):
                rows.append(dict(ts=self.t_before, tunable=name, netns=role, managed=0,
                                 before=self.pair_before[ns].get(name), set_by_collect=v))
        for name, was, now in sysctls.changed(self.snap_before, self.snap_after):
            if name not in seen:
                rows.append(dict(ts=self.t_after, tunable=name, netns="global", managed=0,
                                 before=was, after=now, restored=0))
        return rows, left

    def write(self, path):
        """Add the tables to the run file; returns the managed global
        tunables that were not put back."""
        db = sqlite3.connect(path, timeout=30)
        try:
            run_id, host_id = db.execute("SELECT run_id, host_id FROM runs").fetchone()
            rows, left = self.tunable_rows(db)
            for t, ddl in DDL.items():
                db.execute('CREATE TABLE IF NOT EXISTS "%s" (%s)' % (t, ddl))
            common = {"run_id": run_id, "host_id": host_id}
            managed = [r for r in rows if r.get("managed") and r["netns"] == "global"]
            insert(db, "collect_runs", dict(
                common, seq=1, ts_uptime_us=self.t_before, workload=self.w.name,
                category=self.w.category, label=self.label, run_index=self.index,
                runs=self.args.runs, tool=self.w.tool or "python3",
                argv=" ".join(self.argv), params=json.dumps(self.w.params, sort_keys=True),
                duration_s=self.args.duration if self.w.timed else None,
                workload_start_us=self.t0, workload_end_us=self.t1,
                exit_status=self.status, timed_out=int(self.status is None),
                daemon_exit=self.daemon_exit, observe_only=int(bool(self.args.observe)),
                netns_server=self.pair.server, netns_client=self.pair.client,
                tunables_restored=sum(1 for r in managed if r["restored"] == 1),
                tunables_not_restored=len(left)))
            for seq, r in enumerate(rows, 1):
                ts = r.pop("ts")
                insert(db, "collect_tunables", dict(common, seq=seq, ts_uptime_us=ts, **r))
            db.commit()
        finally:
            db.close()
        return left


def insert(db, table, row):
    cols = list(row)
    db.execute('INSERT INTO "%s" (%s) VALUES (%s)' % (
        table, ", ".join(cols), ", ".join("?" * len(cols))), [row[c] for c in cols])
