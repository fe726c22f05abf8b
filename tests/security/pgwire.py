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


class Broker:
    def __init__(self, path=None):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path or os.environ["PIXELGATE_SOCKET"])
        self.next_id = 0

    def _read(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("broker closed the connection")
            buf += chunk
        return buf

    def call(self, op, args=None, attachments=()):
        """Returns (ok, result_or_error, attachments)."""
        self.next_id += 1
        hdr = {"v": 1, "id": self.next_id, "op": op}
        if args is not None:
            hdr["args"] = args
        h = json.dumps(hdr).encode()
        frame = b"PGF1" + struct.pack(">II", len(h), len(attachments)) + h
        for a in attachments:
            frame += struct.pack(">I", len(a)) + a
        self.sock.sendall(frame)
        pre = self._read(12)
        if pre[:4] != b"PGF1":
            raise ValueError("bad magic")
        hlen, natt = struct.unpack(">II", pre[4:12])
        resp = json.loads(self._read(hlen))
        atts = []
        for _ in range(natt):
            (n,) = struct.unpack(">I", self._read(4))
            atts.append(self._read(n))
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
