// peer_clients.mjs — the Node peer for bench_pipeline that does the work
// oacheck's streaming path does with a stream's chunks (issue 25): eventsource-
// parser framing the stream in 16 KiB pieces, JSON.parse of every payload,
// an ajv 8 compiled chat.completion.chunk schema on each chunk, the
// reference reassembly (tests/node/oracle/reference.mjs's rules, chunk by
// chunk: choices by index, content, refusal and reasoning concatenated, the
// first role, tool calls by index with the first id and name, the last
// finish_reason), and one reassembly per client model reproducing how each
// of the seven differs (docs/clients.md), reasoning included:
//
//   openai-node       create() iterated: the application reassembles with
//                     the reference's rules; both reasoning fields untyped
//   openai-node-stream  ChatCompletionStream: arrays by index, strings
//                     joined with +, role/id/name assigned, unknown delta
//                     fields Object.assign'ed (the last reasoning fragment)
//   ai-sdk            choices[0] only, [DONE] skipped, text parts,
//                     reasoning_content ?? reasoning, calls by index,
//                     finish mapped onto its enum
//   langchain         choices[0] only, AIMessageChunk-style merge: content
//                     and additional_kwargs.reasoning_content joined,
//                     finish_reason strings concatenated, tool_call_chunks
//                     by index (id and name: the last wins)
//   openai-python     create() iterated: the application's reassembly, both
//                     reasoning fields
//   openai-python-stream  accumulate_delta: every string concatenated,
//                     list entries merged by index
//   openai-agents-chat  choice index 0 only, truthy content/refusal,
//                     `reasoning` only, calls keyed by index with names
//                     concatenated and the first id
//
// and at the end compares each client's view with the reference
// (content, reasoning as that client shows it, calls, finish reason;
// openai-python's stream helper raises on a length finish).
// It does not reproduce the models' error paths (what each client raises
// on a broken stream), which a clean stream never takes, nor the stream
// and message rules.  Prints one key=value line like bench_pipeline.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.OACHECK_NODE_MODULES || path.join(here, '..', 'tests', 'node', 'node_modules');
const { createParser } = await import(path.join(modules, 'eventsource-parser', 'dist', 'index.js'));
const Ajv2020 = (await import(path.join(modules, 'ajv', 'dist', '2020.js'))).default;

let runs = 3, piece = 16384, file = null, dir = null;
const argv = process.argv.slice(2);
const usage = 'usage: peer_clients.mjs [--runs N] [--piece BYTES] --schemas DIR STREAM.sse';
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') runs = Number(argv[++i]);
  else if (argv[i] === '--piece') piece = Number(argv[++i]);
  else if (argv[i] === '--schemas') dir = argv[++i];
  else if (!file && !argv[i].startsWith('-')) file = argv[i];
  else { console.error(usage); process.exit(2); }
}
if (!file || !dir) { console.error(usage); process.exit(2); }

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
for (const name of readdirSync(dir).sort()) {
  if (!name.endsWith('.json')) continue;
  const schema = JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
  if (schema.$id) ajv.addSchema(schema);
}
const validate = ajv.getSchema('https://oacheck.dev/schemas/chat.completion.chunk.json');
const bytes = readFileSync(file);

const isStr = (v) => typeof v === 'string';

