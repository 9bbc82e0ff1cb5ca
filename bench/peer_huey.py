"""bench/peer_huey.py — the peer of bench/queue.sh: huey's SqliteHuey queue (pip install huey).

Imported as `peer_huey` by both sides of huey's experiment (task names are module-qualified, so
the clients and the consumer must import the same module name):
  consumer  huey_consumer peer_huey.huey -w 4 -k thread|process   (PYTHONPATH=bench)
  client    python -c 'import sys, peer_huey; peer_huey.enqueue(*sys.argv[1:])' CLIENT FIRST COUNT
  setup     python -c 'import peer_huey; peer_huey.init()'   creates the tables, prints the
            journal mode and synchronous setting a huey connection really has
The task is trivial: it appends its id ("client-index") to HUEY_RAN in one O_APPEND write (whole
lines, so concurrent workers never interleave) and returns the id (huey stores it as the result),
so the bench counts every task that ran, and how often.

env: HUEY_DB (the SQLite file), HUEY_RAN (the file of ids run), HUEY_SYNC:
  normal  huey's SqliteStorage with `PRAGMA synchronous = NORMAL` added after huey's own
          connection setup (a subclass; the rest is huey's code): the setting synprobe's
          queue store runs with (store/st_open.c), so both sides fsync alike
  full    SqliteHuey as it comes (fsync=None: SQLite's compiled-in default, FULL on Debian:
          the WAL fsynced at every commit)
  off     SqliteHuey(fsync=False): synchronous = OFF, never fsynced
"""
import os
import sys

from huey import SqliteHuey
from huey.storage import SqliteStorage

DB = os.environ.get("HUEY_DB", "huey.db")
RAN = os.environ.get("HUEY_RAN", "huey.ran")
SYNC = os.environ.get("HUEY_SYNC", "normal")


class _NormalSyncStorage(SqliteStorage):
    def _create_connection(self):
        conn = super()._create_connection()
        conn.execute("pragma synchronous = 1")
        return conn


class _NormalSyncHuey(SqliteHuey):
    storage_class = _NormalSyncStorage


if SYNC == "normal":
    huey = _NormalSyncHuey("bench", filename=DB)
elif SYNC == "full":
    huey = SqliteHuey("bench", filename=DB)
elif SYNC == "off":
    huey = SqliteHuey("bench", filename=DB, fsync=False)
else:
    sys.exit("peer_huey.py: HUEY_SYNC must be normal, full or off, not %r" % SYNC)


@huey.task()
def trivial(ident):
    fd = os.open(RAN, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (ident + "\n").encode())
    finally:
        os.close(fd)
    return ident


def enqueue(client, first, count):
    """Enqueue COUNT tasks from this process: ids client-first .. client-(first+count-1)."""
    for i in range(int(first), int(first) + int(count)):
        trivial("%s-%d" % (client, i))


def init():
    conn = huey.storage.conn   # huey's own connection (creates the tables)
    mode = conn.execute("pragma journal_mode").fetchone()[0]
    sync = conn.execute("pragma synchronous").fetchone()[0]
    print("%s synchronous=%s" % (mode, {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}.get(sync, sync)))


def results():
    """Tasks whose result huey stored (one per task that returned)."""
    return huey.storage.result_store_size()
