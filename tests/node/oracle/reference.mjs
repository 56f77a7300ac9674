// reference.mjs — what a correct client hands the application for one
// recorded response, written from the specifications alone (the WHATWG
// event-stream rules, OpenAI's chat-completion and chunk shapes), not from
// any client library and not from oacheck's C code.  The oracle compares
// every real client against this.
//
// Result, one of:
//   { kind: 'answer', choices: [View] }       a completion (streamed or not)
//   { kind: 'error', message: STRING|null }    what the server said went wrong
// with View = { index, role, content, refusal, reasoning,
//               tool_calls: [{ id, name, arguments, args_object }],
//               finish_reason }
// where args_object says whether `arguments` parses as a JSON object.

// The message of an error body, in the order servers put it: OpenAI's
// {"error":{"message"}}, a string "error" (TGI, LM Studio), a top-level
// "message" (vLLM, SGLang), a string "detail" (FastAPI).  null when there
// is none.
export function errorMessageOf(v) {
  if (!v || typeof v !== 'object') return null;
  const e = v.error;
  if (e && typeof e === 'object') {
    if (typeof e.message === 'string') return e.message;
    // LiteLLM wraps an upstream envelope: {"error":{"message":{"error":"…"}}}
    if (e.message && typeof e.message === 'object') return errorMessageOf(e.message) ?? JSON.stringify(e.message);
  }
  if (typeof e === 'string') return e;
  if (typeof v.message === 'string') return v.message;
  if (typeof v.detail === 'string') return v.detail;
  return null;
}

