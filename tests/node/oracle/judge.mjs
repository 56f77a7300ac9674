// judge.mjs — one client's result against the reference: outcome, works and
// a one-line reason.  The rules are the harness's contract with the C
// client models (see the header of ../oracle.mjs); every normalisation a
// client may make without being wrong is listed here with why.
import { isDeepStrictEqual } from 'node:util';
import { REASONING_MARKUP } from './reference.mjs';

// What each client can show the application at all.
//  choices: 'all' (every choice, by index) or 'first' (one message: the
//           ai SDK has no `n`; LangChain's invoke/stream give one message)
//  role:    whether a role reaches the application (the ai SDK has none)
//  args:    'string' (the arguments text, for the application to parse) or
//           'parsed' (the SDK parses them and flags the ones it cannot)
//  validFirst: the parsed calls come before the invalid ones (LangChain
//           keeps them in two lists, tool_calls and invalid_tool_calls)
export const CAPS = {
  'openai-node': { choices: 'all', role: true, args: 'string', finish: (f) => f },
  'openai-node-stream': { choices: 'all', role: true, args: 'string', finish: (f) => f },
  'ai-sdk': { choices: 'first', role: false, args: 'parsed', finish: aiFinish },
  langchain: { choices: 'first', role: true, args: 'parsed', validFirst: true, finish: (f) => f },
  // The Agents SDK hands the application a run's items: the message text,
  // the function calls it ran (arguments as the text the tool received)
  // and a reasoning item; no role, no finish reason.
  'openai-agents-chat': { choices: 'first', role: false, args: 'string', finish: null },
};
// Last year's majors show what their successors show, but for the ai SDK's
// enum: ai 5 calls an unknown finish reason "unknown".
CAPS['openai-node@6'] = CAPS['openai-node'];
CAPS['openai-node-stream@6'] = CAPS['openai-node-stream'];
CAPS['ai-sdk@5'] = { ...CAPS['ai-sdk'], finish: (f) => (aiFinish(f) === 'other' ? 'unknown' : aiFinish(f)) };
CAPS['langchain@0.6'] = CAPS.langchain;

// Normalisation accepted: the ai SDK maps finish reasons onto its own enum
// (tool_calls -> "tool-calls", content_filter -> "content-filter", no or an
// unknown reason -> "other" in ai 7, "unknown" in ai 5).  The mapping loses nothing an application
// can act on, so the reference is mapped the same way before comparing.
function aiFinish(f) {
  switch (f) {
    case 'stop': return 'stop';
    case 'length': return 'length';
    case 'content_filter': return 'content-filter';
    case 'tool_calls': case 'function_call': return 'tool-calls';
    default: return 'other';
  }
}

const MAX = 60;
function q(s) {
  if (s === null || s === undefined) return 'null';
  const t = typeof s === 'string' ? s : JSON.stringify(s);
  return JSON.stringify(t.length > MAX ? `${t.slice(0, MAX)}…` : t);
}

// Two long strings: show where they part.
function strDiff(what, got, want) {
  if (got.length <= MAX && want.length <= MAX) return `${what} ${q(got)} (expected ${q(want)})`;
  let i = 0;
  while (i < got.length && i < want.length && got[i] === want[i]) i++;
  const from = Math.max(0, i - 10);
  return `${what} differs from char ${i}: ${q(got.slice(from, from + 30))} (expected ${q(want.slice(from, from + 30))})`;
}

// An error message as a log line: its first line, cut short.
function oneLine(s) {
  const t = String(s ?? '').split('\n')[0];
  return t.length > 100 ? `${t.slice(0, 100)}…` : t;
}

const empty = (s) => s === null || s === undefined || s === '';
const norm = (s) => (empty(s) ? '' : s);

// The server's message is kept when the client's error text contains it
// (SDKs prefix a status or a class name), or its JSON form (openai-node
// shows a string `error` body JSON-encoded, quotes and escapes included).
export function keepsMessage(got, want) {
  if (want === null) return true; // nothing to keep: any error surfaces the failure
  const g = String(got ?? '').replace(/\s+/g, ' ');
  const w = want.replace(/\s+/g, ' ').trim();
  return g.includes(w) || g.includes(JSON.stringify(want).slice(1, -1));
}

function compareCalls(caps, got, want, pfx) {
  if (got.length !== want.length) return `${pfx}tool_calls: ${got.length} (expected ${want.length})`;
  // LangChain's two lists: the reference is ordered the same way (calls
  // whose arguments parse first) so that calls line up.
  const w = caps.validFirst
    ? [...want.filter((c) => c.args_object), ...want.filter((c) => !c.args_object)] : want;
  for (let i = 0; i < w.length; i++) {
    const g = got[i];
    const r = w[i];
    const at = `${pfx}tool_calls[${i}]`;
    if (norm(g.name) !== norm(r.name)) return `${at}.name ${q(g.name)} (expected ${q(r.name)})`;
    // Normalisation accepted: where the server sent no id, a client may
    // invent one (openai-node's call_<uuid>, the ai SDK's generated ids):
    // the application needs some id to answer the call with.
    if (!empty(r.id) && g.id !== r.id) return `${at}.id ${q(g.id)} (expected ${q(r.id)})`;
    if (caps.args === 'string') {
      if (norm(g.arguments) !== r.arguments) return strDiff(`${at}.arguments`, norm(g.arguments), r.arguments);
      continue;
    }
    // Normalisation accepted: a parsing client hands over the parsed object
    // (LangChain's args, the ai SDK's input); it must equal the parsed text.
    // Arguments that are not a JSON object must reach the application
    // flagged as invalid, never as a usable call.
    if (r.args_object) {
      if (g.invalid) return `${at} flagged invalid${g.error ? ` (${q(g.error)})` : ''} (expected arguments ${q(r.arguments)})`;
      if (!isDeepStrictEqual(g.args, JSON.parse(r.arguments))) {
        return `${at}.arguments ${q(g.args)} (expected ${q(r.arguments)})`;
      }
    } else if (!g.invalid) {
      return `${at}.arguments ${q(g.args)} reached the application as a call (sent ${q(r.arguments)}, not a JSON object)`;
    }
  }
  return null;
}

