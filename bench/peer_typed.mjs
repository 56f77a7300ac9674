// peer_typed.mjs — the Node peer for `bench_pipeline --api responses|messages`
// (issue 27): the work oacheck's typed-event decoders do with a Responses or
// Messages stream, the way a Node program would do it. eventsource-parser
// frames the stream in 16 KiB pieces; every event's `event:` name is checked
// against its data's type; JSON.parse; ajv 8 validates each event against the
// project's event union schema (schemas/responses/stream-event.json with the
// response.json it refers to, or schemas/messages/stream-event.json), compiled
// once; then the reference accumulation:
//
//   responses  sequence numbers increasing, response.created first and one
//              terminal event last; output items rebuilt by output_index
//              (the index checked against the items added, item_id against
//              the item's id), content parts counted, output_text,
//              reasoning_text and function_call_arguments deltas joined,
//              and the joins checked against output_text.done,
//              function_call_arguments.done (whose arguments must parse as
//              JSON), content_part.done, output_item.done and the terminal
//              response's output, item by item
//   messages   message_start first, message_stop last; content blocks
//              rebuilt by index (started in order, deltas only to an open
//              block of the delta's kind, every block stopped), text,
//              thinking and input_json joined, a thinking block's
//              signature, each tool_use's input parsed as JSON at its stop,
//              message_delta's stop_reason (tool_use only with a tool_use
//              block) and usage
//
// It counts what disagrees (mismatches=) so that a broken stream cannot pass
// as a fast one. Prints one key=value line like bench_pipeline.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.OACHECK_NODE_MODULES || path.join(here, '..', 'tests', 'node', 'node_modules');
const { createParser } = await import(path.join(modules, 'eventsource-parser', 'dist', 'index.js'));
const Ajv2020 = (await import(path.join(modules, 'ajv', 'dist', '2020.js'))).default;

let runs = 3, piece = 16384, file = null, dir = null, api = null;
const argv = process.argv.slice(2);
const usage = 'usage: peer_typed.mjs --api responses|messages [--runs N] [--piece BYTES] --schemas DIR STREAM.sse';
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') runs = Number(argv[++i]);
  else if (argv[i] === '--piece') piece = Number(argv[++i]);
  else if (argv[i] === '--schemas') dir = argv[++i];
  else if (argv[i] === '--api') api = argv[++i];
  else if (!file && !argv[i].startsWith('-')) file = argv[i];
  else { console.error(usage); process.exit(2); }
}
if (!file || !dir || (api !== 'responses' && api !== 'messages')) { console.error(usage); process.exit(2); }

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
const tc0 = process.hrtime.bigint();
for (const sub of ['responses', 'messages']) {
  for (const name of readdirSync(path.join(dir, sub)).sort()) {
    if (!name.endsWith('.json')) continue;
    const schema = JSON.parse(readFileSync(path.join(dir, sub, name), 'utf8'));
    if (schema.$id) ajv.addSchema(schema);
  }
}
const validate = ajv.getSchema(`https://oacheck.dev/schemas/${api}/stream-event.json`);
const compileMs = Number(process.hrtime.bigint() - tc0) / 1e6;
const bytes = readFileSync(file);

// ---- Responses --------------------------------------------------------------