export function isJsonObjectText(s) {
  if (typeof s !== 'string') return false;
  try {
    const v = JSON.parse(s);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}

// WHATWG "interpreting an event stream": the data of each dispatched event,
// in order.  The decoder drops one leading BOM; lines end at CRLF, LF or CR;
// lines starting with ':' are comments; "data" lines append to the buffer;
// a blank line dispatches a non-empty buffer (minus its final LF); whatever
// is pending at the end of the stream is discarded.  The event type is not
// looked at: OpenAI-compatible servers put everything in data.
export function sseEvents(buf) {
  const text = new TextDecoder('utf-8').decode(buf); // U+FFFD for bad bytes, BOM stripped
  const lines = text.split(/\r\n|\n|\r/);
  lines.pop(); // what follows the last line end is an unfinished line: never processed
  const events = [];
  let data = null;
  for (const line of lines) {
    if (line === '') {
      if (data !== null) events.push(data.endsWith('\n') ? data.slice(0, -1) : data);
      data = null;
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data = (data ?? '') + value + '\n';
  }
  // an event not closed by a blank line is discarded: `data` is left undispatched
  return events;
}

function emptyView(index) {
  return { index, role: null, content: '', refusal: '', reasoning: '', tool_calls: [], finish_reason: null };
}

function finishCalls(view) {
  view.tool_calls = view.tool_calls.filter(Boolean).map((c) => ({
    id: c.id ?? null,
    name: c.name ?? null,
    arguments: c.arguments ?? '',
    args_object: isJsonObjectText(c.arguments ?? ''),
  }));
  return view;
}

// The reasoning text a message or delta carries: `reasoning_content`
// (llama-server, SGLang, DeepSeek) when it is a non-empty string, else
// `reasoning` (vLLM, Ollama) when it is a string.  One field, never both
// (a delta carrying the same text in both must not double it), and ""
// beside a non-empty `reasoning` does not hide it: the reference is the
// reasoning the server sent, whichever name it used.  Not a string: none.
export function reasoningOf(m) {
  if (typeof m?.reasoning_content === 'string' && m.reasoning_content !== '') return m.reasoning_content;
  return typeof m?.reasoning === 'string' ? m.reasoning : '';
}

// Reasoning markup left in the answer text: a think block's tags
// (Qwen, DeepSeek: <think>, </think>; Mistral: [THINK]) or gpt-oss's
// harmony tokens.  Every client measured passes content through as it
// came, so markup in the reference's content reaches the application.
export const REASONING_MARKUP = /<\/?think>|\[\/?THINK\]|<\|(channel|message|start|end)\|>/;

// A non-streamed choice as the application sees it.
function choiceView(ch, pos) {
  const m = ch?.message ?? {};
  const v = emptyView(Number.isInteger(ch?.index) ? ch.index : pos);
  v.role = typeof m.role === 'string' ? m.role : null;
  v.content = typeof m.content === 'string' ? m.content : '';
  v.refusal = typeof m.refusal === 'string' ? m.refusal : '';
  v.reasoning = reasoningOf(m);
  v.tool_calls = (Array.isArray(m.tool_calls) ? m.tool_calls : []).map((tc) => ({
    id: typeof tc?.id === 'string' && tc.id !== '' ? tc.id : null,
    name: tc?.function?.name ?? null,
    arguments: typeof tc?.function?.arguments === 'string' ? tc.function.arguments : '',
  }));
  v.finish_reason = typeof ch?.finish_reason === 'string' ? ch.finish_reason : null;
  return finishCalls(v);
}

// Streamed chunks (parsed JSON objects) reassembled: choices by `index`,
// content, refusal and reasoning concatenated, the first role, tool calls
// by their `index` with the first id and name and the arguments
// concatenated, the last non-null finish_reason.  A missing index (choice
// or tool call) is taken as the position in its array: the specification
// requires the index, and position is the only reading of its absence that
// keeps every fragment.  The same function rebuilds what a careful
// application gets from openai-node's `create` chunks (clients.mjs), so
// that client's outcome measures the SDK's decoding only.
export function accumulateChunks(chunks) {
  const choices = new Map();
  for (const chunk of chunks) {
    const list = Array.isArray(chunk?.choices) ? chunk.choices : [];
    list.forEach((ch, pos) => {
      const idx = Number.isInteger(ch?.index) ? ch.index : pos;
      if (!choices.has(idx)) choices.set(idx, { ...emptyView(idx), tool_calls: [] });
      const v = choices.get(idx);
      const d = ch?.delta ?? {};
      if (v.role === null && typeof d.role === 'string' && d.role !== '') v.role = d.role;
      if (typeof d.content === 'string') v.content += d.content;
      if (typeof d.refusal === 'string') v.refusal += d.refusal;
      v.reasoning += reasoningOf(d);
      (Array.isArray(d.tool_calls) ? d.tool_calls : []).forEach((tc, tpos) => {
        const ti = Number.isInteger(tc?.index) ? tc.index : tpos;
        const c = v.tool_calls[ti] ?? (v.tool_calls[ti] = { id: null, name: null, arguments: '' });
        if (c.id === null && typeof tc?.id === 'string' && tc.id !== '') c.id = tc.id;
        if (c.name === null && typeof tc?.function?.name === 'string' && tc.function.name !== '') {
          c.name = tc.function.name;
        }
        if (typeof tc?.function?.arguments === 'string') c.arguments += tc.function.arguments;
      });
      if (typeof ch?.finish_reason === 'string') v.finish_reason = ch.finish_reason;
    });
  }
  return [...choices.values()].sort((a, b) => a.index - b.index).map(finishCalls);
}

// The reference for one exchange.  `stream` is what the request asked for:
// a 2xx answer to stream:true is read as an event stream whatever its
// Content-Type (the application asked for a stream; the label is the
// server's contract problem, not a reason for a client to lose the answer).
export function reference(ex, stream) {
  const text = ex.body.toString('utf8');
  if (ex.status >= 400) {
    let v = null;
    try { v = JSON.parse(text); } catch { /* not JSON: the text is the message */ }
    const msg = errorMessageOf(v) ?? (text.trim() === '' ? null : text.trim());
    return { kind: 'error', status: ex.status, message: msg };
  }
  if (stream) {
    const chunks = [];
    const events = sseEvents(ex.body);
    for (let i = 0; i < events.length; i++) {
      const data = events[i];
      if (data === '[DONE]') break; // nothing after [DONE] belongs to the answer
      let v;
      try { v = JSON.parse(data); } catch {
        return { kind: 'error', status: ex.status, message: null, why: `event ${i + 1} is not JSON` };
      }
      if (v && typeof v === 'object' && 'error' in v && v.error != null) {
        return { kind: 'error', status: ex.status, message: errorMessageOf(v), inband: true };
      }
      chunks.push(v);
    }
    return { kind: 'answer', choices: accumulateChunks(chunks) };
  }
  let v;
  try { v = JSON.parse(text); } catch {
    return { kind: 'error', status: ex.status, message: null, why: 'the body is not JSON' };
  }
  // A 200 whose body is an error envelope and no completion is an error
  // (LM Studio's unknown route): there is no answer to give.
  if (v && typeof v === 'object' && v.error != null && !Array.isArray(v.choices)) {
    return { kind: 'error', status: ex.status, message: errorMessageOf(v), inband: true };
  }
  const list = Array.isArray(v?.choices) ? v.choices : [];
  return { kind: 'answer', choices: list.map(choiceView).sort((a, b) => a.index - b.index) };
}
