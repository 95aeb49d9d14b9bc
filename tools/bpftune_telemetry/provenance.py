# SPDX-License-Identifier: GPL-2.0-only
"""Provenance of a dataset, and `dataset verify DIR [DIR2]`.

Every dataset_meta.json (every format) has a "provenance" object: the
dataset id, when and by what command it was made, the tool's version and
commit, the daemon versions, kernels and CPU models of its runs, and the
sha256 and size of every source run file and every output file.

The dataset id is derived from the content: the sha256 of the meta as
canonical JSON without what does not make the content -- created_utc,
command_line, cwd, the tool's version and commit, the id itself and the
paths the sources were read from (their hashes stay).  So the same runs built the same way give the
same id wherever and whenever they are built, and any change to an
output (its hash is in the meta) or to the meta changes it.  verify
recomputes every output's hash and the id: exit 0 if all match, 1 if
anything differs (each file named), 2 if DIR is not a dataset.
"""

import hashlib
import json
import os
import subprocess
import sys
import time

from . import version

META = "dataset_meta.json"
# what identity leaves out: when, how, by which build of the tool and from
# where a dataset was built
VOLATILE = ("dataset_id", "created_utc", "command_line", "cwd", "tool")
RUN_FIELDS = ("host_id", "boot_id", "daemon_version", "schema_version", "kernel_release",
              "kernel_version", "arch", "cpu_model", "cpu_cores", "start_wall")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_entry(path):
    return {"sha256": sha256_file(path), "bytes": os.path.getsize(path)}


def tool_version():
    """(version, commit) of this tool: as installed, else from its tree."""
    ver, commit = version.VERSION, version.COMMIT
    tree = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if ver.startswith("@"):
        ver = "unknown"
        try:
            with open(os.path.join(tree, "Makefile")) as f:
                for line in f:
                    if line.split(":=")[0].strip() == "VERSION":
                        ver = line.split(":=", 1)[1].strip()
                        break
        except OSError:
            pass
    if commit.startswith("@"):
        commit = git_commit(tree)
    return ver, commit


