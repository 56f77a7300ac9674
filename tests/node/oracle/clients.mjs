// clients.mjs — the real clients (today's majors, and last year's where
// they behave differently), each driven the way an application uses it, against `oacheck serve` (which answers the recording named in
// X-Oacheck-Case whatever body arrives).  Each driver returns what the
// application ends up holding:
//   { kind: 'answer', choices: [ClientView], extra }
//   { kind: 'error', name, message, status }
// ClientView = { index, role, content, refusal, tool_calls, finish_reason }
// with tool_calls [{ id, name, arguments (string) | args (parsed),
//                    invalid (parsing clients) }].
// The drivers only observe; judging is judge.mjs's job.
import OpenAI from 'openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText, jsonSchema, Output } from 'ai';
import { ChatOpenAI } from '@langchain/openai';
import {
  AIMessage, HumanMessage, SystemMessage, ToolMessage, ChatMessage,
} from '@langchain/core/messages';
import { Agent, Runner, tool, setTracingDisabled, OpenAIChatCompletionsModel } from '@openai/agents';
import { accumulateChunks, reasoningOf } from './reference.mjs';

// The ai SDK's warnings (unsupported settings) go to the console once per
// call; they say nothing about the answer.
globalThis.AI_SDK_LOG_WARNINGS = false;

// Today's majors, in the shape every driver takes as `lib`; last year's
// (previous/libs.mjs) have the same names.
export const TODAY = {
  OpenAI, createOpenAICompatible, generateText, streamText, jsonSchema, Output, ChatOpenAI,
  AIMessage, HumanMessage, SystemMessage, ToolMessage, ChatMessage,
  outputKey: 'output',
};

// Last year's majors, kept as named clients where each behaves differently
// from its successor (docs/clients.md): present when tests/node/previous
// is installed (.ci/run installs it), else PREVIOUS_MISSING says why not.
export let PREVIOUS = null;
export let PREVIOUS_MISSING = null;
try {
  ({ LIB: PREVIOUS } = await import('../previous/libs.mjs'));
} catch (e) {
  PREVIOUS_MISSING = `tests/node/previous is not installed (${String(e?.message ?? e).split('\n')[0]})`;
}

export const CLIENTS_TODAY = ['openai-node', 'openai-node-stream', 'ai-sdk', 'langchain', 'openai-agents-chat'];
export const CLIENTS_PREVIOUS = ['openai-node@6', 'openai-node-stream@6', 'ai-sdk@5', 'langchain@0.6'];
export const CLIENTS = PREVIOUS ? [...CLIENTS_TODAY, ...CLIENTS_PREVIOUS] : CLIENTS_TODAY;

// The Agents SDK exports traces to OpenAI unless told not to: nothing here
// may leave the machine.
process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
setTracingDisabled(true);

// The fetch every client is given (undefined: its own default).  The proxy
// test swaps in one that keeps a copy of the bytes each client received.
let FETCH;
export function useFetch(f) { FETCH = f; }
export const TIMEOUT_MS = 10000;
const API_KEY = 'sk-oacheck-oracle';

function errorOf(e) {
  return {
    kind: 'error',
    name: e?.constructor?.name && e.constructor.name !== 'Object' ? e.constructor.name : (e?.name ?? typeof e),
    message: typeof e?.message === 'string' ? e.message : (typeof e === 'string' ? e : JSON.stringify(e)),
    status: typeof e?.status === 'number' ? e.status : (typeof e?.statusCode === 'number' ? e.statusCode : null),
  };
}

// Text of a message content that may be a string or a list of parts.
function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : '')).join('');
  }
  return content == null ? '' : JSON.stringify(content);
}

// The recorded request, made into something each client accepts.  What
// the client sends does not choose the answer (X-Oacheck-Case does), so a
// request no client API can express — invalid JSON, `messages` that is not
// a list — becomes a minimal valid one; the answer is tested all the same.
export function requestParams(body) {
  const p = body ? { ...body } : {};
  if (typeof p.model !== 'string' || p.model === '') p.model = 'oacheck-model';
  if (!Array.isArray(p.messages) || p.messages.length === 0) p.messages = [{ role: 'user', content: 'x' }];
  return p;
}