function responsesRun(feed) {
  const st = { events: 0, invalid: 0, bad: 0, items: [], byId: new Map(), seq: -1, created: false, terminal: null };
  const item = (ev) => {
    const it = st.byId.get(ev.item_id);
    if (!it) { st.bad++; return null; }
    if (ev.output_index !== it.index) st.bad++;
    return it;
  };
  const onData = (type, ev) => {
    if (typeof ev.sequence_number !== 'number' || ev.sequence_number <= st.seq) st.bad++;
    else st.seq = ev.sequence_number;
    if (st.events === 1 && type !== 'response.created') st.bad++;
    if (st.terminal) st.bad++; // nothing after the terminal event
    switch (type) {
      case 'response.created': st.created = true; break;
      case 'response.output_item.added': {
        const src = ev.item || {};
        if (ev.output_index !== st.items.length) st.bad++;
        const it = { index: st.items.length, id: src.id, type: src.type, name: src.name, callId: src.call_id,
          text: '', reasoning: '', parts: 0, partsOpen: 0, doneText: null, closed: false };
        st.items.push(it);
        st.byId.set(src.id, it);
        break;
      }
      case 'response.content_part.added': {
        const it = item(ev);
        if (it) { if (ev.content_index !== it.parts) st.bad++; it.parts++; it.partsOpen++; }
        break;
      }
      case 'response.output_text.delta':
      case 'response.function_call_arguments.delta': {
        const it = item(ev);
        if (it) { if (it.doneText !== null) st.bad++; it.text += ev.delta; }
        break;
      }
      case 'response.reasoning_text.delta': {
        const it = item(ev);
        if (it) it.reasoning += ev.delta;
        break;
      }
      case 'response.output_text.done': {
        const it = item(ev);
        if (it) { it.doneText = ev.text; if (ev.text !== it.text) st.bad++; }
        break;
      }
      case 'response.function_call_arguments.done': {
        const it = item(ev);
        if (it) {
          it.doneText = ev.arguments;
          if (ev.arguments !== it.text) st.bad++;
          try { JSON.parse(ev.arguments); } catch { st.bad++; }
        }
        break;
      }
      case 'response.reasoning_text.done': {
        const it = item(ev);
        if (it && ev.text !== it.reasoning) st.bad++;
        break;
      }
      case 'response.content_part.done': {
        const it = item(ev);
        if (it) {
          it.partsOpen--;
          if (ev.part && ev.part.type === 'output_text' && ev.part.text !== it.text) st.bad++;
        }
        break;
      }
      case 'response.output_item.done': {
        const it = st.items[ev.output_index];
        if (!it || !ev.item || ev.item.id !== it.id) { st.bad++; break; }
        if (it.partsOpen) st.bad++;
        if (!sameItem(it, ev.item)) st.bad++;
        it.closed = true;
        break;
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        st.terminal = type;
        const out = (ev.response && ev.response.output) || [];
        if (out.length !== st.items.length) st.bad++;
        for (let i = 0; i < out.length && i < st.items.length; i++)
          if (!st.items[i].closed || out[i].id !== st.items[i].id || !sameItem(st.items[i], out[i])) st.bad++;
        break;
      }
      default: break;
    }
  };
  feed((name, data) => {
    st.events++;
    const ev = JSON.parse(data);
    if (!validate(ev)) st.invalid++;
    if (name !== undefined && name !== ev.type) st.bad++;
    onData(ev.type, ev);
  });
  if (!st.created || !st.terminal) st.bad++;
  let content = 0, reasoning = 0;
  for (const it of st.items) { content += Buffer.byteLength(it.text); reasoning += Buffer.byteLength(it.reasoning); }
  return { events: st.events, invalid: st.invalid, bad: st.bad, content, reasoning };
}

// an output item as the stream rebuilt it, against one the server sent whole
function sameItem(it, src) {
  if (src.type !== it.type) return false;
  if (it.type === 'function_call')
    return src.arguments === it.text && src.name === it.name && src.call_id === it.callId;
  if (it.type === 'message') {
    let text = '';
    for (const c of src.content || []) if (c.type === 'output_text') text += c.text;
    return text === it.text;
  }
  if (it.type === 'reasoning') {
    let text = '';
    for (const c of src.content || []) if (c.type === 'reasoning_text') text += c.text;
    return text === it.reasoning;
  }
  return true;
}

// ---- Messages ---------------------------------------------------------------

const deltaKind = { text_delta: 'text', thinking_delta: 'thinking', signature_delta: 'thinking', input_json_delta: 'tool_use' };

