// responses-clients.mjs — the Responses API's real clients, each asked the
// recorded request (X-Oacheck-Case: NAME picks the answer `oacheck serve`
// gives, whatever the client sends), retries off, a 10 s timeout; each
// returns the view of responses-reference.mjs of what its application holds.
//
//  openai-node-responses         client.responses.create(): stream:false
//                                the Response's output; stream:true the
//                                events iterated as an application that
//                                streams to a screen does: the text is the
//                                output_text deltas it printed, the calls
//                                those of the terminal event's Response
//                                (else of the output_item.done items), the
//                                status the last Response it saw had; an
//                                `error` event or
//                                response.failed is thrown with its message
//  openai-node-responses-stream  client.responses.stream() + finalResponse()
//                                (stream:true exchanges only)
//  ai-sdk-responses              ai 7 generateText / streamText (fully
//                                consumed; error parts are its errors) on
//                                @ai-sdk/openai's Responses model, the
//                                request's tools with execute stubs: text,
//                                toolCalls (input parsed, invalid flag),
//                                finishReason as the status
//  openai-agents                 the Agents SDK: one Agent with the
//                                request's tools on OpenAIResponsesModel,
//                                Runner.run (streamed when the request
//                                was), stopping at the first tool call, one
//                                turn: the run's message text and function
//                                calls; it exposes no status
import OpenAI from 'openai';
import { generateText, streamText, jsonSchema } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { Agent, Runner, tool, setTracingDisabled, OpenAIResponsesModel } from '@openai/agents';
import { outputView } from './responses-reference.mjs';

process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
setTracingDisabled(true);

export const TIMEOUT_MS = 10000;
const API_KEY = 'sk-oacheck-oracle';
export const CLIENTS = ['openai-node-responses', 'openai-node-responses-stream', 'ai-sdk-responses', 'openai-agents'];

function errorOf(e) {
  return {
    kind: 'error',
    name: e?.constructor?.name && e.constructor.name !== 'Object' ? e.constructor.name : (e?.name ?? typeof e),
    message: typeof e?.message === 'string' ? e.message : (typeof e === 'string' ? e : JSON.stringify(e)),
    status: typeof e?.status === 'number' ? e.status : (typeof e?.statusCode === 'number' ? e.statusCode : null),
  };
}

// The recorded request as the SDKs take it (a body no API can say becomes
// a minimal valid one: the answer is chosen by name anyway).
export function params(body) {
  const p = body ? { ...body } : {};
  if (typeof p.model !== 'string' || p.model === '') p.model = 'oacheck-model';
  if (p.input == null) p.input = 'x';
  return p;
}

function functionTools(p) {
  return (Array.isArray(p.tools) ? p.tools : []).filter((t) => t && t.type === 'function' && typeof t.name === 'string');
}

function schemaOf(t) {
  return t.parameters && typeof t.parameters === 'object' ? t.parameters : { type: 'object', properties: {} };
}

// The user's text of an input (a string, or the user messages of a list).
function userText(input) {
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return 'x';
  const parts = [];
  for (const it of input) {
    if (!it || it.role !== 'user') continue;
    if (typeof it.content === 'string') parts.push(it.content);
    else if (Array.isArray(it.content)) for (const c of it.content) if (typeof c?.text === 'string') parts.push(c.text);
  }
  return parts.join('\n') || 'x';
}

function openaiClient(url, name) {
  return new OpenAI({
    apiKey: API_KEY, baseURL: `${url}/v1`, maxRetries: 0, timeout: TIMEOUT_MS,
    defaultHeaders: { 'X-Oacheck-Case': name }, logLevel: 'off',
  });
}

// ---- openai-node ------------------------------------------------------------

export async function runCreate({ url, name, body }) {
  const client = openaiClient(url, name);
  const p = params(body);
  try {
    if (!p.stream) {
      const r = await client.responses.create(p);
      return outputView(r?.output, r?.status);
    }
    const stream = await client.responses.create(p);
    let text = '';
    let terminal = null;
    let status = null;
    const done = [];
    let events = 0;
    for await (const ev of stream) {
      events++;
      if (typeof ev?.response?.status === 'string') status = ev.response.status;
      if (ev?.type === 'response.output_text.delta' && typeof ev.delta === 'string') text += ev.delta;
      else if (ev?.type === 'response.output_item.done' && ev.item) done.push(ev.item);
      else if (ev?.type === 'error') throw Object.assign(new Error(ev.message ?? 'error event'), { name: 'StreamErrorEvent' });
      else if (ev?.type === 'response.failed') {
        throw Object.assign(new Error(ev.response?.error?.message ?? 'response.failed'), { name: 'ResponseFailed' });
      } else if ((ev?.type === 'response.completed' || ev?.type === 'response.incomplete') && ev.response) terminal = ev.response;
    }
    const items = terminal && Array.isArray(terminal.output) && terminal.output.length ? terminal.output : done;
    const v = outputView(items, status);
    return { ...v, text, extra: { events } };
  } catch (e) {
    return errorOf(e);
  }
}

