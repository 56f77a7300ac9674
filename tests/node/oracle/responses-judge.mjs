// responses-judge.mjs — what a Responses client's application got against the
// reference (responses-reference.mjs): outcome, works and a one-line reason.
//
//  - the reference is an error: the client raised with the server's message
//    in its own (raises, works) or without it ("… lost the server's
//    message": raises, not works; any error when the server gave none); an
//    answer instead is wrong ("no error (expected …)").
//  - the reference is an answer: an exception is raises, not works; else the
//    first difference, in this order, is wrong: text (null and "" alike),
//    the number of function calls, then per call name, call_id (when the
//    server gave one), arguments — the text for the clients that hand it
//    over as text; for the ai SDK, which parses it, the parsed value, and
//    arguments that are not a JSON object must arrive flagged invalid —,
//    then the status for openai-node's two ways (the only ones that show
//    the Response's status).
//  - openai-node-responses-stream on a stream:false exchange: not-exercised.
const q = (s) => {
  const t = s == null ? 'null' : JSON.stringify(String(s));
  return t.length > 62 ? `${t.slice(0, 60)}…"` : t;
};

function keepsMessage(got, want) {
  const norm = (s) => String(s).replace(/\s+/g, ' ').trim();
  return norm(got).includes(norm(want)) || String(got).includes(JSON.stringify(want).slice(1, -1));
}

function jsonObject(s) {
  try {
    const v = JSON.parse(s);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

function sameJson(a, b) {
  const canon = (v) => (Array.isArray(v) ? v.map(canon) : v && typeof v === 'object'
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])])) : v);
  return JSON.stringify(canon(a)) === JSON.stringify(canon(b));
}

const PARSES = new Set(['ai-sdk-responses']);
const STATUS = new Set(['openai-node-responses', 'openai-node-responses-stream']);

function summary(v) {
  const calls = v.calls.length ? `, ${v.calls.length} call${v.calls.length > 1 ? 's' : ''} (${v.calls.map((c) => c.name).join(', ')})` : '';
  return `text ${q(v.text)}${calls}${v.status ? `, status ${v.status}` : ''}`;
}

export function judge(client, ref, got) {
  const err = (g) => `${g.name}: ${q(g.message)}`;
  if (ref.kind === 'error') {
    if (got.kind !== 'error') return { outcome: 'wrong', works: false, reason: `no error (expected ${q(ref.message)})` };
    if (ref.message == null || keepsMessage(got.message, ref.message)) return { outcome: 'raises', works: true, reason: err(got) };
    return { outcome: 'raises', works: false, reason: `${err(got)} lost the server's message` };
  }
  if (got.kind === 'error') return { outcome: 'raises', works: false, reason: err(got) };
  const wrong = (reason) => ({ outcome: 'wrong', works: false, reason });
  if ((got.text ?? '') !== (ref.text ?? '')) return wrong(`text ${q(got.text)} (expected ${q(ref.text)})`);
  if (got.calls.length !== ref.calls.length) return wrong(`calls: ${got.calls.length} (expected ${ref.calls.length})`);
  for (let i = 0; i < ref.calls.length; i++) {
    const r = ref.calls[i];
    const g = got.calls[i];
    if (g.name !== r.name) return wrong(`call ${i} name ${q(g.name)} (expected ${q(r.name)})`);
    if (r.call_id && g.call_id !== r.call_id) return wrong(`call ${i} call_id ${q(g.call_id)} (expected ${q(r.call_id)})`);
    if (PARSES.has(client)) {
      const want = jsonObject(r.arguments);
      if (want == null && !g.invalid) return wrong(`call ${i} arguments ${q(r.arguments)} not flagged invalid`);
      if (want != null && (g.invalid || !sameJson(g.input, want))) return wrong(`call ${i} input ${q(JSON.stringify(g.input))} (expected ${q(r.arguments)})`);
    } else if (g.arguments !== r.arguments) return wrong(`call ${i} arguments ${q(g.arguments)} (expected ${q(r.arguments)})`);
  }
  if (STATUS.has(client) && (got.status ?? null) !== (ref.status ?? null)) return wrong(`status ${q(got.status)} (expected ${q(ref.status)})`);
  return { outcome: 'ok', works: true, reason: summary(got) };
}
