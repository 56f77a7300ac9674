// peer_schema.mjs — the Node peer for bench_schema: ajv 8 (draft 2020-12,
// compiled once, strict off, formats not validated — format is an
// annotation in 2020-12) over the same data payloads, JSON.parse
// included in the timed loop.  Modes: parse (JSON.parse alone) and fast
// (JSON.parse + validate).  Every top-level schemas/*.json is added so the
// chunk schema's $refs resolve as they do for oacheck.  Prints one
// key=value line like bench_schema.  Dependencies come from tests/node.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.OACHECK_NODE_MODULES || path.join(here, '..', 'tests', 'node', 'node_modules');
const Ajv2020 = (await import(path.join(modules, 'ajv', 'dist', '2020.js'))).default;

function usage() {
  console.error('usage: peer_schema.mjs [--mode parse|fast] [--runs N] --schemas DIR [--schema URI] STREAM.sse');
  process.exit(2);
}

let mode = 'fast', runs = 3, dir = null, file = null;
let uri = 'https://oacheck.dev/schemas/chat.completion.chunk.json';
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--mode') mode = argv[++i];
  else if (argv[i] === '--runs') runs = Number(argv[++i]);
  else if (argv[i] === '--schemas') dir = argv[++i];
  else if (argv[i] === '--schema') uri = argv[++i];
  else if (!file && !argv[i].startsWith('-')) file = argv[i];
  else usage();
}
if (!file || !dir || !['parse', 'fast'].includes(mode) || !(runs >= 1)) usage();

const tc0 = process.hrtime.bigint();
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
for (const name of readdirSync(dir).sort()) {
  if (!name.endsWith('.json')) continue;
  const schema = JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
  if (schema.$id) ajv.addSchema(schema);
}
const validate = ajv.getSchema(uri);
if (!validate) {
  console.error(`peer_schema: no schema ${uri}`);
  process.exit(1);
}
const compileMs = Number(process.hrtime.bigint() - tc0) / 1e6;

// cut the payloads out exactly as bench_schema does
const text = readFileSync(file, 'utf8');
const payloads = [];
let bytes = 0;
for (const line of text.split('\n')) {
  if (line.startsWith('data: ') && line !== 'data: [DONE]') {
    const p = line.slice(6);
    payloads.push(p);
    bytes += Buffer.byteLength(p);
  }
}

let best = Infinity, valid = 0, invalid = 0;
for (let r = 0; r < runs; r++) {
  valid = 0; invalid = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < payloads.length; i++) {
    const doc = JSON.parse(payloads[i]);
    if (mode === 'parse') continue;
    if (validate(doc)) valid++; else invalid++;
  }
  const dt = Number(process.hrtime.bigint() - t0) / 1e9;
  if (dt < best) best = dt;
}
const rss = process.resourceUsage().maxRSS;
console.log(`impl=ajv mode=${mode} docs=${payloads.length} bytes=${bytes} valid=${valid} invalid=${invalid} ` +
  `runs=${runs} best_s=${best.toFixed(4)} docs_s=${(payloads.length / best).toFixed(0)} ` +
  `mb_s=${(bytes / best / 1e6).toFixed(1)} compile_ms=${compileMs.toFixed(2)} rss_kb=${rss} ` +
  `ajv=${JSON.parse(readFileSync(path.join(modules, 'ajv', 'package.json'), 'utf8')).version} node=${process.version}`);
