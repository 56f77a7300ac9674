// messages-clients.mjs — the Messages API's clients, driven with the real
// libraries against `oacheck serve` (X-Oacheck-Case picks the recording,
// so the body each client sends does not choose the answer).  Each driver
// returns what the application ends up with, in the reference's terms
// (messages-reference.mjs): {kind:"answer", text, thinking, tools:[{id,
// name, input, invalid}], stop_reason, has_input?} or {kind:"error", name,
// message, status}.  Retries are off, 10 s timeout.
import Anthropic from '@anthropic-ai/sdk';
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, streamText, tool, jsonSchema } from 'ai';
import { ChatAnthropic } from '@langchain/anthropic';
import { concat } from '@langchain/core/utils/stream';
import { accumulate } from './messages-reference.mjs';

export const CLIENTS = ['anthropic', 'anthropic-stream', 'ai-sdk-anthropic', 'langchain-anthropic'];
export const TIMEOUT_MS = 10000;
const API_KEY = 'sk-ant-oracle';

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function errorOf(e) {
  return { kind: 'error', name: e?.constructor?.name ?? e?.name ?? 'Error', message: String(e?.message ?? e), status: e?.status ?? e?.statusCode ?? null };
}

// The recorded body when it can be sent as it is, else a minimal request.
function sdkBody(body) {
  if (isObject(body)) return body;
  return { model: 'oracle', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };
}

function sdkClient(url, name) {
  return new Anthropic({
    apiKey: API_KEY, baseURL: url, maxRetries: 0, timeout: TIMEOUT_MS,
    defaultHeaders: { 'X-Oacheck-Case': name }, logLevel: 'off',
  });
}

// An SDK message (content blocks) in the reference's terms.
function fromBlocks(content, stop) {
  const a = { kind: 'answer', text: '', thinking: '', tools: [], stop_reason: stop ?? null };
  for (const b of Array.isArray(content) ? content : []) {
    if (b?.type === 'text') a.text += b.text ?? '';
    else if (b?.type === 'thinking') a.thinking += b.thinking ?? '';
    else if (b?.type === 'tool_use') {
      a.tools.push({ id: b.id ?? null, name: b.name ?? null, input: b.input, invalid: false, has_input: 'input' in b });
    }
  }
  return a;
}

async function anthropicCreate({ url, name, body }) {
  const client = sdkClient(url, name);
  const b = sdkBody(body);
  try {
    if (b.stream === true) {
      // the application's own loop: the SDK's events, reassembled as the
      // documentation says (so only the SDK's decoding is measured)
      const stream = await client.messages.create(b);
      const events = [];
      for await (const ev of stream) events.push(ev);
      return { ...accumulate(events), events: events.length };
    }
    const m = await client.messages.create(b);
    return fromBlocks(m?.content, m?.stop_reason);
  } catch (e) {
    return errorOf(e);
  }
}

async function anthropicStream({ url, name, body }) {
  const client = sdkClient(url, name);
  try {
    const s = client.messages.stream({ ...sdkBody(body), stream: undefined });
    const m = await s.finalMessage();
    return fromBlocks(m?.content, m?.stop_reason);
  } catch (e) {
    return errorOf(e);
  }
}

function aiTools(body) {
  if (!Array.isArray(body?.tools) || body.tools.length === 0) return undefined;
  const tools = {};
  for (const t of body.tools) {
    if (!t?.name) continue;
    tools[t.name] = tool({
      description: t.description ?? '',
      inputSchema: jsonSchema(isObject(t.input_schema) ? t.input_schema : { type: 'object', properties: {} }),
      execute: async () => 'ok',
    });
  }
  return tools;
}

function aiToolChoice(tc) {
  if (!isObject(tc)) return undefined;
  if (tc.type === 'auto') return 'auto';
  if (tc.type === 'any') return 'required';
  if (tc.type === 'none') return 'none';
  if (tc.type === 'tool' && tc.name) return { type: 'tool', toolName: tc.name };
  return undefined;
}

// The ai SDK's unified finish reason back to the stop reasons it came from.
const AI_FINISH = { stop: 'end_turn', length: 'max_tokens', 'tool-calls': 'tool_use' };