function compareChoice(caps, g, r, pfx) {
  if (caps.role) {
    // Normalisation accepted: a role the server left out is "assistant",
    // the only role an answer has.
    const want = r.role ?? 'assistant';
    if ((g.role ?? 'assistant') !== want) return `${pfx}role ${q(g.role)} (expected ${q(want)})`;
  }
  if (norm(g.content) !== r.content) return strDiff(`${pfx}content`, norm(g.content), r.content);
  if (!empty(r.refusal) && norm(g.refusal) !== r.refusal) {
    return empty(g.refusal) ? `${pfx}refusal dropped (expected ${q(r.refusal)})`
      : strDiff(`${pfx}refusal`, norm(g.refusal), r.refusal);
  }
  const calls = compareCalls(caps, g.tool_calls ?? [], r.tool_calls, pfx);
  if (calls) return calls;
  if (!caps.finish) return null;
  const want = caps.finish(r.finish_reason);
  if ((g.finish_reason ?? null) !== (want ?? null)) {
    return `${pfx}finish_reason ${q(g.finish_reason ?? null)} (expected ${q(want ?? null)})`;
  }
  return null;
}

const NO_CHOICE = { index: 0, role: null, content: '', refusal: '', reasoning: '', tool_calls: [], finish_reason: null };

function summary(r) {
  if (r.choices.length === 0) return 'no choices';
  const c = r.choices[0];
  const parts = [`${c.content.length} chars`];
  if (c.tool_calls.length) parts.push(`${c.tool_calls.length} tool call${c.tool_calls.length > 1 ? 's' : ''}`);
  if (!empty(c.refusal)) parts.push('refusal');
  parts.push(`finish ${c.finish_reason ?? 'none'}`);
  return (r.choices.length > 1 ? `${r.choices.length} choices, first: ` : '') + parts.join(', ');
}

// Reasoning, beside the verdict (it never changes the outcome: the spec
// has no reasoning field, and the answer is right without it):
//  reasoning  what the application can read of the first choice's
//             reasoning against the reference's (reference.mjs
//             reasoningOf): "none" (the server sent none and the client
//             shows none), "seen" (the same text), "partial" (some, not
//             all: openai-node's stream helper keeps the last fragment),
//             "hidden" (the server sent some, the client shows none),
//             "extra" (the client shows reasoning the reference has not);
//             null when no answer reached the application.
//  reasoning_leak  think or harmony markup is in the answer text the
//             application holds (null when no answer).
export function reasoningOutcome(ref, got) {
  if (ref.kind !== 'answer' || got.kind !== 'answer') return { reasoning: null, reasoning_leak: null };
  const want = ref.choices[0]?.reasoning ?? '';
  const have = typeof got.choices[0]?.reasoning === 'string' ? got.choices[0].reasoning : '';
  let state;
  if (have === want) state = want === '' ? 'none' : 'seen';
  else if (have === '') state = 'hidden';
  else if (want === '') state = 'extra';
  else state = 'partial';
  const content = got.choices[0]?.content;
  return { reasoning: state, reasoning_leak: typeof content === 'string' && REASONING_MARKUP.test(content) };
}

// -> { outcome, works, reason }
export function judge(client, ref, got) {
  const caps = CAPS[client];
  if (ref.kind === 'error') {
    if (got.kind === 'error') {
      const kept = keepsMessage(got.message, ref.message);
      return {
        outcome: 'raises', works: kept,
        reason: kept ? `${got.name}: ${oneLine(got.message)}`
          : `${got.name}: ${q(got.message)} lost the server's message ${q(ref.message)}`,
      };
    }
    return {
      outcome: 'wrong', works: false,
      reason: `no error reached the application (the server said ${q(ref.message ?? ref.why ?? `HTTP ${ref.status}`)})`,
    };
  }
  if (got.kind === 'error') {
    return { outcome: 'raises', works: false, reason: `${got.name}: ${q(got.message)}, on an answer that is not an error` };
  }
  if (caps.choices === 'all') {
    if (got.choices.length !== ref.choices.length) {
      return { outcome: 'wrong', works: false, reason: `choices: ${got.choices.length} (expected ${ref.choices.length})` };
    }
    for (let i = 0; i < ref.choices.length; i++) {
      const pfx = ref.choices.length > 1 ? `choices[${i}].` : '';
      const why = compareChoice(caps, got.choices[i], ref.choices[i], pfx);
      if (why) return { outcome: 'wrong', works: false, reason: why };
    }
  } else {
    const why = compareChoice(caps, got.choices[0] ?? NO_CHOICE, ref.choices[0] ?? NO_CHOICE, '');
    if (why) return { outcome: 'wrong', works: false, reason: why };
  }
  return { outcome: 'ok', works: true, reason: summary(ref) };
}
