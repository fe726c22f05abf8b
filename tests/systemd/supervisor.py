# SPDX-License-Identifier: MIT
"""A stand-in for systemd's socket activation and Type=notify, for
tests/systemd/socket_activation.sh (there is no systemd as PID 1 here).

It holds the broker's listening socket and a notify socket, starts
pixelgated as the broker's account with LISTEN_FDS=1/LISTEN_PID and
NOTIFY_SOCKET (as systemd does for pixelgate.socket + pixelgate.service),
and reports, one line each:
  READY <ms>            READY=1 arrived <ms> after the start
  READY-PING <ok|fail>  a ping on the socket at the moment READY=1 arrived
  EXIT <code> <ms>      the broker exited (code) <ms> after SIGTERM (or by itself)
Commands on stdin: "start", "stop", "quit". Run with Debian's python3.
"""
import os
import pwd
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "security"))
from pgwire import Broker  # noqa: E402

sock_path, notify_path, broker_user, *broker_argv = sys.argv[1:]

lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
if os.path.exists(sock_path):
    os.unlink(sock_path)
lsock.bind(sock_path)
os.chmod(sock_path, 0o666)
lsock.listen(512)

nsock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
if os.path.exists(notify_path):
    os.unlink(notify_path)
nsock.bind(notify_path)
os.chmod(notify_path, 0o666)

pw = pwd.getpwnam(broker_user)
child = None


def say(*words):
    print(*words, flush=True)


def ping_now():
    """A ping over the held socket, as an agent would send it (root is not
    admitted, so any answer of the broker's counts: it read and replied)."""
    try:
        b = Broker(sock_path, timeout=5)
    except OSError:
        return False
    try:
        b.call("ping")
        return True
    except (OSError, ValueError):
        return False
    finally:
        b.close()


def start():
    global child
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.dup2(lsock.fileno(), 3)
        os.set_inheritable(3, True)
        os.setgroups([])
        os.setgid(pw.pw_gid)
        os.setuid(pw.pw_uid)
        env = {k: v for k, v in os.environ.items() if k not in ("LISTEN_FDS", "LISTEN_PID", "NOTIFY_SOCKET")}
        env.update(LISTEN_FDS="1", LISTEN_PID=str(os.getpid()), NOTIFY_SOCKET=notify_path)
        try:
            os.execve(broker_argv[0], broker_argv, env)
        finally:
            os._exit(127)
    child = pid
    nsock.settimeout(0.2)
    while time.monotonic() - t0 < 30:
        try:
            msg = nsock.recv(4096).decode()
        except socket.timeout:
            msg = ""
        if "READY=1" in msg.split("\n"):
            say("READY", int((time.monotonic() - t0) * 1000))
            say("READY-PING", "ok" if ping_now() else "fail")
            return
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            say("EXIT", os.waitstatus_to_exitcode(status), 0)
            child = None
            return
    say("NO-READY")


def stop():
    global child
    if not child:
        return
    t0 = time.monotonic()
    os.kill(child, signal.SIGTERM)
    _, status = os.waitpid(child, 0)
    say("EXIT", os.waitstatus_to_exitcode(status), int((time.monotonic() - t0) * 1000))
    child = None


say("HOLDING", sock_path)
for line in sys.stdin:
    cmd = line.strip()
    if cmd == "start":
        start()
    elif cmd == "stop":
        stop()
    elif cmd == "quit":
        break
stop()
