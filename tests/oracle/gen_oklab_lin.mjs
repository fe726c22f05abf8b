// SPDX-License-Identifier: MIT
// Prints the sRGB -> linear table of broker/engine/pg_oklab.c (the lines
// between its "lin table" markers) as node evaluates the sRGB transfer
// function, IEEE bit patterns in hex. C's pow() differs from V8's in the last
// bit for some entries, so the engine carries node's values; oracle_diff.py
// reruns this and fails when the committed table differs.
// Usage: node gen_oklab_lin.mjs
const f = new Float64Array(1), u = new BigUint64Array(f.buffer);
const hex = [];
for (let i = 0; i <= 256; i++) {
  const c = Math.min(i, 255) / 255; // entry 256 repeats 255: the interpolation's right end
  f[0] = c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  hex.push('0x' + u[0].toString(16).padStart(16, '0'));
}
for (let i = 0; i < hex.length; i += 4) console.log('    ' + hex.slice(i, i + 4).join(', ') + ',');
