// responses-reference.mjs — the Responses API exchanges of a folder and the
// reference: what a correct client hands its application for one of them,
// written from OpenAI's API reference for POST /v1/responses and its
// streaming events (no oacheck code, no client library).
//
// The view (what an application ends up with, the reference's and every
// driver's alike):
//   {kind:"answer", text, calls:[{call_id, name, arguments}], status}
//     text       the output_text of every message item, in output order
//     calls      the function_call items, in output order, arguments as text
//     status     the Response's status ("completed", "incomplete", …), null
//                when no Response object reached the application
//   {kind:"error", name, message, status}
//
// Reference rules:
//  - HTTP status >= 400: an error with the server's message (error.message,
//    a string error, message, a string detail, else the body text; null for
//    an empty body).
//  - stream:false, 2xx: the JSON body is the Response; a body that is not
//    JSON is an error without a server message; an object with a non-null
//    `error` and no `output` list is an error with its message.
//  - stream:true, 2xx: the body is an event stream (WHATWG: BOM dropped,
//    comments ignored, an unterminated last event discarded); each event is
//    read by its JSON `type`, not its `event:` line.  Data that is not JSON
//    makes the exchange an error without a server message; an `error` event,
//    an event with a non-null top-level `error` (no type) and
//    `response.failed` make it an error with that message.  The answer is the
//    terminal event's Response (`response.completed` / `response.incomplete`)
//    when its output is not empty; otherwise the items as the events built
//    them (output_item.added/done by item id, text and argument deltas
//    appended, the .done events' full values replacing them), and the
//    status the last Response seen had ("in_progress" when only
//    response.created came; null when no Response came at all).
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { parseResponseHttp } from './recordings.mjs';

export const RESPONSES_PATH = /^(\/v1)?\/responses$/;

function readCassette(file) {
  const raw = gunzipSync(readFileSync(file));
  const nl = raw.indexOf(10);
  const meta = JSON.parse(raw.subarray(0, nl).toString('utf8'));
  const reqLen = meta.request.body_bytes ?? 0;
  const request = raw.subarray(nl + 1, nl + 1 + reqLen);
  const body = raw.subarray(nl + 1 + reqLen, nl + 1 + reqLen + meta.response.body_bytes);
  return {
    method: meta.request.method, path: meta.request.path,
    request: meta.request.body_bytes == null ? null : request,
    status: meta.response.status, headers: meta.response.headers ?? [], body,
  };
}

