# SPDX-License-Identifier: MIT
"""Closed-loop pings on the broker's socket from a few threads, one
connection per request, until the file named by argv[2] exists; prints
"CALLS n FAILS k MAXMS m" and the first failures. For
tests/systemd/socket_activation.sh: a broker restarted under this load must
answer every request (the socket's backlog holds them for the next one)."""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "security"))
from pgwire import Broker  # noqa: E402

sock_path, stop_file = sys.argv[1], sys.argv[2]
lock = threading.Lock()
calls = fails = 0
max_ms = 0.0
errors = []


def ping():
    b = Broker(sock_path, timeout=30)
    try:
        ok, reply, _ = b.call("ping")
        if not ok:
            raise RuntimeError(reply)
    finally:
        b.close()


def worker():
    global calls, fails, max_ms
    while not os.path.exists(stop_file):
        t0 = time.monotonic()
        try:
            ping()
            ok, why = True, None
        except Exception as e:  # every kind of failure counts
            ok, why = False, repr(e)
        ms = (time.monotonic() - t0) * 1000
        with lock:
            calls += 1
            max_ms = max(max_ms, ms)
            if not ok:
                fails += 1
                if len(errors) < 5:
                    errors.append(why)


threads = [threading.Thread(target=worker) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("CALLS", calls, "FAILS", fails, "MAXMS", int(max_ms), flush=True)
for e in errors:
    print("ERROR", e, flush=True)
