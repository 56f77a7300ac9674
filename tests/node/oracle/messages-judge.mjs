// messages-judge.mjs — what the application of one Messages client ended
// up with (messages-clients.mjs) against the reference
// (messages-reference.mjs): ok / raises / wrong, works, one-line reason.
//  - The reference is an error: the client raised with the server's
//    message in its error (any error when the server gave none): raises,
//    works; raised without it: raises, does not work; returned an answer:
//    wrong.
//  - The reference is an answer: a client that raised does not work; a
//    client that returned is compared, first difference named: the text
//    (text blocks joined), the number of tool calls, each call's name, id
//    (when the server sent one), input (parsed: deep equal; the reference's
//    invalid JSON must reach the application flagged invalid; a call
//    without an `input` at all is wrong), the stop reason (the ai SDK's
//    unified finish reason read back: stop = end_turn or stop_sequence,
//    length = max_tokens, tool-calls = tool_use, anything else = none),
//    then the thinking text.
import { isDeepStrictEqual } from 'node:util';

// The server's message is kept when the client's error text contains it or
// its JSON form (the SDKs show "STATUS BODY" with the body's JSON), both
// compared without whitespace: a message holding runs of spaces and
// newlines is in the body JSON-escaped, its spaces as they were.
export function keepsMessage(got, want) {
  if (want === null || want === undefined) return true;
  const strip = (s) => String(s ?? '').replace(/\s+/g, '');
  const g = strip(got);
  return g.includes(strip(want)) || g.includes(strip(JSON.stringify(want).slice(1, -1)));
}

function q(v) {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  const t = s === undefined ? 'undefined' : s;
  return JSON.stringify(t.length > 40 ? `${t.slice(0, 40)}…` : t);
}

function oneLine(s) {
  const t = String(s ?? '').split('\n')[0];
  return t.length > 100 ? `${t.slice(0, 100)}…` : t;
}

const AI_STOP = { end_turn: 'stop', stop_sequence: 'stop', max_tokens: 'length', tool_use: 'tool-calls' };

function summary(a) {
  const parts = [`text ${a.text.length} chars`];
  if (a.tools.length) parts.push(`${a.tools.length} tool call${a.tools.length > 1 ? 's' : ''}`);
  if (a.thinking) parts.push(`thinking ${a.thinking.length} chars`);
  parts.push(`stop ${a.stop_reason ?? 'none'}`);
  return parts.join(', ');
}

function differs(client, got, ref) {
  if (got.text !== ref.text) return `text ${q(got.text)} (expected ${q(ref.text)})`;
  if (got.tools.length !== ref.tools.length) return `tool calls: ${got.tools.length} (expected ${ref.tools.length})`;
  for (let i = 0; i < ref.tools.length; i++) {
    const g = got.tools[i];
    const r = ref.tools[i];
    const at = `tool call ${i}`;
    if ((g.name ?? '') !== (r.name ?? '')) return `${at} name ${q(g.name)} (expected ${q(r.name)})`;
    if (r.id && g.id !== r.id) return `${at} id ${q(g.id)} (expected ${q(r.id)})`;
    if (r.invalid) {
      if (!g.invalid) return `${at} input ${q(g.input)} from invalid JSON ${q(r.raw)} (expected it flagged invalid)`;
      continue;
    }
    if (g.invalid) return `${at} flagged invalid (expected input ${q(r.input)})`;
    if (g.has_input === false) return `${at} has no input (expected ${q(r.input)})`;
    if (!isDeepStrictEqual(g.input, r.input)) return `${at} input ${q(g.input)} (expected ${q(r.input)})`;
  }
  if (client === 'ai-sdk-anthropic') {
    const want = AI_STOP[ref.stop_reason] ?? 'other';
    const have = ['stop', 'length', 'tool-calls'].includes(got.finish) ? got.finish : 'other';
    if (have !== want) return `finish reason ${q(got.finish)} (expected ${q(want)})`;
  } else if ((got.stop_reason ?? null) !== (ref.stop_reason ?? null)) {
    return `stop_reason ${q(got.stop_reason)} (expected ${q(ref.stop_reason)})`;
  }
  if (got.thinking !== ref.thinking) return `thinking ${q(got.thinking)} (expected ${q(ref.thinking)})`;
  return null;
}

export function judge(client, ref, got) {
  if (ref.kind === 'error') {
    if (got.kind === 'error') {
      const keeps = keepsMessage(got.message, ref.message);
      return {
        outcome: 'raises', works: keeps,
        reason: keeps ? `${got.name}: ${oneLine(got.message)}` : `${got.name}: ${oneLine(got.message)} (the server's message ${q(ref.message)} is lost)`,
      };
    }
    return { outcome: 'wrong', works: false, reason: `returns an answer (${summary(got)}) where the server sent an error${ref.message ? ` (${q(ref.message)})` : ''}` };
  }
  if (got.kind === 'error') return { outcome: 'raises', works: false, reason: `${got.name}: ${oneLine(got.message)}` };
  const d = differs(client, got, ref);
  if (d) return { outcome: 'wrong', works: false, reason: d };
  return { outcome: 'ok', works: true, reason: summary(got) };
}
