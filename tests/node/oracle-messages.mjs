// oracle-messages.mjs — real client libraries of Anthropic's Messages API
// as the oracle for its client models (src/client_messages*.c): every
// recorded POST /v1/messages exchange is replayed by `oacheck serve`
// (selected by X-Oacheck-Case) to four clients, and for each (exchange,
// client) one JSON line records what the application really sees, judged
// against a reassembly written from Anthropic's documentation
// (oracle/messages-reference.mjs).
//
// Usage: node oracle-messages.mjs --manifest FILE [--out FILE]
//                  [--concurrency N] [--only NAME] [--expect LABEL=FILE]...
//   manifest: "LABEL<TAB>PATH<TAB>BASE_URL" a line (as oracle.mjs's)
//   expect:   a JSON list of {name, client, fact, outcome, works?, reason?
//             (a regular expression)} checked against LABEL's lines.
// Exit 0, 1 (an expectation failed), 2 (usage, unreadable input, the
// harness broke).
//
// ## The JSONL line (the C models must predict outcome and works)
//
// {"dir", "name", "client", "stream", "outcome", "works", "reason", "detail"}
//  client   anthropic | anthropic-stream | ai-sdk-anthropic | langchain-anthropic
//  outcome  ok | raises | wrong | not-exercised (anthropic-stream on a
//           request not streamed); works true | false | null
//  detail   got (what the client gave), expected (the reference, wrong only)
//
// ## What each client is asked and what is read back (oracle/messages-clients.mjs)
//
//  anthropic            @anthropic-ai/sdk messages.create(the recorded body):
//                       the message's content; for stream:true the events
//                       the SDK yields, reassembled as the reference does
//                       (the application's own loop: only the SDK's
//                       decoding is measured)
//  anthropic-stream     messages.stream() + finalMessage() (streams only)
//  ai-sdk-anthropic     ai 7 + @ai-sdk/anthropic: generateText / streamText
//                       with the request's tools (execute stubs), its
//                       tool_choice and max_tokens: text, reasoningText,
//                       tool calls (input, invalid), finishReason
//  langchain-anthropic  @langchain/anthropic ChatAnthropic (+ bindTools):
//                       invoke / stream + concat: text and thinking blocks,
//                       tool_calls + invalid_tool_calls, stop_reason
// Every call sends x-api-key and anthropic-version as the SDKs do (serve
// ignores them), retries off, a 10 s timeout.  The judge is
// oracle/messages-judge.mjs.
import { readFileSync, writeFileSync, readdirSync, existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { parseResponseHttp, requestJson } from './oracle/recordings.mjs';
import { reference } from './oracle/messages-reference.mjs';
import { CLIENTS, DRIVERS, TIMEOUT_MS } from './oracle/messages-clients.mjs';
import { judge } from './oracle/messages-judge.mjs';

const say = (s) => process.stdout.write(`${s}\n`);
const clientConsole = new Map();
for (const m of ['log', 'info', 'warn', 'error', 'debug']) {
  console[m] = (...args) => {
    const text = args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? a.message : JSON.stringify(a))).join(' ');
    const key = `${m}: ${text.split('\n')[0].slice(0, 160)}`;
    clientConsole.set(key, (clientConsole.get(key) ?? 0) + 1);
  };
}
process.on('unhandledRejection', (e) => {
  const key = `unhandled rejection: ${String(e?.message ?? e).split('\n')[0].slice(0, 160)}`;
  clientConsole.set(key, (clientConsole.get(key) ?? 0) + 1);
});

function usage(msg) {
  process.stderr.write(`oracle-messages.mjs: ${msg}\n`);
  process.exit(2);
}

const opts = { manifest: null, out: null, concurrency: 8, only: null, expect: [] };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
    if (a === '--manifest') opts.manifest = val();
    else if (a === '--out') opts.out = val();
    else if (a === '--concurrency') opts.concurrency = Math.max(1, Number(val()) || 1);
    else if (a === '--only') opts.only = val();
    else if (a === '--expect') {
      const v = val();
      const eq = v.indexOf('=');
      if (eq < 0) usage('--expect wants LABEL=FILE');
      opts.expect.push([v.slice(0, eq), v.slice(eq + 1)]);
    } else usage(`unknown argument ${a}`);
  }
  if (!opts.manifest) usage('--manifest is required');
}

// A cassette (docs/cassette.md): gzip of a JSON metadata line, the request
// body, the response body.
function readCassette(file) {
  const raw = gunzipSync(readFileSync(file));
  const nl = raw.indexOf(10);
  const meta = JSON.parse(raw.subarray(0, nl).toString('utf8'));
  const reqLen = meta.request.body_bytes ?? 0;
  return {
    method: meta.request.method, path: meta.request.path,
    request: meta.request.body_bytes == null ? null : raw.subarray(nl + 1, nl + 1 + reqLen),
    status: meta.response.status, headers: meta.response.headers ?? [],
    body: raw.subarray(nl + 1 + reqLen, nl + 1 + reqLen + meta.response.body_bytes),
  };
}

const MESSAGES_PATH = /^(\/v1)?\/messages$/;

