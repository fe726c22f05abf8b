# SPDX-License-Identifier: MIT
"""A fake broker for pixelgate-session's allowlist test (session_helper.sh):
listens on the path given, takes one helper's registration, allows only
caps and list_windows, then asks for type_text (not allowed), exec (no such
primitive) and caps (allowed), printing "OP OUTCOME" for each, and DONE.
Run as the broker's account: the helper serves no other peer."""
import json
import os
import socket
import struct
import sys


def read_exact(c, n):
    buf = b""
    while len(buf) < n:
        chunk = c.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("helper closed the connection")
        buf += chunk
    return buf


def read_frame(c):
    pre = read_exact(c, 12)
    assert pre[:4] == b"PGF1", pre
    hlen, natt = struct.unpack(">II", pre[4:12])
    hdr = json.loads(read_exact(c, hlen))
    for _ in range(natt):
        (n,) = struct.unpack(">I", read_exact(c, 4))
        read_exact(c, n)
    return hdr


def write_frame(c, hdr):
    h = json.dumps(hdr).encode()
    c.sendall(b"PGF1" + struct.pack(">II", len(h), 0) + h)


def main():
    path = sys.argv[1]
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
    os.chmod(path, 0o666)
    s.listen(1)
    c, _ = s.accept()
    reg = read_frame(c)
    assert reg["op"] == "register", reg
    write_frame(c, {"v": 1, "id": reg["id"], "ok": True, "result": {"allow": ["caps", "list_windows"], "uid": 0}})
    asks = [("type_text", {"id": 1, "text": "not allowed"}), ("exec", {"cmd": "sh"}), ("caps", {})]
    for i, (op, args) in enumerate(asks, start=10):
        write_frame(c, {"v": 1, "id": i, "op": op, "args": args})
        r = read_frame(c)
        print(op, "OK" if r.get("ok") else r["error"]["code"], flush=True)
    c.close()
    print("DONE", flush=True)


main()
