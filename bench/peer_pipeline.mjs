// peer_pipeline.mjs — the Node peer for bench_pipeline, as the streaming
// issue defines it: eventsource-parser framing the stream in 16 KiB
// pieces, JSON.parse of every payload, an ajv 8 compiled chat.completion.chunk
// schema validating each chunk, and a minimal accumulator (content by
// choice, tool-call arguments by index, finish_reason).  No rules beyond
// the schema.  Prints one key=value line like bench_pipeline.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.OACHECK_NODE_MODULES || path.join(here, '..', 'tests', 'node', 'node_modules');
const { createParser } = await import(path.join(modules, 'eventsource-parser', 'dist', 'index.js'));
const Ajv2020 = (await import(path.join(modules, 'ajv', 'dist', '2020.js'))).default;

let runs = 3, piece = 16384, file = null, dir = null;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') runs = Number(argv[++i]);
  else if (argv[i] === '--piece') piece = Number(argv[++i]);
  else if (argv[i] === '--schemas') dir = argv[++i];
  else if (!file && !argv[i].startsWith('-')) file = argv[i];
  else { console.error('usage: peer_pipeline.mjs [--runs N] --schemas DIR STREAM.sse'); process.exit(2); }
}
if (!file || !dir) { console.error('usage: peer_pipeline.mjs [--runs N] --schemas DIR STREAM.sse'); process.exit(2); }

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
for (const name of readdirSync(dir).sort()) {
  if (!name.endsWith('.json')) continue;
  const schema = JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
  if (schema.$id) ajv.addSchema(schema);
}
const validate = ajv.getSchema('https://oacheck.dev/schemas/chat.completion.chunk.json');
const bytes = readFileSync(file);
const decoder = new TextDecoder();

let best = Infinity, events = 0, invalid = 0, contentLen = 0;
for (let r = 0; r < runs; r++) {
  events = 0; invalid = 0;
  const content = [];
  const calls = [];
  let finish = null;
  const t0 = process.hrtime.bigint();
  const parser = createParser({
    onEvent(ev) {
      events++;
      if (ev.data === '[DONE]') return;
      const chunk = JSON.parse(ev.data);
      if (!validate(chunk)) invalid++;
      for (const c of chunk.choices || []) {
        const d = c.delta || {};
        if (typeof d.content === 'string') content.push(d.content);
        for (const tc of d.tool_calls || []) {
          const slot = calls[tc.index] || (calls[tc.index] = { args: '' });
          if (tc.function && typeof tc.function.arguments === 'string') slot.args += tc.function.arguments;
        }
        if (c.finish_reason) finish = c.finish_reason;
      }
    },
  });
  for (let at = 0; at < bytes.length; at += piece)
    parser.feed(decoder.decode(bytes.subarray(at, Math.min(at + piece, bytes.length)), { stream: true }));
  contentLen = Buffer.byteLength(content.join(''));
  const dt = Number(process.hrtime.bigint() - t0) / 1e9;
  if (dt < best) best = dt;
  if (!finish) invalid++;
}
const rss = process.resourceUsage().maxRSS;
console.log(`impl=node-peer mode=pipeline bytes=${bytes.length} events=${events} content_bytes=${contentLen} ` +
  `invalid=${invalid} runs=${runs} piece=${piece} best_s=${best.toFixed(4)} ` +
  `mb_s=${(bytes.length / best / 1e6).toFixed(1)} events_s=${(events / best).toFixed(0)} rss_kb=${rss} node=${process.version}`);