// Every POST /v1/responses exchange of dir (cassettes and a raw folder).
export function loadResponsesExchanges(dir) {
  const all = [];
  for (const f of readdirSync(dir).sort()) {
    if (f.endsWith('.cassette.gz')) all.push({ name: f.slice(0, -12), ...readCassette(join(dir, f)) });
  }
  if (existsSync(join(dir, 'index.json'))) {
    const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));
    for (const [name, e] of Object.entries(index)) {
      const file = join(dir, `${name}.response.http`);
      if (!existsSync(file)) continue;
      const reqFile = join(dir, `${name}.request.json`);
      const request = (e.request_body ?? existsSync(reqFile)) ? readFileSync(reqFile) : null;
      all.push({ name, method: e.method, path: e.path, request, ...parseResponseHttp(readFileSync(file), false) });
    }
  }
  return all.filter((x) => x.method === 'POST' && RESPONSES_PATH.test(x.path.split('?')[0]))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function requestJson(ex) {
  if (!ex.request) return null;
  try {
    const v = JSON.parse(ex.request.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

// WHATWG event-stream parsing: [{event, data}] of the events dispatched.
export function sseEvents(buf) {
  let text = buf.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split(/\r\n|\r|\n/);
  lines.pop(); // the text after the last line terminator is not a line
  const out = [];
  let data = [];
  let event = '';
  let hasData = false;
  for (const line of lines) {
    if (line === '') {
      if (hasData) out.push({ event: event || 'message', data: data.join('\n') });
      data = []; event = ''; hasData = false;
      continue;
    }
    if (line[0] === ':') continue;
    const c = line.indexOf(':');
    const field = c < 0 ? line : line.slice(0, c);
    let value = c < 0 ? '' : line.slice(c + 1);
    if (value[0] === ' ') value = value.slice(1);
    if (field === 'data') { data.push(value); hasData = true; } else if (field === 'event') event = value;
  }
  return out;
}

export function errorMessageOf(v, text) {
  if (v && typeof v === 'object') {
    if (v.error && typeof v.error === 'object' && typeof v.error.message === 'string') return v.error.message;
    if (typeof v.error === 'string') return v.error;
    if (typeof v.message === 'string') return v.message;
    if (typeof v.detail === 'string') return v.detail;
  }
  return text === '' ? null : text;
}

function partText(content) {
  if (!Array.isArray(content)) return '';
  return content.map((p) => (p && p.type === 'output_text' && typeof p.text === 'string' ? p.text : '')).join('');
}

// The view of a Response's output list.
export function outputView(output, status) {
  let text = '';
  const calls = [];
  for (const it of Array.isArray(output) ? output : []) {
    if (!it || typeof it !== 'object') continue;
    if (it.type === 'message') text += partText(it.content);
    else if (it.type === 'function_call') {
      calls.push({ call_id: it.call_id ?? null, name: it.name ?? null, arguments: typeof it.arguments === 'string' ? it.arguments : '' });
    }
  }
  return { kind: 'answer', text, calls, status: typeof status === 'string' ? status : null };
}

const error = (message) => ({ kind: 'error', name: 'ServerError', message, status: null });

export function reference(ex, stream) {
  const text = ex.body.toString('utf8');
  if (ex.status >= 400) {
    let v = null;
    try { v = JSON.parse(text); } catch { /* the body text is the message */ }
    return { ...error(errorMessageOf(v, text)), status: ex.status };
  }
  if (!stream) {
    let v;
    try { v = JSON.parse(text); } catch { return error(null); }
    if (!v || typeof v !== 'object') return error(null);
    if (v.error != null && !Array.isArray(v.output)) return error(errorMessageOf(v, text));
    return outputView(v.output, v.status);
  }
  const items = new Map(); // id -> {type, text, args, name, call_id}
  const order = [];
  const item = (id, type) => {
    const key = id ?? `#${order.length}`;
    if (!items.has(key)) { items.set(key, { type, text: '', args: '', name: null, call_id: null }); order.push(key); }
    return items.get(key);
  };
  const fromItem = (it, done) => {
    if (!it || typeof it !== 'object') return;
    const x = item(it.id, it.type);
    x.type = it.type ?? x.type;
    if (it.type === 'function_call') {
      if (it.name != null) x.name = it.name;
      if (it.call_id != null) x.call_id = it.call_id;
      if (done && typeof it.arguments === 'string') x.args = it.arguments;
    } else if (it.type === 'message' && done && Array.isArray(it.content)) x.text = partText(it.content);
  };
  let terminal = null;
  let status = null;
  for (const e of sseEvents(ex.body)) {
    let d;
    try { d = JSON.parse(e.data); } catch { return error(null); }
    if (!d || typeof d !== 'object') continue;
    const t = d.type;
    if (t === 'error') return error(typeof d.message === 'string' ? d.message : errorMessageOf(d, null));
    if (t === undefined && d.error != null) return error(errorMessageOf(d, null));
    if (t === 'response.failed') return error(errorMessageOf(d.response ?? {}, null));
    if (typeof t === 'string' && t.startsWith('response.') && d.response && typeof d.response.status === 'string') status = d.response.status;
    if (t === 'response.output_item.added') fromItem(d.item, false);
    else if (t === 'response.output_item.done') fromItem(d.item, true);
    else if (t === 'response.output_text.delta' && typeof d.delta === 'string') item(d.item_id, 'message').text += d.delta;
    else if (t === 'response.output_text.done' && typeof d.text === 'string') item(d.item_id, 'message').text = d.text;
    else if (t === 'response.function_call_arguments.delta' && typeof d.delta === 'string') item(d.item_id, 'function_call').args += d.delta;
    else if (t === 'response.function_call_arguments.done' && typeof d.arguments === 'string') item(d.item_id, 'function_call').args = d.arguments;
    else if ((t === 'response.completed' || t === 'response.incomplete') && d.response && typeof d.response === 'object') {
      terminal = d.response;
      break;
    }
  }
  if (terminal && Array.isArray(terminal.output) && terminal.output.length) return outputView(terminal.output, terminal.status);
  const output = order.map((k) => items.get(k)).map((x) => (x.type === 'function_call'
    ? { type: 'function_call', call_id: x.call_id, name: x.name, arguments: x.args }
    : x.type === 'message' ? { type: 'message', content: [{ type: 'output_text', text: x.text }] } : { type: x.type }));
  return outputView(output, status);
}