async function aiSdk({ url, name, body }) {
  const provider = createAnthropic({ baseURL: `${url}/v1`, apiKey: API_KEY, headers: { 'X-Oacheck-Case': name } });
  const b = isObject(body) ? body : {};
  const args = {
    model: provider(typeof b.model === 'string' ? b.model : 'oracle'),
    prompt: 'hi',
    tools: aiTools(b),
    toolChoice: aiToolChoice(b.tool_choice),
    maxOutputTokens: Number.isInteger(b.max_tokens) ? b.max_tokens : undefined,
    maxRetries: 0,
    abortSignal: AbortSignal.timeout(TIMEOUT_MS),
  };
  const pack = (text, reasoning, calls, finish, raw) => ({
    kind: 'answer', text: text ?? '', thinking: reasoning ?? '',
    tools: calls.map((c) => ({ id: c.toolCallId ?? null, name: c.toolName ?? null, input: c.input, invalid: !!c.invalid })),
    stop_reason: AI_FINISH[finish] ?? null, finish, raw_finish: raw ?? null,
  });
  try {
    if (b.stream === true) {
      const r = streamText({ ...args, onError: () => {} });
      let text = '';
      let reasoning = '';
      let finish = null;
      let rawFinish = null;
      const calls = [];
      const errors = [];
      for await (const p of r.fullStream) {
        if (p.type === 'text-delta') text += p.text;
        else if (p.type === 'reasoning-delta') reasoning += p.text;
        else if (p.type === 'tool-call') calls.push(p);
        else if (p.type === 'error') errors.push(p.error);
        else if (p.type === 'finish') { finish = p.finishReason; rawFinish = p.rawFinishReason; }
      }
      if (errors.length) return errorOf(errors[0]);
      return pack(text, reasoning, calls, finish, rawFinish);
    }
    const r = await generateText(args);
    return pack(r.text, r.reasoningText, r.toolCalls ?? [], r.finishReason, r.rawFinishReason);
  } catch (e) {
    return errorOf(e);
  }
}

async function langchain({ url, name, body }) {
  const b = isObject(body) ? body : {};
  let model = new ChatAnthropic({
    model: typeof b.model === 'string' ? b.model : 'oracle', apiKey: API_KEY, anthropicApiUrl: url,
    maxRetries: 0, maxTokens: Number.isInteger(b.max_tokens) ? b.max_tokens : 64,
    clientOptions: { defaultHeaders: { 'X-Oacheck-Case': name }, timeout: TIMEOUT_MS },
  });
  if (Array.isArray(b.tools) && b.tools.length) {
    const tc = isObject(b.tool_choice) ? (b.tool_choice.type === 'tool' ? b.tool_choice.name : b.tool_choice.type) : undefined;
    model = model.bindTools(b.tools.filter((t) => t?.name).map((t) => ({
      name: t.name, description: t.description ?? '', input_schema: isObject(t.input_schema) ? t.input_schema : { type: 'object', properties: {} },
    })), tc ? { tool_choice: tc } : {});
  }
  try {
    let msg;
    if (b.stream === true) {
      for await (const chunk of await model.stream([['human', 'hi']])) msg = msg ? concat(msg, chunk) : chunk;
      if (!msg) return { kind: 'answer', text: '', thinking: '', tools: [], stop_reason: null };
    } else msg = await model.invoke([['human', 'hi']]);
    const a = { kind: 'answer', text: '', thinking: '', tools: [], stop_reason: msg.response_metadata?.stop_reason ?? msg.additional_kwargs?.stop_reason ?? null };
    if (typeof msg.content === 'string') a.text = msg.content;
    else for (const c of msg.content ?? []) {
      if (c?.type === 'text' || c?.type === 'text_delta') a.text += c.text ?? '';
      else if (c?.type === 'thinking') a.thinking += c.thinking ?? '';
    }
    for (const t of msg.tool_calls ?? []) a.tools.push({ id: t.id ?? null, name: t.name ?? null, input: t.args, invalid: false });
    for (const t of msg.invalid_tool_calls ?? []) a.tools.push({ id: t.id ?? null, name: t.name ?? null, input: t.args, invalid: true });
    return a;
  } catch (e) {
    return errorOf(e);
  }
}

export const DRIVERS = {
  anthropic: anthropicCreate,
  'anthropic-stream': anthropicStream,
  'ai-sdk-anthropic': aiSdk,
  'langchain-anthropic': langchain,
};