function responseFormatOf(p) {
  const rf = p.response_format;
  if (!rf || typeof rf !== 'object') return null;
  if (rf.type === 'json_schema' && rf.json_schema && typeof rf.json_schema === 'object') {
    return { type: 'json_schema', schema: rf.json_schema.schema ?? {}, name: rf.json_schema.name };
  }
  if (rf.type === 'json_object') return { type: 'json_object' };
  return null;
}

function functionTools(p) {
  return (Array.isArray(p.tools) ? p.tools : [])
    .filter((t) => t && t.type === 'function' && t.function && typeof t.function.name === 'string');
}

// ---- openai-node ----------------------------------------------------------

function openaiClient(url, name, lib = TODAY) {
  return new lib.OpenAI({
    apiKey: API_KEY, baseURL: `${url}/v1`, maxRetries: 0, timeout: TIMEOUT_MS,
    defaultHeaders: { 'X-Oacheck-Case': name }, logLevel: 'off', fetch: FETCH,
  });
}

function openaiChoiceView(ch, pos) {
  const m = ch?.message ?? {};
  return {
    index: Number.isInteger(ch?.index) ? ch.index : pos,
    role: m.role ?? null,
    content: textOf(m.content),
    refusal: m.refusal ?? '',
    // Both reasoning fields reach the application untyped; one that reads
    // whichever the server filled sees this.
    reasoning: reasoningOf(m),
    tool_calls: (Array.isArray(m.tool_calls) ? m.tool_calls : []).map((tc) => ({
      id: tc?.id ?? null, name: tc?.function?.name ?? null, arguments: tc?.function?.arguments ?? null,
    })),
    finish_reason: ch?.finish_reason ?? null,
  };
}

// `create`: stream:false gives the completion as parsed JSON; stream:true
// gives chunks that the application reassembles itself — here with the
// reference's own reassembly, so differences are the SDK's decoding.
export async function runOpenAINode({ url, name, body, lib = TODAY }) {
  const client = openaiClient(url, name, lib);
  const params = requestParams(body);
  try {
    if (params.stream) {
      const chunks = [];
      for await (const chunk of await client.chat.completions.create(params)) chunks.push(chunk);
      return { kind: 'answer', choices: accumulateChunks(chunks), extra: { chunks: chunks.length } };
    }
    const r = await client.chat.completions.create(params);
    // A careful application does not assume `choices` is there.
    const list = Array.isArray(r?.choices) ? r.choices : [];
    return { kind: 'answer', choices: list.map(openaiChoiceView) };
  } catch (e) {
    return errorOf(e);
  }
}

// `chat.completions.stream()` + finalChatCompletion(): the SDK's own
// reassembly.  Only for streamed exchanges.
export async function runOpenAINodeStream({ url, name, body, lib = TODAY }) {
  const client = openaiClient(url, name, lib);
  const { stream: _ignored, ...params } = requestParams(body);
  try {
    const runner = client.chat.completions.stream(params);
    runner.on('error', () => {}); // the rejection of finalChatCompletion() reports it
    const final = await runner.finalChatCompletion();
    const list = Array.isArray(final?.choices) ? final.choices : [];
    return { kind: 'answer', choices: list.map(openaiChoiceView) };
  } catch (e) {
    return errorOf(e);
  }
}

// ---- ai SDK ---------------------------------------------------------------

// ModelMessages from the recorded chat messages: text carried over, tool
// calls and results mapped, images replaced by text (the SDK would fetch
// an image URL itself, and nothing here may reach the network).
function aiMessages(messages) {
  const names = new Map(); // tool_call_id -> function name, for tool results
  const out = [];
  for (const m of messages) {
    const role = m?.role;
    if (role === 'system' || role === 'developer') out.push({ role: 'system', content: textOf(m.content) });
    else if (role === 'assistant') {
      const parts = [];
      const text = textOf(m.content);
      if (text) parts.push({ type: 'text', text });
      for (const tc of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
        const id = tc?.id ?? `call_${names.size}`;
        names.set(id, tc?.function?.name ?? 'tool');
        let input = {};
        try { input = JSON.parse(tc?.function?.arguments ?? '{}'); } catch { /* keep {} */ }
        parts.push({ type: 'tool-call', toolCallId: id, toolName: tc?.function?.name ?? 'tool', input });
      }
      out.push({ role: 'assistant', content: parts.length ? parts : '' });
    } else if (role === 'tool') {
      const id = m.tool_call_id ?? 'call_0';
      out.push({
        role: 'tool',
        content: [{
          type: 'tool-result', toolCallId: id, toolName: names.get(id) ?? 'tool',
          output: { type: 'text', value: textOf(m.content) },
        }],
      });
    } else out.push({ role: 'user', content: textOf(m?.content) || 'x' });
  }
  return out.length ? out : [{ role: 'user', content: 'x' }];
}

