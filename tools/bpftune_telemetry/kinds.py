# SPDX-License-Identifier: GPL-2.0-only
"""What each column of a sampled table is, for the graphs: the one place to ask.

  counter       cumulative count: drawn as a rate, and as the total since
                the run started
  gauge         a value at sample time: drawn as it is, and as a CDF
  distribution  one observation per row: drawn as a CDF
  key           says which series a row belongs to (netns_cookie, cpu):
                rows are summed over keys per sample interval

Run files that declare their columns (a telemetry_columns table: the
plugin-declared kinds) are read as they say.  Older files have no
declarations: their tables are the daemon's own, whose counters are listed
below (docs/telemetry.md, the "kind" column); every other numeric column
of a sampled table is a gauge.
"""

COMMON = ("run_id", "host_id", "seq", "ts_uptime_us")
DRAWN = ("counter", "gauge", "distribution")
KEY_KINDS = ("key", "label")	# "label": the declarations' name for a key

_COUNTERS = {
    "samples_tcp": """active_opens passive_opens attempt_fails estab_resets in_segs out_segs
        retrans_segs in_errs out_rsts in_csum_errors syncookies_sent syncookies_recv
        syncookies_failed listen_overflows listen_drops req_q_full_drop
        req_q_full_do_cookies prune_called rcv_pruned rcv_collapsed rcv_q_drop
        backlog_drop ofo_queue ofo_drop memory_pressures memory_pressures_ms
        abort_on_memory timeouts loss_probes lost_retransmit fast_retrans
        slow_start_retrans spurious_rtos dsack_recv delayed_acks zero_window_drop
        to_zero_window_adv want_zero_window_adv""",
    "samples_udp": """in_datagrams no_ports in_errors out_datagrams rcvbuf_errors
        sndbuf_errors in_csum_errors ignored_multi mem_errors udp6_in_datagrams
        udp6_no_ports udp6_in_errors udp6_out_datagrams udp6_rcvbuf_errors
        udp6_sndbuf_errors udp6_mem_errors""",
    "samples_neigh": """arp_allocs arp_destroys arp_hash_grows arp_lookups arp_hits
        arp_res_failed arp_periodic_gc_runs arp_forced_gc_runs arp_unresolved_discards
        arp_table_fulls ndisc_allocs ndisc_destroys ndisc_hash_grows ndisc_lookups
        ndisc_hits ndisc_res_failed ndisc_periodic_gc_runs ndisc_forced_gc_runs
        ndisc_unresolved_discards ndisc_table_fulls""",
    "samples_netdev": """softnet_processed softnet_dropped softnet_time_squeeze
        softnet_received_rps softnet_flow_limit_count rx_bytes rx_packets rx_errs
        rx_drop rx_fifo rx_frame rx_multicast tx_bytes tx_packets tx_errs tx_drop
        tx_fifo tx_colls tx_carrier""",
    "samples_frag": """reasm_timeout reasm_reqds reasm_oks reasm_fails frag_oks frag_fails
        frag_creates reasm6_timeout reasm6_reqds reasm6_oks reasm6_fails frag6_oks
        frag6_fails frag6_creates""",
    "samples_system": """cpu_user cpu_nice cpu_system cpu_idle cpu_iowait cpu_irq
        cpu_softirq cpu_steal ctxt intr psi_cpu_some_total_us psi_cpu_full_total_us
        psi_memory_some_total_us psi_memory_full_total_us psi_io_some_total_us
        psi_io_full_total_us""",
    "health": """ringbuf_lost events_seen events_dropped rows_queued rows_dropped
        rows_written flushes netns_errors cpu_user_us cpu_system_us""",
    # the sched collector's per-CPU counts (docs/collectors.md)
    "sched_stats": "events switch wakeup wakeup_new migrate lost_ringbuf lost_writer",
}
BUILTIN_COUNTERS = {t: set(v.split()) for t, v in _COUNTERS.items()}
BUILTIN_KEYS = {"netns_cookie", "cpu"}
# constant by construction: nothing to draw
BUILTIN_SKIP = {"health": {"queue_capacity"}, "samples_system": {"mem_total_kb"}}


def _tables(db):
    return [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")]


def declared(db):
    """{table: {column: kind}} from the file's declarations, or None."""
    if "telemetry_columns" not in _tables(db):
        return None
    out = {}
    for table, col, kind, draw in db.execute(
            "SELECT table_name, column_name, kind, draw FROM telemetry_columns ORDER BY seq"):
        # a counter or gauge declared not worth a graph has no draw
        if kind in KEY_KINDS or (kind and draw):
            out.setdefault(table, {}).setdefault(col, "key" if kind in KEY_KINDS else kind)
    return out


def column_units(db):
    """{(table, column): unit} as the file declares them ({} for older files)."""
    if "telemetry_columns" not in _tables(db):
        return {}
    return {(t, c): u for t, c, u in db.execute(
        "SELECT table_name, column_name, unit FROM telemetry_columns WHERE unit IS NOT NULL")}


def builtin(db):
    """{table: {column: kind}} of a file without declarations."""
    out = {}
    for table in _tables(db):
        if table not in BUILTIN_COUNTERS and not table.startswith("samples_"):
            continue
        kinds = {}
        for _, col, ctype, *_ in db.execute('PRAGMA table_info("%s")' % table):
            if col in COMMON or col in BUILTIN_SKIP.get(table, ()):
                continue
            if col in BUILTIN_KEYS:
                kinds[col] = "key"
            elif col in BUILTIN_COUNTERS.get(table, ()):
                kinds[col] = "counter"
            elif ctype.upper() in ("INTEGER", "REAL"):
                kinds[col] = "gauge"
        out[table] = kinds
    return out


def column_kinds(db):
    """{table: {column: kind}} of an open run file: the declarations of the
    tables the file declares, the built-in map for the others (files
    written before declarations, tables added by hand)."""
    d = declared(db)
    out = builtin(db)
    if d:
        out.update(d)
    return out
