// messages-reference.mjs — what a correct client of Anthropic's Messages
// API hands the application for one recorded exchange, written from the
// API's documentation (docs.anthropic.com "Messages", "Streaming
// Messages"), not from any client nor from oacheck's code.  The C models'
// reference (src/client_messages.c) mirrors it.
//
//  - A status of 400 or more is an error; its message is error.message
//    (Anthropic's {"type":"error","error":{…}} and OpenAI's
//    {"error":{…}} alike), a string `error`, a top-level `message`, else
//    none.
//  - A 2xx to `stream: true` is an event stream (WHATWG: BOM dropped,
//    comments ignored, an event not closed by a blank line discarded).
//    Each event's data says what it is (`type`); the `event:` line is not
//    needed to read it.  An event named `error`, or whose data has type
//    "error" or a top-level `error` object (llama-server's untyped form),
//    makes the exchange an error with error.message (else message); data
//    that is not JSON makes it an error without a message.
//    message_start opens the message; content_block_start puts a block at
//    its `index`; a delta goes to the block of its index (a delta for a
//    block never started has nowhere to go and is dropped); text_delta,
//    thinking_delta, input_json_delta append; message_delta sets
//    stop_reason; message_stop ends the message (anything after it is
//    not part of it); ping and unknown events are ignored.  Blocks are
//    taken in index order.  A tool_use block's input is its streamed JSON
//    parsed when any arrived (text that does not parse as a JSON object:
//    invalid), else the start's `input`, else {} (none was sent).  A
//    truncated stream is what arrived.
//  - A 2xx not streamed: the body's `content` blocks and stop_reason; a body
//    that is not JSON, or has no content list, is an error (with its
//    error.message if any).
//
// The answer: {kind:"answer", text (text blocks joined), thinking
// (thinking blocks joined), tools: [{id, name, input, invalid, raw}],
// stop_reason}; an error: {kind:"error", message, status}.

// The message of an error body: null when none.
export function errorMessage(v) {
  if (!v || typeof v !== 'object') return null;
  const e = v.error;
  if (e && typeof e === 'object' && typeof e.message === 'string') return e.message;
  if (typeof e === 'string') return e;
  if (typeof v.message === 'string') return v.message;
  return null;
}

// WHATWG event stream: [{event, data}] (event null when no event: line).
export function sseParse(buf) {
  const text = new TextDecoder('utf-8').decode(buf);
  const lines = text.split(/\r\n|\n|\r/);
  lines.pop();
  const out = [];
  let data = null;
  let event = null;
  for (const line of lines) {
    if (line === '') {
      if (data !== null) out.push({ event, data: data.endsWith('\n') ? data.slice(0, -1) : data });
      data = null;
      event = null;
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data = (data ?? '') + value + '\n';
    else if (field === 'event') event = value;
  }
  return out;
}

function parseJson(s) {
  try {
    return { ok: true, v: JSON.parse(s) };
  } catch {
    return { ok: false };
  }
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// A tool_use block's input from its streamed JSON (raw, '' when none came)
// and the start's input.
function toolInput(raw, start) {
  if (raw !== '') {
    const p = parseJson(raw);
    if (p.ok && isObject(p.v)) return { input: p.v, invalid: false, raw };
    return { input: null, invalid: true, raw };
  }
  if (isObject(start)) return { input: start, invalid: false, raw: JSON.stringify(start) };
  return { input: {}, invalid: false, raw: '' };
}

// Blocks (in index order) into the answer.
export function answerOf(blocks, stopReason) {
  const a = { kind: 'answer', text: '', thinking: '', tools: [], stop_reason: stopReason ?? null };
  for (const b of blocks) {
    if (!b) continue;
    if (b.type === 'text') a.text += typeof b.text === 'string' ? b.text : '';
    else if (b.type === 'thinking') a.thinking += typeof b.thinking === 'string' ? b.thinking : '';
    else if (b.type === 'tool_use') {
      a.tools.push({ id: b.id ?? null, name: b.name ?? null, ...toolInput(b.json ?? '', b.input) });
    }
  }
  return a;
}

// The events of a stream (already JSON objects) into the answer; the
// application's own loop over messages.create()'s stream uses it too.
export function accumulate(events) {
  const blocks = new Map();
  let stop = null;
  for (const d of events) {
    if (!isObject(d)) continue;
    if (d.type === 'message_stop') break;
    if (d.type === 'content_block_start' && Number.isInteger(d.index) && isObject(d.content_block)) {
      const cb = d.content_block;
      blocks.set(d.index, { type: cb.type, id: cb.id, name: cb.name, input: cb.input, text: cb.text ?? '', thinking: cb.thinking ?? '', json: '' });
    } else if (d.type === 'content_block_delta' && isObject(d.delta)) {
      const b = blocks.get(d.index);
      if (!b) continue;
      const dl = d.delta;
      if (dl.type === 'text_delta' && typeof dl.text === 'string') b.text += dl.text;
      else if (dl.type === 'thinking_delta' && typeof dl.thinking === 'string') b.thinking += dl.thinking;
      else if (dl.type === 'input_json_delta' && typeof dl.partial_json === 'string') b.json += dl.partial_json;
    } else if (d.type === 'message_delta' && isObject(d.delta) && 'stop_reason' in d.delta) {
      stop = d.delta.stop_reason;
    }
  }
  const order = [...blocks.keys()].sort((x, y) => x - y).map((k) => blocks.get(k));
  return answerOf(order, stop);
}

export function reference(ex, stream) {
  const status = ex.status;
  const text = ex.body.toString('utf8');
  if (status >= 400) {
    const p = parseJson(text);
    return { kind: 'error', message: p.ok ? errorMessage(p.v) ?? (text === '' ? null : text) : (text === '' ? null : text), status };
  }
  if (stream) {
    const events = [];
    for (const ev of sseParse(ex.body)) {
      const p = parseJson(ev.data);
      if (!p.ok) return { kind: 'error', message: null, status };
      const d = p.v;
      if (ev.event === 'error' || (isObject(d) && (d.type === 'error' || (d.type === undefined && isObject(d.error))))) {
        return { kind: 'error', message: errorMessage(d), status };
      }
      events.push(d);
      if (isObject(d) && d.type === 'message_stop') break;
    }
    return accumulate(events);
  }
  const p = parseJson(text);
  if (!p.ok || !isObject(p.v)) return { kind: 'error', message: null, status };
  if (!Array.isArray(p.v.content)) return { kind: 'error', message: errorMessage(p.v), status };
  return answerOf(p.v.content.map((b) => (isObject(b) ? { ...b, json: '' } : null)), p.v.stop_reason);
}
