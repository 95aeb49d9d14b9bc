# SPDX-License-Identifier: GPL-2.0-only
"""Table declarations of a run file: what each column is and how it is drawn.

Since schema version 3 every file holds the declarations of its tables --
the daemon's and each plugin's -- in telemetry_tables and telemetry_columns,
so a tool reads a table it has no code for.  Files of version 2 and older
have none: their sampled tables were the daemon's own, whose kinds are
frozen below (legacy()).

    decls = declarations(db)            # {table name: Table}, file order
    for t in decls.values():
        for c in t.drawn():             # counters, gauges, distributions
            print(t.name, c.name, c.draw, c.unit)   # draw: rate, value, cdf
"""

from dataclasses import dataclass, field

DRAW_OF_KIND = {"counter": "rate", "gauge": "value", "distribution": "cdf"}


@dataclass
class Column:
    """One declared column (a row of telemetry_columns)."""
    name: str
    type: str = None
    kind: str = None
    draw: str = None
    unit: str = None
    description: str = None
    source: str = None
    machine_wide: bool = False
    overview: bool = False
    position: int = 0

    def __post_init__(self):
        self.machine_wide = bool(self.machine_wide)
        self.overview = bool(self.overview)

    def __repr__(self):
        return "Column(%s, %s, draw=%s)" % (self.name, self.kind, self.draw)


@dataclass
class Table:
    """One declared table (a row of telemetry_tables) and its columns."""
    name: str
    owner: str
    description: str = None
    sampled: bool = False
    per_netns: bool = False
    columns: list = field(default_factory=list)

    def __post_init__(self):
        self.sampled = bool(self.sampled)
        self.per_netns = bool(self.per_netns)
        self.columns = list(self.columns)

    def col(self, name):
        for c in self.columns:
            if c.name == name:
                return c
        return None

    def drawn(self):
        """The columns a graph is drawn for, in declaration order."""
        return [c for c in self.columns if c.draw]

    def __repr__(self):
        return "Table(%s by %s, %d columns)" % (self.name, self.owner, len(self.columns))


def _tables(db):
    return {r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}


def declarations(db):
    """{table name: Table} of an open run file (sqlite3 connection)."""
    if {"telemetry_tables", "telemetry_columns"} <= _tables(db):
        return _declared(db)
    return legacy(db)


def _declared(db):
    out = {}
    for name, owner, desc, sampled, per_netns in db.execute(
            "SELECT table_name, owner, description, sampled, per_netns "
            "FROM telemetry_tables ORDER BY seq"):
        out.setdefault(name, Table(name, owner, desc, sampled, per_netns))
    seen = set()
    for row in db.execute(
            "SELECT table_name, column_name, type, kind, draw, unit, description, "
            "source, machine_wide, overview, position FROM telemetry_columns "
            "ORDER BY seq"):
        t = out.get(row[0])
        if t is None or (row[0], row[1]) in seen:
            continue
        seen.add((row[0], row[1]))
        t.columns.append(Column(row[1], row[2], row[3], row[4], row[5], row[6],
                                row[7], row[8], row[9], row[10]))
    return out


# ---- files written before declarations were stored (schema version <= 2) ----

