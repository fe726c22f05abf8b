#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pgload: a protocol-level load generator for pixelgated (many wire clients).

Speaks the wire protocol (tests/security/pgwire.py) over one connection per
client and sends a weighted mix of operations against one window:

  snapshot (then drop: the token is freed after use) 30 %, windows 15 %,
  ping 10 %, caps 5 %, click (near the top-left corner) 15 %, type (one
  character) 10 %, ocr (of a fresh snapshot, then drop) 5 %; input may go
  to another window (--input-window-id)

Modes
  --mode open    open loop: requests are scheduled at --rate per second in
                 total, spread round-robin over --clients connections, for
                 --seconds; a request's latency counts from its scheduled
                 time, so a broker that falls behind is measured, not hidden
  --mode closed  closed loop: --clients connections each send the next
                 request as soon as the last one answered, for --seconds
  --mode alone   one client, --count snapshots in a row (the unloaded time)

It prints one JSON object: per operation the count, the outcomes by error
code, and latency percentiles in ms; "malformed" counts answers that were
not a frame or connections that broke (a reset, a broken pipe), which the
broker must never cause. Exit status: 0, or 1 with --strict when any answer
was malformed or any snapshot was refused for quota.

  pgload.py --socket S --window-id ID [--mode open --rate 50 --clients 64 --seconds 60]