function loadExchanges(dir) {
  const all = [];
  for (const f of readdirSync(dir).sort()) {
    if (f.endsWith('.cassette.gz')) all.push({ name: f.slice(0, -'.cassette.gz'.length), ...readCassette(join(dir, f)) });
  }
  if (existsSync(join(dir, 'index.json'))) {
    const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));
    for (const [name, e] of Object.entries(index)) {
      const rf = join(dir, `${name}.request.json`);
      const request = (e.request_body ?? existsSync(rf)) ? readFileSync(rf) : null;
      const resp = parseResponseHttp(readFileSync(join(dir, `${name}.response.http`)), false);
      all.push({ name, method: e.method, path: e.path, request, ...resp });
    }
  }
  return all.filter((x) => x.method === 'POST' && MESSAGES_PATH.test(x.path.split('?')[0]))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function withDeadline(promise, ms) {
  let timer;
  const deadline = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'error', name: 'Timeout', message: `no result after ${ms} ms`, status: null }), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function clip(v, n = 300) {
  if (typeof v === 'string') return v.length > n ? `${v.slice(0, n)}…` : v;
  if (Array.isArray(v)) return v.slice(0, 20).map((x) => clip(x, n));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clip(x, n)]));
  return v;
}

async function runJob({ dir, ex, client }) {
  const body = requestJson(ex);
  const stream = body?.stream === true;
  const line = { dir: dir.label, name: ex.name, client, stream };
  if (client === 'anthropic-stream' && !stream) {
    return { ...line, outcome: 'not-exercised', works: null, reason: 'the stream helper is for streamed requests', detail: {} };
  }
  const ref = reference(ex, stream);
  const got = await withDeadline(DRIVERS[client]({ url: dir.url, name: ex.name, body }), 2 * TIMEOUT_MS);
  if (got.kind === 'error' && /no recording named .*\(X-Oacheck-Case\)/.test(got.message)) {
    throw new Error(`${dir.label}/${ex.name}: ${client}'s request reached no recording: ${got.message}`);
  }
  const v = judge(client, ref, got);
  const detail = { got: clip(got) };
  if (v.outcome === 'wrong') detail.expected = clip(ref);
  return { ...line, ...v, detail };
}

async function pool(jobs, n, fn) {
  const results = new Array(jobs.length);
  let next = 0;
  async function worker() {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await fn(jobs[i]);
    }
  }
  await Promise.all(Array.from({ length: Math.min(n, jobs.length) }, worker));
  return results;
}

function checkExpectations(lines, label, file) {
  const want = JSON.parse(readFileSync(file, 'utf8'));
  let failed = 0;
  for (const w of want) {
    const got = lines.find((l) => l.dir === label && l.name === w.name && l.client === w.client);
    const what = `${w.client} on ${label}/${w.name}${w.fact ? ` (${w.fact})` : ''}`;
    const bad = [];
    if (!got) bad.push('no result');
    else {
      if (got.outcome !== w.outcome) bad.push(`outcome ${got.outcome} (expected ${w.outcome})`);
      if ('works' in w && got.works !== w.works) bad.push(`works ${got.works} (expected ${w.works})`);
      if (w.reason && !new RegExp(w.reason).test(got.reason)) bad.push(`reason does not match /${w.reason}/`);
    }
    if (bad.length) {
      failed++;
      say(`FAIL - ${what}: ${bad.join('; ')}${got ? `\n       reason: ${got.reason}` : ''}`);
    } else say(`ok - ${what}: ${got.outcome}, ${got.reason}`);
  }
  return failed;
}

async function main() {
  const dirs = readFileSync(opts.manifest, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => {
    const [label, path, url] = l.split('\t');
    if (!label || !path || !url) usage(`manifest line '${l}' is not LABEL<TAB>PATH<TAB>URL`);
    return { label, path, url };
  });
  const jobs = [];
  for (const dir of dirs) {
    let exchanges;
    try {
      exchanges = loadExchanges(dir.path);
    } catch (e) {
      usage(`${dir.path}: ${e.message}`);
    }
    for (const ex of exchanges) {
      if (opts.only && ex.name !== opts.only) continue;
      for (const client of CLIENTS) jobs.push({ dir, ex, client });
    }
  }
  const lines = await pool(jobs, opts.concurrency, runJob);
  const text = lines.map((l) => JSON.stringify(l)).join('\n') + (lines.length ? '\n' : '');
  if (opts.out) writeFileSync(opts.out, text);
  else process.stdout.write(text);
  const exchanges = new Set(lines.map((l) => `${l.dir}\u0000${l.name}`)).size;
  const outcomes = ['ok', 'raises', 'wrong', 'not-exercised'];
  say(`oracle-messages: ${exchanges} exchanges in ${dirs.length} directories, ${lines.length} client runs`);
  say(`${'client'.padEnd(20)}${outcomes.map((o) => o.padStart(15)).join('')}${'works=false'.padStart(13)}`);
  for (const c of CLIENTS) {
    const mine = lines.filter((l) => l.client === c);
    say(`${c.padEnd(20)}${outcomes.map((o) => String(mine.filter((l) => l.outcome === o).length).padStart(15)).join('')}${String(mine.filter((l) => l.works === false).length).padStart(13)}`);
  }
  for (const [k, n] of clientConsole) say(`client console (${n}x) ${k}`);
  let failed = 0;
  for (const [label, file] of opts.expect) failed += checkExpectations(lines, label, file);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  process.stderr.write(`oracle-messages.mjs: harness error: ${e?.stack ?? e}\n`);
  process.exit(2);
});
