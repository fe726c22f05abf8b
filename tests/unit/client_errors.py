#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Errors that name their real fix (issue 34).

Usage: client_errors.py PIXELGATE PIXELGATED socket|broker

The real client, and for "broker" a real broker (pixelgated on a private
socket, state directory and policy, no X display). Each way of not getting
an answer has its own message and tip, and the exit code docs/agents.md
gives it:

  a. the socket exists but connect() is refused with EACCES: exit 5, the
     message names the socket's owner, group and mode (from stat), the tip
     the group and the policy's clients list, never "start the broker";
  b. no socket at all, and a socket nobody listens on (ECONNREFUSED): exit
     5, "not running", the tip says systemctl start pixelgate.socket
     pixelgate;
  c. connected, not admitted by the policy: exit 3 POLICY_REFUSED, the tip
     names this account and clients.users / clients.groups;
  d. the broker runs but has no display: exit 5 with the broker's own
     message ("the broker has no display: ...") and tip (about the
     display), not a broker-gone tip.

"socket" (cases a and b; unit.client_errors, label unit) needs no root and
no X; as root, case a runs the client as nobody (setpriv), since root passes
every permission check. "broker" (cases c and d; unit.client_errors_broker,
label root) needs root: pixelgated refuses a policy in a directory that
anyone but root owns, and a test's temporary one is root's only as root.
"""
import atexit
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

PG, PGD, WHICH = sys.argv[1], sys.argv[2], sys.argv[3]
if WHICH not in ("socket", "broker"):
    sys.exit("usage: client_errors.py PIXELGATE PIXELGATED socket|broker")
if WHICH == "broker" and os.geteuid() != 0:
    sys.exit("FATAL: the broker cases need root (pixelgated wants a root-owned policy directory); "
             "ctest runs them under the label root")
T = tempfile.mkdtemp(prefix="pg-cerr-")
os.chmod(T, 0o755)
failures = 0
procs = []


def cleanup():
    for p in procs:
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
    shutil.rmtree(T, True)


atexit.register(cleanup)


def ok(cond, what):
    global failures
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures += 1


def client(sock, args, as_nobody=False):
    env = dict(os.environ, PIXELGATE_SOCKET=sock)
    env.pop("DISPLAY", None)
    cmd = [PG] + args
    if as_nobody:
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL)
    err = None
    try:
        err = json.loads(p.stderr)["error"]
    except (ValueError, KeyError, TypeError):
        pass
    return p.returncode, err, p.stderr


def broker(name, users):
    """Starts pixelgated admitting users, with an X display that cannot be
    reached; returns its socket once it answers ping (bounded wait)."""
    d = os.path.join(T, name)
    os.makedirs(os.path.join(d, "state"), mode=0o700)
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "installer", "linux", "policy.json")) as f:
        pol = json.load(f)
    pol["clients"]["users"] = users
    with open(os.path.join(d, "policy.json"), "w") as f:
        json.dump(pol, f)
    sock = os.path.join(d, "broker.sock")
    cmd = [PGD, "--foreground", "--socket", sock, "--state-dir", os.path.join(d, "state"),
           "--policy", os.path.join(d, "policy.json"), "--display", ":9917"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    log = open(os.path.join(d, "log"), "w")
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, stdin=subprocess.DEVNULL)
    procs.append(p)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and p.poll() is None:
        if os.path.exists(sock):
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect(sock)
                return sock
            except OSError:
                pass
            finally:
                s.close()
        time.sleep(0.05)  # polling for the socket, bounded by the deadline
    with open(os.path.join(d, "log")) as f:
        print(f.read())
    raise SystemExit(f"broker {name} did not start listening")


def me():
    import pwd
    return pwd.getpwuid(os.geteuid()).pw_name


NOT_RUNNING_TIP = "systemctl start pixelgate.socket pixelgate"


def socket_cases():
    # --- b. no socket; a socket nobody listens on
    rc, err, raw = client(os.path.join(T, "none.sock"), ["ping"])
    ok(rc == 5 and err and err["exit"] == 5 and err["code"] == "BROKER_UNREACHABLE", f"no socket: exit 5 ({raw.strip()})")
    ok(err and "no broker socket at" in err["message"] and "not running" in err["message"],
       "no socket: the message says the broker is not running there")
    ok(err and NOT_RUNNING_TIP in err["recovery_tip"], "no socket: the tip says how to start it")
    dead = os.path.join(T, "dead.sock")
    ds = socket.socket(socket.AF_UNIX)
    ds.bind(dead)  # bound, never listening: ECONNREFUSED
    rc, err, raw = client(dead, ["ping"])
    ok(rc == 5 and err and "connection refused" in err["message"] and "not running" in err["message"],
       f"a socket nobody listens on: exit 5, connection refused, not running ({raw.strip()})")
    ok(err and NOT_RUNNING_TIP in err["recovery_tip"], "connection refused: the tip says how to start it")
    ds.close()

    # --- a. a socket this account may not use
    locked = os.path.join(T, "locked.sock")
    ls = socket.socket(socket.AF_UNIX)
    ls.bind(locked)
    ls.listen(4)
    os.chmod(locked, 0o640 if os.geteuid() == 0 else 0o000)
    as_nobody = os.geteuid() == 0
    if as_nobody and not shutil.which("setpriv"):
        ok(False, "setpriv (util-linux) is needed to test permission denied as root")
    else:
        who = "nobody" if as_nobody else me()
        rc, err, raw = client(locked, ["ping"], as_nobody)
        ok(rc == 5 and err and err["exit"] == 5, f"permission denied: exit 5 ({raw.strip()})")
        m = err["message"] if err else ""
        tip = err["recovery_tip"] if err else ""
        grp = os.stat(locked).st_gid
        import grp as grpmod
        gname = grpmod.getgrgid(grp).gr_name
        ok("permission denied on the broker's socket" in m, "permission denied: said so")
        mode = "0640" if as_nobody else "0000"
        ok(f"owner {me() if not as_nobody else 'root'}, group {gname}, mode {mode}" in m,
           f"permission denied: the message names owner, group and mode from stat ({m})")
        ok(f"({who})" in m, "permission denied: the message names the account")
        ok(f"to group {gname}" in tip and "clients.users" in tip and "start" not in tip,
           f"permission denied: the tip names the group and the policy's clients list, not starting ({tip})")
    ls.close()

    # a. again, refused by the directory: the socket cannot even be looked at, so
    # the message names the directory's owner, group and mode
    closed = os.path.join(T, "closed")
    os.mkdir(closed)
    inner = os.path.join(closed, "broker.sock")
    cs = socket.socket(socket.AF_UNIX)
    cs.bind(inner)
    cs.listen(4)
    os.chmod(inner, 0o666)
    os.chmod(closed, 0o700 if as_nobody else 0o000)
    if not (as_nobody and not shutil.which("setpriv")):
        rc, err, raw = client(inner, ["ping"], as_nobody)
        m = err["message"] if err else ""
        mode = "0700" if as_nobody else "0000"
        ok(rc == 5 and f"permission denied on the broker's socket {inner}" in m and
           f"{closed} is owner {'root' if as_nobody else me()}" in m and f"mode {mode}" in m,
           f"a directory on the way refuses: its owner and mode are named ({raw.strip()})")
    os.chmod(closed, 0o700)
    cs.close()


def broker_cases():
    # --- c. connected, not admitted by the policy
    sock = broker("outsider", ["pg-nobody-here"])
    rc, err, raw = client(sock, ["windows"])
    ok(rc == 3 and err and err["code"] == "POLICY_REFUSED", f"not admitted: exit 3 POLICY_REFUSED ({raw.strip()})")
    ok(err and f'user "{me()}" is not admitted by the policy' in err["message"], "not admitted: said so, naming the user")
    ok(err and f'add "{me()}" to clients.users' in err["recovery_tip"] and "clients.groups" in err["recovery_tip"],
       "not admitted: the tip names the account and the policy's clients list")

    # --- d. the broker runs, the display does not
    sock = broker("nodisplay", [me()])
    rc, err, raw = client(sock, ["windows"])
    ok(rc == 5 and err and err["code"] == "BROKER_UNREACHABLE", f"no display: exit 5 ({raw.strip()})")
    ok(err and err["message"].startswith("the broker has no display: ") and ":9917" in err["message"],
       "no display: the broker's own message, naming the display")
    tip = err["recovery_tip"] if err else ""
    ok(tip and "start the broker" not in tip and NOT_RUNNING_TIP not in tip and "PIXELGATE_SOCKET" not in tip,
       f"no display: the tip is the display's, not a broker-gone one ({tip})")
    rc, _, raw = client(sock, ["ping"])
    ok(rc == 0, f"no display: ping still answers (the broker is not gone) ({raw.strip()})")


socket_cases() if WHICH == "socket" else broker_cases()
print(f"# {failures} failure(s)")
sys.exit(1 if failures else 0)
