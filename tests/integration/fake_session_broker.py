# SPDX-License-Identifier: MIT
"""A fake broker for pixelgate-session's allowlist test (session_helper.sh):
listens on the path given, takes one helper's registration, allows only
caps and list_windows, then asks for type_text (not allowed), exec (no such
primitive) and caps (allowed), printing "OP OUTCOME" for each, and DONE.
Run as the broker's account: the helper serves no other peer."""
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "security"))
from pgwire import read_frame, write_frame  # noqa: E402


def main():
    path = sys.argv[1]
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
    os.chmod(path, 0o666)
    s.listen(1)
    c, _ = s.accept()
    reg, _ = read_frame(c)
    assert reg["op"] == "register", reg
    write_frame(c, {"v": 1, "id": reg["id"], "ok": True, "result": {"allow": ["caps", "list_windows"], "uid": 0}})
    asks = [("type_text", {"id": 1, "text": "not allowed"}), ("exec", {"cmd": "sh"}), ("caps", {})]
    for i, (op, args) in enumerate(asks, start=10):
        write_frame(c, {"v": 1, "id": i, "op": op, "args": args})
        r, _ = read_frame(c)
        print(op, "OK" if r.get("ok") else r["error"]["code"], flush=True)
    c.close()
    print("DONE", flush=True)


main()