export async function runStream({ url, name, body }) {
  const client = openaiClient(url, name);
  const p = params(body);
  try {
    const s = client.responses.stream(p);
    const r = await s.finalResponse();
    return outputView(r?.output, r?.status);
  } catch (e) {
    return errorOf(e);
  }
}

// ---- the ai SDK -----------------------------------------------------------------

function aiToolChoice(tc) {
  if (tc === 'auto' || tc === 'none' || tc === 'required') return tc;
  if (tc && typeof tc === 'object' && tc.type === 'function' && typeof tc.name === 'string') return { type: 'tool', toolName: tc.name };
  return undefined;
}

export async function runAiSdk({ url, name, body }) {
  const p = params(body);
  const provider = createOpenAI({ baseURL: `${url}/v1`, apiKey: API_KEY, headers: { 'X-Oacheck-Case': name } });
  const executed = [];
  const tools = {};
  for (const t of functionTools(p)) {
    tools[t.name] = {
      description: t.description, inputSchema: jsonSchema(schemaOf(t)),
      execute: async (input) => { executed.push({ name: t.name, input }); return 'ok'; },
    };
  }
  const common = {
    model: provider.responses(p.model),
    system: typeof p.instructions === 'string' ? p.instructions : undefined,
    prompt: userText(p.input),
    tools: Object.keys(tools).length ? tools : undefined,
    toolChoice: aiToolChoice(p.tool_choice),
    maxOutputTokens: Number.isInteger(p.max_output_tokens) ? p.max_output_tokens : undefined,
    maxRetries: 0,
    abortSignal: AbortSignal.timeout(TIMEOUT_MS),
  };
  const callView = (tc) => ({ call_id: tc.toolCallId ?? null, name: tc.toolName ?? null, input: tc.input, invalid: tc.invalid === true });
  const extra = {};
  try {
    let text;
    let calls;
    let finish;
    if (p.stream) {
      const errors = [];
      const result = streamText({ ...common, onError: () => {} });
      for await (const part of result.fullStream) if (part.type === 'error') errors.push(part.error);
      extra.tools_executed = executed.length;
      if (errors.length) return { ...errorOf(errors[0]), extra };
      text = await result.text;
      calls = await result.toolCalls;
      finish = await result.finishReason;
    } else {
      const result = await generateText(common);
      text = result.text;
      calls = result.toolCalls;
      finish = result.finishReason;
    }
    extra.tools_executed = executed.length;
    return { kind: 'answer', text, calls: calls.map(callView), status: finish, extra };
  } catch (e) {
    extra.tools_executed = executed.length;
    return { ...errorOf(e), extra };
  }
}

// ---- the Agents SDK --------------------------------------------------------------

export async function runAgents({ url, name, body }) {
  const p = params(body);
  const executed = [];
  const tools = functionTools(p).map((t) => tool({
    name: t.name,
    description: t.description ?? t.name,
    parameters: { type: 'object', properties: {}, ...schemaOf(t), additionalProperties: true },
    strict: false,
    execute: async (input) => { executed.push({ name: t.name, input }); return 'ok'; },
  }));
  const agent = new Agent({
    name: 'oacheck',
    instructions: typeof p.instructions === 'string' ? p.instructions : undefined,
    model: new OpenAIResponsesModel(openaiClient(url, name), p.model),
    tools,
    toolUseBehavior: 'stop_on_first_tool',
    modelSettings: { maxTokens: Number.isInteger(p.max_output_tokens) ? p.max_output_tokens : undefined },
  });
  const runner = new Runner({ tracingDisabled: true });
  const extra = { tools_executed: 0 };
  const input = userText(p.input);
  try {
    let result;
    if (p.stream) {
      result = await runner.run(agent, input, { maxTurns: 1, stream: true });
      for await (const _ev of result) { /* consumed as an application does */ }
      await result.completed;
      if (result.error) throw result.error;
    } else {
      result = await runner.run(agent, input, { maxTurns: 1 });
    }
    extra.tools_executed = executed.length;
    let text = '';
    const calls = [];
    for (const item of result.newItems ?? []) {
      const raw = item.rawItem ?? {};
      if (item.type === 'message_output_item') {
        for (const c of raw.content ?? []) if (c?.type === 'output_text') text += c.text ?? '';
      } else if (item.type === 'tool_call_item' && raw.type === 'function_call') {
        calls.push({ call_id: raw.callId || null, name: raw.name ?? null, arguments: raw.arguments ?? '' });
      }
    }
    return { kind: 'answer', text, calls, status: null, extra };
  } catch (e) {
    extra.tools_executed = executed.length;
    return { ...errorOf(e), extra };
  }
}

export const DRIVERS = {
  'openai-node-responses': runCreate,
  'openai-node-responses-stream': runStream,
  'ai-sdk-responses': runAiSdk,
  'openai-agents': runAgents,
};
