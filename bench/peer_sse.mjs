// peer_sse.mjs — the Node peer for bench_sse: eventsource-parser (the
// parser the openai and Vercel AI SDKs build on) over the same file, fed
// in the same pieces, with the bytes decoded as a client must
// (TextDecoder in stream mode).  Modes:
//   frame   framing alone, events counted;
//   decode  framing plus JSON.parse of every data payload and a lookup of
//           choices[0].delta.content, like bench_sse --mode decode;
//   validate  decode plus ajv validation of every chunk — a hook, see
//           makeValidator() below: it reports "skipped" until the lead
//           wires the compiled chat.completion.chunk schema in.
// Prints one key=value line like bench_sse.  Dependencies come from
// tests/node (npm ci there); nothing else is installed.
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.OACHECK_NODE_MODULES || path.join(here, '..', 'tests', 'node', 'node_modules');
const { createParser } = await import(path.join(modules, 'eventsource-parser', 'dist', 'index.js'));

function usage() {
  console.error('usage: peer_sse.mjs [--mode frame|decode|validate] [--runs N] [--piece BYTES] FILE');
  process.exit(2);
}

let mode = 'frame', runs = 3, piece = 16384, file = null;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--mode') mode = argv[++i];
  else if (argv[i] === '--runs') runs = Number(argv[++i]);
  else if (argv[i] === '--piece') piece = Number(argv[++i]);
  else if (!file && !argv[i].startsWith('-')) file = argv[i];
  else usage();
}
if (!file || !['frame', 'decode', 'validate'].includes(mode) || !(runs >= 1) || !(piece >= 1)) usage();

// Hook for the lead: return a function (chunk) => boolean built with ajv
// from schemas/chat.completion.chunk.json (and the schemas it $refs), or
// null while that is not wired in.  Keep compilation outside the timed
// loop, as oacheck compiles its schemas once.
async function makeValidator() {
  return null;
}

const validate = mode === 'validate' ? await makeValidator() : null;
if (mode === 'validate' && !validate) {
  console.log(`impl=eventsource-parser mode=${mode} skipped=1`);
  process.exit(0);
}

const buf = readFileSync(file);
let expect = 0;
for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n', i + 2)) expect++;

let events = 0, contentChars = 0, bad = 0;
function onEvent(ev) {
  events++;
  if (mode === 'frame' || ev.data === '[DONE]') return;
  let chunk;
  try {
    chunk = JSON.parse(ev.data);
  } catch {
    bad++;
    return;
  }
  const c = chunk.choices?.[0]?.delta?.content;
  if (typeof c === 'string') contentChars += c.length;
  if (validate && !validate(chunk)) bad++;
}

let best = Infinity;
for (let r = 0; r < runs; r++) {
  events = 0; contentChars = 0; bad = 0;
  const t0 = process.hrtime.bigint();
  const parser = createParser({ onEvent });
  const dec = new TextDecoder('utf-8');
  for (let at = 0; at < buf.length; at += piece)
    parser.feed(dec.decode(buf.subarray(at, at + piece), { stream: true }));
  parser.feed(dec.decode());
  parser.reset({ consume: false });
  const dt = Number(process.hrtime.bigint() - t0) / 1e9;
  if (dt < best) best = dt;
}
if (events !== expect || bad) {
  console.error(`peer_sse: wrong result: ${events} events (want ${expect}), ${bad} bad`);
  process.exit(1);
}
const rss = process.resourceUsage().maxRSS;
console.log(`impl=eventsource-parser mode=${mode} bytes=${buf.length} events=${events} ` +
  `content_chars=${contentChars} runs=${runs} piece=${piece} best_s=${best.toFixed(4)} ` +
  `mb_s=${(buf.length / best / 1e6).toFixed(1)} events_s=${(events / best).toFixed(0)} rss_kb=${rss} ` +
  `node=${process.version}`);