// ---- the reference (reference.mjs accumulateChunks, one chunk at a time)
function reasoningOf(d) {
  if (isStr(d.reasoning_content) && d.reasoning_content !== '') return d.reasoning_content;
  return isStr(d.reasoning) ? d.reasoning : '';
}
function refView(index) {
  return { index, role: null, content: '', refusal: '', reasoning: '', tool_calls: [], finish_reason: null };
}
function refChunk(st, chunk) {
  const list = Array.isArray(chunk.choices) ? chunk.choices : [];
  for (let pos = 0; pos < list.length; pos++) {
    const ch = list[pos];
    const idx = Number.isInteger(ch?.index) ? ch.index : pos;
    let v = st.get(idx);
    if (!v) st.set(idx, (v = refView(idx)));
    const d = ch?.delta ?? {};
    if (v.role === null && isStr(d.role) && d.role !== '') v.role = d.role;
    if (isStr(d.content)) v.content += d.content;
    if (isStr(d.refusal)) v.refusal += d.refusal;
    v.reasoning += reasoningOf(d);
    const tcs = Array.isArray(d.tool_calls) ? d.tool_calls : [];
    for (let tpos = 0; tpos < tcs.length; tpos++) {
      const tc = tcs[tpos];
      const ti = Number.isInteger(tc?.index) ? tc.index : tpos;
      const c = v.tool_calls[ti] ?? (v.tool_calls[ti] = { id: null, name: null, arguments: '' });
      if (c.id === null && isStr(tc?.id) && tc.id !== '') c.id = tc.id;
      if (c.name === null && isStr(tc?.function?.name) && tc.function.name !== '') c.name = tc.function.name;
      if (isStr(tc?.function?.arguments)) c.arguments += tc.function.arguments;
    }
    if (isStr(ch?.finish_reason)) v.finish_reason = ch.finish_reason;
  }
}

// ---- create() iterated (openai-node, openai-python): the application's
// own reassembly with the reference's rules, both reasoning fields kept
function appChunk(st, chunk) {
  refChunk(st.ref, chunk);
  for (const ch of chunk.choices ?? []) {
    const d = ch?.delta ?? {};
    const idx = Number.isInteger(ch?.index) ? ch.index : 0;
    const r = st.raw[idx] ?? (st.raw[idx] = { reasoning_content: '', reasoning: '' });
    if (isStr(d.reasoning_content)) r.reasoning_content += d.reasoning_content;
    if (isStr(d.reasoning)) r.reasoning += d.reasoning;
  }
}

// ---- openai-node's ChatCompletionStream (#accumulateChatCompletion)
function nodeStreamChunk(snap, chunk) {
  for (const { delta, finish_reason, index, logprobs = null, ...other } of chunk.choices) {
    let choice = snap.choices[index];
    if (!choice) choice = snap.choices[index] = { finish_reason, index, message: {}, logprobs, ...other };
    if (finish_reason) choice.finish_reason = finish_reason;
    Object.assign(choice, other);
    if (!delta) continue;
    const { content, refusal, function_call, role, tool_calls, ...rest } = delta;
    Object.assign(choice.message, rest); // reasoning_content, reasoning: assigned, not joined
    if (refusal) choice.message.refusal = (choice.message.refusal || '') + refusal;
    if (role) choice.message.role = role;
    if (content) choice.message.content = (choice.message.content || '') + content;
    if (tool_calls) {
      if (!choice.message.tool_calls) choice.message.tool_calls = [];
      for (const { index: ti, id, type, function: fn, ...rest2 } of tool_calls) {
        if (!Number.isSafeInteger(ti) || ti < 0 || ti >= 128) throw new Error('invalid tool call index');
        const call = (choice.message.tool_calls[ti] ??= {});
        Object.assign(call, rest2);
        if (id) call.id = id;
        if (type) call.type = type;
        if (fn) call.function ??= { name: fn.name ?? '', arguments: '' };
        if (fn?.name) call.function.name = fn.name;
        if (fn?.arguments) call.function.arguments += fn.arguments;
      }
    }
  }
}

// ---- the ai SDK (openai-compatible's doStream transform): choices[0]
const aiFinish = { stop: 'stop', length: 'length', content_filter: 'content-filter',
  function_call: 'tool-calls', tool_calls: 'tool-calls' };
function aiChunk(st, chunk) {
  const ch = chunk.choices?.[0];
  if (!ch) return;
  if (ch.finish_reason != null) st.finish = aiFinish[ch.finish_reason] ?? 'other';
  const d = ch.delta;
  if (!d) return;
  const r = d.reasoning_content ?? d.reasoning;
  if (r) st.reasoning += r;
  if (d.content) st.text += d.content;
  if (d.refusal) { st.text += d.refusal; st.refused = true; }
  for (const tc of d.tool_calls ?? []) {
    const ti = tc.index ?? st.calls.length;
    const c = st.calls[ti] ?? (st.calls[ti] = { id: tc.id, name: tc.function?.name, input: '' });
    if (tc.function?.arguments != null) c.input += tc.function.arguments;
  }
}