function messagesRun(feed) {
  const st = { events: 0, invalid: 0, bad: 0, blocks: [], started: false, stopped: false, stopReason: null, usage: null };
  const onData = (type, ev) => {
    if (st.events === 1 && type !== 'message_start') st.bad++;
    if (st.stopped) st.bad++;
    switch (type) {
      case 'message_start':
        st.started = true;
        if (!ev.message || ev.message.role !== 'assistant') st.bad++;
        break;
      case 'content_block_start': {
        const cb = ev.content_block || {};
        if (ev.index !== st.blocks.length) st.bad++;
        st.blocks.push({ type: cb.type, id: cb.id, name: cb.name, text: '', signature: cb.signature || '', open: true, input: undefined });
        break;
      }
      case 'content_block_delta': {
        const b = st.blocks[ev.index];
        const d = ev.delta || {};
        if (!b || !b.open || deltaKind[d.type] !== b.type) { st.bad++; break; }
        if (d.type === 'text_delta') b.text += d.text;
        else if (d.type === 'thinking_delta') b.text += d.thinking;
        else if (d.type === 'signature_delta') b.signature += d.signature;
        else b.text += d.partial_json;
        break;
      }
      case 'content_block_stop': {
        const b = st.blocks[ev.index];
        if (!b || !b.open) { st.bad++; break; }
        b.open = false;
        if (b.type === 'tool_use') {
          try { b.input = JSON.parse(b.text === '' ? '{}' : b.text); } catch { st.bad++; }
        }
        if (b.type === 'thinking' && !b.signature) st.bad++;
        break;
      }
      case 'message_delta':
        st.stopReason = ev.delta && ev.delta.stop_reason;
        st.usage = ev.usage;
        if (!st.usage || typeof st.usage.output_tokens !== 'number') st.bad++;
        break;
      case 'message_stop': st.stopped = true; break;
      default: break;
    }
  };
  feed((name, data) => {
    st.events++;
    const ev = JSON.parse(data);
    if (!validate(ev)) st.invalid++;
    if (name !== undefined && name !== ev.type) st.bad++;
    onData(ev.type, ev);
  });
  if (!st.started || !st.stopped || st.blocks.some((b) => b.open)) st.bad++;
  if ((st.stopReason === 'tool_use') !== st.blocks.some((b) => b.type === 'tool_use')) st.bad++;
  let content = 0, reasoning = 0;
  for (const b of st.blocks) {
    if (b.type === 'thinking') reasoning += Buffer.byteLength(b.text);
    else content += Buffer.byteLength(b.text);
  }
  return { events: st.events, invalid: st.invalid, bad: st.bad, content, reasoning };
}

// ---- the runs ---------------------------------------------------------------

let best = Infinity, last = null;
for (let r = 0; r < runs; r++) {
  const t0 = process.hrtime.bigint();
  const feed = (onEvent) => {
    const decoder = new TextDecoder();
    const parser = createParser({ onEvent(ev) { onEvent(ev.event, ev.data); } });
    for (let at = 0; at < bytes.length; at += piece)
      parser.feed(decoder.decode(bytes.subarray(at, Math.min(at + piece, bytes.length)), { stream: true }));
    parser.feed(decoder.decode());
  };
  last = api === 'responses' ? responsesRun(feed) : messagesRun(feed);
  const dt = Number(process.hrtime.bigint() - t0) / 1e9;
  if (dt < best) best = dt;
}
const rss = process.resourceUsage().maxRSS;
const ajvVersion = JSON.parse(readFileSync(path.join(modules, 'ajv', 'package.json'), 'utf8')).version;
console.log(`impl=node-typed mode=${api} bytes=${bytes.length} events=${last.events} content_bytes=${last.content} ` +
  `reasoning_bytes=${last.reasoning} invalid=${last.invalid} mismatches=${last.bad} runs=${runs} piece=${piece} ` +
  `best_s=${best.toFixed(4)} mb_s=${(bytes.length / best / 1e6).toFixed(1)} events_s=${(last.events / best).toFixed(0)} ` +
  `rss_kb=${rss} compile_ms=${compileMs.toFixed(2)} ajv=${ajvVersion} node=${process.version}`);
