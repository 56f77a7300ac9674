// oracle-responses.mjs — the Responses API's real client libraries as the
// oracle for their client models (src/client_responses*.c): every recorded
// POST /v1/responses exchange is replayed by `oacheck serve` (picked by
// X-Oacheck-Case) to four real clients (oracle/responses-clients.mjs), and
// for each (exchange, client) one JSON line records what the application
// sees, judged (oracle/responses-judge.mjs) against a reassembly written
// from the API reference (oracle/responses-reference.mjs).
//
// Usage: node oracle-responses.mjs --manifest FILE [--out FILE]
//          [--concurrency N] [--clients a,b] [--only NAME] [--expect LABEL=FILE]...
//   manifest: "LABEL<TAB>PATH<TAB>BASE_URL" a line (client-oracle-responses.sh)
//   expect:   [{name, client, fact, outcome, works?, reason? (a regular
//             expression), detail_match? ({"got.text": REGEX})}], checked
//             against LABEL's lines; a mismatch exits 1.
// Exit 0, 1 (an expectation failed), 2 (usage, unreadable input, harness).
//
// The line: {"dir", "name", "client", "stream", "outcome" (ok | raises |
// wrong | not-exercised), "works" (true | false | null), "reason",
// "detail": {got, expected (wrong only), tools_executed, events}}.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadResponsesExchanges, reference, requestJson } from './oracle/responses-reference.mjs';
import { CLIENTS, DRIVERS, TIMEOUT_MS } from './oracle/responses-clients.mjs';
import { judge } from './oracle/responses-judge.mjs';

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
  process.stderr.write(`oracle-responses.mjs: ${msg}\n`);
  process.exit(2);
}

const opts = { manifest: null, out: null, concurrency: 8, clients: CLIENTS, only: null, expect: [] };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
    if (a === '--manifest') opts.manifest = val();
    else if (a === '--out') opts.out = val();
    else if (a === '--concurrency') opts.concurrency = Math.max(1, Number(val()) || 1);
    else if (a === '--clients') opts.clients = val().split(',');
    else if (a === '--only') opts.only = val();
    else if (a === '--expect') {
      const v = val();
      const eq = v.indexOf('=');
      if (eq < 0) usage('--expect wants LABEL=FILE');
      opts.expect.push([v.slice(0, eq), v.slice(eq + 1)]);
    } else usage(`unknown argument ${a}`);
  }
  if (!opts.manifest) usage('--manifest is required');
  for (const c of opts.clients) if (!CLIENTS.includes(c)) usage(`unknown client ${c}`);
}

function withDeadline(promise, ms) {
  let timer;
  const deadline = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'error', name: 'Timeout', message: `no result after ${ms} ms`, status: null }), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function clip(v, n = 400) {
  if (typeof v === 'string') return v.length > n ? `${v.slice(0, n)}…` : v;
  if (Array.isArray(v)) return v.map((x) => clip(x, n));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clip(x, n)]));
  return v;
}

async function runJob({ dir, ex, client }) {
  const body = requestJson(ex);
  const stream = body?.stream === true;
  const line = { dir: dir.label, name: ex.name, client, stream };
  if (client === 'openai-node-responses-stream' && !stream) {
    return { ...line, outcome: 'not-exercised', works: null, reason: 'the stream helper is for streamed requests', detail: {} };
  }
  const ref = reference(ex, stream);
  const got = await withDeadline(DRIVERS[client]({ url: dir.url, name: ex.name, body }), 2 * TIMEOUT_MS);
  if (got.kind === 'error' && /no recording named .*\(X-Oacheck-Case\)/.test(got.message)) {
    throw new Error(`${dir.label}/${ex.name}: ${client}'s request reached no recording: ${got.message}`);
  }
  const verdict = judge(client, ref, got);
  const detail = { got: clip({ ...got, extra: undefined }) };
  if (got.extra) Object.assign(detail, clip(got.extra));
  if (verdict.outcome === 'wrong') detail.expected = clip(ref);
  return { ...line, ...verdict, detail };
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
      for (const [path, re] of Object.entries(w.detail_match ?? {})) {
        const v = path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), got.detail);
        if (!new RegExp(re).test(String(v))) bad.push(`detail.${path} ${JSON.stringify(v)} does not match /${re}/`);
      }
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
      exchanges = loadResponsesExchanges(dir.path);
    } catch (e) {
      usage(`${dir.path}: ${e.message}`);
    }
    for (const ex of exchanges) {
      if (opts.only && ex.name !== opts.only) continue;
      for (const client of opts.clients) jobs.push({ dir, ex, client });
    }
  }
  const lines = await pool(jobs, opts.concurrency, runJob);
  const text = lines.map((l) => JSON.stringify(l)).join('\n') + (lines.length ? '\n' : '');
  if (opts.out) writeFileSync(opts.out, text);
  else process.stdout.write(text);
  const outcomes = ['ok', 'raises', 'wrong', 'not-exercised'];
  say(`responses oracle: ${new Set(lines.map((l) => `${l.dir}\u0000${l.name}`)).size} exchanges, ${lines.length} client runs`);
  for (const c of opts.clients) {
    const mine = lines.filter((l) => l.client === c);
    say(`  ${c.padEnd(30)} ${outcomes.map((o) => `${o} ${mine.filter((l) => l.outcome === o).length}`).join(', ')}, works=false ${mine.filter((l) => l.works === false).length}`);
  }
  if (clientConsole.size) {
    say('what the clients printed (counted):');
    for (const [k, n] of clientConsole) say(`  ${n}x ${k}`);
  }
  let failed = 0;
  for (const [label, file] of opts.expect) failed += checkExpectations(lines, label, file);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  process.stderr.write(`oracle-responses.mjs: ${e.stack ?? e}\n`);
  process.exit(2);
});
