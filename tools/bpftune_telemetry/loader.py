# SPDX-License-Identifier: GPL-2.0-only
"""bpftune_telemetry.load(DIR): a dataset as pandas frames (docs/datasets.md).

    import bpftune_telemetry
    ds = bpftune_telemetry.load("dataset")
    train = ds["train"]            # --format sched: one DataFrame
    ds["train"]["samples_tcp"]     # --format tables: a DataFrame per table
    ds["train"]["net_buffer_grow_backlog"]   # --format decisions: one per policy
    ds.units, ds.gaps, ds.lost, ds.provenance, ds.dataset_id

Every column gets its declared dtype -- INTEGER: pandas' nullable Int64,
REAL: float64, TEXT: string -- and its unit (frame.attrs["units"] and
ds.units): the sched formats declare theirs in dataset_meta.json
("column_declarations"), the tables format has the daemon's declarations
(telemetry_columns.csv), the decisions format its per-policy ones in
dataset_meta.json.  An empty field is NULL (NA).  A --format
sched frame has one more column, in_gap: its time_diff overlaps a gap of its
trace (ds.gaps), so its time_diff may span dropped switches.  A table nobody
declared is read as pandas guesses, and listed in ds.undeclared.
load(..., verify=True) first rechecks the hashes as `dataset verify` does
and raises ValueError naming what differs.
"""

import json
import os
from collections.abc import Mapping

from .common import SPLITS
from .provenance import META, check

DTYPES = {"INTEGER": "Int64", "REAL": "float64", "TEXT": "string"}
# columns the tables format adds to every table
ADDED = {"label": "TEXT", "category": "TEXT", "trace_id": "TEXT", "runs": "INTEGER"}
GAP_TYPES = {"trace_id": "TEXT", "cpu": "INTEGER", "start": "REAL", "end": "REAL",
             "lost_ringbuf": "INTEGER", "lost_writer": "INTEGER", "lost_events": "INTEGER"}


def _pandas():
    try:
        import pandas
    except ImportError as e:
        raise ImportError("bpftune_telemetry.load needs pandas (Debian: python3-pandas): %s"
                          % e) from e
    return pandas


def read_csv(path, types, units=None):
    """A CSV with the declared dtypes of @types ({column: SQL type}); an
    empty field is NA, and nothing else is (a task named 'NA' stays)."""
    pd = _pandas()
    with open(path, newline="") as f:
        header = f.readline().strip().split(",")
    dtype = {c: DTYPES[types[c]] for c in header if types.get(c) in DTYPES}
    # Int64 from text: read as float would lose 64-bit values, so via string
    ints = [c for c, t in dtype.items() if t == "Int64"]
    first = {c: ("string" if c in ints else t) for c, t in dtype.items()}
    df = pd.read_csv(path, dtype=first, keep_default_na=False, na_values={c: [""] for c in
                     header})
    for c in ints:
        df[c] = pd.to_numeric(df[c]).astype("Int64")
    df.attrs["units"] = {c: u for c, u in (units or {}).items() if c in df.columns and u}
    return df


class Tables(Mapping):
    """The tables of one split of a --format tables dataset, read on first use."""

    def __init__(self, ds, split):
        self._ds, self._dir = ds, os.path.join(ds.path, split)
        self._names = sorted(f[:-4] for f in os.listdir(self._dir) if f.endswith(".csv"))
        self._frames = {}

    def __getitem__(self, table):
        if table not in self._names:
            raise KeyError(table)
        if table not in self._frames:
            types = dict(ADDED, **self._ds.types.get(table, {}))
            if table not in self._ds.types:
                self._ds.undeclared.add(table)
            self._frames[table] = read_csv(os.path.join(self._dir, table + ".csv"), types,
                                           self._ds.units.get(table))
        return self._frames[table]

    def __iter__(self):
        return iter(self._names)

    def __len__(self):
        return len(self._names)


