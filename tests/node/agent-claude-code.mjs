// agent-claude-code.mjs — Claude Code as an oracle: runs `claude -p` for
// one case of tests/data/crafted/agents/claude-code/expect.json against a
// running `oacheck proxy` (in front of `oacheck serve` on that folder) and
// checks what it did against the case's measured facts.  Driven by
// tests/e2e/agent-claude-code.sh, which starts a fresh server and proxy per
// case (an X-Oacheck-Case sequence counts for as long as its server runs).
//
// Usage:
//   node agent-claude-code.mjs list EXPECT
//       the case names, one a line
//   node agent-claude-code.mjs version EXPECT
//       the version the facts were measured with
//   node agent-claude-code.mjs run EXPECT NAME --claude BIN --url PROXY_URL --home DIR
//       runs Claude Code once (HOME and working directory DIR, a scratch
//       folder; nothing but PROXY_URL to talk to) and keeps its exit
//       status and output in DIR; then, once the caller stopped the proxy
//       and the server, ...
//   node agent-claude-code.mjs judge EXPECT NAME --home DIR --serve-log FILE --rec DIR
//       ... compares: exit status, what it printed (stdout), the recordings
//       that answered in order (the server's log), whether each request
//       asked for a stream (the proxy's cassettes), and for a tool case the
//       tool_result of the last request.  Prints one JSON line of what was
//       measured (with the size of the first request) and PASS/FAIL lines
//       on stderr; exit 0 when every fact held, 1 when one did not, 2 when
//       the harness itself failed.
//
// Claude Code's environment is built from nothing (never the caller's):
// PATH, HOME, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY=sk-test,
// ANTHROPIC_CUSTOM_HEADERS='X-Oacheck-Case: CASE',
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, DISABLE_AUTOUPDATER=1,
// DISABLE_TELEMETRY=1, DISABLE_ERROR_REPORTING=1, and the case's own `env`.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

function die(msg) {
  process.stderr.write(`agent-claude-code: ${msg}\n`);
  process.exit(2);
}

function opts(argv) {
  const o = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) die(`bad argument ${argv[i]}`);
    o[argv[i].slice(2)] = argv[i + 1];
  }
  return o;
}

const [cmd, expectFile, name, ...rest] = process.argv.slice(2);
if (!cmd || !expectFile) die('usage: list|version|run|judge EXPECT [NAME --option value...]');
const expect = JSON.parse(readFileSync(expectFile, 'utf8'));

if (cmd === 'list') {
  for (const c of expect.cases) process.stdout.write(`${c.name}\n`);
  process.exit(0);
}
if (cmd === 'version') {
  process.stdout.write(`${expect.version}\n`);
  process.exit(0);
}
const kase = expect.cases.find((c) => c.name === name);
if (!kase) die(`no case '${name}' in ${expectFile}`);
const o = opts(rest);

if (cmd === 'run') {
  for (const k of ['claude', 'url', 'home']) if (!o[k]) die(`run wants --${k}`);
  const env = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: o.home,
    ANTHROPIC_BASE_URL: o.url,
    ANTHROPIC_API_KEY: 'sk-test',
    ANTHROPIC_CUSTOM_HEADERS: `X-Oacheck-Case: ${kase.case}`,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    ...(kase.env ?? {}),
  };
  const args = ['-p', kase.prompt ?? 'Say hello.', '--model', 'crafted-model'];
  if (kase.allowed_tools) args.push('--allowedTools', kase.allowed_tools);
  // a guard against a hang, not a measurement: every case takes about a second
  const r = spawnSync(o.claude, args, { cwd: o.home, env, input: '', timeout: 120000, maxBuffer: 1 << 24 });
  if (r.error && r.error.code !== 'ETIMEDOUT') die(`cannot run ${o.claude}: ${r.error.message}`);
  writeFileSync(join(o.home, 'claude.stdout'), r.stdout ?? '');
  writeFileSync(join(o.home, 'claude.stderr'), r.stderr ?? '');
  writeFileSync(join(o.home, 'claude.status'), `${r.error ? 'timeout' : r.status}\n`);
  process.exit(0);
}

if (cmd !== 'judge') die(`unknown command ${cmd}`);
for (const k of ['home', 'serve-log', 'rec']) if (!o[k]) die(`judge wants --${k}`);

// The proxy's cassettes, in the order it wrote them: the request body of
// each (the proxy masks secrets in them, nothing else).
function cassettes(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.cassette.gz')).sort().map((f) => {
    const raw = gunzipSync(readFileSync(join(dir, f)));
    const nl = raw.indexOf(0x0a);
    const meta = JSON.parse(raw.subarray(0, nl).toString('utf8'));
    const n = meta.request.body_bytes ?? 0;
    const body = raw.subarray(nl + 1, nl + 1 + n).toString('utf8');
    let json = null;
    try { json = JSON.parse(body); } catch { /* judged below */ }
    return { file: f, bytes: n, json, status: meta.response?.status ?? null };
  });
}