// ---- LangChain (_convertDeltaToMessageChunk + AIMessageChunk.concat)
function lcChunk(st, chunk) {
  const ch = chunk.choices?.[0];
  if (!ch) return;
  const d = ch.delta ?? {};
  if (st.role === undefined) st.role = d.role;
  if (d.content) st.content += d.content;
  if (d.reasoning_content != null) st.kwargs.reasoning_content = (st.kwargs.reasoning_content ?? '') + d.reasoning_content;
  if (ch.finish_reason != null) st.finish = (st.finish ?? '') + ch.finish_reason;
  for (const tc of d.tool_calls ?? []) {
    const ti = tc.index;
    const c = st.calls.get(ti) ?? { id: undefined, name: undefined, args: '' };
    if (tc.id) c.id = tc.id;
    if (tc.function?.name) c.name = tc.function.name;
    if (tc.function?.arguments) c.args += tc.function.arguments;
    st.calls.set(ti, c);
  }
}

// ---- openai-python's stream helper (accumulate_delta over model dicts)
function accumulateDelta(acc, delta) {
  for (const key of Object.keys(delta)) {
    const value = delta[key];
    if (!(key in acc)) { acc[key] = value && typeof value === 'object' && !Array.isArray(value) ? { ...value } : value; continue; }
    const prev = acc[key];
    if (prev == null) { acc[key] = value; continue; }
    if (key === 'index' || key === 'type') { acc[key] = value; continue; }
    if (isStr(prev) && isStr(value)) acc[key] = prev + value;
    else if (typeof prev === 'number' && typeof value === 'number') acc[key] = prev + value;
    else if (prev && typeof prev === 'object' && !Array.isArray(prev)) acc[key] = accumulateDelta(prev, value);
    else if (Array.isArray(prev) && Array.isArray(value)) {
      for (const e of value) {
        const i = e.index;
        if (!Number.isInteger(i)) throw new TypeError('Unexpected list delta entry is not a dictionary');
        if (i >= prev.length) prev.push({ ...e });
        else prev[i] = accumulateDelta(prev[i], e);
      }
    }
  }
  return acc;
}
function pyStreamChunk(snap, chunk) {
  if (chunk.object !== 'chat.completion.chunk') return;
  for (const ch of chunk.choices) {
    let c = snap.choices[ch.index];
    if (!c) { c = snap.choices[ch.index] = { index: ch.index, finish_reason: ch.finish_reason, message: { ...ch.delta } }; continue; }
    if (ch.finish_reason) c.finish_reason = ch.finish_reason;
    accumulateDelta(c.message, ch.delta);
  }
}

// ---- the Agents SDK's OpenAIChatCompletionsModel stream: index 0 only
function agentsChunk(st, chunk) {
  for (const ch of chunk.choices ?? []) {
    if (ch.index !== 0) continue;
    const d = ch.delta ?? {};
    if (d.content) st.text += d.content;
    if (d.refusal) st.refusal += d.refusal;
    if (d.reasoning) st.reasoning += d.reasoning;
    for (const tc of d.tool_calls ?? []) {
      const key = String(tc.index);
      const c = st.calls[key] ?? (st.calls[key] = { id: '', name: '', arguments: '' });
      if (!c.id && tc.id) c.id = tc.id;
      if (tc.function?.name) c.name += tc.function.name;
      if (tc.function?.arguments) c.arguments += tc.function.arguments;
    }
  }
}

// ---- the judge: each client's first choice against the reference's
function judge(ref, got) {
  const r = ref.get(0) ?? refView(0);
  const works = got.content === r.content && (got.finish === undefined || got.finish === r.finish_reason) &&
    got.calls === r.tool_calls.filter(Boolean).length;
  const reasoning = r.reasoning === '' ? (got.reasoning ? 'extra' : 'none')
    : got.reasoning === r.reasoning ? 'seen' : got.reasoning ? 'partial' : 'hidden';
  return { works, reasoning };
}

