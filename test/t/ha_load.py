#!/usr/bin/python3
"""Increments counters through a connection string that follows a region's
primary, the way an application does, for test/t/024_patroni.pl.

    ha_load.py DSN KEYS OUT RATE

DSN is a libpq connection string (multi-host, target_session_attrs), KEYS a
comma-separated list of keys of page_views, RATE the increments a second to
aim at.  Each increment is its own transaction (autocommit):

    UPDATE page_views SET views = views + 1 WHERE page = KEY
      RETURNING inet_server_port()

and writes one line to OUT, flushed at once:

    A <unix time> <port> <key>    acknowledged by the server on that port
    U <unix time> - <key>         in doubt: the connection failed while the
                                  statement ran (it may have committed)
    E <unix time> - <message>     no connection (nothing was sent)

The keys are taken in turn.  While the file OUT.pause exists no increment is
begun; OUT.paused exists while it waits.  SIGTERM ends it after the increment
in flight.
"""
import os
import signal
import sys
import time

import psycopg2

stop = False


def on_term(_sig, _frame):
    global stop
    stop = True


def main():
    dsn, keys, out, rate = sys.argv[1], sys.argv[2].split(","), sys.argv[3], float(sys.argv[4])
    signal.signal(signal.SIGTERM, on_term)
    pause, paused = out + ".pause", out + ".paused"
    log = open(out, "a", buffering=1)
    conn = None
    i = 0
    interval = 1.0 / rate
    next_at = time.monotonic()
    while not stop:
        if os.path.exists(pause):
            if not os.path.exists(paused):
                open(paused, "w").close()
            time.sleep(0.02)
            next_at = time.monotonic()
            continue
        if os.path.exists(paused):
            os.unlink(paused)
        if conn is None:
            try:
                conn = psycopg2.connect(dsn)
                conn.autocommit = True
            except psycopg2.Error as e:
                log.write("E %.6f - %s\n" % (time.time(), str(e).splitlines()[0] if str(e) else "?"))
                conn = None
                time.sleep(0.1)
                continue
        key = keys[i % len(keys)]
        try:
            with conn.cursor() as cur:
                cur.execute("UPDATE page_views SET views = views + 1 WHERE page = %s"
                            " RETURNING inet_server_port()", (key,))
                row = cur.fetchone()
            if row is None:
                raise SystemExit("ha_load: no row for key %s" % key)
            log.write("A %.6f %d %s\n" % (time.time(), row[0], key))
            i += 1
        except psycopg2.Error:
            # The statement may or may not have committed.
            log.write("U %.6f - %s\n" % (time.time(), key))
            i += 1
            try:
                conn.close()
            except psycopg2.Error:
                pass
            conn = None
            time.sleep(0.05)
            continue
        next_at += interval
        delay = next_at - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        else:
            next_at = time.monotonic()
    log.close()


if __name__ == "__main__":
    main()