class Dataset(Mapping):
    """A dataset directory: split name -> frame(s); meta, provenance, gaps."""

    def __init__(self, path, verify=False):
        self.path = path
        with open(os.path.join(path, META)) as f:
            self.meta = json.load(f)
        if verify:
            bad = check(path, self.meta) if "provenance" in self.meta else [
                "%s has no provenance" % META]
            if bad:
                raise ValueError("%s: %s" % (path, "; ".join(bad)))
        self.format = self.meta.get("format", "tables")
        self.provenance = self.meta.get("provenance", {})
        self.dataset_id = self.provenance.get("dataset_id")
        self.undeclared = set()
        self._frames = {}
        if self.format == "tables":
            self.types, self.units = self._declarations()
        elif self.format == "decisions":
            decl = self.meta.get("column_declarations", {})
            self.types = {t: {c: d["type"] for c, d in cols.items()}
                          for t, cols in decl.items()}
            self.units = {t: {c: d["unit"] for c, d in cols.items() if d.get("unit")}
                          for t, cols in decl.items()}
        else:
            decl = self.meta.get("column_declarations", {})
            self.types = {c: d["type"] for c, d in decl.items()}
            self.units = {c: d.get("unit") for c, d in decl.items() if d.get("unit")}
        self.splits = tuple(s for s in SPLITS + ("all",) if self._exists(s))

    def _exists(self, split):
        if self.format in ("tables", "decisions"):
            return os.path.isdir(os.path.join(self.path, split))
        return os.path.isfile(os.path.join(self.path, split + ".csv"))

    def _declarations(self):
        """{table: {column: type}}, {table: {column: unit}} from all/'s
        telemetry_columns.csv (the daemon's declarations)."""
        path = os.path.join(self.path, "all", "telemetry_columns.csv")
        types, units = {}, {}
        if not os.path.isfile(path):
            return types, units
        df = read_csv(path, {"table_name": "TEXT", "column_name": "TEXT", "type": "TEXT",
                             "unit": "TEXT"})
        for r in df.itertuples(index=False):
            types.setdefault(r.table_name, {})[r.column_name] = r.type
            if isinstance(r.unit, str) and r.unit:
                units.setdefault(r.table_name, {})[r.column_name] = r.unit
        for t in ("telemetry_tables", "telemetry_columns"):
            types.setdefault(t, {}).update({"runs": "INTEGER"})
        return types, units

    def __getitem__(self, split):
        if split not in self.splits:
            raise KeyError("%s: no split %r (it has %s)" % (self.path, split,
                           ", ".join(self.splits)))
        if split not in self._frames:
            if self.format in ("tables", "decisions"):
                self._frames[split] = Tables(self, split)
            else:
                self._frames[split] = self._mark_gaps(split, read_csv(
                    os.path.join(self.path, split + ".csv"), self.types, self.units))
        return self._frames[split]

    def __iter__(self):
        return iter(self.splits)

    def __len__(self):
        return len(self.splits)

    @property
    def gaps(self):
        """Where traces lost events (the sched formats' <split>_gaps.csv):
        split, trace_id, cpu, start and end (s), lost_ringbuf, lost_writer,
        lost_events; empty for the tables format (its sched_stats has them)."""
        pd = _pandas()
        frames = []
        for s in self.splits:
            path = os.path.join(self.path, s + "_gaps.csv")
            if os.path.isfile(path):
                df = read_csv(path, GAP_TYPES, {"start": "s", "end": "s"})
                df.insert(0, "split", pd.array([s] * len(df), dtype="string"))
                frames.append(df)
        if not frames:
            return pd.DataFrame({"split": pd.array([], dtype="string")})
        return pd.concat(frames, ignore_index=True)

    def _mark_gaps(self, split, df):
        """in_gap: the row's time_diff (from the trace's previous row to it)
        overlaps a gap of its trace (any CPU): it may span dropped switches
        (only where rows have times)."""
        if "timestamp" not in df.columns or "trace_id" not in df.columns:
            return df
        gaps = self.gaps
        df["in_gap"] = False
        if "trace_id" not in gaps.columns:
            return df
        gaps = gaps[gaps["split"] == split]
        for tid, g in gaps.groupby("trace_id"):
            rows = df["trace_id"] == tid
            ts = df.loc[rows, "timestamp"]
            # from the previous row of the trace to this one
            prev = ts - df.loc[rows, "time_diff"] if "time_diff" in df.columns else ts
            hit = ts != ts      # all False
            for start, end in zip(g["start"], g["end"]):
                hit |= (ts >= start) & (prev <= end)
            df.loc[rows, "in_gap"] = hit
        return df

    @property
    def lost(self):
        """One row per trace: split, trace_id, lost_events (what the
        collector counted in its run; NA where a run has no sched_stats)."""
        pd = _pandas()
        rows = []
        for s in SPLITS:
            lost = self.meta.get("splits", {}).get(s, {}).get("lost_events", {})
            for tid, n in sorted(lost.items()):
                rows.append({"split": s, "trace_id": tid, "lost_events": n})
        df = pd.DataFrame(rows, columns=["split", "trace_id", "lost_events"])
        return df.astype({"split": "string", "trace_id": "string", "lost_events": "Int64"})


def load(path, verify=False):
    """The dataset in @path (made by `bpftune-telemetry dataset build`)."""
    if not os.path.isfile(os.path.join(path, META)):
        raise FileNotFoundError("%s: not a dataset (no %s)" % (path, META))
    return Dataset(path, verify)
