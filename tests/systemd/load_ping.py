# SPDX-License-Identifier: MIT
"""Closed-loop pings on the broker's socket from a few threads, one
connection per request, until the file named by argv[2] exists; prints
"CALLS n FAILS k MAXMS m" and the first failures. For
tests/systemd/socket_activation.sh: a broker restarted under this load must
answer every request (the socket's backlog holds them for the next one)."""
import json
import os
import socket
import struct
import sys
import threading
import time

sock_path, stop_file = sys.argv[1], sys.argv[2]
lock = threading.Lock()
calls = fails = 0
max_ms = 0.0
errors = []


def read_exact(c, n):
    buf = b""
    while len(buf) < n:
        chunk = c.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("closed before the reply")
        buf += chunk
    return buf


def ping():
    c = socket.socket(socket.AF_UNIX)
    c.settimeout(30)
    try:
        c.connect(sock_path)
        h = json.dumps({"v": 1, "id": 1, "op": "ping"}).encode()
        c.sendall(b"PGF1" + struct.pack(">II", len(h), 0) + h)
        pre = read_exact(c, 12)
        hlen, _ = struct.unpack(">II", pre[4:12])
        reply = json.loads(read_exact(c, hlen))
        if not reply.get("ok"):
            raise RuntimeError(reply.get("error"))
    finally:
        c.close()


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
