// openai-client.mjs — the official openai-node SDK (v6) against `oacheck
// serve`: what the SDK reassembles from a replayed stream must equal what
// the recording says.  Usage: node openai-client.mjs BASE_URL NODE_DIR
// (NODE_DIR holds node_modules/openai; nothing is downloaded).  Exits 1
// with a message on the first mismatch.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [base, nodeDir] = process.argv.slice(2);
if (!base || !nodeDir) {
  console.error('usage: node openai-client.mjs BASE_URL NODE_DIR');
  process.exit(2);
}
const { default: OpenAI } = await import(
  pathToFileURL(join(nodeDir, 'node_modules', 'openai', 'index.mjs')).href);

function check(ok, what, got, want) {
  if (!ok) {
    console.error(`FAIL: ${what}\n  got:  ${JSON.stringify(got)}\n  want: ${JSON.stringify(want)}`);
    process.exit(1);
  }
  console.log(`ok - ${what}`);
}

// The recording itself, fetched raw (by name) so the test knows what the
// SDK should make of it.
async function recorded(name) {
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST', headers: { 'X-Oacheck-Case': name }, body: '{}',
  });
  if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status}`);
  return await res.text();
}

// data: payloads of an SSE body, as JSON (the [DONE] marker left out).
function events(text) {
  return text.split(/\r?\n\r?\n/)
    .map((e) => e.split(/\r?\n/).filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, '')).join('\n'))
    .filter((d) => d && d !== '[DONE]')
    .map((d) => JSON.parse(d));
}

const client = new OpenAI({ apiKey: 'sk-oacheck-test', baseURL: `${base}/v1`, maxRetries: 0 });

// 1. chat-stream, matched by its request body: the SDK sends the recorded
//    request's members (in its own order and spacing), which the server
//    matches in canonical form.
{
  const raw = await recorded('chat-stream');
  const want = events(raw).map((c) => c.choices?.[0]?.delta?.content ?? '').join('');
  check(want.length > 0, 'the chat-stream recording has content deltas', want.length, '> 0');
  const stream = await client.chat.completions.create({
    model: 'tiny-random.gguf',
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Say hello.' },
    ],
    temperature: 0, seed: 42, max_tokens: 16, stream: true,
  });
  let text = '';
  let finish = null;
  let chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    text += chunk.choices[0]?.delta?.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  check(text === want, 'streamed text equals the concatenated deltas of the recording', text, want);
  check(chunks === 18, 'the SDK saw 18 chunks ([DONE] ends the stream)', chunks, 18);
  check(finish === 'length', 'finish_reason length', finish, 'length');
}

// 2. A streamed tool call, selected by name through per-request headers,
//    reassembled by the SDK's stream helper.
{
  const plain = JSON.parse(await recorded('tools-required-steered'));
  const wantArgs = plain.choices[0].message.tool_calls[0].function.arguments;
  const runner = client.chat.completions.stream({
    model: 'tiny-random.gguf',
    messages: [{ role: 'user', content: 'What is the weather in Paris in celsius?' }],
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    tool_choice: 'required',
  }, { headers: { 'X-Oacheck-Case': 'tools-required-steered-stream' } });
  const final = await runner.finalChatCompletion();
  const call = final.choices[0].message.tool_calls?.[0];
  check(call?.function?.name === 'get_weather', 'tool call name is get_weather',
    call?.function?.name, 'get_weather');
  check(call?.function?.arguments === wantArgs,
    "streamed arguments equal the non-streamed recording's arguments string",
    call?.function?.arguments, wantArgs);
  check(final.choices[0].finish_reason === 'tool_calls', 'finish_reason tool_calls',
    final.choices[0].finish_reason, 'tool_calls');
  check(final.choices[0].message.tool_calls.length === 1, 'exactly one tool call',
    final.choices[0].message.tool_calls.length, 1);
}

// 3. The same client through defaultHeaders, and a miss: the SDK surfaces
//    the 404 as a NotFoundError carrying the server's message.
{
  const named = new OpenAI({
    apiKey: 'sk-oacheck-test', baseURL: `${base}/v1`, maxRetries: 0,
    defaultHeaders: { 'X-Oacheck-Case': 'chat-stream.wire' },
  });
  let n = 0;
  for await (const chunk of await named.chat.completions.create({
    model: 'x', messages: [], stream: true,
  })) {
    n += chunk.choices.length ? 1 : 0;
  }
  check(n === 18, 'defaultHeaders select chat-stream.wire (18 chunks)', n, 18);
  let err = null;
  try {
    await client.chat.completions.create({ model: 'never-recorded', messages: [] });
  } catch (e) {
    err = e;
  }
  check(err instanceof OpenAI.NotFoundError, 'an unrecorded request is a NotFoundError',
    err?.constructor?.name, 'NotFoundError');
  check(err.code === 'not_recorded' && err.type === 'not_found_error',
    'its code is not_recorded, its type not_found_error', [err.code, err.type],
    ['not_recorded', 'not_found_error']);
}
