// SPDX-License-Identifier: MIT
// The acceptance check as a user scripts it with seed 000's stack: read the
// baseline and the capture with pngjs, pixelmatch 7.2 (threshold 0.1,
// antialiasing excluded), pass when changed / total <= maxDiffRatio 0.001.
//   node pixelmatch_accept.mjs NODE_MODULES BASELINE.png CAPTURE.png [CAPTURE2.png]
// (NODE_MODULES: tests/oracle/setup.sh prints it). With CAPTURE2, seed 000's
// stability rule first: the two captures' pixels must be identical, and
// CAPTURE2 is compared. Prints {"passed":bool,"changed":N,"ratio":F}; exit 0
// passed, 1 failed, 3 unstable.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [modules, ...files] = process.argv.slice(2);
const require = createRequire(path.join(modules, 'noop.js'));
const { PNG } = require('pngjs');
const pixelmatch = (await import(path.join(modules, 'pixelmatch7', 'index.js'))).default;
const imgs = files.map((p) => PNG.sync.read(fs.readFileSync(p)));
if (imgs.length === 3 && !imgs[1].data.equals(imgs[2].data)) {
    console.log(JSON.stringify({ passed: false, reason: 'unstable' }));
    process.exit(3);
}
const a = imgs[0], b = imgs[imgs.length - 1];
if (a.width !== b.width || a.height !== b.height) {
    console.log(JSON.stringify({ passed: false, reason: 'dimension mismatch' }));
    process.exit(1);
}
const changed = pixelmatch(a.data, b.data, null, a.width, a.height, { threshold: 0.1 });
const ratio = changed / (a.width * a.height);
console.log(JSON.stringify({ passed: ratio <= 0.001, changed, ratio }));
process.exit(ratio <= 0.001 ? 0 : 1);