"""
import argparse
import json
import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "security"))
import pgwire  # noqa: E402

MIX = [("snapshot", 30), ("windows", 15), ("ping", 10), ("caps", 5), ("click", 15), ("type", 10), ("ocr", 5)]


def percentile(values, p):
    if not values:
        return None
    v = sorted(values)
    k = (len(v) - 1) * p / 100.0
    lo, hi = int(k), min(int(k) + 1, len(v) - 1)
    return round(v[lo] + (v[hi] - v[lo]) * (k - lo), 2)


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.lat = {}       # op -> [ms] of OK answers
        self.codes = {}     # op -> {code: n}
        self.malformed = 0
        self.messages = {}  # a sample message per (op, code)

    def add(self, op, code, ms, message=""):
        with self.lock:
            self.codes.setdefault(op, {}).setdefault(code, 0)
            self.codes[op][code] += 1
            if code == "OK":
                self.lat.setdefault(op, []).append(ms)
            elif (op, code) not in self.messages:
                self.messages[(op, code)] = message[:200]

    def report(self, extra):
        out = dict(extra)
        ops = {}
        for op in sorted(set(self.codes) | set(self.lat)):
            l = self.lat.get(op, [])
            ops[op] = {"count": sum(self.codes.get(op, {}).values()), "outcomes": self.codes.get(op, {}),
                       "p50_ms": percentile(l, 50), "p90_ms": percentile(l, 90), "p99_ms": percentile(l, 99),
                       "max_ms": round(max(l), 2) if l else None}
        out["ops"] = ops
        out["malformed"] = self.malformed
        out["refusals"] = {"%s %s" % k: v for k, v in self.messages.items()}
        return out


class Client:
    def __init__(self, sock, window_id, stats, rng, input_id=None):
        self.sock_path = sock
        self.window_id = window_id
        self.input_id = input_id or window_id
        self.stats = stats
        self.rng = rng
        self.b = None

    def connect(self):
        self.b = pgwire.Broker(self.sock_path)

    def call(self, op, args=None):
        """(code, result_or_error); reconnects once the connection closed (a refusal closes it)."""
        if self.b is None:
            self.connect()
        try:
            ok, res, _ = self.b.call(op, args)
        except (ConnectionError, OSError, ValueError, json.JSONDecodeError) as ex:
            with self.stats.lock:
                self.stats.malformed += 1
                self.stats.messages.setdefault((op, "MALFORMED"), str(ex)[:200])
            self.b = None
            return "MALFORMED", {"message": str(ex)}
        if ok:
            return "OK", res
        if res.get("code") in ("BUSY", "POLICY_REFUSED", "BAD_INPUT"):
            self.b.sock.close()  # the broker closes after these, or may: start afresh
            self.b = None
        return res.get("code", "?"), res

    def one(self, op):
        """Runs one operation of the mix; returns (code, ms, message)."""
        wid = self.window_id
        t0 = time.monotonic()
        if op == "snapshot":
            code, res = self.call("snapshot", {"id": wid})
            ms = (time.monotonic() - t0) * 1000
            if code == "OK":
                self.call("drop", {"tokens": [res["token"]]})
            return code, ms, res
        if op == "ocr":
            code, res = self.call("snapshot", {"id": wid, "settle": False})
            if code != "OK":
                return code, (time.monotonic() - t0) * 1000, res
            tok = res["token"]
            code, res = self.call("ocr", {"token": tok})
            ms = (time.monotonic() - t0) * 1000
            self.call("drop", {"tokens": [tok]})
            return code, ms, res
        if op == "windows":
            code, res = self.call("windows", {"match": "pixelgate demo"})
        elif op == "ping":
            code, res = self.call("ping")
        elif op == "caps":
            code, res = self.call("caps")
        elif op == "click":
            code, res = self.call("click", {"id": self.input_id, "at": {"x": 5 + self.rng.randrange(20), "y": 5}})
        elif op == "type":
            code, res = self.call("type", {"id": self.input_id, "text": "x"})
        else:
            code, res = self.call(op)
        return code, (time.monotonic() - t0) * 1000, res


def pick(rng, mix):
    total = sum(w for _, w in mix)
    r = rng.uniform(0, total)
    for op, w in mix:
        if r < w:
            return op
        r -= w
    return mix[-1][0]


def run_open(a, stats):
    n = a.clients
    interval = 1.0 / a.rate
    total = int(a.rate * a.seconds)
    start = time.monotonic() + 0.5
    clients = [Client(a.socket, a.window_id, stats, random.Random(a.seed + i), a.input_window_id) for i in range(n)]

    def worker(i):
        c = clients[i]
        for k in range(i, total, n):
            due = start + k * interval
            now = time.monotonic()
            if due > now:
                time.sleep(due - now)
            op = pick(c.rng, MIX)
            code, _, res = c.one(op)
            stats.add(op, code, (time.monotonic() - due) * 1000, res.get("message", "") if code != "OK" else "")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"mode": "open", "rate": a.rate, "clients": n, "seconds": a.seconds, "requests": total}


def run_closed(a, stats):
    end = time.monotonic() + a.seconds
    count = [0]
    lock = threading.Lock()

    def worker(i):
        c = Client(a.socket, a.window_id, stats, random.Random(a.seed + i), a.input_window_id)
        while time.monotonic() < end:
            op = pick(c.rng, MIX)
            code, ms, res = c.one(op)
            stats.add(op, code, ms, res.get("message", "") if code != "OK" else "")
            with lock:
                count[0] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(a.clients)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - t0
    return {"mode": "closed", "clients": a.clients, "seconds": round(took, 1), "requests": count[0],
            "throughput_per_s": round(count[0] / took, 1)}


def run_alone(a, stats):
    c = Client(a.socket, a.window_id, stats, random.Random(a.seed))
    for _ in range(a.count):
        code, ms, res = c.one("snapshot")
        stats.add("snapshot", code, ms, res.get("message", "") if code != "OK" else "")
    return {"mode": "alone", "count": a.count}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--socket", default=os.environ.get("PIXELGATE_SOCKET"))
    ap.add_argument("--window-id", type=int, required=True, help="the window snapshots and OCR read")
    ap.add_argument("--input-window-id", type=int, help="the window click and type go to (default: the same); "
                    "input makes a window repaint, and a snapshot waits for repaints to settle")
    ap.add_argument("--mode", choices=["open", "closed", "alone"], default="open")
    ap.add_argument("--rate", type=float, default=50)
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--no-input", action="store_true", help="leave click and type out of the mix")
    ap.add_argument("--strict", action="store_true", help="exit 1 on any malformed answer or quota refusal")
    a = ap.parse_args()
    if not a.socket:
        ap.error("no --socket and no PIXELGATE_SOCKET")
    global MIX
    if a.no_input:
        MIX = [(op, w) for op, w in MIX if op not in ("click", "type")]
    stats = Stats()
    extra = {"open": run_open, "closed": run_closed, "alone": run_alone}[a.mode](a, stats)
    out = stats.report(extra)
    print(json.dumps(out, sort_keys=True))
    quota = any("quota" in m for (op, code), m in stats.messages.items() if op in ("snapshot", "ocr"))
    if a.strict and (stats.malformed or quota):
        sys.exit(1)


if __name__ == "__main__":
    main()
