// SPDX-License-Identifier: MIT
// Prints "XBITS YBITS" lines (hex IEEE patterns) of x and node's Math.cbrt(x)
// for pg_engine_tool cbrt: the exact branch of pixelmatch 8's cube root
// (x < 8/4096, near-black colours), its table points i/4096, random LMS-sized
// values in [0, 1], and the whole double range including subnormals.
// Usage: node cbrt_values.mjs COUNT
const f = new Float64Array(2), u = new BigUint64Array(f.buffer);
const count = +process.argv[2];
let seed = 20240601;
const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
let lines = [];
for (let i = 0; i < count; i++) {
  let x;
  switch (i % 4) {
    case 0: x = rnd() * 8 / 4096; break;
    case 1: x = (i >> 2) % 4098 / 4096; break;
    case 2: x = rnd() * 1.0001; break;
    default: x = (rnd() < 0.5 ? -1 : 1) * 2 ** (-1074 + rnd() * 2097); break;
  }
  f[0] = x;
  f[1] = Math.cbrt(x);
  lines.push(u[0].toString(16) + ' ' + u[1].toString(16));
  if (lines.length === 65536) { process.stdout.write(lines.join('\n') + '\n'); lines = []; }
}
process.stdout.write(lines.join('\n') + '\n');