# the columns the run's overview drew then
LEGACY_OVERVIEW = {
    "samples_tcp": {"in_segs", "retrans_segs", "srtt_mean_us", "srtt_max_us",
                    "rcvbuf_max", "rcvbuf_near_max", "sndbuf_near_max",
                    "listen_overflows", "mem_pages"},
    "samples_udp": {"rcvbuf_errors"},
    "samples_netdev": {"softnet_dropped", "softnet_time_squeeze"},
    "samples_neigh": {"arp_entries"},
    "samples_frag": {"reasm_fails"},
    "samples_system": {"load1", "psi_cpu_some_avg10", "mem_available_kb"},
}
LEGACY_COUNTERS = {
    "samples_tcp": set("""
        active_opens passive_opens attempt_fails estab_resets in_segs
        out_segs retrans_segs in_errs out_rsts in_csum_errors
        syncookies_sent syncookies_recv syncookies_failed
        listen_overflows listen_drops req_q_full_drop
        req_q_full_do_cookies prune_called rcv_pruned rcv_collapsed
        rcv_q_drop backlog_drop ofo_queue ofo_drop memory_pressures
        memory_pressures_ms abort_on_memory timeouts loss_probes
        lost_retransmit fast_retrans slow_start_retrans spurious_rtos
        dsack_recv delayed_acks zero_window_drop to_zero_window_adv
        want_zero_window_adv
    """.split()),
    "samples_udp": set("""
        in_datagrams no_ports in_errors out_datagrams rcvbuf_errors
        sndbuf_errors in_csum_errors ignored_multi mem_errors
        udp6_in_datagrams udp6_no_ports udp6_in_errors
        udp6_out_datagrams udp6_rcvbuf_errors udp6_sndbuf_errors
        udp6_mem_errors
    """.split()),
    "samples_neigh": set("""
        arp_allocs arp_destroys arp_hash_grows arp_lookups arp_hits
        arp_res_failed arp_periodic_gc_runs arp_forced_gc_runs
        arp_unresolved_discards arp_table_fulls ndisc_allocs
        ndisc_destroys ndisc_hash_grows ndisc_lookups ndisc_hits
        ndisc_res_failed ndisc_periodic_gc_runs ndisc_forced_gc_runs
        ndisc_unresolved_discards ndisc_table_fulls
    """.split()),
    "samples_netdev": set("""
        softnet_processed softnet_dropped softnet_time_squeeze
        softnet_received_rps softnet_flow_limit_count rx_bytes
        rx_packets rx_errs rx_drop rx_fifo rx_frame rx_multicast
        tx_bytes tx_packets tx_errs tx_drop tx_fifo tx_colls tx_carrier
    """.split()),
    "samples_frag": set("""
        reasm_timeout reasm_reqds reasm_oks reasm_fails frag_oks
        frag_fails frag_creates reasm6_timeout reasm6_reqds reasm6_oks
        reasm6_fails frag6_oks frag6_fails frag6_creates
    """.split()),
    "samples_system": set("""
        cpu_user cpu_nice cpu_system cpu_idle cpu_iowait cpu_irq
        cpu_softirq cpu_steal ctxt intr psi_cpu_some_total_us
        psi_cpu_full_total_us psi_memory_some_total_us
        psi_memory_full_total_us psi_io_some_total_us
        psi_io_full_total_us
    """.split()),
    "health": set("""
        ringbuf_lost events_seen events_dropped rows_queued rows_dropped
        rows_written flushes netns_errors cpu_user_us cpu_system_us
    """.split()),
}
LEGACY_MACHINE_WIDE = {
    "samples_tcp": {"sock_orphan", "sock_alloc", "mem_pages"},
    "samples_udp": {"mem_pages"},
    "samples_netdev": {"softnet_processed", "softnet_dropped", "softnet_time_squeeze", "softnet_received_rps", "softnet_flow_limit_count", "softnet_backlog_len"},
}
LEGACY_OWNER = {"samples_tcp": "tcp_buffer", "samples_udp": "udp_buffer",
                "samples_neigh": "neigh_table", "samples_netdev": "net_buffer",
                "samples_frag": "ip_frag"}
COMMON = ("run_id", "host_id", "seq", "ts_uptime_us")


def legacy(db):
    """Declarations of a version 2 file: its sampled tables and health are
    the daemon's, every numeric column a counter or a gauge."""
    out = {}
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                              "ORDER BY rowid"):
        if name == "meta":
            continue
        info = list(db.execute('PRAGMA table_info("%s")' % name))
        drawn = name.startswith("samples_") or name == "health"
        cols = [c[1] for c in info]
        t = Table(name, LEGACY_OWNER.get(name, "core"), None,
                  name.startswith("samples_"), "netns_cookie" in cols)
        counters = LEGACY_COUNTERS.get(name, set())
        for pos, (_, col, ctype, *_rest) in enumerate(info):
            kind = None
            if drawn and col not in COMMON:
                kind = ("label" if col == "netns_cookie" else
                        "counter" if col in counters else "gauge")
            draw = DRAW_OF_KIND.get(kind)
            if col == "queue_capacity":
                draw = None
            t.columns.append(Column(col, ctype, kind, draw, None, None, None,
                                    col in LEGACY_MACHINE_WIDE.get(name, ()),
                                    col in LEGACY_OVERVIEW.get(name, ()), pos))
        out[name] = t
    return out