let best = Infinity, events = 0, invalid = 0, contentLen = 0, reasoningLen = 0, verdicts = '';
for (let r = 0; r < runs; r++) {
  events = 0; invalid = 0;
  const ref = new Map();
  const node = { ref: new Map(), raw: [] }, py = { ref: new Map(), raw: [] };
  const nodeStream = { choices: [] }, pyStream = { choices: [] };
  const ai = { text: '', reasoning: '', calls: [], finish: undefined, refused: false };
  const lc = { role: undefined, content: '', kwargs: {}, finish: undefined, calls: new Map() };
  const agents = { text: '', refusal: '', reasoning: '', calls: {} };
  let done = false;
  const t0 = process.hrtime.bigint();
  const parser = createParser({
    onEvent(ev) {
      events++;
      if (ev.data === '[DONE]') { done = true; return; }
      const chunk = JSON.parse(ev.data);
      if (!validate(chunk)) invalid++;
      aiChunk(ai, chunk); // the ai SDK reads past [DONE]
      if (done) return;
      refChunk(ref, chunk);
      appChunk(node, chunk);
      nodeStreamChunk(nodeStream, chunk);
      lcChunk(lc, chunk);
      appChunk(py, chunk);
      pyStreamChunk(pyStream, chunk);
      agentsChunk(agents, chunk);
    },
  });
  const decoder = new TextDecoder();
  for (let at = 0; at < bytes.length; at += piece)
    parser.feed(decoder.decode(bytes.subarray(at, Math.min(at + piece, bytes.length)), { stream: true }));
  const app = (st) => {
    const v = st.ref.get(0) ?? refView(0), raw = st.raw[0] ?? {};
    return { content: v.content, finish: v.finish_reason, calls: v.tool_calls.filter(Boolean).length,
      reasoning: raw.reasoning_content || raw.reasoning || '' };
  };
  const ns = nodeStream.choices[0]?.message ?? {};
  const ps = pyStream.choices[0]?.message ?? {};
  const out = [
    judge(ref, app(node)),
    judge(ref, { content: ns.content ?? '', finish: nodeStream.choices[0]?.finish_reason,
      calls: (ns.tool_calls ?? []).length, reasoning: ns.reasoning_content || ns.reasoning || '' }),
    judge(ref, { content: ai.text, calls: ai.calls.length, reasoning: ai.reasoning }),
    judge(ref, { content: lc.content, finish: lc.finish, calls: lc.calls.size, reasoning: lc.kwargs.reasoning_content ?? '' }),
    judge(ref, app(py)),
    // get_final_completion() raises LengthFinishReasonError on a length finish
    pyStream.choices.some((c) => c?.finish_reason === 'length') ? { raises: true }
      : judge(ref, { content: ps.content ?? '', finish: pyStream.choices[0]?.finish_reason,
        calls: (ps.tool_calls ?? []).length, reasoning: ps.reasoning_content || ps.reasoning || '' }),
    judge(ref, { content: agents.text, calls: Object.keys(agents.calls).length, reasoning: agents.reasoning }),
  ];
  verdicts = out.map((v) => (v.raises ? 'raises' : `${v.works ? 'ok' : 'wrong'}/${v.reasoning}`)).join(',');
  contentLen = Buffer.byteLength((ref.get(0) ?? refView(0)).content);
  reasoningLen = Buffer.byteLength((ref.get(0) ?? refView(0)).reasoning);
  const dt = Number(process.hrtime.bigint() - t0) / 1e9;
  if (dt < best) best = dt;
  if (!(ref.get(0) ?? {}).finish_reason) invalid++;
}
const rss = process.resourceUsage().maxRSS;
console.log(`impl=node-clients mode=pipeline bytes=${bytes.length} events=${events} content_bytes=${contentLen} ` +
  `reasoning_bytes=${reasoningLen} ` +
  `invalid=${invalid} runs=${runs} piece=${piece} best_s=${best.toFixed(4)} ` +
  `mb_s=${(bytes.length / best / 1e6).toFixed(1)} events_s=${(events / best).toFixed(0)} rss_kb=${rss} ` +
  `clients=${verdicts} node=${process.version}`);
