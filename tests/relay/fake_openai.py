#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A fake OpenAI-compatible chat-completions server for the relay tests.

Python standard library only. Binds 127.0.0.1 on an ephemeral port (and, with
--unix PATH, a Unix socket too) and prints the port on stdout once ready.

The first path segment selects the behaviour; the rest is ignored
(e.g. POST /ok/v1/chat/completions). It runs until its stdin closes, or with
--until-killed until it is killed (for shell tests).
  ok          validate the request, decode the PNG from the data URL (signature,
              chunk CRCs, IHDR, zlib-inflated IDAT, all five filters) and answer
              "size: WxH" and "dominant colour: NAME" computed from the pixels
  parts       as ok, but content is an array of parts (text, image, text)
  judge       as ok, but answer like a judge: VERDICT line from the colour
              named in the expectation (between the prompt's markers)
  auth        as ok, but 401 unless "Authorization: Bearer sekrit"
  redirect    307 to /trap/... on this server (must not be followed)
  trap        the redirect target: counts hits, answers "TRAPPED"
  huge        a 4 MiB body with Content-Length
  hugestream  an endless body without Content-Length (close-delimited)
  slow        waits 30 s before answering
  error500    HTTP 500 with an OpenAI-style error object
  badjson     HTTP 200 with a body that is not JSON
  notext      HTTP 200 with content null and a refusal
GET /stats answers {"hits": {mode: n}, "last": {...}} (last validated request).
"""
import base64
import json
import os
import socket
import socketserver
import struct
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PALETTE = {
    "red": (255, 0, 0), "green": (0, 255, 0), "blue": (0, 0, 255),
    "white": (255, 255, 255), "black": (0, 0, 0), "yellow": (255, 255, 0),
    "cyan": (0, 255, 255), "magenta": (255, 0, 255), "grey": (128, 128, 128),
}

LOCK = threading.Lock()
HITS = {}
LAST = {}


class BadRequest(Exception):
    pass


def decode_png(data):
    """Returns (width, height, rows of (r, g, b) tuples). Raises BadRequest."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise BadRequest("not a PNG: bad signature")
    pos, chunks = 8, []
    while pos < len(data):
        if pos + 12 > len(data):
            raise BadRequest("truncated chunk")
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        ctype = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if len(body) != length or zlib.crc32(ctype + body) != crc:
            raise BadRequest("bad chunk CRC or length for %r" % ctype)
        chunks.append((ctype, body))
        pos += 12 + length
        if ctype == b"IEND":
            break
    if not chunks or chunks[0][0] != b"IHDR" or len(chunks[0][1]) != 13:
        raise BadRequest("IHDR is not the first chunk")
    if chunks[-1][0] != b"IEND":
        raise BadRequest("no IEND")
    w, h, depth, ctype, comp, filt, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if w == 0 or h == 0 or depth != 8 or comp != 0 or filt != 0 or interlace != 0:
        raise BadRequest("unsupported IHDR (need 8-bit, non-interlaced)")
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(ctype)
    if channels is None:
        raise BadRequest("unsupported colour type %d" % ctype)
    raw = zlib.decompress(b"".join(b for t, b in chunks if t == b"IDAT"))
    stride = w * channels
    if len(raw) != h * (stride + 1):
        raise BadRequest("IDAT size %d does not match %dx%d" % (len(raw), w, h))
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 0:
                pred = 0
            elif f == 1:
                pred = a
            elif f == 2:
                pred = b
            elif f == 3:
                pred = (a + b) // 2
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            else:
                raise BadRequest("bad filter type %d" % f)
            line[i] = (line[i] + pred) & 0xFF
        px = []
        for x in range(w):
            s = line[x * channels:(x + 1) * channels]
            px.append((s[0], s[0], s[0]) if channels <= 2 else (s[0], s[1], s[2]))
        rows.append(px)
        prev = line
    return w, h, rows


def dominant(rows):
    counts = {}
    for row in rows:
        for r, g, b in row:
            best = min(PALETTE, key=lambda n: (PALETTE[n][0] - r) ** 2 + (PALETTE[n][1] - g) ** 2
                       + (PALETTE[n][2] - b) ** 2)
            counts[best] = counts.get(best, 0) + 1
    return max(counts, key=counts.get)


def validate(req):
    """Returns (prompt, width, height, colour). Raises BadRequest."""
    if not isinstance(req, dict) or not isinstance(req.get("model"), str) or not req["model"]:
        raise BadRequest("model missing")
    if not isinstance(req.get("max_tokens"), int) or req["max_tokens"] <= 0:
        raise BadRequest("max_tokens missing")
    msgs = req.get("messages")
    if not isinstance(msgs, list) or len(msgs) != 1 or msgs[0].get("role") != "user":
        raise BadRequest("need exactly one user message")
    content = msgs[0].get("content")
    if not isinstance(content, list) or len(content) != 2:
        raise BadRequest("content must be [text, image_url]")
    if content[0].get("type") != "text" or not isinstance(content[0].get("text"), str):
        raise BadRequest("first part must be text")
    if content[1].get("type") != "image_url":
        raise BadRequest("second part must be image_url")
    url = content[1].get("image_url", {}).get("url", "")
    prefix = "data:image/png;base64,"
    if not url.startswith(prefix):
        raise BadRequest("image is not a PNG data URL")
    try:
        png = base64.b64decode(url[len(prefix):], validate=True)
    except Exception as ex:  # noqa: BLE001 - report any decoding failure
        raise BadRequest("bad base64: %s" % ex)
    w, h, rows = decode_png(png)
    return content[0]["text"], w, h, dominant(rows)


def judge_answer(prompt, colour):
    start, end = "<<<EXPECTATION\n", "\nEXPECTATION>>>"
    if start not in prompt or end not in prompt:
        return "I was not asked to judge anything.\nVERDICT: UNCERTAIN - no expectation markers"
    expect = prompt[prompt.index(start) + len(start):prompt.index(end)].lower()
    named = [n for n in PALETTE if n in expect]
    if colour in named:
        return "The image is mostly %s.\nVERDICT: MATCH - the dominant colour is %s" % (colour, colour)
    if named:
        return "The image is mostly %s.\n**VERDICT: MISMATCH** - expected %s, saw %s" % (
            colour, "/".join(named), colour)
    return "VERDICT: UNCERTAIN - the expectation names no colour I can check"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, fmt, *args):  # keep test output clean
        pass

    def send_json(self, code, obj, extra=None):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def answer(self, text):
        return {"id": "fake-1", "object": "chat.completion", "model": "fake",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}]}

    def do_GET(self):
        if self.path == "/stats":
            with LOCK:
                self.send_json(200, {"hits": dict(HITS), "last": dict(LAST)})
        else:
            self.send_json(404, {"error": {"message": "no such path"}})

    def do_POST(self):
        mode = self.path.lstrip("/").split("/", 1)[0]
        with LOCK:
            HITS[mode] = HITS.get(mode, 0) + 1
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length) if length > 0 else b""
        try:
            if mode == "redirect":
                host = self.headers.get("Host", "127.0.0.1")
                self.send_json(307, {"choices": []},
                               {"Location": "http://%s/trap/v1/chat/completions" % host})
                return
            if mode == "trap":
                self.send_json(200, self.answer("TRAPPED: dominant colour: red"))
                return
            if mode == "huge":
                body = b'{"choices":[{"message":{"content":"' + b"x" * (4 << 20) + b'"}}]}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if mode == "hugestream":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                chunk = b"x" * 65536
                for _ in range(1024):  # up to 64 MiB, or until the client hangs up
                    self.wfile.write(chunk)
                return
            if mode == "slow":
                time.sleep(30)
                self.send_json(200, self.answer("too late"))
                return
            if mode == "error500":
                self.send_json(500, {"error": {"message": "model exploded", "type": "server_error"}})
                return
            if mode == "badjson":
                body = b"<html>this is not json</html>"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if mode == "notext":
                self.send_json(200, {"choices": [{"message": {"role": "assistant", "content": None,
                                                              "refusal": "I cannot look at that"}}]})
                return
            if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
                raise BadRequest("Content-Type is not application/json")
            try:
                req = json.loads(raw)
            except ValueError:
                raise BadRequest("request body is not JSON")
            prompt, w, h, colour = validate(req)
            with LOCK:
                LAST.clear()
                LAST.update({"mode": mode, "width": w, "height": h, "colour": colour,
                             "prompt": prompt, "model": req["model"],
                             "authorization": self.headers.get("Authorization", ""),
                             "user_agent": self.headers.get("User-Agent", "")})
            if mode == "auth" and self.headers.get("Authorization") != "Bearer sekrit":
                self.send_json(401, {"error": {"message": "bad api key"}})
                return
            text = "size: %dx%d\ndominant colour: %s" % (w, h, colour)
            if mode == "judge":
                self.send_json(200, self.answer(judge_answer(prompt, colour)))
            elif mode == "parts":
                msg = self.answer(None)
                msg["choices"][0]["message"]["content"] = [
                    {"type": "text", "text": "size: %dx%d" % (w, h)},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                    {"type": "text", "text": "dominant colour: %s" % colour}]
                self.send_json(200, msg)
            elif mode in ("ok", "auth"):
                self.send_json(200, self.answer(text))
            else:
                self.send_json(404, {"error": {"message": "unknown mode %s" % mode}})
        except BadRequest as ex:
            self.send_json(400, {"error": {"message": str(ex)}})
        except (BrokenPipeError, ConnectionResetError):
            pass


class UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def get_request(self):
        req, _ = super().get_request()
        return req, ("unix", 0)


def main():
    unix_path = None
    args = sys.argv[1:]
    until_killed = "--until-killed" in args
    if until_killed:
        args.remove("--until-killed")
    if len(args) == 2 and args[0] == "--unix":
        unix_path = args[1]
    elif args:
        sys.exit("usage: fake_openai.py [--unix PATH] [--until-killed]")
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    if unix_path:
        try:
            os.unlink(unix_path)
        except FileNotFoundError:
            pass
        usrv = UnixHTTPServer(unix_path, Handler)
        threading.Thread(target=usrv.serve_forever, daemon=True).start()
    sys.stdout.write("%d\n" % srv.server_address[1])
    sys.stdout.flush()
    # Run until the test closes our stdin or kills us.
    if until_killed:
        threading.Event().wait()
    try:
        while sys.stdin.read(1):
            pass
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    socket.setdefaulttimeout(None)
    main()
