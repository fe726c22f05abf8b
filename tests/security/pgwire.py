# SPDX-License-Identifier: MIT
"""A minimal client of pixelgate's wire protocol (docs/protocol.md), for
tests that send many requests over one connection: PGF1 frames, a JSON
header, length-prefixed attachments. Also writes the small PNG and PPM files
those tests make, with no library beyond the standard one."""
import json
import os
import socket
import struct
import zlib


def read_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("the peer closed the connection")
        buf += chunk
    return buf


def write_frame(sock, header, attachments=()):
    """One PGF1 frame: the JSON header and its attachments."""
    h = json.dumps(header).encode()
    frame = b"PGF1" + struct.pack(">II", len(h), len(attachments)) + h
    for a in attachments:
        frame += struct.pack(">I", len(a)) + a
    sock.sendall(frame)


def read_frame(sock):
    """One PGF1 frame: (header, attachments)."""
    pre = read_exact(sock, 12)
    if pre[:4] != b"PGF1":
        raise ValueError("bad magic")
    hlen, natt = struct.unpack(">II", pre[4:12])
    header = json.loads(read_exact(sock, hlen))
    atts = []
    for _ in range(natt):
        (n,) = struct.unpack(">I", read_exact(sock, 4))
        atts.append(read_exact(sock, n))
    return header, atts


class Broker:
    def __init__(self, path=None, timeout=None):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(timeout)
        self.sock.connect(path or os.environ["PIXELGATE_SOCKET"])
        self.next_id = 0

    def close(self):
        self.sock.close()

    def call(self, op, args=None, attachments=()):
        """Returns (ok, result_or_error, attachments)."""
        self.next_id += 1
        hdr = {"v": 1, "id": self.next_id, "op": op}
        if args is not None:
            hdr["args"] = args
        write_frame(self.sock, hdr, attachments)
        resp, atts = read_frame(self.sock)
        if resp.get("ok"):
            return True, resp["result"], atts
        err = resp["error"]
        if "details" in err:
            err = dict(err, **{"_details": err["details"]})
        return False, err, atts


def png(width, height, pixel):
    """PNG bytes of an RGBA image; pixel(x, y) -> (r, g, b, a)."""
    raw = b"".join(b"\0" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def write_ppm(path, width, height, rgb):
    """rgb: a list of (r, g, b) rows-major, values clamped to 0..255."""
    with open(path, "wb") as f:
        f.write(b"P6 %d %d 255\n" % (width, height))
        f.write(bytes(max(0, min(255, int(round(c)))) for px in rgb for c in px))