// The request's tools, each with an execute stub, so that the SDK parses
// every call and runs it as an application's tool would be run.
function aiTools(p, executed, lib) {
  const tools = {};
  for (const t of functionTools(p)) {
    const schema = t.function.parameters && typeof t.function.parameters === 'object'
      ? t.function.parameters : { type: 'object', properties: {} };
    tools[t.function.name] = {
      description: t.function.description,
      inputSchema: lib.jsonSchema(schema),
      execute: async (input) => { executed.push({ name: t.function.name, input }); return 'ok'; },
    };
  }
  return Object.keys(tools).length ? tools : undefined;
}

function aiToolChoice(tc) {
  if (tc === 'auto' || tc === 'none' || tc === 'required') return tc;
  if (tc && typeof tc === 'object' && typeof tc.function?.name === 'string') {
    return { type: 'tool', toolName: tc.function.name };
  }
  return undefined;
}

function aiCallView(tc) {
  return {
    id: tc.toolCallId ?? null, name: tc.toolName ?? null, args: tc.input,
    invalid: tc.invalid === true,
  };
}

export async function runAiSdk({ url, name, body, lib = TODAY }) {
  const p = requestParams(body);
  const provider = lib.createOpenAICompatible({
    name: 'oacheck', baseURL: `${url}/v1`, apiKey: API_KEY, headers: { 'X-Oacheck-Case': name },
    fetch: FETCH,
  });
  const executed = [];
  const common = {
    model: provider.chatModel(p.model),
    messages: aiMessages(p.messages),
    tools: aiTools(p, executed, lib),
    toolChoice: aiToolChoice(p.tool_choice),
    maxOutputTokens: Number.isInteger(p.max_tokens) ? p.max_tokens
      : Number.isInteger(p.max_completion_tokens) ? p.max_completion_tokens : undefined,
    temperature: typeof p.temperature === 'number' ? p.temperature : undefined,
    seed: Number.isInteger(p.seed) ? p.seed : undefined,
    maxRetries: 0,
    abortSignal: AbortSignal.timeout(TIMEOUT_MS),
    allowSystemInMessages: true, // the recorded conversation has them; no warning per call
  };
  const extra = { tools_executed: executed.length };
  try {
    if (p.stream) {
      // streamText does not throw: errors arrive as `error` parts of the
      // stream (and through onError).  They are what the application sees.
      const errors = [];
      const result = lib.streamText({ ...common, onError: () => {} });
      for await (const part of result.fullStream) if (part.type === 'error') errors.push(part.error);
      extra.tools_executed = executed.length;
      if (errors.length) return { ...errorOf(errors[0]), ...inbandError(errors[0]), extra };
      const text = await result.text;
      const calls = await result.toolCalls;
      const finish = await result.finishReason;
      const reasoning = (await result.reasoningText) ?? '';
      return {
        kind: 'answer',
        choices: [{ index: 0, role: null, content: text, refusal: null, reasoning, tool_calls: calls.map(aiCallView), finish_reason: finish }],
        extra,
      };
    }
    // Structured output where the request asked for it: the application
    // reads `output` (ai 7; `experimental_output` in ai 5), which is where
    // the SDK's own checks bite.  Streamed requests are driven without it,
    // as before (what an application streaming text does).
    const rf = responseFormatOf(p);
    const output = rf ? lib.Output.object({ schema: lib.jsonSchema(rf.type === 'json_schema' ? rf.schema : { type: 'object' }) }) : undefined;
    const result = await lib.generateText({ ...common, [lib.outputKey]: output });
    const content = result.text;
    const calls = result.toolCalls;
    const finish = result.finishReason;
    const reasoning = result.reasoningText ?? '';
    if (output) extra.output = result[lib.outputKey]; // throws as the application would see it
    extra.tools_executed = executed.length;
    return {
      kind: 'answer',
      choices: [{ index: 0, role: null, content, refusal: null, reasoning, tool_calls: calls.map(aiCallView), finish_reason: finish }],
      extra,
    };
  } catch (e) {
    extra.tools_executed = executed.length;
    return { ...errorOf(e), extra };
  }
}

