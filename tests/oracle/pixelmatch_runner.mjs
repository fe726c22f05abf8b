// SPDX-License-Identifier: MIT
// Runs the npm package pixelmatch (the oracle), either generation, over a
// list of cases and prints one JSON line per case.
// Usage: node pixelmatch_runner.mjs NODE_MODULES CASES.json
// Each case: {name, a, b, version: 7|8 (pixelmatch7 = 7.2.0, pixelmatch8 = 8.0.0),
//             threshold?, includeAA?, checkerboard?, windowSize?  (absent: pixelmatch's default),
//             region:[x,y,w,h]|null, masks:[[x,y,w,h]...], out: diff PNG path or null, reps: timing runs}
// Masks are pixelgate's, not pixelmatch's: the runner counts the red (changed)
// pixels of pixelmatch's own diff output outside the masks. Version 8 also
// gets them as its ignoreMask, and its raw count must then equal that count.
// Window: version 8 answers windowSize itself; for version 7 the runner finds
// the densest window of those red pixels (prefix sums, every position).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [modules, casesPath] = process.argv.slice(2);
const require = createRequire(path.join(modules, 'noop.js'));
const { PNG } = require('pngjs');
const pixelmatch = {
  7: (await import(path.join(modules, 'pixelmatch7', 'index.js'))).default,
  8: (await import(path.join(modules, 'pixelmatch8', 'index.js'))).default,
};

function crop(img, r) {
  if (!r) return { data: img.data, width: img.width, height: img.height };
  const [x, y, w, h] = r;
  const data = Buffer.alloc(w * h * 4);
  for (let j = 0; j < h; j++) img.data.copy(data, j * w * 4, ((y + j) * img.width + x) * 4, ((y + j) * img.width + x + w) * 4);
  return { data, width: w, height: h };
}

// 1 for every compared pixel inside a mask (compared-area coordinates).
function maskBytes(w, h, region, masks) {
  const [ox, oy] = region ? region : [0, 0];
  const m = new Uint8Array(w * h);
  for (const [mx, my, mw, mh] of masks)
    for (let y = Math.max(my - oy, 0); y < Math.min(my + mh - oy, h); y++)
      for (let x = Math.max(mx - ox, 0); x < Math.min(mx + mw - ox, w); x++) m[y * w + x] = 1;
  return m;
}

function redOutside(out, w, h, masked) {
  const red = new Uint8Array(w * h);
  let changed = 0, total = 0;
  for (let i = 0; i < w * h; i++) {
    if (masked[i]) continue;
    total++;
    if (out[4 * i] === 255 && out[4 * i + 1] === 0 && out[4 * i + 2] === 0) red[i] = 1, changed++;
  }
  return { red, changed, total };
}

function densestWindow(red, w, h, size) {
  const n = Math.min(Math.max(Math.floor(size), 1), w, h);
  const S = new Float64Array((w + 1) * (h + 1)); // S[y][x]: red pixels above-left of (x, y)
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      S[(y + 1) * (w + 1) + x + 1] = red[y * w + x] + S[y * (w + 1) + x + 1] + S[(y + 1) * (w + 1) + x] - S[y * (w + 1) + x];
  let best = 0;
  for (let y = n; y <= h; y++)
    for (let x = n; x <= w; x++) {
      const v = S[y * (w + 1) + x] - S[(y - n) * (w + 1) + x] - S[y * (w + 1) + x - n] + S[(y - n) * (w + 1) + x - n];
      if (v > best) best = v;
    }
  return best;
}

const cases = JSON.parse(fs.readFileSync(casesPath, 'utf8'));
for (const c of cases) {
  const A = PNG.sync.read(fs.readFileSync(c.a)), B = PNG.sync.read(fs.readFileSync(c.b));
  if (A.width !== B.width || A.height !== B.height) {
    console.log(JSON.stringify({ name: c.name, sizes_match: false }));
    continue;
  }
  const pm = pixelmatch[c.version];
  if (!pm) throw new Error(`${c.name}: unknown pixelmatch version ${c.version}`);
  const a = crop(A, c.region), b = crop(B, c.region);
  const masked = maskBytes(a.width, a.height, c.region, c.masks || []);
  const opts = {};
  for (const k of ['threshold', 'includeAA', 'checkerboard']) if (c[k] !== undefined && c[k] !== null) opts[k] = c[k];
  if (c.version === 8 && (c.masks || []).length) opts.ignoreMask = masked;
  const out = Buffer.alloc(a.width * a.height * 4);
  const count = pm(a.data, b.data, out, a.width, a.height, opts);
  const res = { name: c.name, sizes_match: true, pixelmatch: count };
  const m = redOutside(out, a.width, a.height, masked);
  res.changed = m.changed;
  res.total = m.total;
  if (c.windowSize) {
    res.window = c.version === 8 ? pm(a.data, b.data, null, a.width, a.height, { ...opts, windowSize: c.windowSize })
                                 : densestWindow(m.red, a.width, a.height, c.windowSize);
  }
  if (c.out) {
    const png = new PNG({ width: a.width, height: a.height });
    out.copy(png.data);
    fs.writeFileSync(c.out, PNG.sync.write(png));
  }
  if (c.reps) { // call only: decode and crop are outside the timed region
    const t = [];
    for (let i = 0; i < c.reps; i++) {
      const t0 = process.hrtime.bigint();
      pm(a.data, b.data, null, a.width, a.height, opts);
      t.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    t.sort((x, y) => x - y);
    res.median_ms = t.length % 2 ? t[(t.length - 1) / 2] : (t[t.length / 2 - 1] + t[t.length / 2]) / 2;
  }
  console.log(JSON.stringify(res));
}