def git_commit(tree):
    """HEAD of the tool's tree, '+dirty' if the tool's files differ from it."""
    try:
        head = subprocess.run(["git", "-C", tree, "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", tree, "status", "--porcelain", "--",
                                "tools/bpftune_telemetry", "tools/bpftune-telemetry"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def created_utc():
    """Now, or SOURCE_DATE_EPOCH when set (reproducible builds)."""
    t = os.environ.get("SOURCE_DATE_EPOCH")
    t = int(t) if t and t.isdigit() else int(time.time())
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def output_files(out, written):
    """{relative path: entry} of every file written (directories walked)."""
    files = {}
    for p in written:
        if os.path.basename(p) == META:
            continue
        paths = [p]
        if os.path.isdir(p):
            paths = [os.path.join(d, f) for d, _, fs in os.walk(p) for f in fs]
        for f in paths:
            files[os.path.relpath(f, out)] = file_entry(f)
    return dict(sorted(files.items()))


def provenance(out, written, src, runs):
    ver, commit = tool_version()
    return {
        "created_utc": created_utc(),
        "command_line": list(sys.argv),
        "cwd": os.getcwd(),
        "tool": {"name": "bpftune-telemetry", "version": ver, "commit": commit},
        "daemon_versions": distinct(runs, "daemon_version"),
        "kernels": distinct(runs, "kernel_release", "kernel_version"),
        "cpu_models": distinct(runs, "cpu_model"),
        "runs": {r["run_id"]: {k: r.get(k) for k in RUN_FIELDS} for r in
                 sorted(runs, key=lambda r: r["run_id"])},
        "sources": {os.path.abspath(f): file_entry(f) for f in src.files},
        "outputs": output_files(out, written),
    }


def distinct(runs, *keys):
    vals = {tuple(r.get(k) for k in keys) for r in runs}
    out = [v[0] if len(keys) == 1 else dict(zip(keys, v)) for v in
           sorted(vals, key=lambda v: tuple("" if x is None else str(x) for x in v))]
    return out


def identity(meta):
    """The dataset id of a meta: a hash of what makes its content."""
    m = json.loads(json.dumps(meta))
    m.pop("sources", None)
    p = m.get("provenance", {})
    for k in VOLATILE:
        p.pop(k, None)
    if "sources" in p:
        p["sources"] = sorted(e["sha256"] for e in p["sources"].values())
    blob = json.dumps(m, sort_keys=True, separators=(",", ":")).encode()
    return "ds-" + hashlib.sha256(blob).hexdigest()[:32]


def seal(meta, out, written, src, runs):
    """Add the provenance, the dataset id last (it hashes the rest)."""
    meta["provenance"] = provenance(out, written, src, runs)
    meta["provenance"]["dataset_id"] = identity(meta)
    return meta["provenance"]["dataset_id"]


# ---- dataset verify -------------------------------------------------------------

def load_meta(d):
    path = os.path.join(d, META)
    try:
        with open(path) as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        print("verify: %s: not a dataset (%s)" % (d, e), file=sys.stderr)
        sys.exit(2)
    if not isinstance(meta, dict) or "outputs" not in meta.get("provenance", {}):
        print("verify: %s: its %s has no provenance (built by an older tool?)" % (d, META),
              file=sys.stderr)
        sys.exit(2)
    return meta


def check(d, meta):
    """The differences between DIR's files and its meta, one line each."""
    bad = []
    listed = meta["provenance"]["outputs"]
    for rel, want in sorted(listed.items()):
        path = os.path.join(d, rel)
        if not os.path.isfile(path):
            bad.append("%s: missing" % rel)
        elif sha256_file(path) != want["sha256"]:
            bad.append("%s: sha256 differs from the meta's (%s)" % (rel, want["sha256"]))
    for base, _, fs in os.walk(d):
        for f in fs:
            rel = os.path.relpath(os.path.join(base, f), d)
            if rel != META and rel not in listed:
                bad.append("%s: not in the meta (a file the build did not write)" % rel)
    if identity(meta) != meta["provenance"].get("dataset_id"):
        bad.append("%s: edited: its content no longer hashes to its dataset id %s" % (
            META, meta["provenance"].get("dataset_id")))
    return bad


def check_sources(meta):
    """Sources still at their paths are rehashed; absent ones only noted."""
    bad, absent = [], []
    for path, want in sorted(meta["provenance"].get("sources", {}).items()):
        if not os.path.isfile(path):
            absent.append(path)
        elif sha256_file(path) != want["sha256"]:
            bad.append("source %s: sha256 differs from the meta's (changed since the build)"
                       % path)
    return bad, absent


def cmd_verify(args):
    if len(args.dirs) > 2:
        print("verify: one DIR, or two to compare", file=sys.stderr)
        sys.exit(2)
    status = 0
    ids = []
    for d in args.dirs:
        meta = load_meta(d)
        bad = check(d, meta)
        src_bad, absent = check_sources(meta) if not args.no_sources else ([], [])
        for line in bad + src_bad:
            print("verify: %s: %s" % (d, line))
        if absent:
            print("verify: %s: %d source file(s) not present here, not rechecked" % (
                d, len(absent)))
        n = len(meta["provenance"]["outputs"])
        if bad or src_bad:
            status = 1
            print("%s: FAILED (%d difference(s))" % (d, len(bad) + len(src_bad)))
        else:
            print("%s: OK, %d output file(s), dataset id %s" % (
                d, n, meta["provenance"]["dataset_id"]))
        ids.append(meta["provenance"]["dataset_id"])
    if len(ids) == 2:
        if status:
            print("not compared: a dataset failed verification")
        elif ids[0] == ids[1]:
            print("identical: both are dataset %s" % ids[0])
        else:
            status = 1
            print("differ: %s is %s, %s is %s" % (args.dirs[0], ids[0], args.dirs[1], ids[1]))
            diff_outputs(args.dirs)
    sys.exit(status)


def diff_outputs(dirs):
    a, b = (load_meta(d)["provenance"]["outputs"] for d in dirs)
    differ = [rel for rel in sorted(set(a) | set(b))
              if a.get(rel, {}).get("sha256") != b.get(rel, {}).get("sha256")]
    for rel in differ:
        print("  %s differs" % rel)
    if not differ:
        print("  the outputs are the same; the metas differ")