// An error part of the ai SDK's stream may be the server's error object as
// it arrived in-band ({message, type, code}), not an Error.
function inbandError(e) {
  if (e && !(e instanceof Error) && typeof e === 'object') {
    return { name: 'in-band error object', message: typeof e.message === 'string' ? e.message : JSON.stringify(e) };
  }
  return {};
}

// ---- LangChain ------------------------------------------------------------

function lcMessages(messages, lib) {
  const { AIMessage, HumanMessage, SystemMessage, ToolMessage, ChatMessage } = lib;
  const out = [];
  for (const m of messages) {
    const text = textOf(m?.content);
    switch (m?.role) {
      case 'system': case 'developer': out.push(new SystemMessage(text)); break;
      case 'user': out.push(new HumanMessage(text || 'x')); break;
      case 'assistant': {
        const tool_calls = (Array.isArray(m.tool_calls) ? m.tool_calls : []).map((tc, i) => {
          let args = {};
          try { args = JSON.parse(tc?.function?.arguments ?? '{}'); } catch { /* keep {} */ }
          return { id: tc?.id ?? `call_${i}`, name: tc?.function?.name ?? 'tool', args, type: 'tool_call' };
        });
        out.push(new AIMessage({ content: text, tool_calls }));
        break;
      }
      case 'tool': out.push(new ToolMessage({ content: text, tool_call_id: m.tool_call_id ?? 'call_0' })); break;
      default: out.push(new ChatMessage(text || 'x', String(m?.role ?? 'user')));
    }
  }
  return out.length ? out : [new HumanMessage('x')];
}

function lcRole(msg) {
  const t = typeof msg?._getType === 'function' ? msg._getType() : null;
  if (t === 'ai' || t === 'AIMessageChunk') return 'assistant';
  if (t === 'generic') return msg.role ?? null;
  return t;
}

// LangChain keeps parsed calls in tool_calls and the rest in
// invalid_tool_calls; both reach the application, so both are reported.
function lcView(msg) {
  const calls = [
    ...(msg?.tool_calls ?? []).map((c) => ({ id: c.id ?? null, name: c.name ?? null, args: c.args, invalid: false })),
    ...(msg?.invalid_tool_calls ?? []).map((c) => ({
      id: c.id ?? null, name: c.name ?? null, arguments: c.args ?? null, invalid: true, error: c.error ?? null,
    })),
  ];
  return {
    index: 0,
    role: lcRole(msg),
    content: textOf(msg?.content),
    refusal: msg?.additional_kwargs?.refusal ?? null,
    reasoning: typeof msg?.additional_kwargs?.reasoning_content === 'string' ? msg.additional_kwargs.reasoning_content : '',
    tool_calls: calls,
    finish_reason: msg?.response_metadata?.finish_reason ?? null,
  };
}

// defaultRetries: leave LangChain's own retry count (for client-retries.sh);
// everywhere else retries are off.
export function langchainModel({ url, name, body, defaultRetries = false, lib = TODAY }) {
  const p = requestParams(body);
  const fields = {
    model: p.model, apiKey: API_KEY, timeout: TIMEOUT_MS,
    configuration: { baseURL: `${url}/v1`, defaultHeaders: { 'X-Oacheck-Case': name }, fetch: FETCH },
    n: Number.isInteger(p.n) ? p.n : undefined,
    maxTokens: Number.isInteger(p.max_tokens) ? p.max_tokens : undefined,
    temperature: typeof p.temperature === 'number' ? p.temperature : undefined,
  };
  if (!defaultRetries) fields.maxRetries = 0;
  const llm = new lib.ChatOpenAI(fields);
  const tools = functionTools(p);
  const model = tools.length
    ? llm.bindTools(tools, p.tool_choice !== undefined ? { tool_choice: p.tool_choice } : {})
    : llm;
  // Only an OpenAI-shaped response_format: LangChain's API takes that one
  // (TGI's {"type":"json_schema","value":…} is not something an application
  // written against it would pass).
  const options = {};
  const rf = responseFormatOf(p);
  if (rf) options.response_format = p.response_format;
  return { model, messages: lcMessages(p.messages, lib), options, stream: !!p.stream };
}

