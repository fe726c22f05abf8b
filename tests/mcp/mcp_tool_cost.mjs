// SPDX-License-Identifier: MIT
// What `pixelgate mcp` costs a model to read, through the official MCP SDK
// client (@modelcontextprotocol/sdk) and js-tiktoken's o200k_base, both
// pinned by tests/mcp/setup.sh. tools/list needs no broker, so this runs
// anywhere node does. Checks: the default profile's tool list, serialized as
// the server sends it (input and any output schemas included), is at most
// BUDGET tokens; the annotations say what each tool changes; --profile,
// --tools and --exclude-tools offer exactly the tools they name, and a tool
// left out cannot be called.
//
//   node mcp_tool_cost.mjs NODE_MODULES PIXELGATE
// Output: "ok ..." / "FAIL ..." lines, the token counts, then "N passed, N
// failed"; exit 1 on any failure.
import { createRequire } from 'node:module';
import path from 'node:path';

const BUDGET = 8000; // issue 30: the default tool list fits a model's context
const [modules, pixelgate] = process.argv.slice(2);
const require = createRequire(path.join(modules, 'pixelgate-mcp-test.js'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { Tiktoken } = require('js-tiktoken/lite');
const o200k = require('js-tiktoken/ranks/o200k_base');
const enc = new Tiktoken(o200k.default || o200k);

let passed = 0, failed = 0;
function check(desc, cond, detail) {
    if (cond) { passed++; console.log(`ok   ${desc}`); }
    else { failed++; console.log(`FAIL ${desc}${detail !== undefined ? ': ' + JSON.stringify(detail).slice(0, 600) : ''}`); }
}

// A server with these flags, through the SDK; the broker is never reached.
async function connect(flags) {
    const transport = new StdioClientTransport({
        command: pixelgate,
        args: ['--socket', '/nonexistent/pixelgate.sock', 'mcp', ...flags],
        env: { PATH: process.env.PATH, LANG: 'C.UTF-8' },
        stderr: 'inherit',
    });
    const client = new Client({ name: 'pixelgate-cost', version: '1' }, { capabilities: {} });
    await client.connect(transport);
    return client;
}

async function listed(flags) {
    const client = await connect(flags);
    const tools = (await client.listTools()).tools;
    await client.close();
    return tools;
}

// What a host puts in the model's context: the tool list as the server sends it.
const tokens = (tools) => enc.encode(JSON.stringify({ tools })).length;
const names = (tools) => tools.map((t) => t.name).sort();
const same = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

const byDefault = await listed([]);
const counts = { default: tokens(byDefault) };
check(`the default tool list is at most ${BUDGET} tokens (o200k_base): ${counts.default}`, counts.default <= BUDGET);
check('the default profile is what no flag gives', same(names(byDefault), names(await listed(['--profile', 'default']))));
check('the default holds what a form check needs',
      ['windows', 'snapshot', 'ocr', 'click', 'type', 'wait_for', 'assert_text'].every((n) => names(byDefault).includes(n)),
      names(byDefault));

const all = await listed(['--profile', 'all']);
counts.all = tokens(all);
const hints = (n) => all.find((t) => t.name === n)?.annotations || {};
check('drop is destructive, idempotent and not read-only',
      hints('drop').readOnlyHint === false && hints('drop').destructiveHint === true && hints('drop').idempotentHint === true,
      hints('drop'));
for (const n of ['baseline_prepare', 'accept', 'release', 'click', 'type', 'analyze'])
    check(`${n} is not read-only`, hints(n).readOnlyHint === false, hints(n));
for (const n of ['snapshot', 'ocr', 'windows', 'info', 'hash', 'diff', 'assert_text', 'layout'])
    check(`${n} is read-only and not destructive`, hints(n).readOnlyHint === true && hints(n).destructiveHint === false,
          hints(n));
check('baseline_prepare only adds (not destructive)', hints('baseline_prepare').destructiveHint === false);
check('an analysis endpoint is an open world, a token\'s info is not',
      hints('analyze').openWorldHint === true && hints('info').openWorldHint === false);
check('every tool states all four hints', all.every((t) =>
      ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].every((h) => typeof t.annotations?.[h] === 'boolean')),
      all.filter((t) => typeof t.annotations?.destructiveHint !== 'boolean').map((t) => t.name));
check('approve is never a tool', !names(all).includes('approve'));

for (const p of ['observe', 'drive', 'assert', 'accept']) {
    const tools = await listed(['--profile', p]);
    counts[p] = tokens(tools);
    check(`profile ${p} is not empty and within all`, tools.length > 0 && names(tools).every((n) => names(all).includes(n)));
    if (p === 'observe') check('observe reads only', tools.every((t) => t.annotations.readOnlyHint), names(tools));
    if (p === 'observe') check('observe has windows, snapshot, ocr', ['windows', 'snapshot', 'ocr'].every((n) => names(tools).includes(n)));
    if (p === 'drive') check('drive has click, type, key, wait_for', ['click', 'type', 'key', 'wait_for'].every((n) => names(tools).includes(n)));
    if (p === 'assert') check('assert is the read-only checks', names(tools).includes('assert_text') &&
                              tools.every((t) => t.annotations.readOnlyHint), names(tools));
    if (p === 'accept') check('accept has accept and baseline_prepare', ['accept', 'baseline_prepare'].every((n) => names(tools).includes(n)));
}

const picked = await listed(['--tools', 'snapshot,ocr,drop']);
check('--tools offers exactly those tools', same(names(picked), ['snapshot', 'ocr', 'drop']), names(picked));
const less = await listed(['--profile', 'observe', '--exclude-tools', 'ocr,snapshot']);
const observe = await listed(['--profile', 'observe']);
check('--exclude-tools takes them out of the profile',
      same(names(less), names(observe).filter((n) => n !== 'ocr' && n !== 'snapshot')), names(less));

// A tool left out is not there: calling it is refused, not run.
const client = await connect(['--tools', 'ocr']);
let refused = false;
try { await client.callTool({ name: 'drop', arguments: { all: true } }); } catch { refused = true; }
check('a tool left out cannot be called', refused);
await client.close();

console.log(`tokens (o200k_base): ${JSON.stringify(counts)}; tools: default ${byDefault.length}, all ${all.length}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
