// Runs the npm package pixelmatch (the oracle) over a list of cases and prints
// one JSON line per case. Usage: node pixelmatch_runner.mjs NODE_MODULES CASES.json
// Each case: {a, b, threshold, includeAA, checkerboard, region:[x,y,w,h]|null,
//             masks:[[x,y,w,h]...], out: diff PNG path or null, reps: timing runs}
// Masks are pixelgate's, not pixelmatch's: the runner counts the red (changed)
// pixels of pixelmatch's own diff output outside the masks.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [modules, casesPath] = process.argv.slice(2);
const require = createRequire(path.join(modules, 'noop.js'));
const { PNG } = require('pngjs');
const pixelmatch = (await import(path.join(modules, 'pixelmatch', 'index.js'))).default;

function crop(img, r) {
  if (!r) return { data: img.data, width: img.width, height: img.height };
  const [x, y, w, h] = r;
  const data = Buffer.alloc(w * h * 4);
  for (let j = 0; j < h; j++) img.data.copy(data, j * w * 4, ((y + j) * img.width + x) * 4, ((y + j) * img.width + x + w) * 4);
  return { data, width: w, height: h };
}

function maskedCount(out, w, h, region, masks) {
  const [ox, oy] = region ? region : [0, 0];
  let changed = 0, total = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const gx = x + ox, gy = y + oy;
      if (masks.some(([mx, my, mw, mh]) => gx >= mx && gx < mx + mw && gy >= my && gy < my + mh)) continue;
      total++;
      const i = (y * w + x) * 4;
      if (out[i] === 255 && out[i + 1] === 0 && out[i + 2] === 0) changed++;
    }
  }
  return { changed, total };
}

const cases = JSON.parse(fs.readFileSync(casesPath, 'utf8'));
for (const c of cases) {
  const A = PNG.sync.read(fs.readFileSync(c.a)), B = PNG.sync.read(fs.readFileSync(c.b));
  if (A.width !== B.width || A.height !== B.height) {
    console.log(JSON.stringify({ name: c.name, sizes_match: false }));
    continue;
  }
  const a = crop(A, c.region), b = crop(B, c.region);
  const opts = { threshold: c.threshold, includeAA: c.includeAA, checkerboard: c.checkerboard };
  const out = Buffer.alloc(a.width * a.height * 4);
  const count = pixelmatch(a.data, b.data, out, a.width, a.height, opts);
  const res = { name: c.name, sizes_match: true, pixelmatch: count };
  const m = maskedCount(out, a.width, a.height, c.region, c.masks || []);
  res.changed = m.changed;
  res.total = m.total;
  if (c.out) {
    const png = new PNG({ width: a.width, height: a.height });
    out.copy(png.data);
    fs.writeFileSync(c.out, PNG.sync.write(png));
  }
  if (c.reps) { // call only: decode and crop are outside the timed region
    const t = [];
    for (let i = 0; i < c.reps; i++) {
      const t0 = process.hrtime.bigint();
      pixelmatch(a.data, b.data, null, a.width, a.height, opts);
      t.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    t.sort((x, y) => x - y);
    res.median_ms = t.length % 2 ? t[(t.length - 1) / 2] : (t[t.length / 2 - 1] + t[t.length / 2]) / 2;
  }
  console.log(JSON.stringify(res));
}