export async function runLangChain(args) {
  try {
    const { model, messages, options, stream } = langchainModel(args);
    if (stream) {
      let acc = null;
      for await (const chunk of await model.stream(messages, options)) acc = acc ? acc.concat(chunk) : chunk;
      return { kind: 'answer', choices: [lcView(acc)] };
    }
    return { kind: 'answer', choices: [lcView(await model.invoke(messages, options))] };
  } catch (e) {
    return errorOf(e);
  }
}

// ---- OpenAI Agents SDK, Chat Completions model ----------------------------

// One agent with the request's function tools (each a stub that returns
// "ok"), on OpenAIChatCompletionsModel over an openai-node client, run once
// with Runner.run (streamed when the request was).  The run stops at the
// first tool call (toolUseBehavior 'stop_on_first_tool') and allows one
// turn: an answer the SDK takes for "not final" (no text, no tool call)
// ends in MaxTurnsExceededError after that one request, where an
// application with the default 10 turns would ask the same server again.
// What the application holds: the run's new items — the message text,
// the function calls (arguments as the tool received them), the
// reasoning item's text.
export async function runAgentsChat({ url, name, body }) {
  const p = requestParams(body);
  const executed = [];
  const tools = functionTools(p).map((t) => tool({
    name: t.function.name,
    description: t.function.description ?? t.function.name,
    parameters: t.function.parameters && typeof t.function.parameters === 'object'
      ? { type: 'object', properties: {}, ...t.function.parameters, additionalProperties: true }
      : { type: 'object', properties: {}, required: [], additionalProperties: true },
    strict: false,
    execute: async (input) => { executed.push({ name: t.function.name, input }); return 'ok'; },
  }));
  const system = p.messages.filter((m) => m?.role === 'system' || m?.role === 'developer').map((m) => textOf(m.content)).join('\n');
  const input = p.messages.filter((m) => m?.role === 'user').map((m) => ({ role: 'user', content: textOf(m.content) || 'x' }));
  const agent = new Agent({
    name: 'oacheck',
    instructions: system || undefined,
    model: new OpenAIChatCompletionsModel(openaiClient(url, name), p.model),
    tools,
    toolUseBehavior: 'stop_on_first_tool',
    modelSettings: {
      maxTokens: Number.isInteger(p.max_tokens) ? p.max_tokens : undefined,
      temperature: typeof p.temperature === 'number' ? p.temperature : undefined,
    },
  });
  const runner = new Runner({ tracingDisabled: true });
  const extra = { tools_executed: 0 };
  try {
    const opts = { maxTurns: 1 };
    let result;
    if (p.stream) {
      result = await runner.run(agent, input.length ? input : 'x', { ...opts, stream: true });
      for await (const _ev of result) { /* consumed as an application does */ }
      await result.completed;
      if (result.error) throw result.error;
    } else {
      result = await runner.run(agent, input.length ? input : 'x', opts);
    }
    extra.tools_executed = executed.length;
    let content = '';
    let reasoning = '';
    const calls = [];
    for (const item of result.newItems ?? []) {
      const raw = item.rawItem ?? {};
      if (item.type === 'message_output_item') {
        for (const c of raw.content ?? []) if (c?.type === 'output_text') content += c.text ?? '';
      } else if (item.type === 'tool_call_item' && raw.type === 'function_call') {
        calls.push({ id: raw.callId || null, name: raw.name ?? null, arguments: raw.arguments ?? '' });
      } else if (item.type === 'reasoning_item') {
        for (const c of raw.rawContent ?? []) if (c?.type === 'reasoning_text') reasoning += c.text ?? '';
      }
    }
    return {
      kind: 'answer',
      choices: [{ index: 0, role: null, content, refusal: null, reasoning, tool_calls: calls, finish_reason: null }],
      extra,
    };
  } catch (e) {
    extra.tools_executed = executed.length;
    return { ...errorOf(e), extra };
  }
}

// The same drivers on last year's majors.
const previous = (run) => (args) => run({ ...args, lib: PREVIOUS });

export const DRIVERS = {
  'openai-node': runOpenAINode,
  'openai-node-stream': runOpenAINodeStream,
  'ai-sdk': runAiSdk,
  langchain: runLangChain,
  'openai-agents-chat': runAgentsChat,
  'openai-node@6': previous(runOpenAINode),
  'openai-node-stream@6': previous(runOpenAINodeStream),
  'ai-sdk@5': previous(runAiSdk),
  'langchain@0.6': previous(runLangChain),
};
