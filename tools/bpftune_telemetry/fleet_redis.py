# SPDX-License-Identifier: GPL-2.0-only
"""fleet: the Redis side shared by the fleet subcommands.

Key layout (bpftune-ship writes it; docs/fleet.md): every key of host H
carries the hash tag {H}, so a Redis Cluster keeps a host on one shard.
  bpftune:{H}:rows:TABLE  stream: one entry per row, fields _r (run),
                          _i (rowid), then the columns, values encoded
  bpftune:{H}:run:RUN     hash: file, label, kernel, schema, per table
                          wm.T, max.T, first.T, last.T; done
  bpftune:{H}:schema:ID   hash: objects, obj.N.{type,name,tbl_name,sql}
  bpftune:{H}:runs        sorted set of the host's runs by start time
  bpftune:{H}:host        hash: kernel, seen_ms, pending, rows.T, refused
  bpftune:{H}:summary     hash: what `fleet summary` has counted so far
  bpftune:job:{ID}        hash: id, info, created; bpftune:job:{ID}:runs
                          set of "HOST RUN"; bpftune:jobs set of ids
"""

import json
import os
import re
import sys
import urllib.parse

from .common import die

ENV_URL = "BPFTUNE_REDIS"
ID_RE = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def parse_url(url):
    """The URL forms bpftune-ship takes, as keyword arguments of redis.Redis."""
    m = re.match(r"^(redis|unix)://(?:(.*)@)?(.*)$", url or "")
    if not m:
        if (url or "").startswith("rediss://"):
            die("--redis: rediss:// (TLS) is not supported, as in bpftune-ship")
        die("--redis: the URL must start with redis:// or unix:// (or set $%s)" % ENV_URL)
    scheme, userinfo, rest = m.groups()
    kw = {}
    if userinfo is not None:
        user, sep, pw = userinfo.partition(":")
        if not sep:      # redis-cli's form: the userinfo is the password
            user, pw = "", userinfo
        if user:
            kw["username"] = urllib.parse.unquote(user)
        if pw:
            kw["password"] = urllib.parse.unquote(pw)
    if scheme == "unix":
        path, _, query = rest.partition("?")
        if not path.startswith("/"):
            die("--redis: unix:// needs an absolute socket path")
        kw["unix_socket_path"] = path
        if query:
            if not re.match(r"^db=\d+$", query):
                die("--redis: unix:// takes only ?db=N after the path")
            kw["db"] = int(query[3:])
        return kw
    hostport, _, db = rest.partition("/")
    m = re.match(r"^\[([^\]]+)\](?::(\d+))?$", hostport) or \
        re.match(r"^([^:]+)(?::(\d+))?$", hostport)
    if not m:
        die("--redis: no host in the URL")
    kw["host"], port = m.group(1), m.group(2)
    kw["port"] = int(port) if port else 6379
    if not 0 < kw["port"] < 65536:
        die("--redis: the port must be 1 to 65535")
    if db:
        if not db.isdigit():
            die("--redis: the database must be a number")
        kw["db"] = int(db)
    return kw


def connect(url):
    try:
        import redis
    except ImportError:
        die("fleet needs python3-redis (apt-get install python3-redis)")
    url = url or os.environ.get(ENV_URL)
    if not url:
        die("fleet: --redis URL is needed (or $%s)" % ENV_URL)
    kw = parse_url(url)
    r = redis.Redis(socket_timeout=30, socket_connect_timeout=10, **kw)
    try:
        r.ping()
        if r.info("cluster").get("cluster_enabled"):
            # a Redis Cluster: the same URL names any node of it
            from redis.cluster import RedisCluster
            kw.pop("db", None)
            if "unix_socket_path" in kw:
                die("redis: a cluster is reached by host:port, not a unix socket")
            r = RedisCluster(socket_timeout=30, socket_connect_timeout=10, **kw)
    except redis.exceptions.AuthenticationError as e:
        die("redis: authentication failed: %s" % e)
    except redis.exceptions.ResponseError as e:
        die("redis: %s" % e)
    except redis.exceptions.ConnectionError as e:
        die("redis: cannot connect: %s" % e)
    return r


def key(host, kind, name=""):
    return "bpftune:{%s}:%s%s" % (host, kind, name)


def s(v):
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


def hash_of(r, k):
    return {s(a): s(b) for a, b in r.hgetall(k).items()}


def hosts(r):
    """Every host that has shipped, sorted."""
    found = set()
    for k in r.scan_iter(match="bpftune:{*}:host", count=1000):
        m = re.match(r"^bpftune:\{([^}]+)\}:host$", s(k))
        if m:
            found.add(m.group(1))
    return sorted(found)


def runs_of(r, host):
    """The run hashes of a host, oldest first (each with its run id)."""
    ids = [s(x) for x in r.zrange(key(host, "runs"), 0, -1)]
    pipe = r.pipeline(transaction=False)
    for rid in ids:
        pipe.hgetall(key(host, "run:", rid))
    out = []
    for rid, h in zip(ids, pipe.execute()):
        h = {s(a): s(b) for a, b in h.items()}
        if h:
            h.setdefault("run", rid)
            h.setdefault("host", host)
            out.append(h)
    return out


def tables_of(run):
    """Tables of a run hash with shipped rows, in the order they appear."""
    return [f[3:] for f in run if f.startswith("wm.")]


def job_of_label(label):
    """The job a run belongs to: its label up to the first '/'."""
    return (label or "").split("/", 1)[0] or None


def all_runs(r):
    for h in hosts(r):
        yield from runs_of(r, h)


def print_json(obj):
    json.dump(obj, sys.stdout, indent=1)
    print()
