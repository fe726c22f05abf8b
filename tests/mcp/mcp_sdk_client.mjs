// SPDX-License-Identifier: MIT
// The official MCP TypeScript SDK's client (@modelcontextprotocol/sdk) against
// `pixelgate mcp` on a real broker and Tk app, run as the agent by
// tests/mcp/mcp_sdk.sh. Every message the server sends is recorded, so the
// checks can say what never came back (an answer to a cancelled call, image
// bytes under analyze-only).
//
//   node mcp_sdk_client.mjs NODE_MODULES PHASE PIXELGATE STATE_FILE WORKDIR
//   PHASE: analyze-only | allow
// Output: "ok ..." / "FAIL ..." lines, then "N passed, N failed"; exit 1 on any failure.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const [modules, phase, pixelgate, stateFile, work] = process.argv.slice(2);
const require = createRequire(path.join(modules, 'pixelgate-mcp-test.js'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { LATEST_PROTOCOL_VERSION } = require('@modelcontextprotocol/sdk/types.js');
const sdkVersion = JSON.parse(fs.readFileSync(path.join(modules, '@modelcontextprotocol/sdk/package.json'), 'utf8')).version;

let passed = 0, failed = 0;
function check(desc, cond, detail) {
    if (cond) { passed++; console.log(`ok   ${desc}`); }
    else { failed++; console.log(`FAIL ${desc}${detail !== undefined ? ': ' + JSON.stringify(detail).slice(0, 600) : ''}`); }
}

const received = []; // every message from the server, as parsed JSON
const sent = [];     // every message to it
const transport = new StdioClientTransport({
    command: pixelgate,
    args: ['mcp', '--profile', 'all'], // release, diff and assert_changed are outside the default profile
    env: { PATH: process.env.PATH, PIXELGATE_SOCKET: process.env.PIXELGATE_SOCKET, LANG: 'C.UTF-8' },
    stderr: 'inherit',
});
const client = new Client({ name: 'pixelgate-ci', version: '1' }, { capabilities: {} });
let negotiated; // the Client hands the transport the revision the server answered
transport.setProtocolVersion = (v) => { negotiated = v; };
await client.connect(transport);
// Tap the transport after connect: the SDK installed its own handlers.
const onmessage = transport.onmessage;
transport.onmessage = (m, extra) => { received.push(m); onmessage(m, extra); };
const send = transport.send.bind(transport);
transport.send = (m, opts) => { sent.push(m); return send(m, opts); };

// The first text content is the JSON the CLI prints; a second one, when the
// reply holds screen text, is its untrusted block (docs/mcp.md).
const texts = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text);
const text = (r) => texts(r)[0] || '';
const json = (r) => { try { return JSON.parse(text(r)); } catch { return null; } };
const call = (name, args, opts) => client.callTool({ name, arguments: args }, undefined, opts);
const state = () => JSON.parse(fs.readFileSync(stateFile, 'utf8'));
const W = 'pixelgate demo';

check(`initialize: server is pixelgate (SDK ${sdkVersion})`, client.getServerVersion()?.name === 'pixelgate');
check(`the server speaks the SDK's newest revision (${LATEST_PROTOCOL_VERSION})`, negotiated === LATEST_PROTOCOL_VERSION,
      negotiated);
check('the server advertises tools', !!client.getServerCapabilities()?.tools);

const tools = (await client.listTools()).tools;
const names = tools.map((t) => t.name);
for (const n of ['snapshot', 'ocr', 'click', 'type', 'assert_changed', 'assert_text', 'wait_for', 'release', 'diff'])
    check(`tools/list has ${n}`, names.includes(n), names);
check('approve is not a tool (the agent never approves)', !names.includes('approve'));
check('every tool has an object schema and a description',
      tools.every((t) => t.inputSchema?.type === 'object' && t.description?.length > 20));
const clickSchema = tools.find((t) => t.name === 'click')?.inputSchema;
check('click\'s schema carries ranges and enums from the declaration',
      clickSchema?.properties?.count?.maximum === 3 && clickSchema?.properties?.button?.enum?.includes('right'), clickSchema);

async function snapshot(args) {
    const r = await call('snapshot', args);
    const o = json(r);
    check(`snapshot ${JSON.stringify(args)} gives a token`, !r.isError && /^cap:[A-Za-z0-9_-]{22}$/.test(o?.token), r);
    return o;
}

if (phase === 'analyze-only') {
    const s1 = await snapshot({ window: W });

    let r = await call('ocr', { token: s1.token });
    check('ocr reads the status label', !r.isError && /Status: idle/.test(json(r)?.text), r);
    check('...and repeats its text in the untrusted block, between BEGIN and END lines with its nonce',
          /^<<<PIXELGATE-UNTRUSTED-BEGIN nonce=([0-9a-f]{32})>>>\n"\/text": "[^\n]*Status: idle[^\n]*\n(?:.*\n)*<<<PIXELGATE-UNTRUSTED-END nonce=\1>>>$/m
              .test(texts(r)[1] || '') && json(r)?.untrusted_nonce && (texts(r)[1] || '').includes(json(r).untrusted_nonce), r);

    r = await call('click', { window: W, text: 'Press me' });
    check('click on text found by OCR succeeds', !r.isError && json(r)?.clicked, r);

    let progress = 0;
    r = await call('wait_for', { window: W, text: 'Clicked 1', timeout: 20, interval: 0.2 },
                   { onprogress: () => { progress++; }, resetTimeoutOnProgress: true });
    check('wait_for sees the label the click produced', !r.isError && json(r)?.found === true, r);
    check('wait_for reported progress while it ran', progress >= 1, progress);
    check('the app counted exactly one click', state().clicks === 1, state());

    const s2 = await snapshot({ window: W });
    r = await call('assert_changed', { a: s1.token, b: s2.token, min_pct: 0.01 });
    check('assert_changed holds between before and after', !r.isError && json(r)?.passed === true, r);
    r = await call('assert_text', { image: s2.token, expect: 'Clicked 1' });
    check('assert_text finds the new label', !r.isError && json(r)?.passed === true, r);
    r = await call('assert_text', { image: s2.token, expect: 'Clicked 99' });
    const failedCheck = json(r)?.error;
    check('a failed assert is a tool error with code, exit, tip and the measurements',
          r.isError === true && failedCheck?.code === 'ASSERTION_FAILED' && failedCheck?.exit === 1 &&
          !!failedCheck?.recovery_tip && typeof failedCheck?.details?.text_read === 'string', r);

    r = await call('type', { window: W, text: 'héllo MCP' });
    check('type succeeds', !r.isError, r);
    r = await call('click', { window: W, at: { x: 1, y: 1 }, count: 9 });
    check('an argument out of range is a tool error (USAGE) from the declaration',
          r.isError === true && json(r)?.error?.code === 'USAGE' && /count/.test(json(r)?.error?.message), r);

    // Files are the agent's: read by the server as the agent, never named to the broker.
    r = await call('diff', { a: s2.token, b: path.join(work, 'agent-own.png') });
    check('diff against a file the agent owns runs (sizes differ: exit 1 with sizes_match false)',
          r.isError === true && json(r)?.error?.details?.sizes_match === false, r);
    r = await call('diff', { a: s2.token, b: path.join(work, 'root-only.png') });
    check('a file the agent cannot read is refused by the server itself (NOT_FOUND, permission denied)',
          r.isError === true && json(r)?.error?.code === 'NOT_FOUND' && /ermission denied/.test(json(r)?.error?.message), r);

    r = await call('release', { token: s2.token });
    const refusal = json(r)?.error;
    check('a refused release is a tool error with the approval request id',
          r.isError === true && refusal?.code === 'POLICY_REFUSED' && /^rel:/.test(refusal?.details?.request_id), r);
    check('...and carries no image content', !(r.content || []).some((c) => c.type === 'image'));

    // Cancellation: a wait that would last 60 s, cancelled at its first
    // progress tick after the start (>= 1 s in: the request is at the broker
    // by then, so the broker's side of the cancellation runs too).
    const ac = new AbortController();
    let started = 0;
    const before = sent.length;
    const t0 = Date.now();
    const cancelled = call('wait_for', { window: W, text: 'never shown', timeout: 60, interval: 0.2 },
                           { signal: ac.signal, onprogress: (p) => { if (p.progress > 0 && ++started === 1) ac.abort('cancelled by the test'); } })
        .then(() => 'answered', (e) => (String(e).includes('cancelled by the test') ? 'aborted' : String(e)));
    const outcome = await cancelled;
    check('a cancelled call rejects on the client', outcome === 'aborted', outcome);
    const req = sent.slice(before).find((m) => m.method === 'tools/call');
    check('the SDK sent notifications/cancelled for it',
          sent.some((m) => m.method === 'notifications/cancelled' && m.params?.requestId === req?.id));
    await client.ping();
    await new Promise((res) => setTimeout(res, 1500)); // an answer, if one came, would be here by now
    check('the server sends no answer to the cancelled call',
          !received.some((m) => m.id === req?.id && ('result' in m || 'error' in m)), req);
    check('the server still answers after a cancellation', (await client.ping()) !== undefined);
    check('the cancelled wait ended long before its 60 s', Date.now() - t0 < 30000, Date.now() - t0);
}

if (phase === 'allow') {
    const s = await snapshot({ screen: true });
    let r = await call('release', { token: s.token });
    const o = json(r);
    const img = (r.content || []).find((c) => c.type === 'image');
    check('under allow, release answers with image content', !r.isError && img?.mimeType === 'image/png', r);
    const png = Buffer.from(img?.data || '', 'base64');
    const w = png.length > 24 ? png.readUInt32BE(16) : 0, h = png.length > 24 ? png.readUInt32BE(20) : 0;
    check(`the image fits 1568 px on its long side (${s.width}x${s.height} -> ${w}x${h})`,
          Math.max(w, h) === Math.min(1568, Math.max(s.width, s.height)) && png.subarray(1, 4).toString() === 'PNG');
    check('the text says the released size and the scale', o?.released_width === w && o?.released_height === h &&
          Math.abs(o?.scale - w / s.width) < 1e-9 && o?.width === s.width, o);
    const out = path.join(work, 'released.png');
    r = await call('release', { token: s.token, png: out });
    check('release with png writes the file as the agent and sends no image content',
          !r.isError && json(r)?.written === out && fs.statSync(out).uid === process.getuid() &&
          !(r.content || []).some((c) => c.type === 'image'), r);
}

// What came back, whole: under analyze-only no image bytes at all.
const all = JSON.stringify(received);
if (phase === 'analyze-only') {
    check('no response carries image content', !received.some((m) => (m.result?.content || []).some((c) => c.type === 'image')));
    check('no response carries PNG bytes in base64 or any long base64 run',
          !all.includes('iVBORw0KGgo') && !/[A-Za-z0-9+/=]{200}/.test(all));
}
check('every message from the server is JSON-RPC 2.0', received.length > 0 && received.every((m) => m.jsonrpc === '2.0'));

await client.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
