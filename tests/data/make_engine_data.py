#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Regenerates the engine's small decoder test files (committed; run by hand).

Needs numpy, OpenCV (python3-opencv) and ImageMagick `convert`. Every file is
derived from one deterministic 13x7 RGBA pattern so the unit tests can check
decoded pixels against the pattern itself.
"""
import os
import struct
import subprocess
import zlib

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def pattern():
    h, w = 7, 13
    y, x = np.mgrid[0:h, 0:w]
    rgba = np.zeros((h, w, 4), np.uint8)
    rgba[..., 0] = (x * 19 + y * 3) % 256
    rgba[..., 1] = (y * 37 + x * 5) % 256
    rgba[..., 2] = (x * y * 11) % 256
    rgba[..., 3] = np.where((x + y) % 3 == 0, 255, (x * 20 + y * 7) % 256)
    return rgba


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def bomb(path, w, h):
    """A valid-looking PNG header claiming w x h with one tiny IDAT."""
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)
    idat = zlib.compress(b"\0" * 1024, 9)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    open(path, "wb").write(data)


def main():
    rgba = pattern()
    p = lambda name: os.path.join(HERE, name)
    bgra = rgba[..., [2, 1, 0, 3]]
    cv2.imwrite(p("engine_rgba.png"), bgra)
    cv2.imwrite(p("engine_rgb.png"), bgra[..., :3])
    subprocess.check_call(["convert", p("engine_rgb.png"), "-interlace", "PNG", p("engine_rgb_interlaced.png")])
    gray = rgba[..., 0]
    cv2.imwrite(p("engine_gray.png"), gray)
    cv2.imwrite(p("engine_gray16.png"), gray.astype(np.uint16) * 257)
    subprocess.check_call(["convert", p("engine_rgb.png"), "-colors", "16", "PNG8:" + p("engine_palette.png")])
    # Photographic-ish 64x48 for the lossy codecs.
    y, x = np.mgrid[0:48, 0:64]
    photo = np.dstack([(x * 4) % 256, (y * 5) % 256, ((x + y) * 2) % 256]).astype(np.uint8)
    cv2.imwrite(p("engine_photo.png"), photo[..., ::-1])
    cv2.imwrite(p("engine_photo.jpg"), photo[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, 90])
    cv2.imwrite(p("engine_photo_progressive.jpg"), photo[..., ::-1],
                [cv2.IMWRITE_JPEG_QUALITY, 90, cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    cv2.imwrite(p("engine_photo_gray.jpg"), photo[..., 0])
    subprocess.check_call(["convert", p("engine_photo.jpg"), "-colorspace", "CMYK", p("engine_photo_cmyk.jpg")])
    cv2.imwrite(p("engine_rgba_lossless.webp"), bgra, [cv2.IMWRITE_WEBP_QUALITY, 101])
    cv2.imwrite(p("engine_photo.webp"), photo[..., ::-1], [cv2.IMWRITE_WEBP_QUALITY, 80])
    bomb(p("engine_bomb_100000x100000.png"), 100000, 100000)


if __name__ == "__main__":
    main()