// The recordings that answered Claude Code, in order, from serve's log
// lines "POST /v1/messages -> NAME (STATUS)…" and "-> 404 not recorded as
// NAME" (the proxy's own probes of the target, GET /props and the like,
// are left out).
function answered(log) {
  const out = [];
  for (const line of log.split('\n')) {
    if (!line.includes(' /v1/messages')) continue;
    let m = / -> 404 not recorded(?: as (\S+))?/.exec(line);
    if (m) { out.push(`not recorded: ${m[1] ?? ''}`); continue; }
    m = / -> (\S+) \((\d+)\)/.exec(line);
    if (m) out.push(m[1]);
  }
  return out;
}

function toolResults(body) {
  const found = [];
  for (const msg of body?.messages ?? []) {
    if (!Array.isArray(msg.content)) continue;
    for (const b of msg.content) {
      if (b?.type !== 'tool_result') continue;
      const text = typeof b.content === 'string' ? b.content
        : (b.content ?? []).map((x) => x?.text ?? '').join('');
      found.push({ tool_use_id: b.tool_use_id, content: text, is_error: b.is_error ?? false });
    }
  }
  return found;
}

const read = (f) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
const statusText = read(join(o.home, 'claude.status')).trim();
if (!statusText) die(`no exit status in ${o.home}: was 'run' done?`);
const stdout = read(join(o.home, 'claude.stdout'));
const stderr = read(join(o.home, 'claude.stderr'));
const caps = cassettes(o.rec);
const got = {
  name: kase.name,
  case: kase.case,
  exit: statusText === 'timeout' ? 'timeout' : Number(statusText),
  stdout,
  requests: answered(read(o['serve-log'])),
  streams: caps.map((c) => c.json?.stream ?? null),
  request_bytes: caps.map((c) => c.bytes),
};
const last = caps.length ? caps[caps.length - 1].json : null;
if (kase.tool_result) got.tool_results = toolResults(last);
if (caps.length && caps[0].json) {
  const first = caps[0].json;
  got.first_request = {
    bytes: caps[0].bytes,
    // about four bytes a token for English prose and JSON schemas: an
    // estimate, the server's tokenizer decides
    tokens_estimate: Math.round(caps[0].bytes / 4),
    tools: (first.tools ?? []).length,
    system_items_in_messages: (first.messages ?? []).filter((m) => m.role === 'system').length,
    max_tokens: first.max_tokens ?? null,
  };
}

const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
check(got.exit === kase.exit, `exit status ${got.exit}, expected ${kase.exit}`);
check(new RegExp(kase.stdout, 's').test(stdout), `printed ${JSON.stringify(stdout.slice(0, 400))}, expected /${kase.stdout}/`);
// the start of it that the model (src/claude_code.c) predicts
if (kase.prints)
  check(new RegExp(kase.prints, 's').test(stdout), `printed ${JSON.stringify(stdout.slice(0, 400))}, expected /${kase.prints}/`);
check(same(got.requests, kase.requests), `answered by ${JSON.stringify(got.requests)}, expected ${JSON.stringify(kase.requests)}`);
check(same(got.streams, kase.streams), `stream flags ${JSON.stringify(got.streams)} in the captured requests, expected ${JSON.stringify(kase.streams)}`);
if (kase.tool_result) {
  const want = kase.tool_result;
  const hit = (got.tool_results ?? []).find((t) => t.tool_use_id === want.tool_use_id);
  check(hit !== undefined, `the last request carries no tool_result for ${want.tool_use_id} (it has ${JSON.stringify(got.tool_results)})`);
  const wantError = want.is_error ?? false;
  check(hit === undefined || (hit.content.includes(want.content) && hit.is_error === wantError),
    `the tool_result for ${want.tool_use_id} is ${JSON.stringify(hit)}, expected ${wantError ? 'an error' : 'the output'} with '${want.content}'`);
}
if ('max_tokens' in kase)
  check(got.first_request?.max_tokens === kase.max_tokens,
    `the first request's max_tokens is ${got.first_request?.max_tokens}, expected ${kase.max_tokens}`);
// a file the tool was to create in the working directory (null: must not exist)
if ('creates' in kase) {
  const made = kase.creates ?? 'oacheck-marker';
  const there = existsSync(join(o.home, made));
  got.created = there;
  check(there === (kase.creates !== null), `${made} ${there ? 'was' : 'was not'} created in the working directory`);
}
process.stdout.write(`${JSON.stringify(got)}\n`);
for (const f of failures) process.stderr.write(`FAIL ${kase.name}: ${f}\n`);
if (failures.length) {
  process.stderr.write(`--- ${kase.name}: Claude Code's stderr\n${stderr.slice(0, 2000)}\n`);
  process.exit(1);
}
process.stderr.write(`PASS ${kase.name}: ${kase.fact}\n`);
process.exit(0);
